//! Function templates named as values, not called: `stencil = star1;`, `void (*fs[])(queue &,
//! T *) = {run<32>, run<64>};`, `auto f = &run<float>;`, `return &run<N>;`. Naming one
//! odr-uses the specialisation it selects, so that specialisation is instantiated
//! ([temp.inst]/8, [basic.def.odr]/7) as a call's would be, and its kernels are device code.
//! The specialisation is the one whose type matches the target's ([over.over]/1): its template
//! arguments are deduced from the target function type's parameters
//! ([temp.deduct.funcaddr]), after the explicit ones; without a target type, the explicit
//! arguments must name them all. The instances are recorded under `named_key` and reported in
//! `Typed::named`; what cannot be decided stays the pattern's (`graph::collect`).

use std::sync::Arc;

use super::Cx;
use crate::semantic::names::{last, qualifier, scope_ends_with};
use crate::semantic::ty::Ty;
use crate::semantic::Instance;
use crate::syntax::{Body, Expr, ExprId, LocalTy, Span, Stmt, UnOp};

/// The `targets` key of the instances a function name used as a value selects: its
/// expression under the second-highest bit (`operators::implicit_key` takes the highest, call
/// keys are span starts below 2^32).
pub(super) fn named_key(e: ExprId) -> usize {
    (1usize << (usize::BITS - 2)) | e as usize
}

/// The expression a `named_key` was made for.
pub(super) fn named_expr(key: usize) -> Option<ExprId> {
    let (top, second) = (1usize << (usize::BITS - 1), 1usize << (usize::BITS - 2));
    (key & top == 0 && key & second != 0).then_some((key & u32::MAX as usize) as ExprId)
}

impl<'i, 'a> Cx<'i, 'a> {
    /// Binds the function templates the live expressions (`code`) name without calling them.
    pub(super) fn address_taken(&self, body: &'a Body, code: &[bool]) {
        let named: Vec<ExprId> = (0..body.exprs.len() as ExprId)
            .filter(|&e| code.get(e as usize).copied().unwrap_or(false))
            .filter(|&e| match &body.exprs[e as usize] {
                Expr::Name(n) | Expr::TemplateName { name: n, .. } => self.names_template(n),
                _ => false,
            })
            .collect();
        // Most bodies name no template as a value: no parent table made for them.
        if named.is_empty() {
            return;
        }
        let parent = parents(body);
        for e in named {
            let up = |x: ExprId| parent.get(x as usize).copied().flatten();
            // `&f` is the value; `f(...)` is a call, bound as one.
            let value = match up(e).map(|p| (p, &body.exprs[p as usize])) {
                Some((_, Expr::Call { callee, .. })) if *callee == e => continue,
                Some((p, Expr::Unary { op: UnOp::Addr, .. })) => p,
                _ => e,
            };
            // `(reg(&f<Ts>), ...)`: the pattern names one specialisation per element of the
            // pack ([temp.variadic]/8), each instantiated.
            match self.expansion_len(body, &parent, e) {
                Some(n) => {
                    let saved = self.pack_index.get();
                    for k in 0..n {
                        self.pack_index.set(Some(k));
                        self.bind_named(body, &parent, e, value);
                    }
                    self.pack_index.set(saved);
                }
                None => self.bind_named(body, &parent, e, value),
            }
        }
    }

    /// Binds the specialisation the name `e` selects, `value` being the expression converted
    /// to the target type (`&f<T>` or `f<T>`).
    fn bind_named(&self, body: &Body, parent: &[Option<ExprId>], e: ExprId, value: ExprId) {
        let (name, explicit) = match &body.exprs[e as usize] {
            Expr::TemplateName { name, targs } => {
                (name, self.explicit_args(self.targ_list(*targs)))
            }
            Expr::Name(n) => (n, Vec::new()),
            _ => return,
        };
        let key = named_key(e);
        match self.target_params(body, parent, value) {
            Some(args) => {
                let _ = self.named_call(key, name, &explicit, &args);
            }
            None => self.explicitly_named(key, name, &explicit),
        }
    }

    /// The number of elements of the pack expanded by the innermost expansion `e` is in, when
    /// `e`'s template arguments name that pack.
    fn expansion_len(&self, body: &Body, parent: &[Option<ExprId>], e: ExprId) -> Option<usize> {
        let Expr::TemplateName { .. } = body.exprs.get(e as usize)? else {
            return None;
        };
        let mut x = e;
        while let Some(p) = parent.get(x as usize).copied().flatten() {
            if let Expr::Expand(_) = body.exprs[p as usize] {
                return self.pack_len(&[e]);
            }
            x = p;
        }
        None
    }

