//! Typing one function body under a substitution, and DPC++'s rule applied to the values it
//! computes: a function uses an aspect where a value it loads, stores, computes, converts or
//! passes has a type that uses it by value (pointers never do). Constant expressions folded at
//! compile time (`float f = 2.0;`) and unevaluated operands are no use.
//!
//! This file is the typing core: `Cx` (one body under one substitution) and the types of locals
//! and expressions. Its other jobs live beside it, each an `impl Cx` block or free functions:
//! `lookup` (type names), `calls` and `deduce` (calls, overloads, template deduction),
//! `consts` (constant folding), `library` (library return types), `aspects` (the value rule),
//! `properties` (kernel property lists as types), `library_kernels` (oneMKL / oneMath calls
//! whose precompiled kernels need an aspect).

mod addresses;
mod aspects;
mod bounds;
mod calls;
mod consts;
mod conversions;
mod deduce;
mod derived;
mod library;
mod library_kernels;
mod lookup;
mod narrowing;
mod operators;
mod properties;
mod sfinae;

use std::cell::RefCell;
use std::sync::Arc;

use crate::syntax::Name;
use rustc_hash::FxHashMap as HashMap;

use super::features::features;
use super::names::{last, qualifier, scope_ends_with};
use super::ty::*;
use super::{Index, Instance, Typed};
use crate::syntax::{
    BinOp, Body, BodyAlias, Class, Expr, ExprId, Function, List, Lit, LocalTy, UnOp,
};
use consts::literal_value;
use lookup::resolve_text;
pub use properties::kernel_properties;

/// How deep aliases, fields and enclosing lambdas are followed.
const MAX_DEPTH: usize = 12;

pub fn type_function(ix: &Index, inst: &Instance) -> Typed {
    let (mut typed, reads) = ix.reading(|| {
        ix.read(inst.file);
        Cx::new(ix, inst, 0).run()
    });
    typed.reads = reads;
    typed
}

/// Whether function `func` of `file` is an explicit specialisation for `args`
/// (`template <> void ext<double, aspect::fp64>(...)` for `[double, fp64]`); `None` for a
/// function that is no explicit specialisation. Declarations of one signature in several files
/// are one node, so an instance picks its specialisation's body among them by its arguments
/// (DPC++ links a `SYCL_EXTERNAL` template's specialisation defined in another file by its
/// mangled name, which carries them).
pub fn specialises(ix: &Index, file: u32, func: u32, args: &[Ty]) -> Option<bool> {
    let f = ix.function(file, func);
    let spec = f.spec_args.as_deref()?;
    let env = HashMap::default();
    let sa: Vec<Ty> = spec
        .iter()
        .map(|t| {
            literal_value(t)
                .or_else(|| lookup::const_text(ix, file, t, &env, 1))
                .map_or_else(|| resolve_text(ix, file, t, &env, 1), Ty::Value)
        })
        .collect();
    Some(sa.len() == args.len() && sa.iter().zip(args).all(|(s, a)| s == a))
}

/// The explicit specialisation of function `func` of `file` for `args` defined anywhere in the
/// workspace (same qualified name, a body): DPC++ links it by its mangled name, whatever file
/// defines it and whether the caller's file sees it.
pub fn specialisation_for(ix: &Index, file: u32, func: u32, args: &[Ty]) -> Option<(u32, u32)> {
    let f = ix.function(file, func);
    let name = f.qualified_name();
    let all = ix.functions.get(f.name.as_str())?;
    all.iter().copied().find(|&(g, i)| {
        let h = ix.function(g, i);
        h.body.is_some() && h.qualified_name() == name && specialises(ix, g, i, args) == Some(true)
    })
}

