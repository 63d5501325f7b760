//! What becomes of a double operation in the device image. DPC++ recomputes an image's aspects
//! after optimisation (intel/llvm PR #8681), so two kinds of fp64 use may leave no trace there:
//!
//! * **narrowed**: at -O2 LLVM's InstCombine rewrites one double operation whose operands are
//!   floats (or halves) and double constants exactly representable as float, and whose result
//!   is converted straight back to float, as a float operation (`float y = x * 0.5;`,
//!   `x += 1.0`, `x < 2.0`, `-(x * 0.5)`, `c ? x : 0.0`). A nested double operation
//!   (`x * 0.5 * 2.0`, `x * 0.5 + y * 0.5`), an integer operand, an inexact constant (`0.1`,
//!   `1e-6`) or a result kept in double is not narrowed. Each rule was checked with clang 19
//!   (`clang -O2 -S -emit-llvm`) on plain C++.
//! * **conversion only**: `-fsycl-fp64-conv-emu` (AOT Intel GPU targets) leaves fp64 out of the
//!   aspects when a kernel's double work is only loads, stores, locals, parameters, casts,
//!   comparisons and calls of functions defined in the program; arithmetic in double and calls
//!   of external or math functions still count.

use rustc_hash::FxHashSet as HashSet;

use super::Cx;
use crate::semantic::features::features;
use crate::semantic::names::last;
use crate::semantic::ty::{FloatKindOrd, Ty};
use crate::syntax::{BinOp, Body, Exact, Expr, ExprId, Lit, Stmt, UnOp};

impl Cx<'_, '_> {
    /// The double operations of `body` that LLVM narrows to float at -O2, among the
    /// statements `live` keeps: typing a discarded branch's expression would bind its calls.
    pub(super) fn narrowed_ops(
        &self,
        body: &Body,
        live: &[bool],
        code: &[bool],
    ) -> HashSet<ExprId> {
        let mut out = HashSet::default();
        let is_code = |e: ExprId| code.get(e as usize).copied().unwrap_or(false);
        let ret = self
            .func
            .ret
            .as_deref()
            .filter(|r| !r.contains("auto"))
            .map(|r| self.resolve(r));
        for &(id, e) in body.inits.iter().filter(|&&(_, e)| is_code(e)) {
            if let Some(k) = narrow_kind(&self.local(id)) {
                self.sink(self.direct_init(e), k, &mut out);
            }
        }
        for s in body.stmts.iter().zip(live).filter(|x| *x.1).map(|x| x.0) {
            if let (Stmt::Return(e), Some(k)) = (s, ret.as_ref().and_then(narrow_kind)) {
                self.sink(*e, k, &mut out);
            }
        }
        for (e, x) in body.exprs.iter().enumerate() {
            let e = e as ExprId;
            if !is_code(e) {
                continue;
            }
            match x {
                Expr::Assign { op: None, lhs, rhs } => {
                    if let Some(k) = narrow_kind(&self.ty(*lhs)) {
                        self.sink(*rhs, k, &mut out);
                    }
                }
                Expr::Assign {
                    op: Some(BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div),
                    lhs,
                    rhs,
                } => {
                    if let Some(k) = narrow_kind(&self.ty(*lhs)) {
                        if self.is_double(&self.op_ty(e)) && self.operand_fits(*rhs, k) {
                            out.insert(e);
                        }
                    }
                }
                Expr::Cast { args, .. } => {
                    if let ([a], Some(k)) = (self.list(*args), narrow_kind(&self.ty(e))) {
                        self.sink(*a, k, &mut out);
                    }
                }
                // `x < 2.0` compares floats once the constant is exact in float.
                Expr::Binary { op, lhs, rhs }
                    if op.is_comparison()
                        && self.is_double(&self.op_ty(e))
                        && [(*lhs, *rhs), (*rhs, *lhs)].iter().any(|&(a, b)| {
                            self.operand_fits(a, FloatKindOrd::Float)
                                && !self.is_constant(a)
                                && self.exact_constant(b, FloatKindOrd::Float)
                        }) =>
                {
                    out.insert(e);
                }
                _ => {}
            }
        }
        out
    }

    /// The value a local is initialised from: `float r(e)` converts `e` as `float r = e` does.
    fn direct_init(&self, e: ExprId) -> ExprId {
        match self.expr(e) {
            Some(Expr::Unknown(args)) => match self.list(*args) {
                [one] => *one,
                _ => e,
            },
            _ => e,
        }
    }

