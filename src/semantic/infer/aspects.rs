//! DPC++'s value rule: the aspects the values a body loads, stores, computes, converts or
//! passes use by their type (pointers never do), constants and unevaluated operands left out;
//! the uses of one typing, and the calls and launches it bound.

use rustc_hash::FxHashMap as HashMap;

use super::lookup::resolve_text;
use super::{class_subst, Cx, MAX_DEPTH};
use crate::devices::{registry, AspectId, AspectSet};
use crate::semantic::features::features;
use crate::semantic::names::last;
use crate::semantic::ty::*;
use crate::semantic::{Fate, Index, Instance, SemUse, Typed};
use crate::syntax::{AspectRef, CallTarget, Expr, ExprId, FloatLit, Lit, Span, Stmt};
use crate::text::TextRange;

/// Records a use: aspects, what (made only when kept), the type whose value it is (to say
/// why it uses them), ranking range, location, fate.
type AddUse<'f> =
    dyn FnMut(AspectSet, &dyn Fn() -> String, Option<&Ty>, TextRange, Span, Fate) + 'f;

/// The double operations narrowed at -O2 (`narrowing`).
type Narrowed = rustc_hash::FxHashSet<ExprId>;

/// The use kept for an aspect, and the expression range that ranks it.
type Found = (TextRange, SemUse);

