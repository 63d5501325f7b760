//! Constant evaluation at compile time: literals, `sizeof`, type traits, the operators over
//! them, and which statements a folded `if constexpr` discards.

use std::sync::Arc;

use super::lookup::static_constant;
use super::{joined, Cx, MAX_DEPTH};
use crate::semantic::names::{last, qualifier};
use crate::semantic::ty::*;
use crate::semantic::Instance;
use crate::syntax::{BinOp, Body, Expr, ExprId, IntValue, Lit, Stmt, UnOp};

impl Cx<'_, '_> {
    /// Which statements are code: not in the discarded branch of an `if constexpr`.
    pub(super) fn live(&self, body: &Body) -> Vec<bool> {
        self.discarded(body).0
    }

    /// Which statements are code, and the preprocessed-text ranges of the discarded branches
    /// (counted from the function's start, as `Call::out` is).
    pub(super) fn discarded(&self, body: &Body) -> (Vec<bool>, Vec<std::ops::Range<u32>>) {
        let mut live = vec![true; body.stmts.len()];
        let mut ranges = Vec::new();
        let mut k = 0;
        for (i, s) in body.stmts.iter().enumerate() {
            if let Stmt::IfConstexpr {
                cond,
                then_len,
                else_len,
            } = s
            {
                let [ts, te, es, ee] = body.branches.get(k).copied().unwrap_or_default();
                k += 1;
                let (t, e) = (*then_len as usize, *else_len as usize);
                let dead = match self.const_eval(*cond) {
                    Some(0) => {
                        ranges.push(ts..te);
                        i + 1..i + 1 + t
                    }
                    Some(_) => {
                        ranges.push(es..ee);
                        i + 1 + t..i + 1 + t + e
                    }
                    None => 0..0,
                };
                for d in dead {
                    if let Some(x) = live.get_mut(d) {
                        *x = false;
                    }
                }
            }
        }
        (live, ranges)
    }

    /// In a template's generic pattern, the text ranges of both branches of each `if
    /// constexpr` it cannot decide. [temp.res]/1, [stmt.if]/2: they are a dependent context
    /// that only an instance makes code, so a call there instantiates nothing by itself.
    pub(super) fn undecided_branches(&self, body: &Body) -> Vec<std::ops::Range<u32>> {
        if !self.subst.values().any(Ty::is_dependent) {
            return Vec::new();
        }
        let conds = body.stmts.iter().filter_map(|s| match s {
            Stmt::IfConstexpr { cond, .. } => Some(*cond),
            _ => None,
        });
        conds
            .zip(&body.branches)
            .filter(|(c, _)| self.const_eval(*c).is_none())
            .flat_map(|(_, &[ts, te, es, ee])| [ts..te, es..ee])
            .collect()
    }

    /// `std::is_same<A, B>::value` and friends written as a name.
    pub(super) fn trait_value(&self, n: &str) -> Option<i64> {
        let prefix = n.strip_suffix("::value")?;
        self.trait_of(prefix)
    }

    pub(super) fn trait_of(&self, text: &str) -> Option<i64> {
        let base = text.split('<').next().unwrap_or(text);
        let name = last(base).trim_end_matches("_v");
        if !is_trait(name) {
            return None;
        }
        // Parse the arguments with this function's environment.
        let open = text.find('<')?;
        let inner = text[open + 1..].strip_suffix('>')?;
        let args: Vec<Ty> = split_top(inner).iter().map(|a| self.resolve(a)).collect();
        trait_value(name, &args)
    }