struct Cx<'i, 'a> {
    ix: &'i Index<'a>,
    file: u32,
    func: &'a Function,
    body: Option<&'a Body>,
    subst: HashMap<String, Ty>,
    inst_subst: Arc<[Ty]>,
    /// The class of a member function, under the substitution.
    class: Option<Ty>,
    parent: Option<Box<Cx<'i, 'a>>>,
    locals: RefCell<Vec<Option<Ty>>>,
    exprs: RefCell<Vec<Option<Ty>>>,
    /// Callee span start → the functions the call binds to.
    targets: RefCell<HashMap<usize, Vec<Instance>>>,
    depth: usize,
    /// Inside a pack expansion: the element being typed (`expand`).
    pack_index: std::cell::Cell<Option<usize>>,
    /// Aliases of the body whose name another alias of the body declares too (sibling
    /// blocks' `using T = ...;`), resolved: which one a type text names depends on where it
    /// is written ([basic.scope.block]).
    scoped_aliases: Vec<(&'a BodyAlias, Ty)>,
    /// The expression (or, `true`, the local) being typed: where a type text is written.
    at: std::cell::Cell<Option<(u32, bool)>>,
    /// The array bounds of the call being typed, per argument (`[4]` of a `double arr[4]`
    /// passed): what `T (&)[N]` deduces `N` from (`Ty::Array` keeps no bound).
    arg_bounds: RefCell<Vec<Vec<i64>>>,
    /// Expressions a conversion function converts, and the type it gives (`conversions`).
    converted: RefCell<HashMap<ExprId, Ty>>,
    /// The oneMKL / oneMath calls typed so far (`library_kernels`).
    library: RefCell<Vec<super::LibraryKernel>>,
}

impl<'i, 'a> Cx<'i, 'a> {
    fn new(ix: &'i Index<'a>, inst: &Instance, depth: usize) -> Self {
        let func = ix.function(inst.file, inst.func);
        let body = func.body.as_deref();
        let mut subst: HashMap<String, Ty> = HashMap::default();
        for (i, p) in func.tparams.iter().enumerate() {
            let t = inst
                .subst
                .get(i)
                .cloned()
                .unwrap_or_else(|| Ty::Param(p.name.as_str().into()));
            subst.insert(p.name.clone(), t);
        }
        let parent = body
            .and_then(|b| b.parent)
            .filter(|_| depth < MAX_DEPTH)
            .map(|p| {
                let pf = ix.function(inst.file, p);
                let n = pf.tparams.len().min(inst.subst.len());
                let pi = Instance {
                    file: inst.file,
                    func: p,
                    subst: Arc::from(&inst.subst[..n]),
                };
                Box::new(Cx::new(ix, &pi, depth + 1))
            });
        let mut cx = Cx {
            ix,
            file: inst.file,
            func,
            body,
            subst,
            inst_subst: inst.subst.clone(),
            class: None,
            parent,
            locals: RefCell::new(vec![None; body.map_or(0, |b| b.locals.len())]),
            exprs: RefCell::new(vec![None; body.map_or(0, |b| b.exprs.len())]),
            targets: RefCell::new(HashMap::default()),
            depth,
            pack_index: std::cell::Cell::new(None),
            scoped_aliases: Vec::new(),
            at: std::cell::Cell::new(None),
            arg_bounds: RefCell::new(Vec::new()),
            converted: RefCell::new(HashMap::default()),
            library: RefCell::new(Vec::new()),
        };
        if let Some(p) = &cx.parent {
            for (k, v) in &p.subst {
                cx.subst.entry(k.clone()).or_insert_with(|| v.clone());
            }
            // A lambda sees the enclosing body's aliases of the block it is written in.
            let written = p
                .body
                .filter(|_| !p.scoped_aliases.is_empty())
                .and_then(|pb| {
                    pb.exprs
                        .iter()
                        .position(|x| matches!(x, Expr::Lambda(fi) if *fi == inst.func))
                });
            if let Some(e) = written {
                for (a, t) in &p.scoped_aliases {
                    if a.sees(e as u32, false) {
                        cx.subst.insert(a.name.clone(), t.clone());
                    }
                }
            }
        }
        // Aliases declared in the body name their types under this substitution (the last of
        // a name where no position is known).
        let aliases = body.map_or(&[][..], |b| b.aliases.as_slice());
        for (k, a) in aliases.iter().enumerate() {
            let t = cx.resolve(&a.target);
            if aliases
                .iter()
                .enumerate()
                .any(|(j, b)| j != k && b.name == a.name)
            {
                cx.scoped_aliases.push((a, t.clone()));
            }
            cx.subst.insert(a.name.clone(), t);
        }
        // A generic lambda's instance carries the types of its `auto` parameters after the
        // enclosing template's arguments (`call_object`).
        if let Some(b) = body {
            let extra = inst.subst.get(func.tparams.len()..).unwrap_or(&[]);
            if !b.auto_params.is_empty() && extra.len() == b.auto_params.len() {
                let mut locals = cx.locals.borrow_mut();
                for (&id, t) in b.auto_params.iter().zip(extra) {
                    if let Some(slot) = locals.get_mut(id as usize) {
                        *slot = Some(t.clone());
                    }
                }
            }
        }
        cx.class = cx.this_class();
        cx
    }

    fn this_class(&self) -> Option<Ty> {
        if self.func.is_lambda {
            return self.parent.as_ref().and_then(|p| p.class.clone());
        }
        let class = self.func.class.as_deref()?;
        let mut scope: Vec<&str> = self.func.scope.iter().map(String::as_str).collect();
        if scope.last() == Some(&class) {
            scope.pop();
        }
        // The class whose body defines it (a specialisation's members are its own), else the
        // primary template.
        let span = self.func.span.range();
        let (f, i) = self
            .ix
            .visible(self.ix.classes, self.file, class)
            .find(|&(f, i)| {
                let c = &self.ix.files[f as usize].classes[i as usize];
                let r = c.span.range();
                f == self.file && r.start <= span.start && span.end <= r.end
            })
            .or_else(|| {
                self.ix
                    .visible(self.ix.classes, self.file, class)
                    .find(|&(f, i)| {
                        let c = &self.ix.files[f as usize].classes[i as usize];
                        c.spec_args.is_none() && scope_ends_with(&c.scope, &scope)
                    })
            })?;
        let c = &self.ix.files[f as usize].classes[i as usize];
        let args = c
            .tparams
            .iter()
            .map(|p| {
                self.subst
                    .get(&p.name)
                    .cloned()
                    .unwrap_or(Ty::Param(p.name.as_str().into()))
            })
            .collect();
        Some(Ty::Class(Arc::new(ClassTy {
            name: c.qualified_name(),
            args,
            decl: Some((f, i)),
        })))
    }

