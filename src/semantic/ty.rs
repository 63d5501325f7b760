//! Semantic types and the parser of type texts (`const sycl::accessor<T, 1>&`, `double*[4]`).
//! Names are handed to a resolver, so the same parser serves workspace classes, aliases and
//! template parameters.

use std::fmt;
use std::sync::Arc;

pub use crate::syntax::FloatLit as FloatKind;

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ty {
    Unknown,
    Void,
    Bool,
    Int {
        bytes: u8,
        signed: bool,
        /// [basic.fundamental]/2: `long long` is a type of its own, distinct from `long` of
        /// the same width (`f(unsigned long long *)` and `f(size_t *)` are two instances).
        long_long: bool,
    },
    Float(FloatKindOrd),
    Ptr(Arc<Ty>),
    Ref(Arc<Ty>),
    Array(Arc<Ty>),
    Class(Arc<ClassTy>),
    /// An unbound template parameter.
    Param(Arc<str>),
    /// A non-type template argument's value.
    Value(i64),
    /// A lambda's closure: its function (file, index) and the substitution it was made under.
    Closure(u32, u32, Arc<[Ty]>),
    /// The arguments bound to a template parameter pack, or the types of a function parameter
    /// pack's elements.
    Pack(Arc<[Ty]>),
}

const SUBSTITUTION_FAILURE: &str = "<substitution failure>";

/// `FloatKind` with an order, for use in sorted keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FloatKindOrd {
    Half,
    Float,
    Double,
    LongDouble,
}

impl From<FloatKind> for FloatKindOrd {
    fn from(k: FloatKind) -> Self {
        match k {
            FloatKind::Half => Self::Half,
            FloatKind::Float => Self::Float,
            FloatKind::Double => Self::Double,
            FloatKind::LongDouble => Self::LongDouble,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ClassTy {
    /// Qualified as declared for a workspace class (`ns::S`), as written otherwise.
    pub name: String,
    pub args: Vec<Ty>,
    /// The declaring (file, class index) when the class is in the workspace.
    pub decl: Option<(u32, u32)>,
}

impl ClassTy {
    pub fn last(&self) -> &str {
        self.name.rsplit("::").next().unwrap_or(&self.name)
    }
}

pub const INT: Ty = Ty::Int {
    bytes: 4,
    signed: true,
    long_long: false,
};
/// `unsigned long`: what `size_t` is on Linux x86_64 and spir64 (DPC++'s headers take it from
/// the host's `<cstddef>`).
pub const SIZE_T: Ty = Ty::Int {
    bytes: 8,
    signed: false,
    long_long: false,
};
pub const DOUBLE: Ty = Ty::Float(FloatKindOrd::Double);
pub const FLOAT: Ty = Ty::Float(FloatKindOrd::Float);
pub const HALF: Ty = Ty::Float(FloatKindOrd::Half);

impl Ty {
    pub fn class(name: impl Into<String>, args: Vec<Ty>) -> Ty {
        Ty::Class(Arc::new(ClassTy {
            name: name.into(),
            args,
            decl: None,
        }))
    }

    /// Without references.
    pub fn strip_ref(&self) -> &Ty {
        match self {
            Ty::Ref(t) => t.strip_ref(),
            t => t,
        }
    }

    /// What a type that cannot be formed names ([temp.deduct]/8: `enable_if_t<false>`):
    /// a candidate whose signature needs it is not viable.
    pub fn substitution_failure() -> Ty {
        Ty::Param(Arc::from(SUBSTITUTION_FAILURE))
    }

    pub fn is_substitution_failure(&self) -> bool {
        matches!(self, Ty::Param(p) if &**p == SUBSTITUTION_FAILURE)
    }

    pub fn is_known(&self) -> bool {
        !matches!(self.strip_ref(), Ty::Unknown)
    }

    pub fn is_arithmetic(&self) -> bool {
        matches!(self.strip_ref(), Ty::Bool | Ty::Int { .. } | Ty::Float(_))
    }

    /// Whether the type mentions an unbound template parameter.
    pub fn is_dependent(&self) -> bool {
        match self {
            Ty::Param(_) => true,
            Ty::Ptr(t) | Ty::Ref(t) | Ty::Array(t) => t.is_dependent(),
            Ty::Class(c) => c.args.iter().any(Ty::is_dependent),
            Ty::Closure(_, _, s) | Ty::Pack(s) => s.iter().any(Ty::is_dependent),
            _ => false,
        }
    }

    /// Whether it names nothing unknown (every part known and bound).
    pub fn is_concrete(&self) -> bool {
        match self {
            Ty::Unknown | Ty::Param(_) => false,
            Ty::Ptr(t) | Ty::Ref(t) | Ty::Array(t) => t.is_concrete(),
            Ty::Class(c) => c.args.iter().all(Ty::is_concrete),
            Ty::Pack(xs) => xs.iter().all(Ty::is_concrete),
            _ => true,
        }
    }

    /// Size in bytes on the 64-bit device targets, when it is a scalar or pointer.
    pub fn scalar_size(&self) -> Option<u32> {
        match self.strip_ref() {
            Ty::Bool => Some(1),
            Ty::Int { bytes, .. } => Some(*bytes as u32),
            Ty::Float(FloatKindOrd::Half) => Some(2),
            Ty::Float(FloatKindOrd::Float) => Some(4),
            Ty::Float(FloatKindOrd::Double) => Some(8),
            Ty::Float(FloatKindOrd::LongDouble) => Some(16),
            Ty::Ptr(_) => Some(8),
            _ => None,
        }
    }

    /// The usual arithmetic conversions of two operands.
    pub fn common(a: &Ty, b: &Ty) -> Ty {
        let (a, b) = (a.strip_ref(), b.strip_ref());
        match (a, b) {
            (Ty::Float(x), Ty::Float(y)) => Ty::Float(*x.max(y)),
            (Ty::Float(x), Ty::Int { .. } | Ty::Bool)
            | (Ty::Int { .. } | Ty::Bool, Ty::Float(x)) => Ty::Float(*x),
            (
                Ty::Int {
                    bytes: x,
                    signed: sx,
                    long_long: lx,
                },
                Ty::Int {
                    bytes: y,
                    signed: sy,
                    long_long: ly,
                },
            ) => {
                let bytes = (*x).max(*y).max(4);
                let signed = if x == y {
                    *sx && *sy
                } else if x > y {
                    *sx
                } else {
                    *sy
                };
                // [conv.arith]/1.5: of equal widths, `long long` has the greater rank.
                let long_long = (*lx && *x == bytes) || (*ly && *y == bytes);
                Ty::Int {
                    bytes,
                    signed,
                    long_long,
                }
            }
            (Ty::Bool, t @ Ty::Int { .. }) | (t @ Ty::Int { .. }, Ty::Bool) => Ty::common(t, t),
            (Ty::Bool, Ty::Bool) => INT,
            _ => Ty::Unknown,
        }
    }

    /// Integral promotion of one operand.
    pub fn promoted(&self) -> Ty {
        match self.strip_ref() {
            Ty::Bool => INT,
            t @ Ty::Int { .. } => Ty::common(t, t),
            t => t.clone(),
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Unknown => write!(f, "?"),
            Ty::Void => write!(f, "void"),
            Ty::Bool => write!(f, "bool"),
            Ty::Int {
                bytes,
                signed,
                long_long,
            } => {
                let base = match bytes {
                    1 => "char",
                    2 => "short",
                    4 => "int",
                    _ if *long_long => "long long",
                    _ => "long",
                };
                if *signed {
                    write!(f, "{base}")
                } else {
                    write!(f, "unsigned {base}")
                }
            }
            Ty::Float(k) => write!(
                f,
                "{}",
                match k {
                    FloatKindOrd::Half => "sycl::half",
                    FloatKindOrd::Float => "float",
                    FloatKindOrd::Double => "double",
                    FloatKindOrd::LongDouble => "long double",
                }
            ),
            Ty::Ptr(t) => write!(f, "{t}*"),
            Ty::Ref(t) => write!(f, "{t}&"),
            Ty::Array(t) => write!(f, "{t}[]"),
            Ty::Class(c) => {
                write!(f, "{}", c.name)?;
                if !c.args.is_empty() {
                    write!(f, "<{}>", Args(&c.args))?;
                }
                Ok(())
            }
            Ty::Pack(xs) => write!(f, "{}", Args(xs)),
            Ty::Param(p) => write!(f, "{p}"),
            Ty::Value(v) => write!(f, "{v}"),
            Ty::Closure(..) => write!(f, "(lambda)"),
        }
    }
}

/// Template arguments as C++ prints them: a pack's elements in its place, an empty pack
/// nowhere.
pub struct Args<'t>(pub &'t [Ty]);

impl std::fmt::Display for Args<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut first = true;
        let mut one = |f: &mut std::fmt::Formatter<'_>, t: &Ty| {
            let sep = if first { "" } else { ", " };
            first = false;
            write!(f, "{sep}{t}")
        };
        for a in self.0 {
            match a {
                Ty::Pack(xs) => {
                    for x in xs.iter() {
                        one(f, x)?;
                    }
                }
                a => one(f, a)?,
            }
        }
        Ok(())
    }
}