impl Cx<'_, '_> {
    pub(super) fn run(&self) -> Typed {
        let reg = registry();
        for c in &self.func.calls {
            match &c.target {
                CallTarget::Instantiate { what, params } => {
                    self.instantiate(c.span.range().start, what, params.as_deref());
                }
                CallTarget::InstantiateEach { what, list } => {
                    self.instantiate_each(c.span.range().start, what, list);
                }
                _ => {}
            }
        }
        // Per aspect and fate, the first use in source order, the innermost expression among
        // those starting at the same place; keyed by the expression, located where it points.
        let mut found: HashMap<(crate::devices::AspectId, Fate), Found> = HashMap::default();
        let mut dead: Vec<TextRange> = Vec::new();
        let mut dead_out: Vec<std::ops::Range<u32>> = Vec::new();
        let mut undecided: Vec<std::ops::Range<u32>> = Vec::new();
        let mut add = |set: AspectSet,
                       what: &dyn Fn() -> String,
                       ty: Option<&Ty>,
                       key: TextRange,
                       span: Span,
                       fate: Fate| {
            for a in set.iter() {
                let better = found.get(&(a, fate)).is_none_or(|(k, _)| {
                    (key.start, key.end - key.start) < (k.start, k.end - k.start)
                });
                if better {
                    found.insert(
                        (a, fate),
                        (
                            key,
                            SemUse {
                                aspect: a,
                                what: what(),
                                why: ty.and_then(|t| why_uses(self.ix, t, a)),
                                span,
                                fate,
                            },
                        ),
                    );
                }
            }
        };
        if let Some(body) = self.body {
            for (id, l) in body.locals.iter().enumerate() {
                if l.param {
                    let t = self.local(id as u32);
                    add(
                        self.aspects(&t),
                        &|| t.to_string(),
                        Some(&t),
                        l.span.range(),
                        l.span,
                        Fate::CONVERSION,
                    );
                    self.add_pointee(&t, l.span.range(), l.span, &mut add);
                }
            }
            if let Some(ret) = &self.func.ret {
                if !ret.contains("auto") {
                    let t = self.resolve(ret);
                    add(
                        self.aspects(&t),
                        &|| t.to_string(),
                        Some(&t),
                        self.func.name_span.range(),
                        self.func.name_span,
                        Fate::CONVERSION,
                    );
                    self.add_pointee(
                        &t,
                        self.func.name_span.range(),
                        self.func.name_span,
                        &mut add,
                    );
                }
            }
            let (live, out) = self.discarded(body);
            dead_out = out;
            undecided = self.undecided_branches(body);
            // Only what the live statements evaluate is typed: typing a discarded call would
            // bind it under a key it may share (positions in an expansion).
            let code = super::narrowing::live_exprs(body, &live);
            let narrowed = self.narrowed_ops(body, &live, &code);
            self.convert_to_declared(body, &live, &code);
            for (i, s) in body.stmts.iter().enumerate() {
                if !live[i] {
                    // Calls in a discarded branch bind to nothing (not to every overload).
                    let span = match s {
                        Stmt::Expr(e) | Stmt::Return(e) => body.spans.get(*e as usize),
                        Stmt::Local(id) => body.locals.get(*id as usize).map(|l| &l.span),
                        Stmt::IfConstexpr { cond, .. } => body.spans.get(*cond as usize),
                    };
                    if let Some(sp) = span {
                        dead.push(sp.range());
                    }
                    continue;
                }
                match s {
                    Stmt::Expr(e) | Stmt::Return(e) => self.visit(*e, &narrowed, &mut add),
                    Stmt::Local(id) => {
                        let l = &body.locals[*id as usize];
                        let t = self.local(*id);
                        add(
                            self.aspects(&t),
                            &|| t.to_string(),
                            Some(&t),
                            l.span.range(),
                            l.span,
                            Fate::CONVERSION,
                        );
                        self.add_pointee(&t, l.span.range(), l.span, &mut add);
                        // An `atomic_ref<T>` is built on an lvalue of type `T` (its constructor
                        // takes a `T&`: SYCL 2020 4.15.3), a use of `T`.
                        if let Some(x) = super::atomic_element(&t) {
                            add(
                                self.aspects(&x),
                                &|| x.to_string(),
                                Some(&x),
                                l.span.range(),
                                l.span,
                                Fate::CONVERSION,
                            );
                        }
                    }
                    Stmt::IfConstexpr { .. } => {}
                }
            }
            self.address_taken(body, &code);
        } else {
            // A declaration only: its signature (a call out of the program, which the
            // conversion emulation does not cover).
            for p in &self.func.params {
                let t = match self.resolve(p) {
                    Ty::Array(x) => Ty::Ptr(x),
                    t => t,
                };
                add(
                    self.aspects(&t),
                    &|| t.to_string(),
                    Some(&t),
                    self.func.name_span.range(),
                    self.func.name_span,
                    Fate::KEPT,
                );
                self.add_pointee(
                    &t,
                    self.func.name_span.range(),
                    self.func.name_span,
                    &mut add,
                );
            }
        }
        for r in &self.func.uses_aspects {
            if let AspectRef::Named { name, span } = r {
                if let Some(a) = reg.by_name(name) {
                    let set: AspectSet = [a].into_iter().collect();
                    add(
                        set,
                        &|| format!("__uses_aspects__({name})"),
                        None,
                        span.range(),
                        *span,
                        Fate::KEPT,
                    );
                }
            }
        }
        let mut uses: Vec<SemUse> = found.into_values().map(|(_, u)| u).collect();
        uses.sort_by_key(|u| (u.span.range().start, u.aspect, u.fate));
        let targets = self.targets.borrow();
        let calls =
            self.func
                .calls
                .iter()
                .map(|c| {
                    if dead_out.iter().any(|d| d.contains(&c.out)) {
                        return Some(Vec::new());
                    }
                    let binds = targets.get(&c.span.range().start).cloned();
                    match undecided.iter().any(|d| d.contains(&c.out)) {
                        true => binds
                            .map(|b| b.iter().map(|i| Instance::plain(i.file, i.func)).collect()),
                        false => binds,
                    }
                })
                .collect();
        // Operator functions called by operator expressions (`operators`).
        let mut implicit: Vec<(Span, Vec<Instance>)> = Vec::new();
        if let Some(body) = self.body {
            for (&key, insts) in targets.iter() {
                let Some(e) = super::operators::implicit_expr(key) else {
                    continue;
                };
                let Some(&span) = body.spans.get(e as usize) else {
                    continue;
                };
                let at = span.range().start;
                if insts.is_empty() || dead.iter().any(|d| d.start <= at && at < d.end) {
                    continue;
                }
                implicit.push((span, insts.clone()));
            }
        }
        implicit.sort_by_key(|(s, _)| (s.range().start, s.range().end));
        let named = self.named_instances(&targets);
        let launches = self
            .func
            .launches
            .iter()
            .map(|l| self.launch(&l.kernel, l.span, &l.via))
            .collect();
        Typed {
            uses,
            calls,
            launches,
            implicit,
            named,
            reads: Vec::new(),
            library: self.library.take(),
        }
    }

