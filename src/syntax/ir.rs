//! A function body lowered for typing: an arena of expressions with stable ids, the locals they
//! name, and the evaluated full-expressions in source order. Names are resolved to locals at
//! lowering (scopes are lexical); everything else (globals, members, calls, templates) is left
//! to the semantic layer, which types a body once per instantiation. Types are kept as
//! normalised text (`double*`, `sycl::accessor<T,1>`) and parsed there.

use crate::syntax::Name;
use serde::{Deserialize, Serialize};
use thin_vec::ThinVec;

use crate::text::Span;

pub type ExprId = u32;
pub type LocalId = u32;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Body {
    pub locals: ThinVec<LocalVar>,
    pub exprs: ThinVec<Expr>,
    /// One per expression.
    pub spans: ThinVec<Span>,
    /// Evaluated code in source order.
    pub stmts: ThinVec<Stmt>,
    /// For a lambda: the enclosing function (index in `FileFacts::functions`).
    pub parent: Option<u32>,
    /// Generic lambda or abbreviated template: `auto` parameters, by local id.
    pub auto_params: ThinVec<LocalId>,
    /// Type aliases declared in the body (`using U = ...;`, `typedef ... U;`), in order.
    #[serde(default)]
    pub aliases: ThinVec<BodyAlias>,
    /// The expressions' operand lists ([`List`] runs): one array per body, not one allocation
    /// per call.
    pub lists: ThinVec<ExprId>,
    /// The expressions' template arguments, as text ([`List`] runs).
    pub targs: ThinVec<Name>,
    /// Locals declared with a type and initialized (`float y = e;`): the value converted to
    /// the declared type (what a double computation may be narrowed for).
    #[serde(default)]
    pub inits: ThinVec<(LocalId, ExprId)>,
    /// Per `if constexpr`, in statement order: its true and false branches' ranges
    /// (`[then_start, then_end, else_start, else_end]`) in the preprocessed text, counted
    /// from the function's start as [`Call::out`](crate::syntax::facts::Call) is; which calls
    /// a discarded branch holds, even where they share their source positions.
    #[serde(default)]
    pub branches: ThinVec<[u32; 4]>,
}

/// A type alias declared in a body, and the part of the body that sees it
/// ([basic.scope.block]: from its declaration to the end of its block): the expressions and
/// locals lowered there, as id ranges (`[start, end)`; ids are given in source order). Two
/// blocks may each declare an alias of one name (`{ using T = float; } { using T = double; }`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BodyAlias {
    pub name: String,
    pub target: String,
    pub exprs: [u32; 2],
    pub locals: [u32; 2],
}

impl BodyAlias {
    /// Whether expression `e` (or, with `local`, local `e`) is in this alias's scope.
    pub fn sees(&self, e: u32, local: bool) -> bool {
        let [s, t] = if local { self.locals } else { self.exprs };
        s <= e && e < t
    }
}

/// A run of one of a body's side tables: the arguments of a call, the template arguments of
/// a name. Six bytes aligned to two, so that an expression with a name, an operand and a list
/// is 16 bytes. A run longer than `u16::MAX` (a huge initializer) keeps its first `u16::MAX`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct List {
    start: [u16; 2],
    len: u16,
}

impl List {
    fn new(start: usize, len: usize) -> List {
        let start = start as u32;
        List {
            start: [start as u16, (start >> 16) as u16],
            len: len.min(u16::MAX as usize) as u16,
        }
    }

    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    pub fn len(self) -> usize {
        self.len as usize
    }

    fn range(self) -> std::ops::Range<usize> {
        let start = self.start[0] as usize | (self.start[1] as usize) << 16;
        start..start + self.len as usize
    }
}

impl Body {
    /// The expressions of an operand list.
    pub fn list(&self, l: List) -> &[ExprId] {
        self.lists.get(l.range()).unwrap_or_default()
    }

    /// The texts of a template argument list.
    pub fn targs(&self, l: List) -> &[Name] {
        self.targs.get(l.range()).unwrap_or_default()
    }

    pub fn push_list(&mut self, ids: impl IntoIterator<Item = ExprId>) -> List {
        let start = self.lists.len();
        self.lists.extend(ids);
        List::new(start, self.lists.len() - start)
    }

    pub fn push_targs(&mut self, texts: impl IntoIterator<Item = Name>) -> List {
        let start = self.targs.len();
        self.targs.extend(texts);
        List::new(start, self.targs.len() - start)
    }