// ---- parsing type texts -------------------------------------------------------------------

/// A declarator modifier applied to a type; to a bound pack (`Args &&...args`), to each of its
/// elements ([temp.variadic]/5: the pattern `Args &&` is expanded once per element).
fn each_element(t: Ty, modify: &dyn Fn(Ty) -> Ty) -> Ty {
    match t {
        Ty::Pack(xs) => Ty::Pack(xs.iter().map(|x| modify(x.clone())).collect()),
        t => modify(t),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok<'a> {
    Ident(&'a str),
    Num(&'a str),
    Punct(&'a str),
}

fn tokens(text: &str) -> Vec<Tok<'_>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(&text[s..i]));
        } else if c.is_ascii_digit() {
            let s = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'\'') {
                i += 1;
            }
            out.push(Tok::Num(&text[s..i]));
        } else if text[i..].starts_with("::") || text[i..].starts_with("&&") {
            out.push(Tok::Punct(&text[i..i + 2]));
            i += 2;
        } else {
            let len = text[i..].chars().next().map_or(1, char::len_utf8);
            out.push(Tok::Punct(&text[i..i + len]));
            i += len;
        }
    }
    out
}

impl Parser<'_, '_> {
    /// Where the template argument starting here ends (its `,` or `>`).
    fn arg_end(&self) -> usize {
        // Angle brackets nest template argument lists only outside parentheses; inside them
        // `<` and `>` are comparisons (`enable_if_t<(sizeof(T) > 4)>`).
        let (mut angle, mut paren) = (0i32, 0i32);
        let mut i = self.at;
        while let Some(t) = self.toks.get(i) {
            match t {
                Tok::Punct("(" | "[") => paren += 1,
                Tok::Punct(")" | "]") => paren -= 1,
                _ if paren > 0 => {}
                // A shift, not a template argument list.
                Tok::Punct("<") if self.toks.get(i + 1) == Some(&Tok::Punct("<")) => i += 1,
                Tok::Punct("<") => angle += 1,
                Tok::Punct(">") if angle > 0 => angle -= 1,
                Tok::Punct(">" | ",") if angle == 0 => break,
                _ => {}
            }
            if paren < 0 {
                break;
            }
            i += 1;
        }
        i
    }