    /// The instances recorded under `named_key`s, at their names, in source order.
    pub(super) fn named_instances(
        &self,
        targets: &rustc_hash::FxHashMap<usize, Vec<Instance>>,
    ) -> Vec<(Span, Vec<Instance>)> {
        let Some(body) = self.body else {
            return Vec::new();
        };
        let mut out: Vec<(Span, Vec<Instance>)> = targets
            .iter()
            .filter(|(_, insts)| !insts.is_empty())
            .filter_map(|(&key, insts)| {
                let span = *body.spans.get(named_expr(key)? as usize)?;
                Some((span, insts.clone()))
            })
            .collect();
        out.sort_by_key(|(s, _)| (s.range().start, s.range().end));
        out
    }

    /// Whether `name` may name a function template the file sees.
    fn names_template(&self, name: &str) -> bool {
        let ix = self.ix;
        ix.visible(ix.functions, self.file, last(name))
            .any(|(f, i)| ix.function(f, i).is_template)
    }

    /// The parameter types of the function type `value` is converted to, when it is written:
    /// a data member's (`obj.cb = star1;`, read in its class's context), or one
    /// `target_text` finds.
    fn target_params(
        &self,
        body: &Body,
        parent: &[Option<ExprId>],
        value: ExprId,
    ) -> Option<Vec<Ty>> {
        let p = parent.get(value as usize).copied().flatten();
        if let Some(Expr::Assign { op: None, lhs, rhs }) = p.map(|p| &body.exprs[p as usize]) {
            if let (true, Some(Expr::Member { base, arrow, name })) =
                (*rhs == value, body.exprs.get(*lhs as usize))
            {
                let t = self.ty(*base);
                let t = if *arrow { super::pointee(&t) } else { t };
                let Ty::Class(c) = t.strip_ref() else {
                    return None;
                };
                let (f, i) = c.decl?;
                let cl = &self.ix.files[f as usize].classes[i as usize];
                let field = cl.fields.iter().find(|fl| fl.name == name.as_str())?;
                let params = function_params(&field.ty)?;
                return Some(params.iter().map(|p| self.field_ty(c, cl, p)).collect());
            }
        }
        let text = self.target_text(body, parent, value)?;
        let params = function_params(&text)?;
        Some(params.iter().map(|p| self.resolve(p)).collect())
    }

    /// The type written for what `value` initialises or is assigned to: a local's declared
    /// type (`void (*f)(queue &, double *) = ...`, an element of its array's braces), the
    /// assigned local's or local array element's (`f = star1;`, `fs[1] = star1;`), the
    /// function's return type (`return &run<8>;`), or a non-template callee's parameter
    /// (`reg(star1)`).
    fn target_text(&self, body: &Body, parent: &[Option<ExprId>], value: ExprId) -> Option<String> {
        let declared = |l: u32| match &body.locals.get(l as usize)?.ty {
            LocalTy::Declared(t) => Some(t.to_string()),
            _ => None,
        };
        let init_of = |x: ExprId| body.inits.iter().find(|(_, e)| *e == x).map(|(l, _)| *l);
        if let Some(l) = init_of(value) {
            return declared(l);
        }
        let p = parent.get(value as usize).copied().flatten()?;
        match &body.exprs[p as usize] {
            Expr::Assign { op: None, lhs, rhs } if *rhs == value => {
                match body.exprs.get(*lhs as usize)? {
                    Expr::Local(l) => declared(*l),
                    // `fs[1] = run<64>;`: an element of a local array of pointers.
                    Expr::Index { base, .. } => match body.exprs.get(*base as usize)? {
                        Expr::Local(l) => declared(*l).map(|t| element_text(&t)),
                        _ => None,
                    },
                    _ => None,
                }
            }
            Expr::InitList(_) => declared(init_of(p)?).map(|t| element_text(&t)),
            Expr::Call { callee, args } => {
                let k = body.list(*args).iter().position(|&a| a == value)?;
                self.callee_param(body, *callee, k)
            }
            _ => None,
        }
        .or_else(|| {
            let returned = body
                .stmts
                .iter()
                .any(|s| matches!(s, Stmt::Return(r) if *r == value));
            returned
                .then(|| self.func.ret.as_deref().map(str::to_string))
                .flatten()
        })
    }

    /// The `k`-th parameter's written type of the function a call binds to, when that is one
    /// function and no template (a template's parameter text names its own parameters).
    fn callee_param(&self, body: &Body, callee: ExprId, k: usize) -> Option<String> {
        let at = body.spans.get(callee as usize)?.range().start;
        let targets = self.targets.borrow();
        let [inst] = targets.get(&at)?.as_slice() else {
            return None;
        };
        let f = self.ix.function(inst.file, inst.func);
        if !f.tparams.is_empty() {
            return None;
        }
        f.params.get(k).map(|p| p.to_string())
    }

