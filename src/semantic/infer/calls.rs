//! Calls and launches: what a call binds to (named, member, object and construction calls,
//! overload choice among the visible candidates), the return types it gives (declared or
//! deduced from the body), and the kernels a launch starts.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use super::library::{library_call, library_method};
use super::lookup::resolve_text;
use super::{joined, pointee, Cx, MAX_DEPTH};
use crate::semantic::features::features;
use crate::semantic::names::{last, qualifier, qualifier_text, scope_ends_with};
use crate::semantic::ty::*;
use crate::semantic::Instance;
use crate::syntax::{Expr, ExprId, KernelRef, Name, Span, Stmt, LIBRARY_LAUNCH};

impl<'i, 'a> Cx<'i, 'a> {
    pub(super) fn call(&self, callee: ExprId, args: &[ExprId]) -> Ty {
        let arg_tys = self.arg_types(args);
        let at = self
            .body
            .map_or(0, |b| b.spans[callee as usize].range().start);
        let spread = args
            .iter()
            .any(|&a| matches!(self.expr(a), Some(Expr::Expand(_))));
        let bounds = match spread {
            false => args.iter().map(|&a| self.array_bounds(a)).collect(),
            true => Vec::new(),
        };
        let saved = self.arg_bounds.replace(bounds);
        let t = self.call_to(at, callee, &arg_tys);
        self.arg_bounds.replace(saved);
        if !spread {
            self.convert_args(at, args);
        }
        self.note_library_kernel(at, callee, args, &arg_tys);
        // A closure handed to code outside the workspace (`q.submit(cgf)`, `std::for_each`) is
        // called by it: the call reaches the closure, with the instance's arguments.
        if !self.targets.borrow().contains_key(&at) {
            let closures: Vec<Instance> = arg_tys
                .iter()
                .filter_map(|a| match a.strip_ref() {
                    Ty::Closure(f, i, s) => Some(Instance {
                        file: *f,
                        func: *i,
                        subst: s.clone(),
                    }),
                    _ => None,
                })
                .collect();
            if !closures.is_empty() {
                self.targets.borrow_mut().insert(at, closures);
            }
        }
        t
    }

    pub(super) fn call_to(&self, at: usize, callee: ExprId, arg_tys: &[Ty]) -> Ty {
        let Some(c) = self.expr(callee) else {
            return Ty::Unknown;
        };
        match c {
            Expr::Name(n) => {
                if let Some(t) = self.construction(n, None) {
                    self.alias_construction(at, n, &t, arg_tys);
                    return self.deduce_class_args(t, arg_tys);
                }
                // A function object held in a member or a variable: `f(x)` calls its
                // `operator()`.
                let ix = self.ix;
                if ix
                    .visible(ix.functions, self.file, last(n))
                    .next()
                    .is_none()
                {
                    let t = self.name(n);
                    if matches!(t.strip_ref(), Ty::Class(_) | Ty::Closure(..)) {
                        return self.call_object(at, &t, arg_tys);
                    }
                }
                self.named_call(at, n, &[], arg_tys)
            }
            Expr::TemplateName { name, targs } => {
                if let Some(t) = self.construction(name, Some(self.targ_list(*targs))) {
                    return t;
                }
                let explicit: Vec<Ty> = self.explicit_args(self.targ_list(*targs));
                self.named_call(at, name, &explicit, arg_tys)
            }
            Expr::Member { base, arrow, name } => {
                let rt = self.ty(*base);
                let rt = if *arrow { pointee(&rt) } else { rt };
                self.member_call(at, &rt, name, &[], arg_tys)
            }
            Expr::MemberTemplate {
                base,
                arrow,
                name,
                targs,
            } => {
                let rt = self.ty(*base);
                let rt = if *arrow { pointee(&rt) } else { rt };
                let explicit: Vec<Ty> = self.explicit_args(self.targ_list(*targs));
                self.member_call(at, &rt, name, &explicit, arg_tys)
            }
            _ => {
                let t = self.ty(callee);
                self.call_object(at, &t, arg_tys)
            }
        }
    }