    /// Sub-expressions evaluated with `e`, in order. An iterator, not a vector: the typing
    /// and the aspect walk ask for the children of every expression.
    pub fn children<'b>(&'b self, e: &Expr) -> impl Iterator<Item = ExprId> + 'b {
        let none: &[ExprId] = &[];
        let (fixed, n, list): ([ExprId; 3], usize, &[ExprId]) = match *e {
            Expr::Member { base, .. } | Expr::MemberTemplate { base, .. } => {
                ([base, 0, 0], 1, none)
            }
            Expr::Index { base, index } => ([base, index, 0], 2, none),
            Expr::Unary { arg, .. } | Expr::Expand(arg) => ([arg, 0, 0], 1, none),
            Expr::Binary { lhs, rhs, .. } | Expr::Assign { lhs, rhs, .. } => {
                ([lhs, rhs, 0], 2, none)
            }
            Expr::Cond { cond, then, els } => ([cond, then, els], 3, none),
            Expr::Call { callee, args } => ([callee, 0, 0], 1, self.list(args)),
            Expr::Cast { args, .. }
            | Expr::New { args, .. }
            | Expr::InitList(args)
            | Expr::Unknown(args) => ([0; 3], 0, self.list(args)),
            _ => ([0; 3], 0, none),
        };
        fixed.into_iter().take(n).chain(list.iter().copied())
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Stmt {
    /// A full-expression evaluated here.
    Expr(ExprId),
    /// A local comes into existence here (its storage is a use of its type).
    Local(LocalId),
    /// A returned value.
    Return(ExprId),
    /// `if constexpr (cond)`: the next `then_len` statements form the true branch, the
    /// `else_len` after them the false one. Only the live one is code in an instantiation.
    IfConstexpr {
        cond: ExprId,
        then_len: u32,
        else_len: u32,
    },
}

/// Names and types interned: 28 bytes and no allocation a local.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalVar {
    pub name: Name,
    pub ty: LocalTy,
    pub span: Span,
    pub param: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LocalTy {
    /// As written, with declarator modifiers (`const float&`, `double*`, `int[4]`); may be
    /// `auto`, `auto&`, `auto*`.
    Declared(Name),
    /// `auto x = e` (any cv/ref form): the type of `e`, with the modifiers in the text.
    Auto(Name, ExprId),
    /// `decltype(e) x`.
    Decltype(ExprId),
    /// A class named without template arguments and initialized (`sycl::buffer b{p, r}`):
    /// its arguments may be deduced from the initializer's (CTAD).
    Deduced(Name, ExprId),
    /// `for (auto x : e)`: the element type of `e`.
    RangeElem(Name, ExprId),
    /// `auto [a, b] = e`: the n-th element of `e`.
    Binding(ExprId, u32),
    /// A capture: the local of the enclosing function's body.
    Outer(LocalId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FloatLit {
    Half,
    Float,
    Double,
    LongDouble,
}

/// The narrowest floating format that holds a literal's value exactly: what an optimiser may
/// narrow a double operation with it to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Exact {
    Half,
    Float,
    Wider,
}

/// An `i64` aligned to two bytes: an aligned one made every expression 8 bytes larger.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntValue([u16; 4]);

impl IntValue {
    pub fn get(self) -> i64 {
        let [a, b, c, d] = self.0.map(u64::from);
        (a | b << 16 | c << 32 | d << 48) as i64
    }
}

impl From<i64> for IntValue {
    fn from(v: i64) -> Self {
        let v = v as u64;
        IntValue([
            v as u16,
            (v >> 16) as u16,
            (v >> 32) as u16,
            (v >> 48) as u16,
        ])
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Lit {
    /// `longs`: 0, 1 or 2 `l` suffixes; `value` when it fits.
    Int {
        longs: u8,
        unsigned: bool,
        value: Option<IntValue>,
    },
    Float(FloatLit, Exact),
    Bool(bool),
    Char,
    Str,
    Null,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
    Deref,
    Addr,
    Inc,
    Dec,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    And,
    Or,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    Comma,
}

impl BinOp {
    pub fn from_text(op: &str) -> Option<Self> {
        Some(match op {
            "+" => Self::Add,
            "-" => Self::Sub,
            "*" => Self::Mul,
            "/" => Self::Div,
            "%" => Self::Rem,
            "<<" => Self::Shl,
            ">>" => Self::Shr,
            "&" => Self::BitAnd,
            "|" => Self::BitOr,
            "^" => Self::BitXor,
            "&&" | "and" => Self::And,
            "||" | "or" => Self::Or,
            "<" => Self::Lt,
            ">" => Self::Gt,
            "<=" => Self::Le,
            ">=" => Self::Ge,
            "==" => Self::Eq,
            "!=" | "not_eq" => Self::Ne,
            "," => Self::Comma,
            _ => return None,
        })
    }

    /// Arithmetic that runs in the operands' common type.
    pub fn is_arithmetic(self) -> bool {
        matches!(
            self,
            Self::Add | Self::Sub | Self::Mul | Self::Div | Self::Rem
        )
    }

    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            Self::Lt | Self::Gt | Self::Le | Self::Ge | Self::Eq | Self::Ne
        )
    }
}

/// Names are interned ([`Name`]) and operand lists are runs of the body's side tables: 16
/// bytes an expression, the largest part of the facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Expr {
    Lit(Lit),
    Local(LocalId),
    /// A name no local declares: a global, an enumerator, a function, a member of `this`.
    Name(Name),
    This,
    Member {
        base: ExprId,
        arrow: bool,
        name: Name,
    },
    Index {
        base: ExprId,
        index: ExprId,
    },
    Unary {
        op: UnOp,
        arg: ExprId,
    },
    Binary {
        op: BinOp,
        lhs: ExprId,
        rhs: ExprId,
    },
    /// `=` (op `None`) or a compound assignment.
    Assign {
        op: Option<BinOp>,
        lhs: ExprId,
        rhs: ExprId,
    },
    Cond {
        cond: ExprId,
        then: ExprId,
        els: ExprId,
    },
    /// The callee is a `Name`, `Member`, `TemplateName`, a local, or any expression.
    Call {
        callee: ExprId,
        args: List,
    },
    /// `f<A, B>` as written (names and template arguments as text).
    TemplateName {
        name: Name,
        targs: List,
    },
    /// `obj.template f<A>` / `obj.f<A>`.
    MemberTemplate {
        base: ExprId,
        arrow: bool,
        name: Name,
        targs: List,
    },
    /// Every explicit conversion: `static_cast<T>(e)`, `(T)e`, `T(e)`, `T{e}`, `T{}`; the
    /// construction of a class by name.
    Cast {
        ty: Name,
        args: List,
    },
    New {
        ty: Name,
        args: List,
    },
    /// A lambda: its function's index in `FileFacts::functions`.
    Lambda(u32),
    /// `{a, b}` without a type.
    InitList(List),
    /// `sizeof(T)` / `sizeof e`: no code, but a constant in `if constexpr`.
    SizeOf(Option<Name>),
    /// `sizeof(x)` of an expression: unevaluated, but its type gives a constant.
    SizeOfExpr(ExprId),
    /// `sizeof...(P)`: the length of a pack.
    SizeOfPack(Name),
    /// A pack expansion `pattern...` (in arguments and initializers) or one operand of a fold
    /// expression: the pattern once per element of the packs it names.
    Expand(ExprId),
    /// Evaluated children whose own type is unknown.
    Unknown(List),
}