    pub(super) fn const_eval(&self, e: ExprId) -> Option<i64> {
        match self.expr(e)? {
            Expr::Lit(Lit::Bool(b)) => Some(*b as i64),
            Expr::Lit(Lit::Int { value, .. }) => value.map(IntValue::get),
            Expr::TemplateName { name, targs } => {
                let text = format!("{name}<{}>", joined(self.targ_list(*targs)));
                // A variable template the resolver folds (`is_detected_v<Op, T>`).
                self.trait_of(&text).or_else(|| match self.resolve(&text) {
                    Ty::Value(v) => Some(v),
                    _ => None,
                })
            }
            // A value template parameter of this instance (`if constexpr (N > 1)`).
            Expr::Name(n) => match self.subst.get(&**n) {
                Some(Ty::Value(v)) => Some(*v),
                _ => self
                    .trait_value(n)
                    .or_else(|| {
                        // `T::value` of a class that carries a constant.
                        let class = n.strip_suffix("::value")?;
                        self.class_constant(&self.resolve(class), 0)
                    })
                    .or_else(|| self.static_member_value(n)),
            },
            // `T{}` / `T()`: an `integral_constant` converts to its value ([meta.help]).
            Expr::Cast { ty, args } if self.list(*args).is_empty() => {
                self.class_constant(&self.resolve(ty), 0)
            }
            // `C<T>()` parses as a call of a template name: the same value-initialised class.
            Expr::Call { callee, args } if self.list(*args).is_empty() => {
                self.value_initialised_constant(*callee)
            }
            Expr::SizeOf(Some(t)) => self.resolve(t).scalar_size().map(i64::from),
            Expr::SizeOfPack(p) => match self.subst.get(p.as_str()) {
                Some(Ty::Pack(xs)) => Some(xs.len() as i64),
                _ => {
                    let body = self.body?;
                    let id = body.locals.iter().rposition(|l| l.name == *p)?;
                    match self.local(id as u32) {
                        Ty::Pack(xs) => Some(xs.len() as i64),
                        _ => None,
                    }
                }
            },
            Expr::SizeOfExpr(x) => self.size_of_expr(*x),
            Expr::Unary { op: UnOp::Not, arg } => Some((self.const_eval(*arg)? == 0) as i64),
            Expr::Unary { op: UnOp::Neg, arg } => Some(-self.const_eval(*arg)?),
            Expr::Binary { op, lhs, rhs } => {
                let l = self.const_eval(*lhs);
                let r = self.const_eval(*rhs);
                match op {
                    BinOp::And => match (l, r) {
                        (Some(0), _) | (_, Some(0)) => Some(0),
                        (Some(_), Some(_)) => Some(1),
                        _ => None,
                    },
                    BinOp::Or => match (l, r) {
                        (Some(x), _) | (_, Some(x)) if x != 0 => Some(1),
                        (Some(_), Some(_)) => Some(0),
                        _ => None,
                    },
                    BinOp::Eq | BinOp::Ne if l.is_none() || r.is_none() => {
                        let same = self.same_enumerator(*lhs, *rhs)?;
                        Some((same == (*op == BinOp::Eq)) as i64)
                    }
                    _ => {
                        let (l, r) = (l?, r?);
                        Some(match op {
                            BinOp::Eq => (l == r) as i64,
                            BinOp::Ne => (l != r) as i64,
                            BinOp::Lt => (l < r) as i64,
                            BinOp::Gt => (l > r) as i64,
                            BinOp::Le => (l <= r) as i64,
                            BinOp::Ge => (l >= r) as i64,
                            BinOp::Add => l.checked_add(r)?,
                            BinOp::Sub => l.checked_sub(r)?,
                            BinOp::Mul => l.checked_mul(r)?,
                            // [expr.mul]/4: `sizeof(a) / sizeof(a[0])`, `sizeof(T) / 2`.
                            BinOp::Div => l.checked_div(r)?,
                            BinOp::Rem => l.checked_rem(r)?,
                            _ => return None,
                        })
                    }
                }
            }
            _ => None,
        }
    }

    /// [expr.type.conv]/2: `has_run<B>()` value-initialises the class `has_run<B>`, whose
    /// constant is its value; a function template of that name is no class and stays `None`.
    fn value_initialised_constant(&self, callee: ExprId) -> Option<i64> {
        let Expr::TemplateName { name, targs } = self.expr(callee)? else {
            return None;
        };
        let text = format!("{name}<{}>", joined(self.targ_list(*targs)));
        self.class_constant(&self.resolve(&text), 0)
    }