    /// `T<A>(x)` / `T(x)` where `T` names a class and no function: a construction.
    pub(super) fn construction(&self, name: &str, targs: Option<&[Name]>) -> Option<Ty> {
        let l = last(name);
        let ix = self.ix;
        if ix.visible(ix.functions, self.file, l).next().is_some() {
            return None;
        }
        let f = features();
        if targs.is_none() {
            // A functional cast to a builtin or an alias of one: `sycl::half(x)`, `real(x)`.
            let t = self.resolve(name);
            if matches!(t, Ty::Float(_) | Ty::Int { .. } | Ty::Bool) {
                return Some(t);
            }
            // A workspace class named through an alias (`SD()` with `typedef S<double> SD;`).
            if matches!(&t, Ty::Class(c) if c.decl.is_some() && c.last() != l) {
                return Some(t);
            }
        }
        // SYCL's own class templates, constructed by name (`sycl::range<2>(8, 8)`).
        let sycl_class = matches!(
            l,
            "range" | "id" | "nd_range" | "vec" | "marray" | "buffer" | "queue" | "multi_ptr"
        ) && (targs.is_some() || name.contains("sycl::"));
        // The standard library's classes a test passes by value (`run<T>(std::string("x"))`):
        // a known class type, so a template parameter deduced from it is bound.
        let std_class = qualifier(name) == ["std"]
            && (matches!(l, "string" | "string_view" | "pair" | "tuple" | "optional")
                || is_tag_class(l));
        // Function objects a reduction or an algorithm combines with (`sycl::plus<double>()`,
        // `std::multiplies<>()`).
        let function_object = matches!(qualifier(name).as_slice(), ["sycl"] | ["std"])
            && matches!(
                l,
                "plus"
                    | "minus"
                    | "multiplies"
                    | "multiply"
                    | "divides"
                    | "minimum"
                    | "maximum"
                    | "bit_and"
                    | "bit_or"
                    | "bit_xor"
                    | "logical_and"
                    | "logical_or"
                    | "less"
                    | "greater"
                    | "less_equal"
                    | "greater_equal"
                    | "equal_to"
            );
        let dpl_iterator = matches!(l, "counting_iterator")
            && matches!(qualifier(name).as_slice(), ["oneapi", "dpl"] | ["dpl"]);
        let known = std_class
            || function_object
            || dpl_iterator
            || ix.visible(ix.classes, self.file, l).next().is_some()
            || f.is_atomic_template(name)
            || f.is_element_template(l)
            || f.is_by_value_template(l)
            || sycl_class;
        if !known {
            return None;
        }
        let text = match targs {
            Some(a) => format!("{name}<{}>", joined(a)),
            None => name.to_string(),
        };
        Some(self.resolve(&text))
    }

    /// `SD(x)` with `typedef S<double> SD;` ([dcl.typedef]/2: the typedef-name is a synonym
    /// for `S<double>`): the construction calls `S<double>`'s constructors.
    fn alias_construction(&self, at: usize, name: &str, t: &Ty, args: &[Ty]) {
        let Ty::Class(c) = t else { return };
        if c.decl.is_none() || c.last() == last(name) {
            return;
        }
        let ix = self.ix;
        let ctors: Vec<(u32, u32)> = self
            .members_named(c, c.last())
            .into_iter()
            .filter(|&(f, i)| ix.function(f, i).name == c.last())
            .collect();
        if !ctors.is_empty() {
            let _ = self.overload(at, &ctors, Some(t), &[], args);
        }
    }

    /// Calling a value: a lambda's closure or a functor.
    pub(super) fn call_object(&self, at: usize, t: &Ty, args: &[Ty]) -> Ty {
        match t.strip_ref() {
            Ty::Closure(f, i, s) => {
                let inst = Instance {
                    file: *f,
                    func: *i,
                    subst: self.generic_lambda_subst(*f, *i, s, args),
                };
                let mut targets = self.targets.borrow_mut();
                let list = targets.entry(at).or_default();
                if !list.contains(&inst) {
                    list.push(inst.clone());
                }
                drop(targets);
                self.return_type(&inst)
            }
            Ty::Class(_) => self.member_call(at, t, "operator()", &[], args),
            _ => Ty::Unknown,
        }
    }