    fn resolve(&self, text: &str) -> Ty {
        let scoped = self.scoped_subst();
        let subst = scoped.as_ref().unwrap_or(&self.subst);
        if let Some(k) = self.pack_index.get() {
            if subst.values().any(|t| matches!(t, Ty::Pack(_))) {
                // A pack the text expands itself (`A<Ts, Rest...>`) stays whole.
                let projected: HashMap<String, Ty> = subst
                    .iter()
                    .map(|(n, t)| match expands(text, n) {
                        true => (n.clone(), t.clone()),
                        false => (n.clone(), project(t, k)),
                    })
                    .collect();
                return resolve_text(self.ix, self.file, text, &projected, self.depth);
            }
        }
        if text.contains("decltype") && self.body.is_some() {
            let locals = |name: &str| self.local_named(name);
            return lookup::resolve_text_in_body(
                self.ix, self.file, text, subst, self.depth, &locals,
            );
        }
        resolve_text(self.ix, self.file, text, subst, self.depth)
    }

    /// The type of the last local named `name` of this body, else of an enclosing one (a
    /// lambda's capture a type text names).
    fn local_named(&self, name: &str) -> Option<Ty> {
        let b = self.body?;
        match b.locals.iter().rposition(|l| l.name == name) {
            Some(id) => Some(self.local(id as u32)),
            None => self.parent.as_ref()?.local_named(name),
        }
    }

    /// The substitution where the text being resolved is written, when the body declares
    /// aliases of one name in several blocks and one of them is in scope there.
    fn scoped_subst(&self) -> Option<HashMap<String, Ty>> {
        let (id, local) = self.at.get()?;
        let mut out: Option<HashMap<String, Ty>> = None;
        for (a, t) in &self.scoped_aliases {
            if a.sees(id, local) {
                out.get_or_insert_with(|| self.subst.clone())
                    .insert(a.name.clone(), t.clone());
            }
        }
        out
    }

    // ---- pack expansions -------------------------------------------------------------------

    /// The expressions of `e`'s subtree, `e` first.
    fn subtree(&self, e: ExprId, out: &mut Vec<ExprId>) {
        out.push(e);
        if let (Some(x), Some(b)) = (self.expr(e), self.body) {
            for c in b.children(x) {
                self.subtree(c, out);
            }
        }
    }

    /// The length of the packs an expansion's pattern names (`None`: it names none, as the
    /// init operand of a fold).
    fn pack_len(&self, ids: &[ExprId]) -> Option<usize> {
        let saved = self.pack_index.replace(None);
        let in_text = |text: &str| {
            self.subst.iter().find_map(|(n, t)| match t {
                Ty::Pack(xs) if has_word(text, n) && !expands(text, n) => Some(xs.len()),
                _ => None,
            })
        };
        let n = ids.iter().find_map(|&id| match self.expr(id)? {
            Expr::Local(l) => match self.local(*l) {
                Ty::Pack(xs) => Some(xs.len()),
                _ => None,
            },
            Expr::Name(n) => match self.subst.get(n.as_str()) {
                Some(Ty::Pack(xs)) => Some(xs.len()),
                _ => None,
            },
            Expr::Cast { ty, .. } | Expr::New { ty, .. } => in_text(ty),
            Expr::TemplateName { targs, .. } | Expr::MemberTemplate { targs, .. } => {
                self.targ_list(*targs).iter().find_map(|t| in_text(t))
            }
            _ => None,
        });
        self.pack_index.set(saved);
        n
    }

    fn forget(&self, ids: &[ExprId]) {
        let mut exprs = self.exprs.borrow_mut();
        for &id in ids {
            if let Some(slot) = exprs.get_mut(id as usize) {
                *slot = None;
            }
        }
    }

    /// Runs `each` once per element of the packs `pattern` names, the pattern typed anew for
    /// each; `None` when it names no pack.
    fn expand<T>(&self, pattern: ExprId, mut each: impl FnMut(&Self) -> T) -> Option<Vec<T>> {
        let mut ids = Vec::new();
        self.subtree(pattern, &mut ids);
        let n = self.pack_len(&ids)?;
        let saved = self.pack_index.get();
        let mut out = Vec::with_capacity(n);
        for k in 0..n {
            self.pack_index.set(Some(k));
            self.forget(&ids);
            out.push(each(self));
        }
        self.pack_index.set(saved);
        self.forget(&ids);
        Some(out)
    }

