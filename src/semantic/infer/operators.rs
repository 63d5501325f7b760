//! Operators on operands of a workspace class: [over.match.oper] makes `a - b` a call of the
//! user's `operator-` (a member of `a`'s class, or a free function), whose result is the
//! operator function's return type. Such a call is written by no call expression: it is
//! recorded under the operator expression's own key (`implicit_key`) and reported in
//! `Typed::implicit`, an edge to the operator function like any call's.

use rustc_hash::FxHashMap as HashMap;

use super::lookup::resolve_text;
use super::Cx;
use crate::semantic::ty::*;
use crate::syntax::{BinOp, ExprId, Name, UnOp};

/// The `targets` key of the implicit call an expression makes (call keys are span starts,
/// below 2^32).
pub(super) fn implicit_key(e: ExprId) -> usize {
    (1usize << (usize::BITS - 1)) | e as usize
}

/// The expression whose implicit call a `targets` key records (an operator function's, or a
/// conversion function's: `conversions::conversion_key`).
pub(super) fn implicit_expr(key: usize) -> Option<ExprId> {
    let bit = 1usize << (usize::BITS - 1);
    (key & bit != 0).then_some((key & u32::MAX as usize) as ExprId)
}

pub(super) fn binop_text(op: BinOp) -> Option<&'static str> {
    Some(match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Rem => "%",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::Lt => "<",
        BinOp::Gt => ">",
        BinOp::Le => "<=",
        BinOp::Ge => ">=",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        _ => return None,
    })
}

pub(super) fn unop_text(op: UnOp) -> Option<&'static str> {
    Some(match op {
        UnOp::Neg => "-",
        UnOp::Plus => "+",
        UnOp::Not => "!",
        UnOp::BitNot => "~",
        UnOp::Deref => "*",
        UnOp::Inc => "++",
        UnOp::Dec => "--",
        UnOp::Addr => return None,
    })
}

/// A workspace class (one whose declaration the analysis reads).
fn is_user_class(t: &Ty) -> bool {
    matches!(t.strip_ref(), Ty::Class(c) if c.decl.is_some())
}

impl Cx<'_, '_> {
    /// Whether a non-member operator's parameters take the operands without a user-defined
    /// conversion, which the analysis does not follow: a parameter of a workspace class takes
    /// an operand of that class only, and an operand of a workspace class goes to a parameter
    /// of its class (or a template parameter) only ([over.best.ics]).
    fn takes_classes_as_they_are(&self, file: u32, params: &[Name], operands: &[Ty]) -> bool {
        let class_name = |t: &Ty| match t.strip_ref() {
            Ty::Class(c) if c.decl.is_some() => Some(c.name.clone()),
            _ => None,
        };
        params.iter().zip(operands).all(|(p, a)| {
            let pt = resolve_text(self.ix, file, p, &HashMap::default(), self.depth + 1);
            match (class_name(&pt), class_name(a)) {
                (Some(pc), Some(ac)) => pc == ac,
                (Some(_), None) => false,
                (None, Some(_)) => pt.is_dependent() || !pt.is_known(),
                (None, None) => true,
            }
        })
    }

    /// `operator<op>` applied to `operands` at expression `e` when one of them is of a
    /// workspace class ([over.match.oper]/3): the member candidates of the first operand's
    /// class (and its bases), else the non-member candidates. The return type of the one
    /// chosen; `None` when no operand is of a workspace class or no candidate is viable
    /// (a built-in operator, or one the analysis cannot see).
    pub(super) fn user_operator(
        &self,
        e: ExprId,
        op: &str,
        operands: &[Ty],
        members_only: bool,
    ) -> Option<Ty> {
        if !operands.iter().any(is_user_class) {
            return None;
        }
        let name = format!("operator{op}");
        let at = implicit_key(e);
        let chosen = |t: Ty| {
            self.targets
                .borrow()
                .get(&at)
                .is_some_and(|l| !l.is_empty())
                .then_some(t)
        };
        if is_user_class(&operands[0]) {
            let t = self.member_call(at, &operands[0], &name, &[], &operands[1..]);
            if let Some(t) = chosen(t) {
                return Some(t);
            }
        }
        if members_only {
            return None;
        }
        let ix = self.ix;
        let free: Vec<(u32, u32)> = ix
            .visible(ix.functions, self.file, &name)
            .filter(|&(f, i)| {
                let func = ix.function(f, i);
                func.class.is_none() && self.takes_classes_as_they_are(f, &func.params, operands)
            })
            .collect();
        if free.is_empty() {
            return None;
        }
        let t = self.overload(at, &free, None, &[], operands);
        chosen(t)
    }
}