    /// A generic lambda is a template over its `auto` parameters ([expr.prim.lambda.closure]/3):
    /// one instance per list of argument types, the closure's own arguments first.
    fn generic_lambda_subst(&self, f: u32, i: u32, closure: &Arc<[Ty]>, args: &[Ty]) -> Arc<[Ty]> {
        let func = self.ix.function(f, i);
        let Some(body) = func.body.as_deref().filter(|b| !b.auto_params.is_empty()) else {
            return closure.clone();
        };
        let params: Vec<u32> = (0..body.locals.len() as u32)
            .filter(|&l| body.locals[l as usize].param)
            .collect();
        let mut subst: Vec<Ty> = closure.to_vec();
        subst.truncate(func.tparams.len());
        for id in &body.auto_params {
            let t = params
                .iter()
                .position(|p| p == id)
                .and_then(|k| args.get(k))
                .map_or(Ty::Unknown, |a| a.strip_ref().clone());
            if !t.is_concrete() {
                return closure.clone();
            }
            subst.push(t);
        }
        Arc::from(subst)
    }

    pub(super) fn named_call(&self, at: usize, name: &str, explicit: &[Ty], args: &[Ty]) -> Ty {
        let l = last(name);
        let q = qualifier(name);
        let ix = self.ix;
        // A local closure or functor called by name is handled as a local; here: functions.
        let mut cands: Vec<(u32, u32)> = ix
            .visible(ix.functions, self.file, l)
            .filter(|&(f, i)| scope_ends_with(&ix.function(f, i).scope, &q))
            .collect();
        // `SD::make()` with `typedef S<double> SD;`: a static member of the class the
        // qualifier names through an alias, its arguments bound ([dcl.typedef]/2).
        if cands.is_empty() && !q.is_empty() {
            if let Some(qt) = qualifier_text(name) {
                let class = self.resolve(qt);
                if let Ty::Class(c) = &class {
                    let members: Vec<(u32, u32)> = ix
                        .visible(ix.functions, self.file, l)
                        .filter(|&(f, i)| self.member_of(f, i, c))
                        .collect();
                    if c.decl.is_some() && !members.is_empty() {
                        return self.overload(at, &members, Some(&class), explicit, args);
                    }
                }
            }
        }
        if cands.is_empty() {
            return library_call(name, explicit, args);
        }
        // `S(x)` naming only S's constructors: a construction, whose value is an S.
        if cands.iter().all(|&(f, i)| {
            let func = ix.function(f, i);
            func.name == l && func.class.as_deref() == Some(l)
        }) {
            if explicit.is_empty() {
                let _ = self.overload(at, &cands, None, explicit, args);
                return self.resolve(name);
            }
            // `K<P>(p)`: the arguments are the class's; its constructors see them bound.
            let class = super::lookup::resolve_with_args(
                self.ix,
                self.file,
                name,
                explicit.to_vec(),
                self.depth + 1,
            );
            let _ = self.overload(at, &cands, Some(&class), &[], args);
            return class;
        }
        // `C<double>::go(...)`: a static member of a class template binds the class's arguments.
        if let Some(qt) = qualifier_text(name).filter(|t| t.contains('<')) {
            let class = self.resolve(qt);
            if let Ty::Class(c) = &class {
                let members: Vec<(u32, u32)> = cands
                    .iter()
                    .copied()
                    .filter(|&(f, i)| self.member_of(f, i, c))
                    .collect();
                if c.decl.is_some() && !members.is_empty() {
                    return self.overload(at, &members, Some(&class), explicit, args);
                }
            }
        }
        // Unqualified: members of the caller's class first.
        if q.is_empty() {
            if let Some(Ty::Class(c)) = &self.class {
                let members: Vec<(u32, u32)> = cands
                    .iter()
                    .copied()
                    .filter(|&(f, i)| ix.function(f, i).class.as_deref() == Some(c.last()))
                    .collect();
                if !members.is_empty() {
                    let recv = self.class.clone();
                    return self.overload(at, &members, recv.as_ref(), explicit, args);
                }
            }
            cands.retain(|&(f, i)| {
                let func = ix.function(f, i);
                func.class.is_none() || func.class.as_deref() == Some(l)
            });
        }
        self.overload(at, &cands, None, explicit, args)
    }