    /// A call's argument types, expansions spread (`f(xs...)` passes each element).
    fn arg_types(&self, args: &[ExprId]) -> Vec<Ty> {
        let mut out = Vec::with_capacity(args.len());
        for &a in args {
            match (self.expr(a), self.ty(a)) {
                (Some(Expr::Expand(_)), Ty::Pack(xs)) => out.extend(xs.iter().cloned()),
                (_, t) => out.push(t),
            }
        }
        out
    }

    /// Explicit template arguments as written: a pack expansion among them (`<A..., X>` in an
    /// instance where `A` is bound to a pack) gives the pack's elements, in place.
    pub(super) fn explicit_args(&self, texts: &[Name]) -> Vec<Ty> {
        let mut out = Vec::with_capacity(texts.len());
        for t in texts {
            match self.template_arg(t) {
                Ty::Pack(xs) if t.ends_with("...") => out.extend(xs.iter().cloned()),
                x => out.push(x),
            }
        }
        out
    }

    /// An explicit template argument: a literal is a value (`f<double, 1>`), else a type.
    fn template_arg(&self, text: &str) -> Ty {
        literal_value(text)
            .or_else(|| lookup::const_text(self.ix, self.file, text, &self.subst, self.depth))
            .map_or_else(|| self.resolve(text), Ty::Value)
    }

    // ---- types of locals and expressions ---------------------------------------------------

    fn local(&self, id: u32) -> Ty {
        if let Some(Some(t)) = self.locals.borrow().get(id as usize) {
            return t.clone();
        }
        // A local's type is the same for every element of an expansion it is read in.
        let saved = self.pack_index.replace(None);
        let t = self.local_uncached(id);
        self.pack_index.set(saved);
        t
    }

    fn local_uncached(&self, id: u32) -> Ty {
        let Some(body) = self.body else {
            return Ty::Unknown;
        };
        let Some(var) = body.locals.get(id as usize) else {
            return Ty::Unknown;
        };
        // Guards a local whose initializer names itself.
        self.locals.borrow_mut()[id as usize] = Some(Ty::Unknown);
        let at = self.at.replace(Some((id, true)));
        let t = match &var.ty {
            LocalTy::Declared(text) => {
                if text.contains("auto") {
                    Ty::Unknown
                } else {
                    match self.resolve(text) {
                        // [dcl.fct]/5: an array parameter is a pointer.
                        Ty::Array(x) if var.param => Ty::Ptr(x),
                        t => t,
                    }
                }
            }
            LocalTy::Auto(mods, e) => {
                let t = self.ty(*e).strip_ref().clone();
                match t {
                    Ty::Array(x) if mods.contains('*') || !mods.contains('&') => Ty::Ptr(x),
                    t => t,
                }
            }
            LocalTy::Decltype(e) => self.ty(*e),
            LocalTy::Deduced(text, e) => {
                let args: Vec<Ty> = match self.expr(*e) {
                    Some(Expr::InitList(a) | Expr::Unknown(a)) => {
                        self.list(*a).iter().map(|x| self.ty(*x)).collect()
                    }
                    _ => vec![self.ty(*e)],
                };
                self.deduce_class_args(self.resolve(text), &args)
            }
            LocalTy::RangeElem(_, e) => element(&self.ty(*e)).unwrap_or(Ty::Unknown),
            LocalTy::Binding(e, k) => self.binding(&self.ty(*e), *k as usize),
            LocalTy::Outer(o) => self.parent.as_ref().map_or(Ty::Unknown, |p| p.local(*o)),
        };
        self.at.set(at);
        self.locals.borrow_mut()[id as usize] = Some(t.clone());
        t
    }

    fn binding(&self, t: &Ty, k: usize) -> Ty {
        match t.strip_ref() {
            Ty::Array(x) => (**x).clone(),
            Ty::Class(c) => {
                if let Some((f, i)) = c.decl {
                    let cl = &self.ix.files[f as usize].classes[i as usize];
                    let fields: Vec<_> = cl.fields.iter().filter(|f| !f.is_static).collect();
                    return fields
                        .get(k)
                        .map_or(Ty::Unknown, |fl| self.field_ty(c, cl, &fl.ty));
                }
                match c.last() {
                    "array" => c.args.first().cloned().unwrap_or(Ty::Unknown),
                    "pair" | "tuple" => c.args.get(k).cloned().unwrap_or(Ty::Unknown),
                    _ => Ty::Unknown,
                }
            }
            _ => Ty::Unknown,
        }
    }

    fn field_ty(&self, c: &ClassTy, cl: &Class, text: &str) -> Ty {
        let subst = class_subst(cl, c);
        let (f, _) = c.decl.expect("a workspace class");
        resolve_text(self.ix, f, text, &subst, self.depth + 1)
    }

