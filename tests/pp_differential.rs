//! Differential test of `syntax::pp` against GNU `cpp`: generated programs (macros of every
//! kind, nested conditionals, `#if` arithmetic, `-D`/`-U`) must come out as the same token
//! sequence, and leave the same macros defined with the same replacements.
//!
//! The programs stay inside what the standard defines and GNU cpp and clang agree on, so a
//! difference is our bug. What is left out on purpose, and why:
//! - `, ## __VA_ARGS__` in a macro whose only parameter is `...`: GNU keeps the comma in
//!   `-std=c++17` and drops it in `-std=gnu++17`, so the answer depends on the mode.
//! - `defined` produced by a macro expansion inside `#if` (undefined behavior).
//! - `##` forming an invalid token, and `#` on a non-parameter (ill-formed).
//! - division by zero and shift counts out of range in `#if` (undefined behavior); signed
//!   overflow is kept, GNU only warns and wraps as we do.
//! - a function-like macro name reaching a `(` it was not written before (arity errors would
//!   depend on the expansion): such names are only ever followed by an operator or a comma.
//! - `__FILE__` (GNU names stdin `<stdin>`), `#elifdef` (C++23), `#include`, `__COUNTER__`
//!   (we answer 0).
//! - `__VA_OPT__` in a named variadic macro (`a, rest...`): GNU rejects it.
//!
//! `PP_DIFF_SEEDS=n` runs more programs.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::{Command, Stdio};
use std::sync::Arc;

use sycl_analyzer::syntax::pp::{preprocess, Macros, NoIncludes, Origin};

const CPP_FLAGS: &[&str] = &[
    "-P",
    "-E",
    "-undef",
    "-nostdinc",
    "-x",
    "c++",
    "-std=c++17",
    "-fdiagnostics-plain-output",
];

/// splitmix64: deterministic across platforms and Rust versions.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
    fn word(&mut self, xs: &[&'static str]) -> &'static str {
        xs[self.below(xs.len())]
    }
}

#[derive(Clone, Copy, Debug)]
enum Sig {
    /// `F()`
    Zero,
    /// `F(a)`
    One,
    /// `F(a, b)`
    Two,
    /// `F(a, ...)`
    Variadic,
    /// `F(...)`
    OnlyVariadic,
    /// `F(a, rest...)`, the GNU named form clang also takes.
    NamedVariadic,
}

/// A text function-like macro: its signature is fixed for the whole program, so every call
/// has the right number of arguments whatever is defined where.
#[derive(Clone, Copy)]
struct Func {
    name: &'static str,
    sig: Sig,
    /// Its body may paste parameters: its arguments are then words or empty, never
    /// punctuators or literals at their ends.
    pasty: bool,
}

impl Func {
    fn params(&self) -> Vec<&'static str> {
        match self.sig {
            Sig::Zero => vec![],
            Sig::One => vec!["a"],
            Sig::Two => vec!["a", "b"],
            Sig::Variadic => vec!["a", "__VA_ARGS__"],
            Sig::OnlyVariadic => vec!["__VA_ARGS__"],
            Sig::NamedVariadic => vec!["a", "rest"],
        }
    }
    fn head(&self) -> String {
        let p = match self.sig {
            Sig::Zero => "",
            Sig::One => "a",
            Sig::Two => "a, b",
            Sig::Variadic => "a, ...",
            Sig::OnlyVariadic => "...",
            Sig::NamedVariadic => "a, rest...",
        };
        format!("{}({p})", self.name)
    }
    fn variadic(&self) -> bool {
        matches!(
            self.sig,
            Sig::Variadic | Sig::OnlyVariadic | Sig::NamedVariadic
        )
    }
}

/// Object-like macros that are always integer expressions (usable in `#if`).
const NUMERIC: [&str; 4] = ["N1", "N2", "N3", "N4"];
/// Object-like macros of any text. `TT` and `T1` are also what pastes of `T`, `T`, `1` form.
const TEXT: [&str; 4] = ["T1", "T2", "TX", "TT"];
/// Never defined: 0 in `#if`, themselves in text.
const UNKNOWN: [&str; 4] = ["u", "v", "T", "X"];
/// Every name a program may define, for comparing the macros left at the end.
const DEFINABLE: [&str; 15] = [
    "N1", "N2", "N3", "N4", "NF", "NG", "T1", "T2", "TX", "TT", "F", "G", "H", "V", "FW",
];