    fn eat2(&mut self, a: &str, b: &str) -> bool {
        if self.peek() == Some(Tok::Punct(a)) && self.toks.get(self.at + 1) == Some(&Tok::Punct(b))
        {
            self.at += 2;
            true
        } else {
            false
        }
    }

    fn const_or(&mut self) -> Option<i64> {
        let mut v = self.const_and();
        while self.eat2("|", "|") {
            let r = self.const_and();
            v = match (v, r) {
                (Some(a), _) | (_, Some(a)) if a != 0 => Some(1),
                (Some(_), Some(_)) => Some(0),
                _ => None,
            };
        }
        v
    }

    fn const_and(&mut self) -> Option<i64> {
        let mut v = self.const_bits(0);
        while self.eat("&&") {
            let r = self.const_bits(0);
            v = match (v, r) {
                (Some(0), _) | (_, Some(0)) => Some(0),
                (Some(_), Some(_)) => Some(1),
                _ => None,
            };
        }
        v
    }

    /// `|`, `^`, `&` (levels 0, 1, 2), each binding tighter than the one before.
    fn const_bits(&mut self, level: u8) -> Option<i64> {
        let next = |p: &mut Self| {
            if level == 2 {
                p.const_eq()
            } else {
                p.const_bits(level + 1)
            }
        };
        let op = ["|", "^", "&"][level as usize];
        let mut v = next(self);
        loop {
            let single = self.peek() == Some(Tok::Punct(op))
                && !matches!(self.toks.get(self.at + 1), Some(Tok::Punct(x)) if *x == op);
            if !single {
                return v;
            }
            self.at += 1;
            let r = next(self);
            v = v.zip(r).map(|(a, b)| match level {
                0 => a | b,
                1 => a ^ b,
                _ => a & b,
            });
        }
    }

    fn const_eq(&mut self) -> Option<i64> {
        let mut v = self.const_rel();
        loop {
            let op: fn(i64, i64) -> bool = if self.eat2("=", "=") {
                |a, b| a == b
            } else if self.eat2("!", "=") {
                |a, b| a != b
            } else {
                return v;
            };
            let r = self.const_rel();
            v = v.zip(r).map(|(a, b)| op(a, b) as i64);
        }
    }

    /// Relations; a bare `<` or `>` only inside parentheses, where it cannot end a template
    /// argument list.
    fn const_rel(&mut self) -> Option<i64> {
        let mut v = self.const_shift();
        loop {
            let op: fn(i64, i64) -> bool = if self.eat2("<", "=") {
                |a, b| a <= b
            } else if self.eat2(">", "=") {
                |a, b| a >= b
            } else if self.paren > 0 && self.at_single("<") {
                self.at += 1;
                |a, b| a < b
            } else if self.paren > 0 && self.at_single(">") {
                self.at += 1;
                |a, b| a > b
            } else {
                return v;
            };
            let r = self.const_shift();
            v = v.zip(r).map(|(a, b)| op(a, b) as i64);
        }
    }

    /// `p` not followed by another `<` / `>` (a shift) or `=`.
    fn at_single(&self, p: &str) -> bool {
        self.peek() == Some(Tok::Punct(p))
            && !matches!(self.toks.get(self.at + 1), Some(Tok::Punct(x)) if *x == p || *x == "=")
    }

    fn const_shift(&mut self) -> Option<i64> {
        let mut v = self.const_add();
        loop {
            let left = if self.eat2("<", "<") {
                true
            } else if self.paren > 0 && self.eat2(">", ">") {
                false
            } else {
                return v;
            };
            let r = self.const_add();
            v = v.zip(r).and_then(|(a, b)| {
                let b = u32::try_from(b).ok().filter(|b| *b < 63)?;
                Some(if left { a.checked_shl(b)? } else { a >> b })
            });
        }
    }

    fn const_add(&mut self) -> Option<i64> {
        let mut v = self.const_mul();
        loop {
            if self.eat("+") {
                let r = self.const_mul();
                v = v.zip(r).and_then(|(a, b)| a.checked_add(b));
            } else if self.eat("-") {
                let r = self.const_mul();
                v = v.zip(r).and_then(|(a, b)| a.checked_sub(b));
            } else {
                return v;
            }
        }
    }

    fn const_mul(&mut self) -> Option<i64> {
        let mut v = self.const_unary();
        loop {
            if self.eat("*") {
                let r = self.const_unary();
                v = v.zip(r).and_then(|(a, b)| a.checked_mul(b));
            } else if self.eat("/") {
                let r = self.const_unary();
                v = v.zip(r).and_then(|(a, b)| a.checked_div(b));
            } else if self.eat("%") {
                let r = self.const_unary();
                v = v.zip(r).and_then(|(a, b)| a.checked_rem(b));
            } else {
                return v;
            }
        }
    }

    fn const_unary(&mut self) -> Option<i64> {
        if self.eat("!") {
            return self.const_unary().map(|v| (v == 0) as i64);
        }
        if self.eat("-") {
            return self.const_unary().map(|v| -v);
        }
        if self.eat("+") {
            return self.const_unary();
        }
        if self.eat("~") {
            return self.const_unary().map(|v| !v);
        }
        match self.peek()? {
            Tok::Num(n) => {
                self.at += 1;
                parse_int(n)
            }
            Tok::Ident("true") => {
                self.at += 1;
                Some(1)
            }
            Tok::Ident("false") => {
                self.at += 1;
                Some(0)
            }
            Tok::Ident("sizeof") => {
                self.at += 1;
                if !self.eat("(") {
                    return None;
                }
                let t = self.ty();
                let size = t.scalar_size().map(i64::from);
                if !self.eat(")") {
                    return None;
                }
                size
            }
            Tok::Punct("(") => {
                self.at += 1;
                self.paren += 1;
                let v = self.const_or();
                self.paren -= 1;
                if !self.eat(")") {
                    return None;
                }
                v
            }
            Tok::Ident(_) | Tok::Punct("::") => match self.name() {
                Ty::Value(v) => Some(v),
                _ => None,
            },
            _ => None,
        }
    }
}