    /// `run<32, float>` with no target type: the templates of that name whose parameters the
    /// explicit arguments all bind.
    fn explicitly_named(&self, key: usize, name: &str, explicit: &[Ty]) {
        if explicit.is_empty() || !explicit.iter().all(Ty::is_concrete) {
            return;
        }
        let ix = self.ix;
        let q = qualifier(name);
        let insts: Vec<Instance> = ix
            .visible(ix.functions, self.file, last(name))
            .filter(|&(f, i)| {
                let func = ix.function(f, i);
                func.is_template
                    && func.spec_args.is_none()
                    && func.tparams.len() == explicit.len()
                    && scope_ends_with(&func.scope, &q)
            })
            .map(|(file, func)| Instance {
                file,
                func,
                subst: Arc::from(explicit),
            })
            .collect();
        if insts.is_empty() {
            return;
        }
        let mut targets = self.targets.borrow_mut();
        let list = targets.entry(key).or_default();
        for i in insts {
            if !list.contains(&i) {
                list.push(i);
            }
        }
    }
}

/// Per expression, the expression it is an operand of.
fn parents(body: &Body) -> Vec<Option<ExprId>> {
    let mut parent = vec![None; body.exprs.len()];
    for (p, x) in body.exprs.iter().enumerate() {
        for c in body.children(x) {
            if let Some(slot) = parent.get_mut(c as usize) {
                *slot = Some(p as ExprId);
            }
        }
    }
    parent
}

/// An array's element type as written: `void(*[])(int)` → `void(*)(int)`, `F[4]` → `F`.
fn element_text(t: &str) -> String {
    match t.find("(*[") {
        Some(i) => {
            let close = t[i..].find(']').map_or(i, |j| i + j);
            format!("{}(*{}", &t[..i], &t[close + 1..])
        }
        None => t.rfind('[').map_or(t, |i| &t[..i]).to_string(),
    }
}

/// The parameter types of a function type as written for a pointer or reference to one
/// (`void(*)(queue&,double*)`, `R(&)(T)`) or in a `std::function<R(P...)>`; `None` for any
/// other type.
fn function_params(text: &str) -> Option<Vec<&str>> {
    let groups = |s: &'_ str| -> Vec<(usize, usize)> {
        let (mut depth, mut angle, mut open, mut out) = (0usize, 0usize, 0usize, Vec::new());
        for (i, c) in s.char_indices() {
            match c {
                '<' => angle += 1,
                '>' => angle = angle.saturating_sub(1),
                '(' if angle == 0 => {
                    if depth == 0 {
                        open = i;
                    }
                    depth += 1;
                }
                ')' if angle == 0 && depth > 0 => {
                    depth -= 1;
                    if depth == 0 {
                        out.push((open + 1, i));
                    }
                }
                _ => {}
            }
        }
        out
    };
    let inner = text
        .strip_prefix("std::function<")
        .and_then(|t| t.strip_suffix('>'));
    let params = match inner {
        Some(sig) => match groups(sig).as_slice() {
            [(s, e)] => &sig[*s..*e],
            _ => return None,
        },
        None => match groups(text).as_slice() {
            [(s1, e1), (s2, e2)] if text[*s1..*e1].starts_with(['*', '&']) => &text[*s2..*e2],
            _ => return None,
        },
    };
    Some(split_top(params))
}

/// `a,b<c,d>,e` → `a`, `b<c,d>`, `e`; `void` or nothing is no parameter.
fn split_top(s: &str) -> Vec<&str> {
    let s = s.trim();
    if s.is_empty() || s == "void" {
        return Vec::new();
    }
    let (mut depth, mut start, mut out) = (0i32, 0usize, Vec::new());
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_types_give_their_parameters() {
        assert_eq!(
            function_params("void(*)(queue&,double*)"),
            Some(vec!["queue&", "double*"])
        );
        assert_eq!(
            function_params("std::function<void(sycl::queue&,std::pair<int,float>)>"),
            Some(vec!["sycl::queue&", "std::pair<int,float>"])
        );
        assert_eq!(function_params("int(&)(void)"), Some(vec![]));
        assert_eq!(function_params("std::vector<int>"), None);
        assert_eq!(function_params("double*"), None);
        assert_eq!(element_text("void(*[])(queue&,T*)"), "void(*)(queue&,T*)");
        assert_eq!(element_text("void(*[2])(int)"), "void(*)(int)");
    }
}