    /// `sizeof e`: a scalar's size, or an array's ([expr.sizeof]/2: the bounds' product times
    /// the element's size, `sizeof(a) / sizeof(a[0])` of an `int a[4]` being 4).
    fn size_of_expr(&self, x: ExprId) -> Option<i64> {
        let t = self.ty(x);
        let mut elem = t.strip_ref();
        if !matches!(elem, Ty::Array(_)) {
            return elem.scalar_size().map(i64::from);
        }
        while let Ty::Array(e) = elem {
            elem = e;
        }
        let bounds = self.array_bounds(x);
        let size = i64::from(elem.scalar_size()?);
        (!bounds.is_empty())
            .then(|| bounds.iter().try_fold(size, |acc, b| acc.checked_mul(*b)))
            .flatten()
    }

    /// The constant a class type carries as `value` ([meta.help]): `std::true_type`,
    /// `false_type`, `integral_constant<T, v>`, `bool_constant<b>`, the traits
    /// (`is_same<A, B>`), and a workspace class deriving from one of them.
    fn class_constant(&self, t: &Ty, depth: usize) -> Option<i64> {
        let Ty::Class(c) = t.strip_ref() else {
            return None;
        };
        let library = c.decl.is_none() || c.name.starts_with("std::");
        let value = |a: Option<&Ty>| match a {
            Some(Ty::Value(v)) => Some(*v),
            _ => None,
        };
        match c.last() {
            "true_type" if library => return Some(1),
            "false_type" if library => return Some(0),
            "integral_constant" if library => return value(c.args.get(1)),
            "bool_constant" if library => return value(c.args.first()),
            l if library && is_trait(l) => return trait_value(l, &c.args),
            _ => {}
        }
        let (f, i) = c.decl?;
        if depth >= super::MAX_DEPTH {
            return None;
        }
        if let Some(v) = self.constexpr_bool(t) {
            return Some(v);
        }
        let cl = &self.ix.files[f as usize].classes[i as usize];
        cl.bases
            .iter()
            .find_map(|b| self.class_constant(&self.field_ty(c, cl, b), depth + 1))
    }

    /// A name of a static data member with a constant initializer: `Traits<T>::value`,
    /// `S::n`, or, in a member function, `n` of its class.
    fn static_member_value(&self, n: &str) -> Option<i64> {
        if !n.contains("::") {
            let class = self.class.as_ref()?;
            return static_constant(self.ix, class, n, self.depth + 1);
        }
        match self.resolve(n) {
            Ty::Value(v) => Some(v),
            _ => None,
        }
    }