    pub(super) fn member_call(
        &self,
        at: usize,
        recv: &Ty,
        name: &str,
        explicit: &[Ty],
        args: &[Ty],
    ) -> Ty {
        let Ty::Class(c) = recv.strip_ref() else {
            // A receiver of a type the analysis cannot tell, outside a template's generic
            // pattern: which class's member is called is unknown, so it binds to none rather
            // than to every member of that name in the workspace (another class's).
            if !recv.is_known() && !self.subst.values().any(Ty::is_dependent) {
                self.targets.borrow_mut().entry(at).or_default();
            }
            return Ty::Unknown;
        };
        if c.decl.is_none() {
            return library_method(c, name, explicit, args);
        }
        let ix = self.ix;
        let mut classes = vec![recv.strip_ref().clone()];
        // Methods of bases too.
        if let Some((f, i)) = c.decl {
            let cl = &ix.files[f as usize].classes[i as usize];
            for b in &cl.bases {
                classes.push(self.field_ty(c, cl, b));
            }
        }
        for class in classes {
            let Ty::Class(cc) = &class else { continue };
            let cands = self.members_named(cc, name);
            if !cands.is_empty() {
                return self.overload(at, &cands, Some(&class), explicit, args);
            }
        }
        Ty::Unknown
    }

    /// The member functions `name` of class `c`: those the calling file sees (a member defined
    /// out of class in it), and those the class's own file sees. A class reached through a
    /// template argument may be declared in a file the caller's translation unit does not
    /// include (a header's `run_kernel<K>` typed for another unit's functor `K`).
    pub(super) fn members_named(&self, c: &ClassTy, name: &str) -> Vec<(u32, u32)> {
        let ix = self.ix;
        let own = c.decl.map(|(f, _)| f).filter(|&f| f != self.file);
        let mut found: Vec<(u32, u32)> = ix
            .visible(ix.functions, self.file, name)
            .chain(
                own.into_iter()
                    .flat_map(|f| ix.visible(ix.functions, f, name)),
            )
            .filter(|&(f, i)| self.member_of(f, i, c))
            .collect();
        found.sort_unstable();
        found.dedup();
        found
    }

    /// How many different functions the candidates are (a declaration and its definition
    /// are one).
    fn distinct_signatures(&self, scored: &[(u32, bool, Instance)]) -> usize {
        let mut sigs: Vec<(&[String], &str, &[Name])> = scored
            .iter()
            .map(|(_, _, inst)| {
                let f = self.ix.function(inst.file, inst.func);
                (&f.scope[..], f.name.as_str(), &f.params[..])
            })
            .collect();
        sigs.sort();
        sigs.dedup();
        sigs.len()
    }

    /// Whether function (f, i) is a member of class `c`: named as its member, and, when `c`
    /// is a workspace class, not defined in the body of another class of that name (a
    /// specialisation picked for other arguments).
    pub(super) fn member_of(&self, f: u32, i: u32, c: &ClassTy) -> bool {
        let func = self.ix.function(f, i);
        if func.class.as_deref() != Some(c.last()) {
            return false;
        }
        let Some((cf, ci)) = c.decl else {
            return true;
        };
        let inside = |cl: &crate::syntax::Class| {
            let (s, e) = (func.span.range(), cl.span.range());
            e.start <= s.start && s.end <= e.end
        };
        let own = &self.ix.files[cf as usize].classes[ci as usize];
        if f == cf && inside(own) {
            return true;
        }
        !self.ix.files[f as usize]
            .classes
            .iter()
            .any(|cl| cl.name == own.name && inside(cl))
    }