/// What the parser asks the resolver: a (possibly qualified) name with its template
/// arguments already resolved.
pub trait NameResolver {
    fn resolve(&mut self, path: &[&str], args: Vec<Ty>) -> Ty;
    /// A member of a class template specialisation: `Tr<half>::input_t` is `member` `input_t`
    /// (with its own `args`) of the class `class` with `class_args`.
    fn resolve_member(
        &mut self,
        class: &[&str],
        class_args: Vec<Ty>,
        member: &[&str],
        args: Vec<Ty>,
    ) -> Ty {
        let _ = class_args;
        let path: Vec<&str> = class.iter().chain(member).copied().collect();
        self.resolve(&path, args)
    }
    /// A member of a type already resolved: `type` of `A<T>::template rebind<U>`.
    fn member_of(&mut self, _ty: &Ty, _member: &[&str], _args: Vec<Ty>) -> Ty {
        Ty::Unknown
    }
    /// A non-type template argument written as a name (`N`, `dims`).
    fn value(&mut self, _name: &str) -> Ty {
        Ty::Unknown
    }
    /// The declared type of the variable `path` names, for `decltype(path)`.
    fn decltype_of(&mut self, _path: &[&str]) -> Ty {
        Ty::Unknown
    }
    /// What a call in an unevaluated operand gives (`decltype(std::declval<T>().run(x))`, a
    /// member call when `recv` is given): its result type, `Ty::substitution_failure()` when
    /// no function takes the arguments ([temp.deduct]/8), `Unknown` when that cannot be told.
    fn call(&mut self, _recv: Option<&Ty>, _path: &[&str], _explicit: Vec<Ty>, _args: &[Ty]) -> Ty {
        Ty::Unknown
    }
}

const BUILTIN_WORDS: [&str; 13] = [
    "unsigned", "signed", "short", "long", "int", "char", "float", "double", "bool", "void",
    "auto", "wchar_t", "_Float16",
];

/// Builtin integer typedefs of the standard library.
pub fn builtin_typedef(name: &str) -> Option<Ty> {
    let name = name.strip_prefix("std::").unwrap_or(name);
    let i = |bytes, signed| {
        Some(Ty::Int {
            bytes,
            signed,
            long_long: false,
        })
    };
    match name {
        "size_t" | "uintptr_t" | "uint64_t" | "uintmax_t" => i(8, false),
        "ssize_t" | "ptrdiff_t" | "intptr_t" | "int64_t" | "intmax_t" => i(8, true),
        "int32_t" => i(4, true),
        "uint32_t" => i(4, false),
        "int16_t" => i(2, true),
        "uint16_t" => i(2, false),
        "int8_t" => i(1, true),
        "uint8_t" | "byte" => i(1, false),
        "char16_t" => i(2, false),
        "char32_t" => i(4, false),
        _ => None,
    }
}

fn builtin(words: &[&str]) -> Ty {
    let has = |w: &str| words.contains(&w);
    let longs = words.iter().filter(|w| **w == "long").count();
    if has("void") {
        return Ty::Void;
    }
    if has("auto") {
        return Ty::Unknown;
    }
    if has("bool") {
        return Ty::Bool;
    }
    if has("double") {
        return Ty::Float(if longs > 0 {
            FloatKindOrd::LongDouble
        } else {
            FloatKindOrd::Double
        });
    }
    if has("float") {
        return FLOAT;
    }
    if has("_Float16") {
        return HALF;
    }
    let signed = !has("unsigned");
    let bytes = if has("char") {
        1
    } else if has("short") {
        2
    } else if has("wchar_t") {
        4
    } else if longs > 0 {
        8
    } else {
        4
    };
    Ty::Int {
        bytes,
        signed,
        long_long: longs > 1,
    }
}

struct Parser<'a, 'r> {
    toks: Vec<Tok<'a>>,
    at: usize,
    r: &'r mut dyn NameResolver,
    /// Open parentheses of a constant expression being read.
    paren: u32,
}

/// Parses a type text; names go to `r`. What it cannot read is `Unknown`.
pub fn parse_type(text: &str, r: &mut dyn NameResolver) -> Ty {
    let mut p = Parser {
        toks: tokens(text),
        at: 0,
        r,
        paren: 0,
    };
    p.ty()
}

/// The value of a constant expression written as a template argument (`(8)`, `1 << 3`,
/// `N + 1`, `sizeof(T) * 2`); names go to `r`. `None` unless all of it is read.
pub fn parse_const(text: &str, r: &mut dyn NameResolver) -> Option<i64> {
    let mut p = Parser {
        toks: tokens(text),
        at: 0,
        r,
        paren: 0,
    };
    let v = p.const_or()?;
    (p.at == p.toks.len()).then_some(v)
}