    pub(super) fn visit(&self, e: ExprId, narrowed: &Narrowed, add: &mut AddUse) {
        let Some(x) = self.expr(e) else { return };
        let body = self.body.expect("visited bodies exist");
        match x {
            Expr::SizeOf(_) | Expr::SizeOfExpr(_) | Expr::SizeOfPack(_) | Expr::Lambda(_) => return,
            Expr::Expand(p) => {
                if self.expand(*p, |cx| cx.visit(*p, narrowed, add)).is_none() {
                    self.visit(*p, narrowed, add);
                }
                return;
            }
            Expr::TemplateName { .. } | Expr::Name(_) if self.const_eval(e).is_some() => return,
            _ => {}
        }
        if !self.is_constant(e) {
            let t = self.op_ty(e);
            self.add_pointee(
                &t,
                body.spans[e as usize].range(),
                body.spans[e as usize],
                add,
            );
            let set = self.aspects(&t);
            let fate = Fate {
                narrowed: narrowed.contains(&e),
                conversion: !self.is_arithmetic(e),
                pointee: false,
            };
            if !set.is_empty() {
                // Where a double literal is what makes arithmetic run in double, it is the use.
                let lit = match x {
                    Expr::Binary { lhs, rhs, .. }
                    | Expr::Assign {
                        op: Some(_),
                        lhs,
                        rhs,
                    } => [*lhs, *rhs].into_iter().find(|&o| {
                        matches!(
                            self.expr(o),
                            Some(Expr::Lit(Lit::Float(FloatLit::Double, _)))
                        ) && {
                            let other = if o == *lhs { *rhs } else { *lhs };
                            !matches!(
                                self.ty(other).strip_ref(),
                                Ty::Float(FloatKindOrd::Double | FloatKindOrd::LongDouble)
                            )
                        }
                    }),
                    _ => None,
                };
                match lit {
                    Some(l) => {
                        let span = body.spans[l as usize];
                        let text = self
                            .func
                            .literals
                            .iter()
                            .chain(self.func.calls.iter().flat_map(|c| &c.literal_args))
                            .find(|d| d.span.range().start == span.range().start)
                            .map(|d| d.text);
                        add(
                            set,
                            &|| match &text {
                                Some(t) => format!("double literal {t}"),
                                None => "double literal".to_string(),
                            },
                            None,
                            body.spans[e as usize].range(),
                            span,
                            fate,
                        );
                    }
                    None => {
                        // A literal given to a library math function selects its double
                        // overload.
                        let passed = match x {
                            Expr::Call { callee, args } => {
                                let name = match self.expr(*callee) {
                                    Some(Expr::Name(n)) => Some(last(n).to_string()),
                                    _ => None,
                                };
                                name.filter(|n| features().is_math(n)).and_then(|n| {
                                    self.list(*args)
                                        .iter()
                                        .find(|&&a| {
                                            matches!(
                                                self.expr(a),
                                                Some(Expr::Lit(Lit::Float(FloatLit::Double, _)))
                                            )
                                        })
                                        .map(|&a| (n, a))
                                })
                            }
                            _ => None,
                        };
                        match passed {
                            Some((name, a)) => {
                                let span = body.spans[a as usize];
                                let text = self
                                    .func
                                    .calls
                                    .iter()
                                    .flat_map(|c| &c.literal_args)
                                    .find(|d| d.span.range().start == span.range().start)
                                    .map_or("".to_string(), |d| format!(" {}", d.text));
                                add(
                                    set,
                                    &|| format!("double literal{text} passed to {name}"),
                                    None,
                                    body.spans[e as usize].range(),
                                    span,
                                    fate,
                                );
                            }
                            None => add(
                                set,
                                &|| t.to_string(),
                                Some(&t),
                                body.spans[e as usize].range(),
                                body.spans[e as usize],
                                fate,
                            ),
                        }
                    }
                }
            }
        }
        // A value a conversion function gives is passed here (`float z = CvD{x};` holds a
        // double for a moment).
        if let Some(t) = self.converted.borrow().get(&e).cloned() {
            add(
                self.aspects(&t),
                &|| t.to_string(),
                Some(&t),
                body.spans[e as usize].range(),
                body.spans[e as usize],
                Fate::CONVERSION,
            );
        }
        for c in body.children(x) {
            self.visit(c, narrowed, add);
        }
    }