    /// Picks among candidates by argument types; records the binding; the return type.
    pub(super) fn overload(
        &self,
        at: usize,
        cands: &[(u32, u32)],
        recv: Option<&Ty>,
        explicit: &[Ty],
        args: &[Ty],
    ) -> Ty {
        let mut scored: Vec<(u32, bool, Instance)> = Vec::new();
        for &(f, i) in cands {
            let func = self.ix.function(f, i);
            if !func.accepts_args(args.len()) {
                continue;
            }
            if let Some((score, inst)) = self.viable(f, i, func, recv, explicit, args) {
                scored.push((score, func.spec_args.is_some(), inst));
            }
        }
        let Some(best) = scored.iter().map(|s| s.0).min() else {
            return Ty::Unknown;
        };
        let unknown_args = args.iter().any(|a| !a.is_known() || a.is_dependent());
        let dependent = args.iter().any(Ty::is_dependent);
        let mut chosen: Vec<&(u32, bool, Instance)> = if dependent {
            // The generic pattern: every candidate an instance may pick.
            scored.iter().collect()
        } else if unknown_args && self.distinct_signatures(&scored) > 1 {
            // An argument of a type the analysis cannot tell (a library outside the
            // workspace): which overload the compiler picks is unknown, so none is guessed
            // (binding all would report `f(double)`'s aspects for a `float` argument).
            self.targets.borrow_mut().entry(at).or_default();
            return Ty::Unknown;
        } else {
            scored.iter().filter(|s| s.0 == best).collect()
        };
        // An explicit specialisation that matches beats the primary template.
        if chosen.iter().any(|s| s.1) && !unknown_args {
            chosen.retain(|s| s.1);
        }
        let mut insts: Vec<Instance> = chosen.iter().map(|s| s.2.clone()).collect();
        insts.sort();
        insts.dedup();
        let ret = insts.first().map_or(Ty::Unknown, |i| self.return_type(i));
        // Calls that share a place (those of one macro expansion or spliced header) share
        // their targets: once each, or the edges grow with the square of their number.
        let mut targets = self.targets.borrow_mut();
        let list = targets.entry(at).or_default();
        for i in insts {
            if !list.contains(&i) {
                list.push(i);
            }
        }
        ret
    }

    /// What an explicit instantiation definition instantiates ([temp.explicit]): for a class,
    /// every member function that is not itself a template (the class's arguments bound); for
    /// a function, the overload its parameter types pick. Recorded as the targets at `at`.
    pub(super) fn instantiate(&self, at: usize, what: &str, params: Option<&[Name]>) {
        let Some(params) = params else {
            let Ty::Class(c) = self.resolve(what) else {
                return;
            };
            let Some((cf, ci)) = c.decl.filter(|_| c.args.iter().all(Ty::is_concrete)) else {
                return;
            };
            let cl = &self.ix.files[cf as usize].classes[ci as usize];
            let inside = |f: &crate::syntax::Function| {
                let (s, e) = (f.span.range(), cl.span.range());
                e.start <= s.start && s.end <= e.end
            };
            let insts: Vec<Instance> = self.ix.files[cf as usize]
                .functions
                .iter()
                .enumerate()
                .filter(|(_, f)| {
                    !f.is_lambda
                        && f.class.as_deref() == Some(cl.name.as_str())
                        && f.tparams.len() == cl.tparams.len()
                        && (inside(f)
                            || (cl.spec_args.is_none()
                                && f.scope.ends_with(std::slice::from_ref(&cl.name))))
                })
                .map(|(i, _)| Instance {
                    file: cf,
                    func: i as u32,
                    subst: Arc::from(c.args.clone()),
                })
                .collect();
            self.targets
                .borrow_mut()
                .entry(at)
                .or_default()
                .extend(insts);
            return;
        };
        let (name, explicit) = match what
            .strip_suffix('>')
            .and_then(|w| w.find('<').map(|o| (w, o)))
        {
            Some((w, open)) => (
                &w[..open],
                super::consts::split_top(&w[open + 1..])
                    .iter()
                    .map(|t| self.template_arg(t))
                    .collect(),
            ),
            None => (what, Vec::new()),
        };
        let args: Vec<Ty> = params.iter().map(|p| self.resolve(p)).collect();
        self.named_call(at, name.trim(), &explicit, &args);
    }