/// What a lone `#undef` may remove: `NF` and `NG` stay, `#if` calls them.
const UNDEFINABLE: [&str; 13] = [
    "N1", "N2", "N3", "N4", "T1", "T2", "TX", "TT", "F", "G", "H", "V", "FW",
];

struct Gen {
    rng: Rng,
    funcs: Vec<Func>,
    out: String,
    line: usize,
}

/// Where an expression is written: `#if` allows `defined`; a body may name parameters.
#[derive(Clone, Copy, PartialEq)]
enum Ctx<'p> {
    Cond,
    Text,
    Body(&'p [&'static str]),
}

impl Gen {
    fn new(seed: u64) -> Self {
        let mut rng = Rng(seed);
        let sigs = [
            Sig::Zero,
            Sig::One,
            Sig::Two,
            Sig::Variadic,
            Sig::OnlyVariadic,
            Sig::NamedVariadic,
        ];
        let funcs = ["F", "G", "H", "V"]
            .iter()
            .map(|&name| Func {
                name,
                sig: *rng.pick(&sigs),
                pasty: rng.chance(50),
            })
            .collect();
        Gen {
            rng,
            funcs,
            out: String::new(),
            line: 1,
        }
    }

    fn emit(&mut self, s: &str) {
        self.out.push_str(s);
        self.out.push('\n');
        self.line += 1;
    }

    /// `-D`/`-U` flags, as (cpp argument, name or `NAME(params)`, value).
    fn flags(&mut self) -> Vec<(String, String, Option<String>)> {
        let mut flags = Vec::new();
        for _ in 0..self.rng.below(4) {
            let name = *self.rng.pick(&["N1", "N2", "N3", "N4", "T1", "T2", "NG"]);
            if self.rng.chance(20) && name != "NG" {
                flags.push((format!("-U{name}"), name.to_string(), None));
                continue;
            }
            let (spec, value) = match name {
                "NG" => ("NG(x)".to_string(), "((x) + 1)".to_string()),
                n if n.starts_with('T') => {
                    (n.into(), self.rng.pick(&["hello", "1 + u", ""]).to_string())
                }
                n => (
                    n.into(),
                    self.rng
                        .pick(&["1", "5", "(2 + 3)", "0x10", "7u", "-1"])
                        .to_string(),
                ),
            };
            if flags.iter().any(|(_, n, v)| *n == spec && v.is_some()) {
                // Redefining differently warns; `-U` first.
                flags.push((format!("-U{name}"), name.to_string(), None));
            }
            if value == "1" && self.rng.chance(50) {
                // Bare `-DNAME` means 1.
                flags.push((format!("-D{spec}"), spec, Some(value)));
            } else {
                flags.push((format!("-D{spec}={value}"), spec, Some(value)));
            }
        }
        flags
    }

    fn program(&mut self) {
        // Macros defined before use at the top, more inside the conditionals.
        // `NF` and `NG` always defined: `#if` calls them.
        self.define_kind(40);
        self.define_kind(41);
        for _ in 0..3 + self.rng.below(4) {
            self.define();
        }
        self.block(0);
        // Every text macro used once more, wherever its definitions ended.
        for f in self.funcs.clone() {
            let args = self.args(f, Ctx::Text);
            let items = [format!("{}{args}", f.name), self.text(Ctx::Text, 2)];
            self.marker_of(&items);
        }
    }

    /// `#if` groups that show bits of a value, not only whether it is 0.
    fn probe(&mut self) {
        let e = self.num(Ctx::Cond, 3);
        for test in ["& 1", "& 2", "& 4", "& 8", "< 0"] {
            self.emit(&format!("#if ({e}) {test}"));
            let line = format!("int probe_{};", self.line);
            self.emit(&line);
            self.emit("#endif");
        }
    }