    /// A data member of a class (or of one of its bases).
    fn member(&self, t: &Ty, name: &str, depth: usize) -> Ty {
        let Ty::Class(c) = t.strip_ref() else {
            return Ty::Unknown;
        };
        let Some((f, i)) = c.decl else {
            return Ty::Unknown;
        };
        let cl = &self.ix.files[f as usize].classes[i as usize];
        if let Some(fl) = cl.fields.iter().find(|fl| fl.name == name) {
            return self.field_ty(c, cl, &fl.ty);
        }
        if depth < MAX_DEPTH {
            for b in &cl.bases {
                let bt = self.field_ty(c, cl, b);
                let t = self.member(&bt, name, depth + 1);
                if t.is_known() {
                    return t;
                }
            }
        }
        Ty::Unknown
    }

    fn ty(&self, e: ExprId) -> Ty {
        if let Some(Some(t)) = self.exprs.borrow().get(e as usize) {
            return t.clone();
        }
        let at = self.at.replace(Some((e, false)));
        let t = self.compute(e);
        self.at.set(at);
        if let Some(slot) = self.exprs.borrow_mut().get_mut(e as usize) {
            *slot = Some(t.clone());
        }
        t
    }

    fn expr(&self, e: ExprId) -> Option<&'a Expr> {
        self.body.and_then(|b| b.exprs.get(e as usize))
    }