    /// `what<E>()` for each template argument `E` of the class `list` names (a type list:
    /// `std::tuple<int, double>`, `::testing::Types<...>`, an alias of one).
    pub(super) fn instantiate_each(&self, at: usize, what: &str, list: &str) {
        if let Ty::Class(c) = self.resolve(list) {
            for e in c.args.iter() {
                self.named_call(at, what, std::slice::from_ref(e), &[]);
            }
        }
    }

    /// The type of the first live `return` (an `auto` or `decltype` return type, a lambda's).
    pub(super) fn deduced_return(&self, inst: &Instance) -> Ty {
        if self.depth + 1 >= MAX_DEPTH {
            return Ty::Unknown;
        }
        if let Some((t, reads)) = self.ix.returns.borrow().get(inst) {
            for &f in reads.iter() {
                self.ix.read(f);
            }
            return t.clone();
        }
        // Unknown while it is computed: a recursive call does not recurse forever.
        self.ix
            .returns
            .borrow_mut()
            .insert(inst.clone(), (Ty::Unknown, Box::default()));
        let (t, reads) = self.ix.reading(|| {
            self.ix.read(inst.file);
            let cx = Cx::new(self.ix, inst, self.depth + 1);
            cx.body.map_or(Ty::Unknown, |body| {
                let live = cx.live(body);
                body.stmts
                    .iter()
                    .zip(&live)
                    .find_map(|(s, &l)| match s {
                        Stmt::Return(e) if l => Some(cx.ty(*e).strip_ref().clone()),
                        _ => None,
                    })
                    .unwrap_or(Ty::Void)
            })
        });
        self.ix
            .returns
            .borrow_mut()
            .insert(inst.clone(), (t.clone(), reads.into()));
        t
    }

    pub(super) fn return_type(&self, inst: &Instance) -> Ty {
        let func = self.ix.function(inst.file, inst.func);
        let Some(ret) = &func.ret else {
            return if func.is_lambda {
                self.deduced_return(inst)
            } else {
                Ty::Void
            };
        };
        if ret.contains("auto") || ret.contains("decltype") {
            return self.deduced_return(inst);
        }
        let env: HashMap<String, Ty> = func
            .tparams
            .iter()
            .enumerate()
            .map(|(i, p)| {
                (
                    p.name.clone(),
                    inst.subst
                        .get(i)
                        .cloned()
                        .unwrap_or(Ty::Param(p.name.as_str().into())),
                )
            })
            .collect();
        resolve_text(self.ix, inst.file, ret, &env, self.depth + 1)
    }