    /// The type an operation computes in: comparisons and compound assignments run in the
    /// operands' common type, whatever their result.
    pub(super) fn op_ty(&self, e: ExprId) -> Ty {
        match self.expr(e) {
            Some(Expr::Binary { op, lhs, rhs }) if op.is_comparison() => {
                self.ty(e);
                let (l, r) = (self.value_ty(*lhs), self.value_ty(*rhs));
                if l.is_arithmetic() && r.is_arithmetic() {
                    Ty::common(&l, &r)
                } else {
                    Ty::Bool
                }
            }
            Some(Expr::Assign {
                op: Some(op),
                lhs,
                rhs,
            }) if op.is_arithmetic() => {
                self.ty(e);
                let (l, r) = (self.ty(*lhs), self.value_ty(*rhs));
                match l.strip_ref() {
                    _ if l.is_arithmetic() && r.is_arithmetic() => Ty::common(&l, &r),
                    // `acc += x` on a `sycl::reducer<T, Op>` combines in T.
                    Ty::Class(c) if c.decl.is_none() && c.last() == "reducer" => {
                        c.args.first().cloned().unwrap_or(Ty::Unknown)
                    }
                    _ => self.ty(e),
                }
            }
            _ => self.ty(e),
        }
    }

    /// Aspects a value of this type uses (by value: pointers and references carry nothing).
    pub fn aspects(&self, t: &Ty) -> AspectSet {
        aspects_of(self.ix, t.strip_ref(), 0)
    }

    /// Records what a pointer value's pointee uses by value, through pointers to pointers:
    /// with typed pointers (DPC++ 2023 and older) a pointer type contained its element type,
    /// whose aspects the pass took (`Fate::POINTEE`, counted by those releases' rule only).
    fn add_pointee(&self, t: &Ty, key: TextRange, span: Span, add: &mut AddUse) {
        let ptr = t.strip_ref();
        let mut t = ptr;
        let mut set = AspectSet::EMPTY;
        while let Ty::Ptr(x) = t {
            t = x.strip_ref();
            set = set.union(aspects_of(self.ix, t, 0));
        }
        if !set.is_empty() {
            add(
                set,
                &|| {
                    format!("{ptr} (DPC++ 2023 and older: typed pointers, a pointer's element type counted)")
                },
                None,
                key,
                span,
                Fate::POINTEE,
            );
        }
    }
}

/// Aspects of a type held by value.
pub(super) fn aspects_of(ix: &Index, t: &Ty, depth: usize) -> AspectSet {
    let reg = registry();
    let one = |n: &str| -> AspectSet { reg.by_name(n).into_iter().collect() };
    match t {
        Ty::Float(FloatKindOrd::Double | FloatKindOrd::LongDouble) => one("fp64"),
        Ty::Float(FloatKindOrd::Half) => one("fp16"),
        Ty::Array(x) => aspects_of(ix, x, depth),
        Ty::Pack(xs) => xs.iter().fold(AspectSet::EMPTY, |s, x| {
            s.union(aspects_of(ix, x.strip_ref(), depth))
        }),
        Ty::Closure(..) => AspectSet::EMPTY,
        Ty::Class(c) => {
            if depth > MAX_DEPTH {
                return AspectSet::EMPTY;
            }
            if let Some(&set) = ix.class_aspects.borrow().get(c) {
                return set;
            }
            let set = class_aspects(ix, c, depth);
            ix.class_aspects.borrow_mut().insert(c.clone(), set);
            set
        }
        _ => AspectSet::EMPTY,
    }
}