    /// An operand list of this body.
    fn list(&self, l: List) -> &'a [ExprId] {
        self.body.map_or(&[], |b| b.list(l))
    }

    /// A template argument list of this body.
    fn targ_list(&self, l: List) -> &'a [Name] {
        self.body.map_or(&[], |b| b.targs(l))
    }

    fn compute(&self, e: ExprId) -> Ty {
        let Some(x) = self.expr(e) else {
            return Ty::Unknown;
        };
        match x {
            Expr::Lit(l) => match l {
                Lit::Int {
                    longs, unsigned, ..
                } => Ty::Int {
                    bytes: if *longs > 0 { 8 } else { 4 },
                    signed: !unsigned,
                    long_long: *longs > 1,
                },
                Lit::Float(k, _) => Ty::Float((*k).into()),
                Lit::Bool(_) => Ty::Bool,
                Lit::Char => Ty::Int {
                    bytes: 1,
                    signed: true,
                    long_long: false,
                },
                Lit::Str => Ty::Ptr(Arc::new(Ty::Int {
                    bytes: 1,
                    signed: true,
                    long_long: false,
                })),
                Lit::Null => Ty::Ptr(Arc::new(Ty::Unknown)),
            },
            Expr::Local(id) => match (self.local(*id), self.pack_index.get()) {
                (Ty::Pack(xs), Some(k)) => xs.get(k).cloned().unwrap_or(Ty::Unknown),
                (t, _) => t,
            },
            Expr::Expand(p) => match self.expand(*p, |cx| cx.ty(*p)) {
                Some(ts) => Ty::Pack(ts.into()),
                None => self.ty(*p),
            },
            Expr::SizeOfPack(_) => SIZE_T,
            Expr::Name(n) => self.name(n),
            Expr::This => self
                .class
                .clone()
                .map_or(Ty::Unknown, |c| Ty::Ptr(Arc::new(c))),
            Expr::Member { base, arrow, name } => {
                let bt = self.ty(*base);
                let bt = if *arrow { pointee(&bt) } else { bt };
                self.member(&bt, name, 0)
            }
            Expr::Index { base, index } => {
                let bt = self.ty(*base);
                if let Some(t) = self.user_operator(e, "[]", &[bt.clone(), self.ty(*index)], true) {
                    return t;
                }
                match bt.strip_ref() {
                    // SYCL 2020 4.9.1.3, 4.9.1.4, 4.9.1.6: `id`, `range`, `item`'s
                    // `size_t operator[](int) const`.
                    Ty::Class(c)
                        if c.decl.is_none() && matches!(c.last(), "id" | "range" | "item") =>
                    {
                        SIZE_T
                    }
                    Ty::Class(c) if features().is_element_template(c.last()) => {
                        // A multi-dimensional accessor subscripted by an integer gives a view
                        // of one dimension less.
                        match c.args.get(1) {
                            Some(Ty::Value(d)) if *d > 1 && self.ty(*index).is_arithmetic() => {
                                let mut args = c.args.clone();
                                args[1] = Ty::Value(d - 1);
                                Ty::Class(Arc::new(ClassTy {
                                    name: c.name.clone(),
                                    args,
                                    decl: c.decl,
                                }))
                            }
                            _ => c.args.first().cloned().unwrap_or(Ty::Unknown),
                        }
                    }
                    t => element(t).unwrap_or(Ty::Unknown),
                }
            }
            Expr::Unary { op, arg } => {
                let t = self.ty(*arg);
                if let Some(name) = operators::unop_text(*op) {
                    if let Some(r) = self.user_operator(e, name, std::slice::from_ref(&t), false) {
                        return r;
                    }
                }
                let t = match op {
                    UnOp::Neg | UnOp::Plus | UnOp::BitNot => self.operand(*arg, t),
                    _ => t,
                };
                if matches!(op, UnOp::Inc | UnOp::Dec) {
                    if let Some(x) = atomic_element(&t) {
                        return x;
                    }
                }
                match op {
                    UnOp::Deref => pointee(&t),
                    UnOp::Addr => Ty::Ptr(Arc::new(t.strip_ref().clone())),
                    UnOp::Not => Ty::Bool,
                    UnOp::Neg | UnOp::Plus | UnOp::BitNot => t.promoted(),
                    UnOp::Inc | UnOp::Dec => t.strip_ref().clone(),
                }
            }
            Expr::Binary { op, lhs, rhs } => {
                let (l, r) = (self.ty(*lhs), self.ty(*rhs));
                if let Some(name) = operators::binop_text(*op) {
                    if let Some(t) = self.user_operator(e, name, &[l.clone(), r.clone()], false) {
                        return t;
                    }
                    // No operator function: the built-in one, on converted operands.
                    let (l, r) = (self.operand(*lhs, l), self.operand(*rhs, r));
                    return binary(*op, &scalar_value(l), &scalar_value(r));
                }
                binary(*op, &scalar_value(l), &scalar_value(r))
            }
            Expr::Assign { op, lhs, rhs } => {
                let l = self.ty(*lhs);
                if let Some(name) = op.and_then(operators::binop_text) {
                    let name = format!("{name}=");
                    if let Some(t) =
                        self.user_operator(e, &name, &[l.clone(), self.ty(*rhs)], false)
                    {
                        return t;
                    }
                }
                // The assigned value converted to the variable's type (built-in `=`, `op=`).
                if l.strip_ref().is_arithmetic() {
                    match op {
                        None => self.convert(*rhs, Some(l.strip_ref()), false),
                        Some(_) => Some(self.operand(*rhs, self.ty(*rhs))),
                    };
                }
                // An atomic_ref's compound assignment computes on, and gives, its element
                // (SYCL 2020 4.15.3: `T operator+=(T) const`).
                match (op, atomic_element(&l)) {
                    (Some(_), Some(x)) => x,
                    _ => l.strip_ref().clone(),
                }
            }
            Expr::Cond { then, els, .. } => {
                let (t, e) = (self.ty(*then), self.ty(*els));
                if t.is_arithmetic() && e.is_arithmetic() {
                    Ty::common(&t, &e)
                } else if t.is_known() {
                    t.strip_ref().clone()
                } else {
                    e.strip_ref().clone()
                }
            }
            Expr::Call { callee, args } => self.call(*callee, self.list(*args)),
            Expr::TemplateName { .. } => {
                if self.const_eval(e).is_some() {
                    Ty::Bool
                } else {
                    Ty::Unknown
                }
            }
            Expr::MemberTemplate { .. } => Ty::Unknown,
            Expr::Cast { ty, args } => {
                let t = self.resolve(ty);
                if let [a] = self.list(*args) {
                    if t.is_arithmetic() {
                        self.convert(*a, Some(&t), true);
                    }
                }
                let args: Vec<Ty> = self.list(*args).iter().map(|a| self.ty(*a)).collect();
                self.deduce_class_args(t, &args)
            }
            Expr::New { ty, .. } => Ty::Ptr(Arc::new(self.resolve(ty))),
            Expr::Lambda(fi) => {
                let f = self.ix.function(self.file, *fi);
                let n = f.tparams.len().min(self.inst_subst.len());
                Ty::Closure(self.file, *fi, Arc::from(&self.inst_subst[..n]))
            }
            Expr::SizeOf(_) | Expr::SizeOfExpr(_) => SIZE_T,
            Expr::Unknown(l) => self.fold(self.list(*l)),
            Expr::InitList(_) => Ty::Unknown,
        }
    }

    /// A fold expression (lowered as its operands, each a pack expansion): [expr.prim.fold]/3
    /// makes it the operator applied to the elements, so on arithmetic elements its type is
    /// their common type (`(... + a)` over one `float` is a float, over `float, double` a
    /// double). The operator is not kept: a fold over non-arithmetic elements is unknown.
    fn fold(&self, ops: &[ExprId]) -> Ty {
        if ops.is_empty()
            || !ops
                .iter()
                .all(|&o| matches!(self.expr(o), Some(Expr::Expand(_))))
        {
            return Ty::Unknown;
        }
        let mut elems = Vec::new();
        for &o in ops {
            // The `...` of a unary fold is no operand.
            if let Some(Expr::Expand(p)) = self.expr(o) {
                if matches!(self.expr(*p), Some(Expr::Unknown(l)) if l.is_empty()) {
                    continue;
                }
            }
            match self.ty(o) {
                Ty::Pack(xs) => elems.extend(xs.iter().map(|x| x.strip_ref().clone())),
                t => elems.push(t.strip_ref().clone()),
            }
        }
        if elems.is_empty() || !elems.iter().all(|t| t.is_arithmetic() && !t.is_dependent()) {
            return Ty::Unknown;
        }
        let first = elems[0].promoted();
        elems[1..].iter().fold(first, |acc, t| Ty::common(&acc, t))
    }

    /// Class template argument deduction for the SYCL classes that need it, from the
    /// constructor arguments ([over.match.class.deduct]; SYCL 2020 4.7.2.1 and 4.7.6.9's
    /// deduction guides).
    fn deduce_class_args(&self, t: Ty, args: &[Ty]) -> Ty {
        let Ty::Class(c) = &t else { return t };
        if !c.args.is_empty() {
            return t;
        }
        let arg = |k: usize| args.get(k).map(Ty::strip_ref);
        match (c.last(), arg(0)) {
            ("buffer", Some(Ty::Ptr(x))) => match buffer_dims(arg(1)) {
                Some(d) => Ty::class(c.name.clone(), vec![(**x).clone(), d]),
                None => t,
            },
            // CTAD from a container: `sycl::buffer b(v)` with a `std::vector<T>` or
            // `std::array<T, N>` is a `buffer<T, 1>`.
            ("buffer", Some(Ty::Class(v)))
                if matches!(v.last(), "vector" | "array") && !v.args.is_empty() =>
            {
                Ty::class(c.name.clone(), vec![v.args[0].clone(), Ty::Value(1)])
            }
            ("accessor" | "host_accessor", Some(Ty::Class(b))) if b.last() == "buffer" => {
                Ty::class(c.name.clone(), b.args.clone())
            }
            ("atomic_ref", Some(x)) => Ty::class(c.name.clone(), vec![x.clone()]),
            // `range(n, m)`, `id(i)`: one dimension per index (SYCL 2020 4.9.1.1, 4.9.1.3).
            ("range" | "id", Some(_))
                if c.decl.is_none() && args.len() <= 3 && args.iter().all(Ty::is_arithmetic) =>
            {
                Ty::class(c.name.clone(), vec![Ty::Value(args.len() as i64)])
            }
            _ => t,
        }
    }

    /// Whether a name is a `const` / `constexpr` namespace-scope variable whose initializer
    /// clang folds (literals and arithmetic on them): reading it is a constant, no code
    /// (`static_cast<float>(kScale)`); computing with it is a use of its type.
    fn is_constant_global(&self, n: &str) -> bool {
        if !n.contains("::") {
            if let Some(c) = &self.class {
                if self.member(c, n, 0).is_known() {
                    return false;
                }
            }
        }
        let (q, l) = (qualifier(n), last(n));
        let ix = self.ix;
        let mut any = false;
        for (f, i) in ix.visible(ix.globals, self.file, l) {
            let g = &ix.files[f as usize].globals[i as usize];
            if !scope_ends_with(&g.scope, &q) {
                continue;
            }
            match &g.init {
                Some(init) if folds(init) => any = true,
                _ => return false,
            }
        }
        any
    }

    /// A name no local declares: a member of `this`, a namespace-scope variable.
    fn name(&self, n: &str) -> Ty {
        if !n.contains("::") {
            if let Some(c) = &self.class {
                let t = self.member(c, n, 0);
                if t.is_known() {
                    return t;
                }
            }
        }
        if let Some(t) = self.trait_value(n) {
            let _ = t;
            return Ty::Bool;
        }
        let q = qualifier(n);
        let l = last(n);
        let ix = self.ix;
        properties::variable_type(ix, self.file, &q, l, self.depth + 1)
    }
}