    /// The kernel a launch through `via` at `at` (its function's span) binds.
    pub(super) fn launch(&self, k: &KernelRef, at: Span, via: &str) -> Option<Vec<Instance>> {
        // A parallel algorithm compiles its callables only under a device policy.
        if via.starts_with(LIBRARY_LAUNCH) && !self.device_policy(at, via) {
            return Some(Vec::new());
        }
        match k {
            KernelRef::Lambda(i) => {
                let f = self.ix.function(self.file, *i as u32);
                let n = f.tparams.len().min(self.inst_subst.len());
                let closure: Arc<[Ty]> = Arc::from(&self.inst_subst[..n]);
                // A generic kernel lambda is instantiated with what the launch passes it, once
                // the enclosing template's arguments are known (they come first).
                let subst = match self.kernel_args(at, via, f.params.len()) {
                    Some(args) if n == f.tparams.len() => {
                        self.generic_lambda_subst(self.file, *i as u32, &closure, &args)
                    }
                    _ => closure,
                };
                Some(vec![Instance {
                    file: self.file,
                    func: *i as u32,
                    subst,
                }])
            }
            KernelRef::Functor(t) => {
                // A local or parameter named as the kernel: its type; else a type name.
                let ty = self
                    .body
                    .and_then(|b| b.locals.iter().rposition(|l| l.name == *t))
                    .map(|id| self.local(id as u32))
                    .unwrap_or_else(|| self.resolve(t));
                // A class template named without its arguments (`K<P>(p)` is kept as `K`):
                // the launched argument's type has them.
                let unbound = |c: &ClassTy| {
                    let (f, i) = c.decl.expect("checked");
                    c.args.is_empty()
                        && !self.ix.files[f as usize].classes[i as usize]
                            .tparams
                            .is_empty()
                };
                let ty = match ty.strip_ref() {
                    Ty::Class(c) if c.decl.is_some() && unbound(c) => self
                        .launched_argument(at, via)
                        .filter(|t| matches!(t.strip_ref(), Ty::Class(a) if a.decl == c.decl))
                        .unwrap_or(ty),
                    Ty::Class(c) if c.decl.is_some() => ty,
                    Ty::Closure(..) => ty,
                    // No type of that name: a call returning the kernel
                    // (`q.single_task(make_kernel(p))`), typed as the launch's last argument.
                    _ => self.launched_argument(at, via).unwrap_or(ty),
                };
                match ty.strip_ref() {
                    Ty::Closure(f, i, s) => Some(vec![Instance {
                        file: *f,
                        func: *i,
                        subst: s.clone(),
                    }]),
                    Ty::Class(c) if c.decl.is_some() => {
                        let (cf, ci) = c.decl.expect("checked");
                        let cl = &self.ix.files[cf as usize].classes[ci as usize];
                        let ix = self.ix;
                        let item = self
                            .kernel_args(at, via, 1)
                            .and_then(|a| a.into_iter().next());
                        // `template <class I> void operator()(I i) const`: I is what the
                        // launch passes.
                        let passed = |func: &crate::syntax::Function, p: &str| {
                            let first = func.params.first()?;
                            let bare = first.trim_start_matches("const ").trim_end_matches('&');
                            (bare.trim() == p).then(|| item.clone()).flatten()
                        };
                        let ops: Vec<Instance> = self
                            .members_named(c, "operator()")
                            .into_iter()
                            .filter(|&(f, i)| ix.function(f, i).scope.starts_with(&cl.scope))
                            .map(|(f, i)| {
                                let func = ix.function(f, i);
                                let subst: Vec<Ty> = func
                                    .tparams
                                    .iter()
                                    .map(|p| {
                                        cl.tparams
                                            .iter()
                                            .position(|cp| cp.name == p.name)
                                            .and_then(|k| c.args.get(k).cloned())
                                            .or_else(|| passed(func, &p.name))
                                            .unwrap_or(Ty::Param(p.name.as_str().into()))
                                    })
                                    .collect();
                                Instance {
                                    file: f,
                                    func: i,
                                    subst: Arc::from(subst),
                                }
                            })
                            .collect();
                        (!ops.is_empty()).then_some(ops)
                    }
                    _ => None,
                }
            }
        }
    }

    /// The type of the last argument of the launch call through `via` whose callee starts at
    /// `at`.
    fn launched_argument(&self, at: Span, via: &str) -> Option<Ty> {
        let body = self.body?;
        let arg = *body.list(self.launch_call(at, via)?).last()?;
        Some(self.ty(arg))
    }

    /// What the launch passes a kernel of `params` parameters, in order: a `parallel_for` its
    /// item, then a `reducer<T, Op>` per `sycl::reduction` argument; a parallel algorithm the
    /// element its first iterator points to, to each parameter.
    fn kernel_args(&self, at: Span, via: &str, params: usize) -> Option<Vec<Ty>> {
        if via.starts_with(LIBRARY_LAUNCH) {
            let body = self.body?;
            let first = *body.list(self.launch_call(at, via)?).get(1)?;
            let elem = element_of(&self.ty(first))?;
            return Some(vec![elem; params.max(1)]);
        }
        let mut out = vec![self.kernel_item(at, via)?];
        let body = self.body?;
        let args = body.list(self.launch_call(at, via)?);
        for &a in args.iter().skip(1).take(args.len().saturating_sub(2)) {
            if let Ty::Class(c) = self.ty(a).strip_ref() {
                if c.decl.is_none() && c.last() == "reduction" {
                    out.push(Ty::class("sycl::reducer", c.args.to_vec()));
                }
            }
        }
        Some(out)
    }

