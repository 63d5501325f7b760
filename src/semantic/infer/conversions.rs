//! User-defined conversions by conversion function ([class.conv.fct]): a value of a workspace
//! class used where an arithmetic value is needed (an operand of a built-in operator, the
//! initialiser or assigned value of an arithmetic variable, a cast, a returned value, an
//! argument) calls the class's `operator T()`. Like an operator function's, the call is
//! written by no call expression: it is recorded under the converted expression's
//! `conversion_key` and reported in `Typed::implicit`, and the converted value has the
//! conversion function's return type (`float * CvD` is a double multiplication when `CvD`
//! converts to double).

use super::lookup::resolve_text;
use super::{class_subst, Cx, MAX_DEPTH};
use crate::semantic::ty::*;
use crate::syntax::{Body, ExprId, Stmt};

/// The `targets` key of the conversion function called on expression `e`'s value: apart from
/// the operator function `e` itself may call (`implicit_key`).
pub(super) fn conversion_key(e: ExprId) -> usize {
    (3usize << (usize::BITS - 2)) | e as usize
}

/// One conversion function a class offers: its name and what it converts to.
struct Candidate {
    name: String,
    to: Ty,
}

/// [over.ics.rank]/4: the standard conversion from a conversion function's result to the
/// target ranks the candidates: identity, then promotion, then conversion.
fn rank(from: &Ty, to: &Ty) -> u8 {
    let (from, to) = (from.strip_ref(), to.strip_ref());
    if from == to {
        0
    } else if matches!(
        (from, to),
        (
            Ty::Float(FloatKindOrd::Float),
            Ty::Float(FloatKindOrd::Double)
        )
    ) || (!matches!(from, Ty::Float(_)) && from.promoted() == *to)
    {
        1
    } else {
        2
    }
}

impl Cx<'_, '_> {
    /// The conversion functions to arithmetic types of class `t` and its bases (one of a
    /// derived class hides a base's of the same name); `explicit` ones only when `explicit`.
    fn conversion_candidates(
        &self,
        t: &Ty,
        explicit: bool,
        depth: usize,
        out: &mut Vec<Candidate>,
    ) {
        let Ty::Class(c) = t.strip_ref() else { return };
        let Some((f, i)) = c.decl else { return };
        let cl = &self.ix.files[f as usize].classes[i as usize];
        let subst = class_subst(cl, c);
        let ix = self.ix;
        for conv in &cl.conversions {
            if (conv.explicit && !explicit) || out.iter().any(|x| x.name == conv.name) {
                continue;
            }
            let Some(text) = conv.name.strip_prefix("operator ") else {
                continue;
            };
            let to = resolve_text(ix, f, text, &subst, self.depth + 1);
            if to.strip_ref().is_arithmetic() && !to.is_dependent() {
                out.push(Candidate {
                    name: conv.name.clone(),
                    to,
                });
            }
        }
        if depth < MAX_DEPTH {
            for b in &cl.bases {
                let bt = self.field_ty(c, cl, b);
                self.conversion_candidates(&bt, explicit, depth + 1, out);
            }
        }
    }

    /// Converts the value of `e`, of a workspace class, by a conversion function: to `to`
    /// ([over.match.conv], [over.match.copy]: the candidate whose result converts best, none
    /// when two tie), or, `to` being `None`, to the arithmetic type a built-in operator's
    /// operand takes (one candidate only: two make the built-in candidates ambiguous,
    /// [over.built]). Binds the call; the converted value's type. `None` when `e` is no
    /// workspace class value or no conversion function applies.
    pub(super) fn convert(&self, e: ExprId, to: Option<&Ty>, explicit: bool) -> Option<Ty> {
        let t = self.ty(e);
        if !matches!(t.strip_ref(), Ty::Class(c) if c.decl.is_some()) {
            return None;
        }
        if let Some(to) = to {
            if !to.strip_ref().is_arithmetic() || to.is_dependent() {
                return None;
            }
        }
        let mut cands = Vec::new();
        self.conversion_candidates(&t, explicit, 0, &mut cands);
        let chosen = match to {
            None if cands.len() == 1 => &cands[0],
            None => return None,
            Some(to) => {
                let best = cands.iter().map(|c| rank(&c.to, to)).min()?;
                let mut at_best = cands.iter().filter(|c| rank(&c.to, to) == best);
                let first = at_best.next()?;
                if at_best.next().is_some() {
                    return None;
                }
                first
            }
        };
        let key = conversion_key(e);
        let r = self.member_call(key, &t, &chosen.name, &[], &[]);
        let bound = self
            .targets
            .borrow()
            .get(&key)
            .is_some_and(|l| !l.is_empty());
        if !bound {
            return None;
        }
        let r = match r {
            r if r.strip_ref().is_arithmetic() => r.strip_ref().clone(),
            _ => chosen.to.strip_ref().clone(),
        };
        self.converted.borrow_mut().insert(e, r.clone());
        Some(r)
    }

    /// The type of `e`'s value where it is used: a conversion function's result when one
    /// converts it.
    pub(super) fn value_ty(&self, e: ExprId) -> Ty {
        let t = self.ty(e);
        self.converted.borrow().get(&e).cloned().unwrap_or(t)
    }

    /// An operand of a built-in arithmetic or comparison operator: converted when it is of a
    /// workspace class with one conversion function to an arithmetic type.
    pub(super) fn operand(&self, e: ExprId, t: Ty) -> Ty {
        match t.strip_ref() {
            Ty::Class(c) if c.decl.is_some() => self.convert(e, None, false).unwrap_or(t),
            _ => t,
        }
    }
}

impl Cx<'_, '_> {
    /// The arguments of the call bound at `at` that are workspace class values passed to
    /// arithmetic parameters: converted ([over.best.ics]), when the call binds one function.
    pub(super) fn convert_args(&self, at: usize, args: &[ExprId]) {
        let inst = match self.targets.borrow().get(&at).map(Vec::as_slice) {
            Some([one]) => one.clone(),
            _ => return,
        };
        let func = self.ix.function(inst.file, inst.func);
        if func.pack || func.variadic {
            return;
        }
        let env = func
            .tparams
            .iter()
            .zip(inst.subst.iter())
            .map(|(p, t)| (p.name.clone(), t.clone()))
            .collect();
        for (p, &a) in func.params.iter().zip(args) {
            if !matches!(self.ty(a).strip_ref(), Ty::Class(c) if c.decl.is_some()) {
                continue;
            }
            let pt = resolve_text(self.ix, inst.file, p, &env, self.depth + 1);
            if pt.strip_ref().is_arithmetic() {
                self.convert(a, Some(&pt), false);
            }
        }
    }
}

impl Cx<'_, '_> {
    /// Initialisers of arithmetic locals and returned values of a function returning an
    /// arithmetic type: converted to the declared type.
    pub(super) fn convert_to_declared(&self, body: &Body, live: &[bool], code: &[bool]) {
        let is_code = |e: ExprId| code.get(e as usize).copied().unwrap_or(false);
        for &(id, e) in body.inits.iter().filter(|&&(_, e)| is_code(e)) {
            let t = self.local(id);
            if t.strip_ref().is_arithmetic() {
                self.convert(e, Some(&t), false);
            }
        }
        let ret = match self.func.ret.as_deref() {
            Some(r) if !r.contains("auto") => self.resolve(r),
            _ => return,
        };
        if !ret.strip_ref().is_arithmetic() {
            return;
        }
        for (s, _) in body.stmts.iter().zip(live).filter(|x| *x.1) {
            if let Stmt::Return(e) = s {
                self.convert(*e, Some(&ret), false);
            }
        }
    }
}