/// The element of a SYCL `atomic_ref<T, ...>` (not a workspace class).
fn atomic_element(t: &Ty) -> Option<Ty> {
    match t.strip_ref() {
        Ty::Class(c) if c.decl.is_none() && c.last() == "atomic_ref" => c.args.first().cloned(),
        _ => None,
    }
}

/// What `*p`, `p->`, iteration give.
fn pointee(t: &Ty) -> Ty {
    match t.strip_ref() {
        Ty::Ptr(x) | Ty::Array(x) => (**x).clone(),
        t => element(t).unwrap_or(Ty::Unknown),
    }
}

fn element(t: &Ty) -> Option<Ty> {
    match t.strip_ref() {
        Ty::Ptr(x) | Ty::Array(x) => Some((**x).clone()),
        Ty::Class(c) if features().is_element_template(c.last()) => c.args.first().cloned(),
        _ => None,
    }
}

fn is_vector_like(t: &Ty) -> bool {
    matches!(t.strip_ref(), Ty::Class(c) if matches!(c.last(), "vec" | "marray" | "complex" | "simd"))
}

fn binary(op: BinOp, l: &Ty, r: &Ty) -> Ty {
    if op == BinOp::Comma {
        return r.strip_ref().clone();
    }
    if op.is_comparison() || matches!(op, BinOp::And | BinOp::Or) {
        // Element-wise comparisons of vectors give vectors of ints: no floating value.
        return Ty::Bool;
    }
    if is_vector_like(l) {
        return l.strip_ref().clone();
    }
    if is_vector_like(r) {
        return r.strip_ref().clone();
    }
    match (l.strip_ref(), r.strip_ref()) {
        (p @ Ty::Ptr(_), Ty::Int { .. }) | (Ty::Int { .. }, p @ Ty::Ptr(_)) => p.clone(),
        (Ty::Ptr(_), Ty::Ptr(_)) => Ty::Int {
            bytes: 8,
            signed: true,
            long_long: false,
        },
        _ if matches!(op, BinOp::Shl | BinOp::Shr) => l.promoted(),
        _ => Ty::common(l, r),
    }
}