    /// Whether the first argument of the algorithm call is a oneDPL device policy: a
    /// `device_policy` / `fpga_policy` value (`make_device_policy(q)`, a variable or parameter
    /// of that type) or one of the predefined policy objects.
    fn device_policy(&self, at: Span, via: &str) -> bool {
        let Some(body) = self.body else { return false };
        let Some(&first) = self.launch_call(at, via).and_then(|l| body.list(l).first()) else {
            return false;
        };
        match self.ty(first).strip_ref() {
            Ty::Class(c) => matches!(c.last(), "device_policy" | "fpga_policy"),
            _ => matches!(
                self.expr(first),
                Some(Expr::Name(n)) if matches!(last(n), "dpcpp_default" | "dpcpp_fpga")
            ),
        }
    }

    /// What a `parallel_for` passes its kernel (SYCL 2020 4.9.4.2.2): an `item<N>` over a
    /// `range<N>` or a count, an `nd_item<N>` over an `nd_range<N>`; the type a generic kernel's
    /// parameter (`[=](auto i)`, `template <class I> void operator()(I i) const`) is deduced as.
    fn kernel_item(&self, at: Span, via: &str) -> Option<Ty> {
        if via != "parallel_for" {
            return None;
        }
        let body = self.body?;
        let first = *body.list(self.launch_call(at, via)?).first()?;
        let dims = |c: &ClassTy| match c.args.first() {
            Some(Ty::Value(d)) => Some(Ty::Value(*d)),
            _ => None,
        };
        match self.ty(first).strip_ref() {
            Ty::Class(c) if c.decl.is_none() && c.last() == "range" => {
                Some(Ty::class("sycl::item", vec![dims(c)?]))
            }
            Ty::Class(c) if c.decl.is_none() && c.last() == "nd_range" => {
                Some(Ty::class("sycl::nd_item", vec![dims(c)?]))
            }
            Ty::Int { .. } => Some(Ty::class("sycl::item", vec![Ty::Value(1)])),
            _ => None,
        }
    }

    /// The arguments of the launch call through `via` whose callee starts at `at`.
    fn launch_call(&self, at: Span, via: &str) -> Option<crate::syntax::List> {
        let body = self.body?;
        let start = Some(at.range().start);
        let start_of = |e: usize| body.spans.get(e).map(|s| s.range().start);
        body.exprs.iter().enumerate().find_map(|(e, x)| {
            let Expr::Call { callee, args } = x else {
                return None;
            };
            let name = match body.exprs.get(*callee as usize)? {
                Expr::Member { name, .. }
                | Expr::MemberTemplate { name, .. }
                | Expr::Name(name)
                | Expr::TemplateName { name, .. } => name,
                _ => return None,
            };
            let want = via
                .strip_prefix(LIBRARY_LAUNCH)
                .map_or(via, |algorithm| last(algorithm));
            if last(name) != want || start_of(e) != start || start_of(*callee as usize) != start {
                return None;
            }
            Some(*args)
        })
    }
}

/// The element an iterator designates: a pointer's pointee (USM, `std::vector`'s iterator as
/// the typing models it), a counting iterator's value, a container's or buffer's element.
fn element_of(t: &Ty) -> Option<Ty> {
    match t.strip_ref() {
        Ty::Ptr(x) => Some(x.strip_ref().clone()),
        Ty::Class(c) if c.decl.is_none() => c.args.first().cloned().filter(Ty::is_concrete),
        _ => None,
    }
    .filter(Ty::is_concrete)
}

/// [meta.help], [meta.unary]: `std::is_integral<T>()`, `std::true_type()`: a trait or an
/// `integral_constant` value-initialised, the tag a call dispatches on.
fn is_tag_class(l: &str) -> bool {
    super::consts::is_trait(l)
        || matches!(
            l,
            "integral_constant" | "bool_constant" | "true_type" | "false_type"
        )
}