    fn block(&mut self, depth: usize) {
        for _ in 0..1 + self.rng.below(4) {
            match self.rng.below(11) {
                0..=3 => self.marker(),
                4..=5 => self.define(),
                10 => self.probe(),
                6 => {
                    // `NF` and `NG` stay defined: `#if` calls them.
                    let name = *self.rng.pick(&UNDEFINABLE);
                    self.emit(&format!("#undef {name}"));
                }
                _ if depth < 3 => self.conditional(depth + 1),
                _ => self.marker(),
            }
        }
    }

    fn any_name(&mut self) -> &'static str {
        self.rng.word(&DEFINABLE)
    }

    fn conditional(&mut self, depth: usize) {
        let head = match self.rng.below(4) {
            0 => format!("#ifdef {}", self.any_name()),
            1 => format!("#ifndef {}", self.any_name()),
            _ => format!("#if {}", self.cond()),
        };
        self.emit(&head);
        self.block(depth);
        for _ in 0..self.rng.below(3) {
            let e = self.cond();
            self.emit(&format!("#elif {e}"));
            self.block(depth);
        }
        if self.rng.chance(50) {
            let e = if self.rng.chance(20) {
                "#else // otherwise"
            } else {
                "#else"
            };
            self.emit(e);
            self.block(depth);
        }
        self.emit("#endif");
    }

    fn cond(&mut self) -> String {
        let mut e = self.num(Ctx::Cond, 3);
        if self.rng.chance(10) {
            e.push_str(" /* why */");
        }
        e
    }

    /// `int line_N[] = { ... };`: the line number tells which group was taken.
    fn marker(&mut self) {
        let mut items = Vec::new();
        for _ in 0..1 + self.rng.below(3) {
            items.push(self.text(Ctx::Text, 2));
        }
        self.marker_of(&items);
    }

    fn marker_of(&mut self, items: &[String]) {
        let line = format!("int line_{}[] = {{ {} }};", self.line, items.join(", "));
        self.emit(&line);
    }

    /// Every `#define` follows an `#undef`, so that no program redefines a macro differently
    /// (ill-formed; GNU warns).
    fn define(&mut self) {
        let which = self.rng.below(12);
        self.define_kind(which);
    }

    fn define_kind(&mut self, which: usize) {
        let def = match which {
            0..=3 => {
                let name = *self.rng.pick(&NUMERIC);
                let e = self.num(Ctx::Body(&[]), 2);
                format!("{name} {e}")
            }
            4 | 40 | 41 => {
                let two = which == 40 || (which == 4 && self.rng.chance(50));
                let (name, params): (&str, &[&'static str]) = if two {
                    ("NF(x, y)", &["x", "y"])
                } else {
                    ("NG(x)", &["x"])
                };
                let e = self.num(Ctx::Body(params), 2);
                format!("{name} {e}")
            }
            5..=6 => {
                let name = *self.rng.pick(&TEXT);
                let body = if self.rng.chance(10) {
                    String::new()
                } else {
                    self.text(Ctx::Body(&[]), 2)
                };
                format!("{name} {body}")
            }
            7 => "FW F".to_string(),
            _ => {
                let f = *self.rng.pick(&self.funcs.clone());
                let body = self.func_body(f);
                format!("{} {body}", f.head())
            }
        };
        let name: String = def
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        self.emit(&format!("#undef {name}"));
        self.emit(&format!("#define {def}"));
    }

    fn func_body(&mut self, f: Func) -> String {
        let params = f.params();
        let mut items = Vec::new();
        for _ in 0..1 + self.rng.below(3) {
            let p = *self
                .rng
                .pick(&params.iter().copied().chain(["T"]).collect::<Vec<_>>());
            let p_is_param = params.contains(&p);
            let item = match self.rng.below(10) {
                0 | 9 if p_is_param => format!("#{p}"),
                1 if p_is_param && f.pasty => {
                    let other = *self.rng.pick(
                        &params
                            .iter()
                            .copied()
                            .chain(["T", "1", "X"])
                            .collect::<Vec<_>>(),
                    );
                    if self.rng.chance(50) {
                        format!("{p} ## {other}")
                    } else {
                        format!("{other}##{p}")
                    }
                }
                2 if f.variadic() && !matches!(f.sig, Sig::OnlyVariadic) => {
                    let va = params[params.len() - 1];
                    if self.rng.chance(50) || matches!(f.sig, Sig::NamedVariadic) {
                        format!("g(a , ## {va})")
                    } else {
                        format!("g(a __VA_OPT__(,) {va})")
                    }
                }
                // GNU: `__VA_OPT__` only in a `...` macro.
                3 if f.variadic() && !matches!(f.sig, Sig::NamedVariadic) => {
                    let va = params[params.len() - 1];
                    format!("h(1 __VA_OPT__(+ 2) {va})")
                }
                4 => {
                    // Self-reference: stays as written once inside its own expansion.
                    let args = self.args(f, Ctx::Body(&params));
                    format!("{}{args}", f.name)
                }
                5 | 6 if p_is_param => p.to_string(),
                _ => self.text(Ctx::Body(&params), 1),
            };
            items.push(item);
        }
        self.join(items)
    }

    /// Items joined by operators or commas, never side by side: a function-like macro's name
    /// at the end of one never meets a `(` starting the next.
    fn join(&mut self, items: Vec<String>) -> String {
        let mut s = String::new();
        for (k, it) in items.into_iter().enumerate() {
            if k > 0 {
                // No top-level comma: inside an argument it would make two.
                s.push_str(self.rng.word(&[" + ", " - ", " * ", "<<", " ; "]));
            }
            s.push_str(&it);
        }
        s
    }

    /// Arguments of a call of `f`, parentheses included, with varied spacing.
    fn args(&mut self, f: Func, ctx: Ctx) -> String {
        let n = match f.sig {
            Sig::Zero => 0,
            Sig::One => 1,
            Sig::Two => 2,
            Sig::Variadic | Sig::NamedVariadic => 1 + self.rng.below(4),
            Sig::OnlyVariadic => self.rng.below(4),
        };
        let mut s = String::from("(");
        for k in 0..n {
            if k > 0 {
                s.push_str(self.rng.word(&[", ", ",", " , ", " ,"]));
            }
            // An empty argument; not among pasted variable arguments, where it would leave
            // a comma at an end.
            if self.rng.chance(15) && !(f.pasty && f.variadic()) {
                continue;
            }
            let a = if f.pasty {
                // Words at both ends; a parameter's argument could end in anything.
                let w = *self.rng.pick(&["T", "X", "1", "2", "T1", "u", "N1", "TX"]);
                if self.rng.chance(20) {
                    format!("{w} + 1")
                } else {
                    w.to_string()
                }
            } else {
                // Not the variable arguments: their commas would make more arguments.
                let named: Vec<&'static str> = match ctx {
                    Ctx::Body(p) => p
                        .iter()
                        .copied()
                        .filter(|p| !matches!(*p, "__VA_ARGS__" | "rest"))
                        .collect(),
                    _ => Vec::new(),
                };
                let inner = if let Ctx::Body(_) = ctx {
                    Ctx::Body(&named)
                } else {
                    Ctx::Text
                };
                if self.rng.chance(35) {
                    // Literals and spacing for `#` to escape and keep.
                    self.rng
                        .pick(&[
                            "\"q\\\"x\"",
                            "'\\''",
                            "\"a\\\\n\"",
                            "u  +   v",
                            "L\"w\"",
                            "'\"'",
                        ])
                        .to_string()
                } else {
                    self.text(inner, 1)
                }
            };
            if self.rng.chance(20) {
                s.push(' ');
            }
            s.push_str(&a);
        }
        let pasted_va = f.pasty && matches!(f.sig, Sig::OnlyVariadic);
        if n == 1 && f.variadic() && !pasted_va && self.rng.chance(30) {
            // `F(1,)`: the variable arguments present and empty.
            s.push(',');
        }
        s.push(')');
        s
    }

    /// A text item: anything a macro use may produce.
    fn text(&mut self, ctx: Ctx, depth: usize) -> String {
        let params: &[&str] = match ctx {
            Ctx::Body(p) => p,
            _ => &[],
        };
        let r = self.rng.below(12);
        match r {
            0..=2 => self.num(if ctx == Ctx::Cond { Ctx::Text } else { ctx }, depth),
            3 => self.rng.pick(&TEXT).to_string(),
            4 => self
                .rng
                .pick(&["\"s\"", "\"q\\\"x\"", "'c'", "u", "X", "1.5", "0x1F"])
                .to_string(),
            5 if !params.is_empty() => self.rng.pick(params).to_string(),
            5 | 6 if depth > 0 => {
                let f = *self.rng.pick(&self.funcs.clone());
                let args = self.args(f, ctx);
                format!("{}{args}", f.name)
            }
            7 if depth > 0 => {
                // Through a forwarder: `FW` is `F`, called with `F`'s arguments.
                let f = self.funcs[0];
                let args = self.args(f, ctx);
                format!("FW{args}")
            }
            8 => {
                // A function-like name with no arguments stays as it is.
                self.rng.pick(&["F", "G", "H", "V"]).to_string()
            }
            9 if depth > 0 => {
                let a = self.text(ctx, depth - 1);
                let b = self.text(ctx, depth - 1);
                format!("({a}, {b})")
            }
            10 if depth > 0 => {
                let a = self.text(ctx, depth - 1);
                let b = self.text(ctx, depth - 1);
                self.join(vec![a, b])
            }
            11 => "__LINE__".to_string(),
            _ => self.rng.pick(&TEXT).to_string(),
        }
    }

    /// An integer expression, parenthesized wherever precedence could matter.
    fn num(&mut self, ctx: Ctx, depth: usize) -> String {
        if depth == 0 || self.rng.chance(25) {
            return self.num_atom(ctx);
        }
        let d = depth - 1;
        match self.rng.below(10) {
            0..=3 => {
                let op = *self.rng.pick(&[
                    "+", "-", "*", "<", ">", "<=", ">=", "==", "!=", "&&", "||", "&", "|", "^",
                    "and", "or", "bitand", "bitor", "xor", "not_eq",
                ]);
                let (a, b) = (self.num(ctx, d), self.num(ctx, d));
                // Half without parentheses, for precedence and associativity.
                if self.rng.chance(50) {
                    format!("{a} {op} {b}")
                } else {
                    format!("({a} {op} {b})")
                }
            }
            4 => {
                // A divisor that is never zero.
                let op = *self.rng.pick(&["/", "%"]);
                let (a, b) = (self.num(ctx, d), self.num(ctx, d));
                format!("({a} {op} (({b}) | 1))")
            }
            5 => {
                let op = *self.rng.pick(&["<<", ">>"]);
                let a = self.num(ctx, d);
                format!("({a} {op} {})", self.rng.below(6))
            }
            6 => {
                let op = *self.rng.pick(&["-", "!", "~", "+"]);
                format!("{op}({})", self.num(ctx, d))
            }
            7 => {
                let (c, a, b) = (self.num(ctx, d), self.num(ctx, d), self.num(ctx, d));
                if self.rng.chance(50) {
                    format!("{c} ? {a} : {b}")
                } else {
                    format!("({c} ? {a} : {b})")
                }
            }
            // No recursion through `NF`/`NG`: a painted name followed by `(` is no
            // expression in `#if`. Their arguments hold no `defined`.
            8 if !matches!(ctx, Ctx::Body(p) if p.len() == 1) => {
                let inner = if ctx == Ctx::Cond { Ctx::Text } else { ctx };
                let (a, b) = (self.num(inner, d), self.num(inner, d));
                if self.rng.chance(50) && !matches!(ctx, Ctx::Body(p) if p.len() == 2) {
                    format!("NF({a}, {b})")
                } else {
                    format!("NG({a})")
                }
            }
            _ => self.num_atom(ctx),
        }
    }

    fn num_atom(&mut self, ctx: Ctx) -> String {
        match self.rng.below(12) {
            0..=2 => self.rng.below(20).to_string(),
            3 => self
                .rng
                .pick(&[
                    "0x1f", "017", "3u", "0", "1'000", "'A'", "true", "false", "0XAUL",
                ])
                .to_string(),
            // Not in `NF`/`NG`: `N1` calling `NF` naming `N1` would leave `NF` painted
            // before its `(` in `#if`.
            4..=6 if !matches!(ctx, Ctx::Body(p) if p.first() == Some(&"x")) => {
                self.rng.pick(&NUMERIC).to_string()
            }
            4..=7 => self.rng.pick(&UNKNOWN).to_string(),
            8 | 9 if ctx == Ctx::Cond => {
                let n = *self.rng.pick(&DEFINABLE);
                self.rng
                    .pick(&[
                        format!("defined {n}"),
                        format!("defined({n})"),
                        format!("defined ( {n} )"),
                        format!("!defined {n}"),
                    ])
                    .clone()
            }
            8 | 9 => match ctx {
                Ctx::Body(p) if !p.is_empty() => format!("({})", self.rng.pick(p)),
                _ => self.rng.below(9).to_string(),
            },
            10 => "__LINE__".to_string(),
            _ => "-1".to_string(),
        }
    }
}