/// A class template's parameters bound to a class type's arguments (unbound ones unknown).
/// The dimensions of `buffer(ptr, second, ...)`: `buffer(const T*, const range<D>&)` gives
/// `D`; `buffer(first, last)` of two iterators (modelled as pointers) one. A count is no
/// range (deduction does not convert: `buffer b(p, n)` is ill-formed, so nothing is
/// deduced); a second argument of unknown type is taken for a one-dimensional range.
fn buffer_dims(second: Option<&Ty>) -> Option<Ty> {
    match second {
        Some(Ty::Class(r)) if r.last() == "range" && r.decl.is_none() => {
            Some(r.args.first().cloned().unwrap_or(Ty::Value(1)))
        }
        Some(Ty::Ptr(_)) | None => Some(Ty::Value(1)),
        Some(t) if !t.is_known() => Some(Ty::Value(1)),
        Some(_) => None,
    }
}

/// A 0-dimensional accessor converts to its element in arithmetic (`local_accessor<float, 0>`).
fn scalar_value(t: Ty) -> Ty {
    if let Ty::Class(c) = t.strip_ref() {
        if matches!(c.last(), "accessor" | "local_accessor" | "host_accessor")
            && c.args.get(1) == Some(&Ty::Value(0))
        {
            return c.args[0].clone();
        }
    }
    t
}

/// An initializer clang folds without a lookup: number literals and arithmetic on them.
fn folds(init: &str) -> bool {
    !init.is_empty()
        && init.chars().any(|c| c.is_ascii_digit())
        && init
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || " .+-*/()%'".contains(c))
        && !init
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '.')
            .any(|w| w.starts_with(|c: char| c.is_ascii_alphabetic()))
}

/// A pack's `k`-th element; anything else as it is.
fn project(t: &Ty, k: usize) -> Ty {
    match t {
        Ty::Pack(xs) => xs.get(k).cloned().unwrap_or(Ty::Unknown),
        t => t.clone(),
    }
}

/// Whether `text` names pack `word` only in expansions of its own (`word...`).
fn expands(text: &str, word: &str) -> bool {
    let mut any = false;
    for (i, _) in text.match_indices(word) {
        let before = text[..i].chars().next_back();
        let rest = &text[i + word.len()..];
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        if ident(before) || ident(rest.chars().next()) {
            continue;
        }
        if !rest.trim_start().starts_with("...") {
            return false;
        }
        any = true;
    }
    any
}

/// Whether `word` occurs in `text` as an identifier.
fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !ident(before) && !ident(after)
    })
}

fn class_subst(cl: &Class, c: &ClassTy) -> HashMap<String, Ty> {
    class_bindings(&cl.tparams, &c.args)
        .map(|(p, t)| (p.to_string(), t.unwrap_or(Ty::Unknown)))
        .collect()
}

/// A class template's parameters against its arguments, which are written flat: a parameter
/// pack takes every argument from its position on ([temp.variadic]/1, `R<A, B>` for
/// `template <class... Ts> struct R`), so a member's `Ts...` expands to all of them.
pub(super) fn class_bindings<'p>(
    tparams: &'p [crate::syntax::TParam],
    args: &[Ty],
) -> impl Iterator<Item = (&'p str, Option<Ty>)> {
    let args: Vec<Ty> = args.to_vec();
    tparams.iter().enumerate().map(move |(i, p)| {
        let t = match (p.pack, args.get(i)) {
            (_, Some(Ty::Pack(xs))) => Some(Ty::Pack(xs.clone())),
            (true, _) => Some(Ty::Pack(args.get(i..).unwrap_or(&[]).into())),
            (false, t) => t.cloned(),
        };
        (p.name.as_str(), t)
    })
}

/// The texts between the top-level `[` and `]` of a declared type (`T[M][N]&`: `M`, `N`).
fn bracketed(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(o) = rest.find('[') {
        let Some(c) = rest[o..].find(']') else { break };
        out.push(rest[o + 1..o + c].trim());
        rest = &rest[o + c + 1..];
    }
    out
}

/// Template argument texts as written between `<` and `>`.
fn joined(args: &[Name]) -> String {
    args.iter().map(Name::as_str).collect::<Vec<_>>().join(",")
}