pub(super) fn class_aspects(ix: &Index, c: &ClassTy, depth: usize) -> AspectSet {
    let reg = registry();
    let one = |n: &str| -> AspectSet { reg.by_name(n).into_iter().collect() };
    {
        {
            let f = features();
            let mut set = AspectSet::EMPTY;
            if let Some(a) = f.type_aspect(&c.name) {
                set.insert(a);
            }
            if f.is_atomic_template(&c.name) {
                if let Some(arg) = c.args.first() {
                    match arg.strip_ref() {
                        Ty::Float(FloatKindOrd::Half) => {
                            set = set.union(one("ext_oneapi_atomic16"))
                        }
                        a if a.scalar_size() == Some(8) => set = set.union(one("atomic64")),
                        _ => {}
                    }
                }
                return set;
            }
            if f.is_by_value_template(c.last()) {
                for a in &c.args {
                    set = set.union(aspects_of(ix, a, depth + 1));
                }
            }
            if let Some((fi, ci)) = c.decl {
                let cl = &ix.files[fi as usize].classes[ci as usize];
                set = set.union(crate::semantic::known_aspects(&cl.uses_aspects));
                let subst = class_subst(cl, c);
                for fl in cl.fields.iter().filter(|f| !f.is_static) {
                    let ft = resolve_text(ix, fi, &fl.ty, &subst, depth + 1);
                    set = set.union(aspects_of(ix, &ft, depth + 1));
                }
                for b in &cl.bases {
                    let bt = resolve_text(ix, fi, b, &subst, depth + 1);
                    set = set.union(aspects_of(ix, &bt, depth + 1));
                }
            }
            set
        }
    }
}

/// Why a value of type `t` uses `aspect` when its name does not say: what the class holds, down
/// to a type that says it ("it holds field 'inner' of type 'Params', which holds field 'scale'
/// of type 'double'"). `None` for a type that says it itself (`double`, `sycl::half`).
pub(super) fn why_uses(ix: &Index, t: &Ty, aspect: AspectId) -> Option<String> {
    let steps = holds(ix, t.strip_ref(), aspect, 0)?;
    (!steps.is_empty()).then(|| format!("it {}", steps.join(", which ")))
}

/// The steps from `t` to what uses `aspect` in it, each a verb phrase; empty when `t`'s name
/// says it; `None` when `t` does not use it.
fn holds(ix: &Index, t: &Ty, aspect: AspectId, depth: usize) -> Option<Vec<String>> {
    match t {
        Ty::Array(x) => holds(ix, x.strip_ref(), aspect, depth),
        Ty::Pack(xs) => xs
            .iter()
            .find_map(|x| holds(ix, x.strip_ref(), aspect, depth)),
        Ty::Class(c) if depth <= MAX_DEPTH && aspects_of(ix, t, depth).contains(aspect) => {
            class_holds(ix, c, aspect, depth)
        }
        _ if aspects_of(ix, t, depth).contains(aspect) => Some(Vec::new()),
        _ => None,
    }
}

fn class_holds(ix: &Index, c: &ClassTy, aspect: AspectId, depth: usize) -> Option<Vec<String>> {
    let f = features();
    if f.type_aspect(&c.name) == Some(aspect) || f.is_atomic_template(&c.name) {
        return Some(Vec::new());
    }
    let then = |step: String, t: &Ty| -> Option<Vec<String>> {
        let rest = holds(ix, t.strip_ref(), aspect, depth + 1)?;
        Some(std::iter::once(step).chain(rest).collect())
    };
    if f.is_by_value_template(c.last()) {
        if let Some(steps) = c
            .args
            .iter()
            .find_map(|a| then(format!("holds its template argument '{a}'"), a))
        {
            // `vec<double, 3>`: the argument in its name says it.
            return Some(if steps.len() == 1 { Vec::new() } else { steps });
        }
    }
    let (fi, ci) = c.decl?;
    let cl = &ix.files[fi as usize].classes[ci as usize];
    if crate::semantic::known_aspects(&cl.uses_aspects).contains(aspect) {
        let name = registry().name(aspect);
        return Some(vec![format!("is declared with '__uses_aspects__({name})'")]);
    }
    let subst = class_subst(cl, c);
    cl.fields
        .iter()
        .filter(|fl| !fl.is_static)
        .find_map(|fl| {
            let ft = resolve_text(ix, fi, &fl.ty, &subst, depth + 1);
            then(format!("holds field '{}' of type '{ft}'", fl.name), &ft)
        })
        .or_else(|| {
            cl.bases.iter().find_map(|b| {
                let bt = resolve_text(ix, fi, b, &subst, depth + 1);
                then(format!("derives from '{bt}'"), &bt)
            })
        })
}