    /// `e`, converted to `k`, is left with no double operation: records what is narrowed.
    fn sink(&self, e: ExprId, k: FloatKindOrd, out: &mut HashSet<ExprId>) -> bool {
        if !self.is_double(&self.ty(e)) {
            return false;
        }
        let narrowed = match self.expr(e) {
            Some(Expr::Binary {
                op: BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div,
                lhs,
                rhs,
            }) => {
                !(self.is_constant(*lhs) && self.is_constant(*rhs))
                    && self.operand_fits(*lhs, k)
                    && self.operand_fits(*rhs, k)
            }
            Some(Expr::Unary {
                op: UnOp::Neg | UnOp::Plus,
                arg,
            }) => self.sink(*arg, k, out) || self.operand_fits(*arg, k),
            Some(Expr::Cond { then, els, .. }) => {
                self.operand_fits(*then, k) && self.operand_fits(*els, k)
            }
            _ => false,
        };
        if narrowed {
            out.insert(e);
        }
        narrowed
    }

    /// A value of kind `k` or narrower, or a constant exactly representable in `k`.
    fn operand_fits(&self, e: ExprId, k: FloatKindOrd) -> bool {
        match self.ty(e).strip_ref() {
            Ty::Float(FloatKindOrd::Half) => true,
            Ty::Float(FloatKindOrd::Float) => k == FloatKindOrd::Float,
            _ => self.exact_constant(e, k),
        }
    }

    /// A double literal (possibly negated) whose value is exact in `k`.
    fn exact_constant(&self, e: ExprId, k: FloatKindOrd) -> bool {
        match self.expr(e) {
            Some(Expr::Unary {
                op: UnOp::Neg | UnOp::Plus,
                arg,
            }) => self.exact_constant(*arg, k),
            Some(Expr::Lit(Lit::Float(_, exact))) => match k {
                FloatKindOrd::Half => *exact == Exact::Half,
                _ => *exact <= Exact::Float,
            },
            _ => false,
        }
    }

    fn is_double(&self, t: &Ty) -> bool {
        matches!(
            t.strip_ref(),
            Ty::Float(FloatKindOrd::Double | FloatKindOrd::LongDouble)
        )
    }

    /// Arithmetic in double, or a call the conversion emulation cannot cover (a math
    /// function); everything else a double use can be is conversion work.
    pub(super) fn is_arithmetic(&self, e: ExprId) -> bool {
        match self.expr(e) {
            Some(Expr::Binary { op, .. }) => !op.is_comparison(),
            Some(Expr::Assign { op, .. }) => op.is_some(),
            Some(Expr::Unary { op, .. }) => matches!(op, UnOp::Neg | UnOp::Inc | UnOp::Dec),
            Some(Expr::Call { callee, .. }) => match self.expr(*callee) {
                Some(Expr::Name(n)) => features().is_math(last(n)),
                _ => false,
            },
            _ => false,
        }
    }
}

/// The kinds a double result can be narrowed to.
fn narrow_kind(t: &Ty) -> Option<FloatKindOrd> {
    match t.strip_ref() {
        Ty::Float(k @ (FloatKindOrd::Float | FloatKindOrd::Half)) => Some(*k),
        _ => None,
    }
}

/// The expressions the statements `live` keeps evaluate (their roots, operands, and the
/// initializers of the locals they declare).
pub(super) fn live_exprs(body: &Body, live: &[bool]) -> Vec<bool> {
    let mut code = vec![false; body.exprs.len()];
    let mut stack: Vec<ExprId> = Vec::new();
    for (s, _) in body.stmts.iter().zip(live).filter(|x| *x.1) {
        match *s {
            Stmt::Expr(e) | Stmt::Return(e) | Stmt::IfConstexpr { cond: e, .. } => stack.push(e),
            Stmt::Local(id) => stack.extend(
                body.inits
                    .iter()
                    .filter(|&&(l, _)| l == id)
                    .map(|&(_, e)| e),
            ),
        }
    }
    while let Some(e) = stack.pop() {
        let Some(seen) = code.get_mut(e as usize) else {
            continue;
        };
        if std::mem::replace(seen, true) {
            continue;
        }
        if let Some(x) = body.exprs.get(e as usize) {
            stack.extend(body.children(x));
        }
    }
    code
}