/// Tokens of preprocessed output, comments dropped: spacing does not matter, but two tokens
/// that touch and would read as one do.
fn tokens(s: &str) -> Vec<String> {
    const PUNCTS: [&str; 46] = [
        "...", "<<=", ">>=", "->*", "<=>", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==",
        "!=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##", ".*", "{", "}",
        "[", "]", "(", ")", ";", ":", "?", ".", "+", "-", "*", "/", "%", "^", "&", "|", "~",
    ];
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if s[i..].starts_with("//") {
            i = s[i..].find('\n').map_or(b.len(), |e| i + e);
            continue;
        }
        if s[i..].starts_with("/*") {
            i = s[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
        } else if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i += 1;
            // Digits, letters, `.`, separators, and a sign after an exponent.
            while i < b.len() {
                let d = b[i];
                let sign =
                    matches!(d, b'+' | b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P');
                if !(sign || d.is_ascii_alphanumeric() || matches!(d, b'_' | b'.' | b'\'')) {
                    break;
                }
                i += 1;
            }
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
        } else if let Some(p) = PUNCTS.iter().find(|p| s[i..].starts_with(*p)) {
            i += p.len();
        } else {
            i += 1;
        }
        out.push(s[start..i].to_string());
    }
    out
}

/// `NAME` or `NAME(a,b)` and its replacement's tokens, as cpp `-dM` prints a definition.
type Def = (String, Vec<String>);