impl<'a> Parser<'a, '_> {
    fn peek(&self) -> Option<Tok<'a>> {
        self.toks.get(self.at).copied()
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.peek() == Some(Tok::Punct(p)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn ty(&mut self) -> Ty {
        let mut words = Vec::new();
        let mut base = None;
        while let Some(t) = self.peek() {
            match t {
                Tok::Ident(
                    "const" | "volatile" | "typename" | "struct" | "class" | "constexpr" | "static"
                    | "inline" | "mutable" | "enum" | "register" | "extern" | "thread_local",
                ) => self.at += 1,
                Tok::Ident(w) if BUILTIN_WORDS.contains(&w) => {
                    words.push(w);
                    self.at += 1;
                }
                Tok::Ident("decltype") => {
                    base = Some(self.decltype());
                    break;
                }
                Tok::Ident(_) | Tok::Punct("::") if words.is_empty() && base.is_none() => {
                    base = Some(self.name());
                }
                _ => break,
            }
        }
        let mut t = match base {
            Some(b) => b,
            None if !words.is_empty() => builtin(&words),
            None => Ty::Unknown,
        };
        // Declarator modifiers, left to right.
        loop {
            match self.peek() {
                Some(Tok::Punct("*")) => {
                    self.at += 1;
                    t = each_element(t, &|x| Ty::Ptr(Arc::new(x)));
                }
                Some(Tok::Punct("&" | "&&")) => {
                    self.at += 1;
                    t = each_element(t, &|x| Ty::Ref(Arc::new(x)));
                }
                Some(Tok::Punct("[")) => {
                    while let Some(x) = self.peek() {
                        self.at += 1;
                        if x == Tok::Punct("]") {
                            break;
                        }
                    }
                    t = Ty::Array(Arc::new(t));
                }
                Some(Tok::Ident("const" | "volatile" | "__restrict" | "__restrict__")) => {
                    self.at += 1
                }
                // `T (*)[N]`, `T (*name)[N]`, `T (&)[N]`: a pointer (reference) to what the
                // suffixes after the parentheses make of `T`.
                Some(Tok::Punct("("))
                    if matches!(
                        self.toks.get(self.at + 1),
                        Some(Tok::Punct("*" | "&" | "&&"))
                    ) =>
                {
                    let reference = self.toks.get(self.at + 1) != Some(&Tok::Punct("*"));
                    let mut at = self.at + 1;
                    while matches!(
                        self.toks.get(at),
                        Some(Tok::Punct("*" | "&" | "&&")) | Some(Tok::Ident(_))
                    ) {
                        at += 1;
                    }
                    if self.toks.get(at) != Some(&Tok::Punct(")")) {
                        break;
                    }
                    self.at = at + 1;
                    while self.peek() == Some(Tok::Punct("[")) {
                        while let Some(x) = self.peek() {
                            self.at += 1;
                            if x == Tok::Punct("]") {
                                break;
                            }
                        }
                        t = Ty::Array(Arc::new(t));
                    }
                    t = if reference {
                        Ty::Ref(Arc::new(t))
                    } else {
                        Ty::Ptr(Arc::new(t))
                    };
                }
                _ => break,
            }
        }
        t
    }

    /// `decltype(name)` of a variable (`decltype(props_64)`, a property list a functor template
    /// is instantiated with); any other operand is not typed here.
    fn decltype(&mut self) -> Ty {
        let start = self.at;
        self.skip_group();
        // `decltype ( ... )`: the tokens between the parentheses.
        if self.at < start + 3 || self.toks[self.at - 1] != Tok::Punct(")") {
            return Ty::Unknown;
        }
        let inner = &self.toks[start + 2..self.at - 1];
        // [expr.static.cast]/1: `decltype(static_cast<T>(e))` is `T`.
        if let [Tok::Ident("static_cast"), Tok::Punct("<"), ..] = inner {
            let end = self.at;
            self.at = start + 4;
            let t = self.ty();
            let closed = self.eat(">");
            self.at = end;
            return if closed { t } else { Ty::Unknown };
        }
        let mut path = Vec::new();
        for (i, t) in inner.iter().enumerate() {
            match (i % 2, t) {
                (0, Tok::Ident(w)) => path.push(*w),
                (1, Tok::Punct("::")) => {}
                _ => return self.operand(start + 2, self.at - 1),
            }
        }
        if path.is_empty() || inner.len() % 2 == 0 {
            return Ty::Unknown;
        }
        self.r.decltype_of(&path)
    }

    fn skip_group(&mut self) {
        self.at += 1;
        if !self.eat("(") {
            return;
        }
        let mut depth = 1;
        while let Some(t) = self.peek() {
            self.at += 1;
            match t {
                Tok::Punct("(") => depth += 1,
                Tok::Punct(")") => {
                    depth -= 1;
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    fn name(&mut self) -> Ty {
        let mut path: Vec<&'a str> = Vec::new();
        let mut args = Vec::new();
        // The last inner component with template arguments (`Tr<T>` of `Tr<T>::input_t`):
        // how many components it ends, and its arguments.
        let mut outer: Option<(usize, Vec<Ty>)> = None;
        // Once a second component has arguments (`A<T>::template rebind<U>::type`): the type
        // named up to it, and how many components it ends.
        let mut base: Option<(usize, Ty)> = None;
        self.eat("::");
        loop {
            match self.peek() {
                Some(Tok::Ident("template")) => {
                    self.at += 1;
                    continue;
                }
                Some(Tok::Ident(w)) => {
                    self.at += 1;
                    path.push(w);
                }
                _ => break,
            }
            if self.peek() == Some(Tok::Punct("<")) {
                self.at += 1;
                args = self.targs();
                // `enable_if<C, T>::type`, `is_same<A, B>::value`: read as the `_t` / `_v`
                // forms, whose arguments the resolver evaluates.
                let w = *path.last().expect("pushed above");
                let member = match (self.peek(), self.toks.get(self.at + 1)) {
                    (Some(Tok::Punct("::")), Some(Tok::Ident(m))) => Some(*m),
                    _ => None,
                };
                let short = match member {
                    Some("type") if matches!(w, "enable_if" | "conditional") => Some("_t"),
                    Some("value") if w.starts_with("is_") => Some("_v"),
                    _ => None,
                };
                if let Some(suffix) = short {
                    self.at += 2;
                    let name = format!("{w}{suffix}");
                    let mut p: Vec<&str> = path[..path.len() - 1].to_vec();
                    p.push(&name);
                    return self.r.resolve(&p, args);
                }
            }
            if !self.eat("::") {
                break;
            }
            // Arguments of an inner component (`A<T>::type`) go with it.
            if !args.is_empty() {
                let own = std::mem::take(&mut args);
                match (&base, outer.take()) {
                    (Some((k, t)), _) => {
                        let t = self.r.member_of(t, &path[*k..], own);
                        base = Some((path.len(), t));
                    }
                    (None, Some((n, class_args))) => {
                        let t = self
                            .r
                            .resolve_member(&path[..n], class_args, &path[n..], own);
                        base = Some((path.len(), t));
                    }
                    (None, None) => outer = Some((path.len(), own)),
                }
            }
        }
        if let Some((k, t)) = base.filter(|(k, _)| *k < path.len()) {
            return self.r.member_of(&t, &path[k..], args);
        }
        if let Some((n, class_args)) = outer.filter(|(n, _)| *n < path.len()) {
            return self
                .r
                .resolve_member(&path[..n], class_args, &path[n..], args);
        }
        if path.len() == 1 && args.is_empty() {
            if let Some(t) = builtin_typedef(path[0]) {
                return t;
            }
        }
        if path.len() == 2 && path[0] == "std" && args.is_empty() {
            if let Some(t) = builtin_typedef(path[1]) {
                return t;
            }
        }
        self.r.resolve(&path, args)
    }

    fn targs(&mut self) -> Vec<Ty> {
        let mut out = Vec::new();
        loop {
            if self.eat(">") {
                return out;
            }
            if self.peek().is_none() {
                return out;
            }
            let start = self.at;
            let arg = match self.peek() {
                Some(Tok::Num(n)) => {
                    self.at += 1;
                    parse_int(n).map_or(Ty::Unknown, Ty::Value)
                }
                Some(Tok::Ident("true")) => {
                    self.at += 1;
                    Ty::Value(1)
                }
                Some(Tok::Ident("false")) => {
                    self.at += 1;
                    Ty::Value(0)
                }
                _ => {
                    let t = self.ty();
                    if self.at == start {
                        Ty::Unknown
                    } else {
                        t
                    }
                }
            };
            // [temp.variadic]/5: a pack expansion `Ts...` as an argument: the pack's elements
            // once it is bound, else the pattern `Ts...` (what deduction binds the pack from).
            let dots = (0..3).all(|k| self.toks.get(self.at + k) == Some(&Tok::Punct(".")));
            if dots
                && matches!(
                    self.toks.get(self.at + 3),
                    Some(Tok::Punct(">" | ",")) | None
                )
            {
                self.at += 3;
                match arg {
                    Ty::Pack(xs) => out.extend(xs.iter().cloned()),
                    Ty::Param(n) => out.push(Ty::Param(format!("{n}...").into())),
                    _ => out.push(Ty::Unknown),
                }
                self.eat(",");
                continue;
            }
            // A value argument that is an expression: evaluate it if it is a constant this
            // parser can read (`sizeof(T) == 8`, `std::is_same_v<T, double>`), else skip it.
            if !matches!(self.peek(), Some(Tok::Punct(">" | ",")) | None) {
                let end = self.arg_end();
                self.at = start;
                let v = self.const_or();
                // (`end > start`: an unmatched `)` ends the list without an argument; the loop
                // must move on.)
                if self.at == end && end > start {
                    out.push(v.map_or(Ty::Unknown, Ty::Value));
                    self.eat(",");
                    continue;
                }
                self.at = start;
            }
            let end = self.arg_end();
            let extra = end != self.at;
            self.at = end;
            out.push(if extra { Ty::Unknown } else { arg });
            if self.at == start {
                self.at += 1;
            }
            self.eat(",");
        }
    }
}

// ---- unevaluated operands (`decltype(e)`): their type, or whether they are valid ---------

/// Binary operators by precedence (higher binds tighter).
fn precedence(op: &str) -> Option<u8> {
    Some(match op {
        "*" | "/" | "%" => 10,
        "+" | "-" => 9,
        "<<" | ">>" => 8,
        "<" | ">" | "<=" | ">=" => 7,
        "==" | "!=" => 6,
        "&" => 5,
        "^" => 4,
        "|" => 3,
        "&&" => 2,
        "||" => 1,
        _ => return None,
    })
}

/// [temp.deduct]/8: an expression with an invalid part is invalid; one with a part the
/// analysis cannot tell is undecided (`Unknown`); else it has the type `then` gives.
fn both(a: &Ty, b: &Ty, then: impl FnOnce() -> Ty) -> Ty {
    if a.is_substitution_failure() || b.is_substitution_failure() {
        Ty::substitution_failure()
    } else if !a.is_known() || !b.is_known() {
        Ty::Unknown
    } else {
        then()
    }
}

/// A class declared in the workspace (its members and operators are known).
fn is_workspace_class(t: &Ty) -> bool {
    matches!(t.strip_ref(), Ty::Class(c) if c.decl.is_some())
}

/// The type of a built-in operator over known non-class operands; `Unknown` when it is none
/// of those this reads.
fn builtin_binary(op: &str, l: &Ty, r: &Ty) -> Ty {
    let (l, r) = (l.strip_ref(), r.strip_ref());
    match op {
        "&&" | "||" | "<" | ">" | "<=" | ">=" | "==" | "!=" => Ty::Bool,
        "<<" | ">>" if l.is_arithmetic() => l.promoted(),
        "+" | "-" if matches!(l, Ty::Ptr(_)) && matches!(r, Ty::Int { .. }) => l.clone(),
        "-" if matches!((l, r), (Ty::Ptr(_), Ty::Ptr(_))) => Ty::Int {
            bytes: 8,
            signed: true,
            long_long: false,
        },
        _ if l.is_arithmetic() && r.is_arithmetic() => Ty::common(l, r),
        _ => Ty::Unknown,
    }
}

impl<'a> Parser<'a, '_> {
    /// The type of the operand in tokens `from..end` (see `NameResolver::call`): a
    /// substitution failure when a call in it takes no function, `Unknown` when undecided.
    fn operand(&mut self, from: usize, end: usize) -> Ty {
        let saved = self.at;
        self.at = from;
        let t = self.op_comma(end);
        let whole = self.at == end;
        self.at = saved;
        match whole || t.is_substitution_failure() {
            true => t,
            false => Ty::Unknown,
        }
    }

    fn op_comma(&mut self, end: usize) -> Ty {
        let mut t = self.op_binary(end, 0);
        while self.at < end && self.eat(",") {
            let r = self.op_binary(end, 0);
            t = both(&t, &r, || r.clone());
        }
        t
    }

    /// The operator token at the cursor (`<<`, `&&`, `<=` are read as one).
    fn op_token(&self, end: usize) -> Option<(&'static str, usize)> {
        let one = |k: usize| match self.toks.get(self.at + k) {
            Some(Tok::Punct(p)) if self.at + k < end => Some(*p),
            _ => None,
        };
        let ops = [
            "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "*", "/", "%", "+", "-", "<", ">", "&",
            "^", "|",
        ];
        let (a, b) = (one(0)?, one(1));
        // `&&` is one token; the other two-character operators are two.
        ops.into_iter()
            .find_map(|op| match op.len() == 2 && op != "&&" {
                true => b
                    .is_some_and(|b| a.len() == 1 && format!("{a}{b}") == op)
                    .then_some((op, 2)),
                false => (a == op).then_some((op, 1)),
            })
    }

    fn op_binary(&mut self, end: usize, min: u8) -> Ty {
        let mut l = self.op_unary(end);
        while let Some((op, len)) = self.op_token(end) {
            let Some(p) = precedence(op).filter(|p| *p > min) else {
                break;
            };
            self.at += len;
            let r = self.op_binary(end, p);
            l = both(&l, &r, || {
                if is_workspace_class(&l) || is_workspace_class(&r) {
                    self.operator_call(op, &[l.clone(), r.clone()])
                } else {
                    builtin_binary(op, &l, &r)
                }
            });
        }
        l
    }

    /// [over.match.oper]: an operator on a workspace class calls a member `operator@` of the
    /// first operand or a free one; invalid when neither takes the operands.
    fn operator_call(&mut self, op: &str, operands: &[Ty]) -> Ty {
        let name = format!("operator{op}");
        let member = match operands[0].strip_ref() {
            t @ Ty::Class(_) => self.r.call(Some(t), &[&name], Vec::new(), &operands[1..]),
            _ => Ty::substitution_failure(),
        };
        if !member.is_substitution_failure() {
            return member;
        }
        self.r.call(None, &[&name], Vec::new(), operands)
    }

    fn op_unary(&mut self, end: usize) -> Ty {
        let Some(Tok::Punct(p)) = self.peek().filter(|_| self.at < end) else {
            return self.op_postfix(end);
        };
        if !matches!(p, "*" | "&" | "!" | "-" | "+" | "~") {
            return self.op_postfix(end);
        }
        self.at += 1;
        let t = self.op_unary(end);
        if t.is_substitution_failure() || !t.is_known() {
            return t;
        }
        match (p, t.strip_ref()) {
            ("&", x) => Ty::Ptr(Arc::new(x.clone())),
            ("*", Ty::Ptr(x) | Ty::Array(x)) => (**x).clone(),
            ("!", _) => Ty::Bool,
            (_, x) if is_workspace_class(x) => self.operator_call(p, std::slice::from_ref(x)),
            (_, x) if x.is_arithmetic() => x.promoted(),
            _ => Ty::Unknown,
        }
    }

    /// Arguments of a call up to its `)`, each an operand.
    fn op_args(&mut self, end: usize) -> Option<Vec<Ty>> {
        let mut out = Vec::new();
        if self.eat(")") {
            return Some(out);
        }
        while self.at < end {
            out.push(self.op_binary(end, 0));
            if self.eat(")") {
                return Some(out);
            }
            if !self.eat(",") {
                return None;
            }
        }
        None
    }

    fn op_postfix(&mut self, end: usize) -> Ty {
        let mut t = self.op_primary(end);
        while self.at < end {
            let arrow = self.peek() == Some(Tok::Punct("-"))
                && self.toks.get(self.at + 1) == Some(&Tok::Punct(">"));
            if !arrow && !self.eat(".") {
                break;
            }
            if arrow {
                self.at += 2;
            }
            self.eat_word("template");
            let Some(Tok::Ident(name)) = self.peek() else {
                return Ty::Unknown;
            };
            self.at += 1;
            let explicit = match self.eat("<") {
                true => self.targs(),
                false => Vec::new(),
            };
            if !self.eat("(") {
                // A data member: its type is not read here.
                return if t.is_substitution_failure() {
                    t
                } else {
                    Ty::Unknown
                };
            }
            let Some(args) = self.op_args(end) else {
                return Ty::Unknown;
            };
            let recv = match (arrow, t.strip_ref()) {
                (true, Ty::Ptr(x)) => (**x).clone(),
                (true, _) => Ty::Unknown,
                (false, x) => x.clone(),
            };
            let fail = args.iter().chain([&t]).any(Ty::is_substitution_failure);
            t = match (fail, recv.is_known() && !recv.is_dependent()) {
                (true, _) => Ty::substitution_failure(),
                (false, false) => Ty::Unknown,
                (false, true) => self.r.call(Some(&recv), &[name], explicit, &args),
            };
        }
        t
    }

    fn eat_word(&mut self, w: &str) -> bool {
        let here = self.peek() == Some(Tok::Ident(w));
        self.at += usize::from(here);
        here
    }

    fn op_primary(&mut self, end: usize) -> Ty {
        match self.peek().filter(|_| self.at < end) {
            Some(Tok::Punct("(")) => {
                self.at += 1;
                let t = self.op_comma(end);
                if !self.eat(")") {
                    return Ty::Unknown;
                }
                t
            }
            Some(Tok::Num(n)) => {
                self.at += 1;
                let float = n.contains('.') || (!n.starts_with("0x") && n.contains(['e', 'E']));
                match (float, n.ends_with(['f', 'F'])) {
                    (true, true) => FLOAT,
                    (true, false) => DOUBLE,
                    _ => INT,
                }
            }
            Some(Tok::Ident("true" | "false")) => {
                self.at += 1;
                Ty::Bool
            }
            Some(Tok::Ident("sizeof" | "alignof")) => {
                self.skip_group();
                SIZE_T
            }
            Some(Tok::Ident(w)) if BUILTIN_WORDS.contains(&w) => {
                // A functional cast (`void()`, `void(e)`, `int(x)`): its operand's validity.
                let t = self.ty();
                self.construction(t, end)
            }
            Some(Tok::Ident(_) | Tok::Punct("::")) => self.op_name(end),
            _ => Ty::Unknown,
        }
    }

    /// `T(args)` / `T{args}` of a type `t`: a value of `t` when its operands are valid.
    fn construction(&mut self, t: Ty, end: usize) -> Ty {
        let args = if self.eat("(") {
            self.op_args(end)
        } else if self.eat("{") {
            let mut depth = 1;
            while depth > 0 && self.at < end {
                match self.peek() {
                    Some(Tok::Punct("{")) => depth += 1,
                    Some(Tok::Punct("}")) => depth -= 1,
                    _ => {}
                }
                self.at += 1;
            }
            Some(Vec::new())
        } else {
            None
        };
        match args {
            Some(a) if a.iter().any(Ty::is_substitution_failure) => Ty::substitution_failure(),
            Some(_) => t,
            None => Ty::Unknown,
        }
    }

    /// A name in an operand: `std::declval<T>()` (a `T`), a call of a function, a
    /// construction of a type.
    fn op_name(&mut self, end: usize) -> Ty {
        let start = self.at;
        let mut path: Vec<&'a str> = Vec::new();
        self.eat("::");
        while let Some(Tok::Ident(w)) = self.peek() {
            self.at += 1;
            path.push(w);
            if self.peek() != Some(Tok::Punct("::")) {
                break;
            }
            self.at += 1;
        }
        let explicit = match self.peek() == Some(Tok::Punct("<")) {
            true => {
                self.at += 1;
                Some(self.targs())
            }
            false => None,
        };
        let declval = matches!(path[..], ["std", "declval"] | ["declval"]);
        match (declval, explicit.as_deref(), self.peek()) {
            (true, Some([t]), Some(Tok::Punct("("))) => {
                self.at += 1;
                match self.eat(")") {
                    true => t.clone(),
                    false => Ty::Unknown,
                }
            }
            (_, _, Some(Tok::Punct("(" | "{"))) => {
                // A type names a construction; anything else a function.
                let saved = self.at;
                self.at = start;
                let t = self.name();
                let is_type = matches!(&t, Ty::Class(c) if c.decl.is_some())
                    || t.is_arithmetic()
                    || (path.len() == 1 && matches!(t, Ty::Param(_)));
                self.at = saved;
                if is_type {
                    return self.construction(t, end);
                }
                if !self.eat("(") {
                    return Ty::Unknown;
                }
                let Some(args) = self.op_args(end) else {
                    return Ty::Unknown;
                };
                if args.iter().any(Ty::is_substitution_failure) {
                    return Ty::substitution_failure();
                }
                self.r
                    .call(None, &path, explicit.unwrap_or_default(), &args)
            }
            _ => Ty::Unknown,
        }
    }
}

fn parse_int(t: &str) -> Option<i64> {
    let t = t.replace('\'', "");
    let t = t.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()
    } else {
        t.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Plain;
    impl NameResolver for Plain {
        fn resolve(&mut self, path: &[&str], args: Vec<Ty>) -> Ty {
            match path {
                ["T"] => Ty::Param("T".into()),
                ["sycl", "half"] | ["half"] => HALF,
                _ => Ty::class(path.join("::"), args),
            }
        }
    }

    fn p(t: &str) -> String {
        parse_type(t, &mut Plain).to_string()
    }

    #[test]
    fn parses_builtins_modifiers_and_templates() {
        assert_eq!(p("const double*"), "double*");
        assert_eq!(p("unsigned long long int"), "unsigned long long");
        assert_eq!(p("unsigned long int"), "unsigned long");
        assert_eq!(p("long long"), "long long");
        assert_ne!(p("long long"), p("long"));
        assert_eq!(p("long double&"), "long double&");
        assert_eq!(p("std::size_t"), "unsigned long");
        assert_eq!(p("float*[4]"), "float*[]");
        assert_eq!(
            p("sycl::accessor<T, 1, sycl::access::mode::read>"),
            "sycl::accessor<T, 1, sycl::access::mode::read>"
        );
        assert_eq!(p("sycl::vec<sycl::half, 2>"), "sycl::vec<sycl::half, 2>");
        assert_eq!(p("A<B<double>>"), "A<B<double>>");
        assert_eq!(p("A<N + 1, T>"), "A<?, T>");
        assert_eq!(p("const double (*)[8]"), "double[]*");
        assert_eq!(p("A<(sizeof(T) > 4), T>"), "A<?, T>");
        assert_eq!(p("A<!std::is_same<int, float>::value, T>"), "A<?, T>");
        // An unbalanced text ends; it does not loop.
        assert!(p("A<x)>").starts_with("A<"));
        assert!(p("f<(1 < 2), )").starts_with("f<"));
        assert!(p("g<)").starts_with("g"));
        assert_eq!(p("auto"), "?");
        assert_eq!(p(""), "?");
    }
}
