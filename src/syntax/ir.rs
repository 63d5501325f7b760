//! A function body lowered for typing: an arena of expressions with stable ids, the locals they
//! name, and the evaluated full-expressions in source order. Names are resolved to locals at
//! lowering (scopes are lexical); everything else (globals, members, calls, templates) is left
//! to the semantic layer, which types a body once per instantiation. Types are kept as
//! normalised text (`double*`, `sycl::accessor<T,1>`) and parsed there.

use serde::{Deserialize, Serialize};
use thin_vec::ThinVec;
use ustr::Ustr;

use super::facts::Span;

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
    /// Type aliases declared in the body (`using U = ...;`, `typedef ... U;`): name, target.
    #[serde(default)]
    pub aliases: ThinVec<(String, String)>,
    /// The expressions' operand lists ([`List`] runs): one array per body, not one allocation
    /// per call.
    pub lists: ThinVec<ExprId>,
    /// The expressions' template arguments, as text ([`List`] runs).
    pub targs: ThinVec<Ustr>,
}

/// A run of one of a body's side tables: the arguments of a call, the template arguments of
/// a name. Eight bytes where a boxed slice took sixteen and an allocation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct List {
    pub start: u32,
    pub len: u32,
}

impl List {
    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.start as usize + self.len as usize
    }
}

impl Body {
    /// The expressions of an operand list.
    pub fn list(&self, l: List) -> &[ExprId] {
        self.lists.get(l.range()).unwrap_or_default()
    }

    /// The texts of a template argument list.
    pub fn targs(&self, l: List) -> &[Ustr] {
        self.targs.get(l.range()).unwrap_or_default()
    }

    pub fn push_list(&mut self, ids: impl IntoIterator<Item = ExprId>) -> List {
        let start = self.lists.len();
        self.lists.extend(ids);
        List {
            start: start as u32,
            len: (self.lists.len() - start) as u32,
        }
    }

    pub fn push_targs(&mut self, texts: impl IntoIterator<Item = Ustr>) -> List {
        let start = self.targs.len();
        self.targs.extend(texts);
        List {
            start: start as u32,
            len: (self.targs.len() - start) as u32,
        }
    }

    /// Sub-expressions evaluated with `e`.
    pub fn children(&self, e: &Expr) -> Vec<ExprId> {
        match *e {
            Expr::Member { base, .. } | Expr::MemberTemplate { base, .. } => vec![base],
            Expr::Index { base, index } => vec![base, index],
            Expr::Unary { arg, .. } => vec![arg],
            Expr::Binary { lhs, rhs, .. } | Expr::Assign { lhs, rhs, .. } => vec![lhs, rhs],
            Expr::Cond { cond, then, els } => vec![cond, then, els],
            Expr::Call { callee, args } => std::iter::once(callee)
                .chain(self.list(args).iter().copied())
                .collect(),
            Expr::Cast { args, .. }
            | Expr::New { args, .. }
            | Expr::InitList(args)
            | Expr::Unknown(args) => self.list(args).to_vec(),
            _ => Vec::new(),
        }
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

/// Names and types interned: 32 bytes and no allocation a local.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalVar {
    pub name: Ustr,
    pub ty: LocalTy,
    pub span: Span,
    pub param: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LocalTy {
    /// As written, with declarator modifiers (`const float&`, `double*`, `int[4]`); may be
    /// `auto`, `auto&`, `auto*`.
    Declared(Ustr),
    /// `auto x = e` (any cv/ref form): the type of `e`, with the modifiers in the text.
    Auto(Ustr, ExprId),
    /// `decltype(e) x`.
    Decltype(ExprId),
    /// A class named without template arguments and initialized (`sycl::buffer b{p, r}`):
    /// its arguments may be deduced from the initializer's (CTAD).
    Deduced(Ustr, ExprId),
    /// `for (auto x : e)`: the element type of `e`.
    RangeElem(Ustr, ExprId),
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

/// An `i64` aligned to four bytes: an aligned one made every expression 8 bytes larger.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntValue([u32; 2]);

impl IntValue {
    pub fn get(self) -> i64 {
        (((self.0[1] as u64) << 32) | self.0[0] as u64) as i64
    }
}

impl From<i64> for IntValue {
    fn from(v: i64) -> Self {
        IntValue([v as u64 as u32, ((v as u64) >> 32) as u32])
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
    Float(FloatLit),
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

/// Names are interned ([`Ustr`]) and operand lists are runs of the body's side tables: 24
/// bytes an expression, the largest part of the facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Expr {
    Lit(Lit),
    Local(LocalId),
    /// A name no local declares: a global, an enumerator, a function, a member of `this`.
    Name(Ustr),
    This,
    Member {
        base: ExprId,
        arrow: bool,
        name: Ustr,
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
        name: Ustr,
        targs: List,
    },
    /// `obj.template f<A>` / `obj.f<A>`.
    MemberTemplate {
        base: ExprId,
        arrow: bool,
        name: Ustr,
        targs: List,
    },
    /// Every explicit conversion: `static_cast<T>(e)`, `(T)e`, `T(e)`, `T{e}`, `T{}`; the
    /// construction of a class by name.
    Cast {
        ty: Ustr,
        args: List,
    },
    New {
        ty: Ustr,
        args: List,
    },
    /// A lambda: its function's index in `FileFacts::functions`.
    Lambda(u32),
    /// `{a, b}` without a type.
    InitList(List),
    /// `sizeof(T)` / `sizeof e`: no code, but a constant in `if constexpr`.
    SizeOf(Option<Ustr>),
    /// `sizeof(x)` of an expression: unevaluated, but its type gives a constant.
    SizeOfExpr(ExprId),
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
}

/// A data member: name and type with declarator modifiers.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Field {
    pub name: String,
    pub ty: String,
    pub is_static: bool,
}

/// A variable at namespace scope.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Global {
    pub name: String,
    pub scope: Vec<String>,
    pub ty: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sizes the facts' memory budget rests on (BENCHMARKS.md): a new variant or field
    /// that grows them should be a decision, not an accident.
    #[test]
    fn expressions_and_locals_stay_small() {
        assert_eq!(std::mem::size_of::<Expr>(), 24);
        assert_eq!(std::mem::size_of::<LocalVar>(), 40);
        assert_eq!(std::mem::size_of::<Body>(), 72);
    }

    #[test]
    fn int_values_round_trip() {
        for v in [0, 1, -1, i64::MAX, i64::MIN, 1 << 40, -(1 << 33) + 7] {
            assert_eq!(IntValue::from(v).get(), v);
        }
    }
}