/// A template parameter: `typename T = double`, `int N`, `class... Ts`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TParam {
    pub name: String,
    /// A type parameter (else a value).
    pub is_type: bool,
    pub default: Option<String>,
    /// A parameter pack (`class... Ts`, `int... Ns`).
    #[serde(default)]
    pub pack: bool,
    /// A value parameter's type when it can fail to form (`enable_if_t<C, int> = 0`): SFINAE.
    #[serde(default)]
    pub constraint: Option<String>,
}

/// A data member: name and type with declarator modifiers.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Field {
    pub name: String,
    pub ty: String,
    pub is_static: bool,
    /// A static member's initializer as written (`static constexpr bool value = true;`): a
    /// constant `if constexpr` and template arguments may read.
    #[serde(default)]
    pub init: Option<String>,
}

/// A variable at namespace scope.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Global {
    pub name: String,
    pub scope: Vec<String>,
    pub ty: String,
    /// The initializer of a `const` / `constexpr` variable, as written: a constant template
    /// arguments and array bounds may name.
    #[serde(default)]
    pub init: Option<String>,
    /// A variable template's parameters (`template <class T> constexpr bool v = X<T>::value;`).
    #[serde(default)]
    pub tparams: Vec<TParam>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sizes the facts' memory budget rests on (BENCHMARKS.md): a new variant or field
    /// that grows them should be a decision, not an accident.
    #[test]
    fn expressions_and_locals_stay_small() {
        assert_eq!(std::mem::size_of::<Expr>(), 16);
        assert_eq!(std::mem::size_of::<LocalVar>(), 28);
        // 80 since the initializers of declared locals (`inits`, for the -O2 narrowing rule),
        // 88 since the `if constexpr` branches' text ranges (`branches`): one pointer per body
        // each, nothing per expression.
        assert_eq!(std::mem::size_of::<Body>(), 88);
    }

    #[test]
    fn a_list_longer_than_its_length_field_keeps_its_first_entries() {
        let mut body = Body::default();
        let first = body.push_list([7, 8]);
        let long = body.push_list(0..70_000);
        assert_eq!(body.list(first), &[7, 8]);
        assert_eq!(long.len(), u16::MAX as usize);
        assert_eq!(body.list(long)[..3], [0, 1, 2]);
        let after = body.push_list([9]);
        assert_eq!(body.list(after), &[9]);
    }

    #[test]
    fn int_values_round_trip() {
        for v in [0, 1, -1, i64::MAX, i64::MIN, 1 << 40, -(1 << 33) + 7] {
            assert_eq!(IntValue::from(v).get(), v);
        }
    }
}