fn cpp_defs(dm: &str) -> Vec<(String, Def)> {
    dm.lines()
        .filter_map(|l| l.strip_prefix("#define "))
        .map(|l| {
            let end = l
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(l.len());
            let name = l[..end].to_string();
            let (head, body) = if l[end..].starts_with('(') {
                let close = l.find(')').expect("parameter list closes") + 1;
                (l[..close].replace(' ', ""), &l[close..])
            } else {
                (name.clone(), &l[end..])
            };
            (name, (head, tokens(body)))
        })
        .collect()
}

fn our_def(m: &sycl_analyzer::syntax::pp::Macro, name: &str) -> Def {
    let head = match &m.params {
        None => name.to_string(),
        Some(p) => {
            let mut list: Vec<String> = p.iter().map(|x| x.to_string()).collect();
            if m.variadic {
                let last = list.last_mut().expect("variadic has a parameter");
                *last = if last == "__VA_ARGS__" {
                    "...".into()
                } else {
                    format!("{last}...")
                };
            }
            format!("{name}({})", list.join(","))
        }
    };
    (head, tokens(&m.replacement()))
}

struct CppRun {
    text: String,
    defs: Vec<(String, Def)>,
}

fn cpp(program: &str, flags: &[String], seed: u64) -> CppRun {
    let run = |extra: &[&str]| -> String {
        let mut child = Command::new("cpp")
            .args(CPP_FLAGS)
            .args(extra)
            .args(flags)
            .arg("-")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot run GNU `cpp` ({e}): this test compares against it; install gcc")
            });
        child
            .stdin
            .take()
            .expect("piped")
            .write_all(program.as_bytes())
            .expect("write to cpp");
        let out = child.wait_with_output().expect("cpp runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        // The generator writes well-formed programs; GNU only warns of signed overflow in
        // `#if`, which it wraps as we do.
        let unexpected: Vec<&str> = stderr
            .lines()
            .filter(|l| !l.contains("integer overflow in preprocessor expression"))
            .collect();
        assert!(
            out.status.success() && unexpected.is_empty(),
            "seed {seed}: cpp rejected the generated program (a generator bug)\nflags: {flags:?}\n{}\n{stderr}",
            numbered(program)
        );
        String::from_utf8(out.stdout).expect("utf-8 output")
    };
    CppRun {
        text: run(&[]),
        defs: cpp_defs(&run(&["-dM"])),
    }
}