    /// [class.conv.fct], [expr.const]: the value of a workspace class's `constexpr operator
    /// bool()` whose body returns a constant (`if constexpr (Flag<T>{})`).
    fn constexpr_bool(&self, t: &Ty) -> Option<i64> {
        let Ty::Class(c) = t.strip_ref() else {
            return None;
        };
        let (f, i) = c.decl?;
        let cl = &self.ix.files[f as usize].classes[i as usize];
        if !cl.conversions.iter().any(|x| x.name == "operator bool") || self.depth >= MAX_DEPTH {
            return None;
        }
        let cands = self.members_named(c, "operator bool");
        let (ff, fi) = cands.into_iter().find(|&(ff, fi)| {
            let func = self.ix.function(ff, fi);
            func.body.is_some() && func.params.is_empty()
        })?;
        let func = self.ix.function(ff, fi);
        let returned: Vec<ExprId> = func
            .body
            .as_deref()?
            .stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Return(e) => Some(*e),
                _ => None,
            })
            .collect();
        let [e] = returned[..] else { return None };
        let n = func.tparams.len().min(c.args.len());
        let inst = Instance {
            file: ff,
            func: fi,
            subst: Arc::from(&c.args[..n]),
        };
        Cx::new(self.ix, &inst, self.depth + 1).const_eval(e)
    }

    /// Whether two operands name the same enumerator (`K == kind::a`, `K` a value parameter
    /// bound to `kind::b`). Enumerators have no values here: they are compared as names, and
    /// only two of one enumeration (the same last qualifier) are told apart.
    fn same_enumerator(&self, a: ExprId, b: ExprId) -> Option<bool> {
        let (a, b) = (self.enumerator(a)?, self.enumerator(b)?);
        let enum_of = |n: &str| qualifier(n).last().map(|q| q.to_string());
        (enum_of(&a) == enum_of(&b)).then(|| last(&a) == last(&b))
    }

    /// A qualified name the workspace declares nothing for (an enumerator, `kind::b`), or a
    /// value parameter bound to one: its text.
    fn enumerator(&self, e: ExprId) -> Option<String> {
        let Expr::Name(n) = self.expr(e)? else {
            return None;
        };
        let t = match self.subst.get(n.as_str()) {
            Some(t) => t.clone(),
            None if n.contains("::") => self.resolve(n),
            None => return None,
        };
        match t {
            Ty::Class(c) if c.decl.is_none() && c.args.is_empty() && c.name.contains("::") => {
                Some(c.name.clone())
            }
            _ => None,
        }
    }

    /// Folded at compile time: literals and operators over them.
    pub(super) fn is_constant(&self, e: ExprId) -> bool {
        match self.expr(e) {
            Some(Expr::Name(n)) => self.is_constant_global(n),
            Some(Expr::Lit(_) | Expr::SizeOf(_) | Expr::SizeOfExpr(_) | Expr::SizeOfPack(_)) => {
                true
            }
            Some(Expr::Unary { op, arg })
                if !matches!(op, UnOp::Deref | UnOp::Inc | UnOp::Dec | UnOp::Addr) =>
            {
                self.is_constant(*arg)
            }
            Some(Expr::Binary { lhs, rhs, .. }) => self.is_constant(*lhs) && self.is_constant(*rhs),
            Some(Expr::Cast { args, .. }) => {
                let a = self.list(*args);
                a.len() == 1 && self.is_constant(a[0])
            }
            Some(Expr::Cond { cond, then, els }) => {
                self.is_constant(*cond) && self.is_constant(*then) && self.is_constant(*els)
            }
            _ => false,
        }
    }
}

pub(super) fn split_top(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

pub(super) fn is_trait(name: &str) -> bool {
    matches!(
        name,
        "is_same"
            | "is_floating_point"
            | "is_integral"
            | "is_arithmetic"
            | "is_pointer"
            | "is_signed"
            | "is_unsigned"
    )
}

/// A type trait's value for concrete arguments (`is_same` without `_v`).
pub(super) fn trait_value(name: &str, args: &[Ty]) -> Option<i64> {
    let a = args.first()?;
    if !a.is_concrete() {
        return None;
    }
    let v = match name {
        "is_same" => {
            let b = args.get(1)?;
            if !b.is_concrete() {
                return None;
            }
            a == b
        }
        // `sycl::half` is a class: not a floating-point or arithmetic type to the traits.
        "is_floating_point" => matches!(a, Ty::Float(k) if *k != FloatKindOrd::Half),
        "is_integral" => matches!(a, Ty::Int { .. } | Ty::Bool),
        "is_arithmetic" => a.is_arithmetic() && *a != HALF,
        "is_pointer" => matches!(a, Ty::Ptr(_)),
        "is_signed" => match a {
            Ty::Int { signed, .. } => *signed,
            Ty::Float(k) => *k != FloatKindOrd::Half,
            _ => false,
        },
        "is_unsigned" => matches!(a, Ty::Int { signed: false, .. } | Ty::Bool),
        _ => return None,
    };
    Some(v as i64)
}

/// The value of an integer or boolean literal (`0`, `16u`, `0x10`, `true`), as a template
/// argument's default is written.
pub(super) fn literal_value(text: &str) -> Option<i64> {
    let t = text.trim();
    match t {
        "true" => return Some(1),
        "false" => return Some(0),
        _ => {}
    }
    let digits = t.trim_end_matches(['u', 'U', 'l', 'L']).replace('\'', "");
    if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        return i64::from_str_radix(hex, 16).ok();
    }
    digits.parse().ok()
}