fn numbered(program: &str) -> String {
    let mut s = String::new();
    for (k, l) in program.lines().enumerate() {
        let _ = writeln!(s, "{:3} | {l}", k + 1);
    }
    s
}

/// One program: `None` when we agree with cpp, else what differs.
fn check(seed: u64) -> Option<String> {
    if let Some(only) = std::env::var("PP_DIFF_SEED")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
    {
        if seed != only {
            return None;
        }
    }
    let mut g = Gen::new(seed);
    let flags = g.flags();
    g.program();
    let program = g.out;

    let defs: Vec<(String, Option<String>, Origin)> = flags
        .iter()
        .map(|(_, spec, value)| (spec.clone(), value.clone(), Origin::CommandLine))
        .collect();
    let mut macros = Macros::new(Arc::new(Macros::table(&defs)));
    let ours = preprocess(&program, "t.cpp", &mut macros, &NoIncludes);
    let cpp_flags: Vec<String> = flags.iter().map(|(f, _, _)| f.clone()).collect();
    let theirs = cpp(&program, &cpp_flags, seed);

    let mut diff = String::new();
    if !ours.errors.is_empty() {
        let _ = writeln!(diff, "our errors (cpp has none): {:?}", ours.errors);
    }
    let (a, b) = (tokens(&ours.text), tokens(&theirs.text));
    if a != b {
        let at = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
        let _ = writeln!(
            diff,
            "token {at} differs: ours {:?}, cpp {:?}\n--- ours:\n{}\n--- cpp:\n{}",
            a.get(at),
            b.get(at),
            squeeze(&ours.text),
            squeeze(&theirs.text)
        );
    }
    for name in DEFINABLE {
        let mine = macros.get(name).map(|m| our_def(m, name));
        let gnu = theirs
            .defs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, d)| d.clone());
        if mine != gnu {
            let _ = writeln!(diff, "macro {name} at the end: ours {mine:?}, cpp {gnu:?}");
        }
    }
    (!diff.is_empty()).then(|| {
        format!(
            "seed {seed}\nflags: {cpp_flags:?}\n{}\n{diff}",
            numbered(&program)
        )
    })
}

fn squeeze(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn preprocessor_agrees_with_gnu_cpp() {
    let seeds: u64 = std::env::var("PP_DIFF_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(400);
    // Two workers: cpp runs while we preprocess the next program.
    let failures: Vec<String> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2u64)
            .map(|w| s.spawn(move || (w..seeds).step_by(2).filter_map(check).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            .flat_map(|h| h.join().expect("worker"))
            .collect()
    });
    if let Some(first) = failures.first() {
        let seeds_failing: Vec<&str> = failures.iter().filter_map(|f| f.lines().next()).collect();
        panic!(
            "{} of {seeds} programs differ from GNU cpp ({}); the first:\n{first}",
            failures.len(),
            seeds_failing.join(", ")
        );
    }
}

#[test]
fn the_tokenizer_ignores_spacing_only() {
    assert_eq!(
        tokens("f(1,2) /* c */ a+ +b"),
        tokens("f ( 1 , 2 ) a + + b")
    );
    assert_ne!(tokens("a + + b"), tokens("a ++ b"));
    assert_eq!(tokens("\"a \\\" b\" 1e+5"), ["\"a \\\" b\"", "1e+5"]);
}
