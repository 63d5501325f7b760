//! Typing one function body under a substitution, and DPC++'s rule applied to the values it
//! computes: a function uses an aspect where a value it loads, stores, computes, converts or
//! passes has a type that uses it by value (pointers never do). Constant expressions folded at
//! compile time (`float f = 2.0;`) and unevaluated operands are no use.

use std::cell::RefCell;
use std::sync::Arc;

use crate::syntax::Name;
use rustc_hash::FxHashMap as HashMap;

use super::features::features;
use super::ty::*;
use super::{Index, Instance, SemUse, Typed};
use crate::devices::{registry, AspectSet};
use crate::syntax::{
    AspectRef, BinOp, Body, Class, Expr, ExprId, FloatLit, Function, IntValue, KernelRef, List,
    Lit, LocalTy, Span, Stmt, TParam, UnOp,
};
use crate::text::TextRange;

/// Records a use: aspects, what (made only when kept), ranking range, location.
type AddUse<'f> = dyn FnMut(AspectSet, &dyn Fn() -> String, TextRange, Span) + 'f;

/// The use kept for an aspect, and the expression range that ranks it.
type Found = (TextRange, SemUse);

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
}

/// The `::`-separated components of a name, split outside template arguments
/// (`C<a::b>::f<int>` is `C<a::b>`, `f<int>`).
fn components(name: &str) -> Vec<&str> {
    let b = name.as_bytes();
    let (mut depth, mut start, mut i) = (0i32, 0, 0);
    let mut parts = Vec::new();
    while i < b.len() {
        match b[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b':' if depth <= 0 && b.get(i + 1) == Some(&b':') => {
                parts.push(&name[start..i]);
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(&name[start..]);
    parts
}

/// A component without its template arguments or a `template` keyword.
fn bare(component: &str) -> &str {
    let c = component.trim();
    let c = c.strip_prefix("template ").unwrap_or(c).trim_start();
    c.split('<').next().unwrap_or(c).trim_end()
}

fn last(name: &str) -> &str {
    components(name).last().map_or(name, |c| bare(c))
}

fn qualifier(name: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = components(name)
        .into_iter()
        .map(bare)
        .filter(|p| !p.is_empty())
        .collect();
    parts.pop();
    parts
}

/// The qualifier as written, with its template arguments (`C<double>` of `C<double>::go`).
fn qualifier_text(name: &str) -> Option<&str> {
    let parts = components(name);
    let n = parts.len();
    (n > 1).then(|| {
        let end = name.len() - parts[n - 1].len() - 2;
        &name[..end]
    })
}

fn scope_ends_with(scope: &[String], q: &[&str]) -> bool {
    q.len() <= scope.len()
        && scope[scope.len() - q.len()..]
            .iter()
            .zip(q)
            .all(|(s, q)| s == q)
}

fn is_half_name(path: &[&str]) -> bool {
    matches!(
        path,
        ["sycl", "half"]
            | ["half"]
            | ["cl", "sycl", "half"]
            | ["sycl", "opencl", "cl_half"]
            | ["cl_half"]
            | ["sycl", "detail", "half_impl", "half"]
    )
}

/// Resolves names of a type text seen from `from` with `subst` for template parameters.
struct Resolver<'r, 'i, 'a> {
    ix: &'r Index<'a>,
    from: u32,
    subst: &'r HashMap<String, Ty>,
    depth: usize,
    _p: std::marker::PhantomData<&'i ()>,
}

impl super::ty::NameResolver for Resolver<'_, '_, '_> {
    fn resolve(&mut self, path: &[&str], args: Vec<Ty>) -> Ty {
        let Some(&name) = path.last() else {
            return Ty::Unknown;
        };
        if path.len() == 1 && args.is_empty() {
            if let Some(t) = self.subst.get(name) {
                return t.clone();
            }
        }
        if is_half_name(path) {
            return HALF;
        }
        if path.len() <= 2 && path.first().is_none_or(|&q| q == "std" || path.len() == 1) {
            if let Some(n) = name.strip_suffix("_v").filter(|n| is_trait(n)) {
                return trait_value(n, &args).map_or(Ty::Unknown, Ty::Value);
            }
            if name == "conditional_t" && args.len() == 3 {
                return match args[0] {
                    Ty::Value(0) => args[2].clone(),
                    Ty::Value(_) => args[1].clone(),
                    _ => Ty::Unknown,
                };
            }
        }
        if self.depth > MAX_DEPTH {
            return Ty::Unknown;
        }
        let ix = self.ix;
        let decls: Vec<(u32, u32)> = ix
            .visible(ix.aliases, self.from, name)
            .chain(
                ix.visible(ix.classes, self.from, name)
                    .map(|(f, i)| (f | 1 << 31, i)),
            )
            .collect();
        let key = (path.join("::").into_boxed_str(), args, decls);
        if let Some(t) = self.ix.names.borrow().get(&key) {
            return t.clone();
        }
        let t = self.lookup(path, key.1.clone());
        self.ix.names.borrow_mut().insert(key, t.clone());
        t
    }
}

impl Resolver<'_, '_, '_> {
    fn lookup(&mut self, path: &[&str], args: Vec<Ty>) -> Ty {
        let Some(&name) = path.last() else {
            return Ty::Unknown;
        };
        let q = &path[..path.len() - 1];
        let ix = self.ix;
        // Aliases: all visible declarations must agree.
        let mut alias: Option<Ty> = None;
        let mut disagree = false;
        for (f, i) in ix.visible(ix.aliases, self.from, name) {
            let a = &ix.files[f as usize].aliases[i as usize];
            if !scope_ends_with(&a.scope, q) || a.target == name {
                continue;
            }
            let mut env: HashMap<String, Ty> = HashMap::default();
            for (k, p) in a.tparams.iter().enumerate() {
                let t = match (args.get(k), &p.default) {
                    (Some(t), _) => t.clone(),
                    (None, Some(d)) => resolve_text(ix, f, d, &env, self.depth + 1),
                    (None, None) => Ty::Param(p.name.as_str().into()),
                };
                env.insert(p.name.clone(), t);
            }
            let t = resolve_text(ix, f, &a.target, &env, self.depth + 1);
            match &alias {
                Some(prev) if *prev != t => disagree = true,
                Some(_) => {}
                None => alias = Some(t),
            }
        }
        if disagree {
            return Ty::Unknown;
        }
        if let Some(t) = alias {
            return t;
        }
        let classes: Vec<(u32, u32)> = ix
            .visible(ix.classes, self.from, name)
            .filter(|&(f, i)| scope_ends_with(&ix.files[f as usize].classes[i as usize].scope, q))
            .collect();
        if let Some(&(f, i)) = pick_class(ix, &classes, &args, self.depth) {
            let c = &ix.files[f as usize].classes[i as usize];
            return Ty::Class(Arc::new(ClassTy {
                name: c.qualified_name(),
                args,
                decl: Some((f, i)),
            }));
        }
        if args.is_empty() {
            if let Some(t) = self.vec_alias(path) {
                return t;
            }
        }
        Ty::class(path.join("::"), args)
    }

    /// SYCL's vector and marray aliases (`sycl::half2`, `double4`, `mfloat3`...), when no
    /// declaration of the name is visible: `vec<T, N>` / `marray<T, N>`.
    fn vec_alias(&mut self, path: &[&str]) -> Option<Ty> {
        let (q, name) = path.split_at(path.len() - 1);
        if !matches!(q, [] | ["sycl"] | ["cl", "sycl"]) {
            return None;
        }
        let name = name[0];
        let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (elem, n) = name.split_at(name.len() - digits);
        let n: i64 = n.parse().ok().filter(|n| [2, 3, 4, 8, 16].contains(n))?;
        let (class, elem) = match elem.strip_prefix('m') {
            Some(e) if !e.is_empty() => ("sycl::marray", e),
            _ => ("sycl::vec", elem),
        };
        let text = match elem {
            "char" | "schar" => "signed char",
            "uchar" => "unsigned char",
            "short" => "short",
            "ushort" => "unsigned short",
            "int" => "int",
            "uint" => "unsigned int",
            "long" => "long",
            "ulong" => "unsigned long",
            "longlong" => "long long",
            "ulonglong" => "unsigned long long",
            "float" => "float",
            "double" => "double",
            "half" => return Some(Ty::class(class, vec![HALF, Ty::Value(n)])),
            "bool" if class == "sycl::marray" => "bool",
            _ => return None,
        };
        let t = parse_type(text, self);
        Some(Ty::class(class, vec![t, Ty::Value(n)]))
    }
}

/// The primary template or the specialisation whose arguments match.
fn pick_class<'c>(
    ix: &Index,
    classes: &'c [(u32, u32)],
    args: &[Ty],
    depth: usize,
) -> Option<&'c (u32, u32)> {
    let class = |&(f, i): &(u32, u32)| -> &Class { &ix.files[f as usize].classes[i as usize] };
    let spec = classes.iter().find(|c| {
        let cl = class(c);
        cl.spec_args.as_ref().is_some_and(|sa| {
            let own: HashMap<String, Ty> = cl
                .tparams
                .iter()
                .map(|p| (p.name.clone(), Ty::Param(p.name.as_str().into())))
                .collect();
            let tys: Vec<Ty> = sa
                .iter()
                .map(|t| resolve_text(ix, c.0, t, &own, depth + 1))
                .collect();
            tys.len() == args.len()
                && tys.iter().zip(args).all(|(s, a)| {
                    let mut b = HashMap::default();
                    deduce(s, a, &mut b) && (s.is_dependent() || s == a)
                })
        })
    });
    spec.or_else(|| classes.iter().find(|c| class(c).spec_args.is_none()))
        .or_else(|| classes.first())
}

fn resolve_text(
    ix: &Index,
    from: u32,
    text: &str,
    subst: &HashMap<String, Ty>,
    depth: usize,
) -> Ty {
    let mut r = Resolver {
        ix,
        from,
        subst,
        depth,
        _p: std::marker::PhantomData,
    };
    parse_type(text, &mut r)
}

/// Binds template parameters of `pattern` from `arg`; false on a conflict.
fn deduce(pattern: &Ty, arg: &Ty, b: &mut HashMap<Arc<str>, Ty>) -> bool {
    match (pattern, arg.strip_ref()) {
        (Ty::Ref(p), a) => deduce(p, a, b),
        (Ty::Param(n), a) => {
            if !a.is_known() {
                return true;
            }
            match b.get(n) {
                Some(prev) => prev == a,
                None => {
                    b.insert(n.clone(), a.clone());
                    true
                }
            }
        }
        (Ty::Ptr(p), Ty::Ptr(a)) | (Ty::Ptr(p), Ty::Array(a)) | (Ty::Array(p), Ty::Array(a)) => {
            deduce(p, a, b)
        }
        (Ty::Class(p), Ty::Class(a)) if last(&p.name) == last(&a.name) => {
            p.args.iter().zip(&a.args).all(|(p, a)| deduce(p, a, b))
        }
        _ => true,
    }
}

fn substitute(t: &Ty, b: &HashMap<Arc<str>, Ty>) -> Ty {
    match t {
        Ty::Param(n) => b.get(n).cloned().unwrap_or_else(|| t.clone()),
        Ty::Ptr(x) => Ty::Ptr(Arc::new(substitute(x, b))),
        Ty::Ref(x) => Ty::Ref(Arc::new(substitute(x, b))),
        Ty::Array(x) => Ty::Array(Arc::new(substitute(x, b))),
        Ty::Class(c) => Ty::Class(Arc::new(ClassTy {
            name: c.name.clone(),
            args: c.args.iter().map(|a| substitute(a, b)).collect(),
            decl: c.decl,
        })),
        t => t.clone(),
    }
}

/// How well an argument converts to a parameter: lower is better, `None` is not viable.
fn conversion_rank(param: &Ty, arg: &Ty) -> Option<u32> {
    let (p, a) = (param.strip_ref(), arg.strip_ref());
    if !p.is_known() || !a.is_known() || p.is_dependent() || a.is_dependent() {
        return Some(1);
    }
    if p == a {
        return Some(0);
    }
    match (p, a) {
        (Ty::Ptr(x), Ty::Array(y)) if x == y => Some(0),
        (Ty::Ptr(x), Ty::Ptr(y)) => {
            if !x.is_known() || !y.is_known() || **x == Ty::Void {
                Some(2)
            } else {
                None
            }
        }
        (Ty::Ptr(_), Ty::Int { .. }) => None,
        (Ty::Bool, Ty::Ptr(_)) => Some(3),
        (Ty::Int { .. } | Ty::Float(_), Ty::Ptr(_)) => None,
        (x, y) if x.is_arithmetic() && y.is_arithmetic() => {
            // Promotions (float → double, small ints → int) rank above conversions.
            match (x, y) {
                (Ty::Float(FloatKindOrd::Double), Ty::Float(FloatKindOrd::Float)) => Some(1),
                (Ty::Int { .. }, Ty::Int { .. }) | (Ty::Float(_), Ty::Float(_)) => Some(2),
                _ => Some(2),
            }
        }
        (Ty::Class(x), Ty::Class(y)) if x.name == y.name => Some(1),
        (Ty::Class(_), _) | (_, Ty::Class(_)) => Some(3),
        _ => Some(3),
    }
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
        };
        if let Some(p) = &cx.parent {
            for (k, v) in &p.subst {
                cx.subst.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        // Aliases declared in the body name their types under this substitution.
        for (name, target) in body.map_or(&[][..], |b| b.aliases.as_slice()) {
            let t = cx.resolve(target);
            cx.subst.insert(name.clone(), t);
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
        let (f, i) = self
            .ix
            .visible(self.ix.classes, self.file, class)
            .find(|&(f, i)| {
                let c = &self.ix.files[f as usize].classes[i as usize];
                c.spec_args.is_none() && scope_ends_with(&c.scope, &scope)
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
        resolve_text(self.ix, self.file, text, &self.subst, self.depth)
    }

    /// An explicit template argument: a literal is a value (`f<double, 1>`), else a type.
    fn template_arg(&self, text: &str) -> Ty {
        literal_value(text).map_or_else(|| self.resolve(text), Ty::Value)
    }

    // ---- types of locals and expressions ---------------------------------------------------

    fn local(&self, id: u32) -> Ty {
        if let Some(Some(t)) = self.locals.borrow().get(id as usize) {
            return t.clone();
        }
        let Some(body) = self.body else {
            return Ty::Unknown;
        };
        let Some(var) = body.locals.get(id as usize) else {
            return Ty::Unknown;
        };
        // Guards a local whose initializer names itself.
        self.locals.borrow_mut()[id as usize] = Some(Ty::Unknown);
        let t = match &var.ty {
            LocalTy::Declared(text) => {
                if text.contains("auto") {
                    Ty::Unknown
                } else {
                    self.resolve(text)
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
                let first = match self.expr(*e) {
                    Some(Expr::InitList(a) | Expr::Unknown(a)) => {
                        self.list(*a).first().map(|x| self.ty(*x))
                    }
                    _ => Some(self.ty(*e)),
                };
                self.deduce_class_args(self.resolve(text), first)
            }
            LocalTy::RangeElem(_, e) => element(&self.ty(*e)).unwrap_or(Ty::Unknown),
            LocalTy::Binding(e, k) => self.binding(&self.ty(*e), *k as usize),
            LocalTy::Outer(o) => self.parent.as_ref().map_or(Ty::Unknown, |p| p.local(*o)),
        };
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
        let t = self.compute(e);
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
                },
                Lit::Float(k) => Ty::Float((*k).into()),
                Lit::Bool(_) => Ty::Bool,
                Lit::Char => Ty::Int {
                    bytes: 1,
                    signed: true,
                },
                Lit::Str => Ty::Ptr(Arc::new(Ty::Int {
                    bytes: 1,
                    signed: true,
                })),
                Lit::Null => Ty::Ptr(Arc::new(Ty::Unknown)),
            },
            Expr::Local(id) => self.local(*id),
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
                match bt.strip_ref() {
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
                binary(*op, &l, &r)
            }
            Expr::Assign { lhs, .. } => self.ty(*lhs).strip_ref().clone(),
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
                let first = self.list(*args).first().map(|a| self.ty(*a));
                self.deduce_class_args(t, first)
            }
            Expr::New { ty, .. } => Ty::Ptr(Arc::new(self.resolve(ty))),
            Expr::Lambda(fi) => {
                let f = self.ix.function(self.file, *fi);
                let n = f.tparams.len().min(self.inst_subst.len());
                Ty::Closure(self.file, *fi, Arc::from(&self.inst_subst[..n]))
            }
            Expr::SizeOf(_) | Expr::SizeOfExpr(_) => SIZE_T,
            Expr::InitList(_) | Expr::Unknown(_) => Ty::Unknown,
        }
    }

    /// Class template argument deduction for the SYCL classes that need it, from the first
    /// constructor argument.
    fn deduce_class_args(&self, t: Ty, first: Option<Ty>) -> Ty {
        let Ty::Class(c) = &t else { return t };
        if !c.args.is_empty() {
            return t;
        }
        match (c.last(), first.as_ref().map(Ty::strip_ref)) {
            ("buffer", Some(Ty::Ptr(x))) => {
                Ty::class(c.name.clone(), vec![(**x).clone(), Ty::Value(1)])
            }
            ("accessor" | "host_accessor", Some(Ty::Class(b))) if b.last() == "buffer" => {
                Ty::class(c.name.clone(), b.args.clone())
            }
            ("atomic_ref", Some(x)) => Ty::class(c.name.clone(), vec![x.clone()]),
            _ => t,
        }
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
        let found: Vec<Ty> = ix
            .visible(ix.globals, self.file, l)
            .filter(|&(f, i)| scope_ends_with(&ix.files[f as usize].globals[i as usize].scope, &q))
            .map(|(f, i)| {
                let g = &ix.files[f as usize].globals[i as usize];
                resolve_text(ix, f, &g.ty, &HashMap::default(), self.depth + 1)
            })
            .collect();
        match found.as_slice() {
            [first, rest @ ..] if rest.iter().all(|t| t == first) => first.clone(),
            _ => Ty::Unknown,
        }
    }

    // ---- calls -------------------------------------------------------------------------------

    fn call(&self, callee: ExprId, args: &[ExprId]) -> Ty {
        let arg_tys: Vec<Ty> = args.iter().map(|a| self.ty(*a)).collect();
        let at = self
            .body
            .map_or(0, |b| b.spans[callee as usize].range().start);
        let t = self.call_to(at, callee, &arg_tys);
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

    fn call_to(&self, at: usize, callee: ExprId, arg_tys: &[Ty]) -> Ty {
        let Some(c) = self.expr(callee) else {
            return Ty::Unknown;
        };
        match c {
            Expr::Name(n) => {
                if let Some(t) = self.construction(n, None) {
                    return t;
                }
                self.named_call(at, n, &[], arg_tys)
            }
            Expr::TemplateName { name, targs } => {
                if let Some(t) = self.construction(name, Some(self.targ_list(*targs))) {
                    return t;
                }
                let explicit: Vec<Ty> = self
                    .targ_list(*targs)
                    .iter()
                    .map(|t| self.template_arg(t))
                    .collect();
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
                let explicit: Vec<Ty> = self
                    .targ_list(*targs)
                    .iter()
                    .map(|t| self.template_arg(t))
                    .collect();
                self.member_call(at, &rt, name, &explicit, arg_tys)
            }
            _ => {
                let t = self.ty(callee);
                self.call_object(at, &t, arg_tys)
            }
        }
    }

    /// `T<A>(x)` / `T(x)` where `T` names a class and no function: a construction.
    fn construction(&self, name: &str, targs: Option<&[Name]>) -> Option<Ty> {
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
        }
        let known = ix.visible(ix.classes, self.file, l).next().is_some()
            || f.is_atomic_template(name)
            || f.is_element_template(l)
            || f.is_by_value_template(l);
        if !known {
            return None;
        }
        let text = match targs {
            Some(a) => format!("{name}<{}>", joined(a)),
            None => name.to_string(),
        };
        Some(self.resolve(&text))
    }

    /// Calling a value: a lambda's closure or a functor.
    fn call_object(&self, at: usize, t: &Ty, args: &[Ty]) -> Ty {
        match t.strip_ref() {
            Ty::Closure(f, i, s) => {
                let inst = Instance {
                    file: *f,
                    func: *i,
                    subst: s.clone(),
                };
                self.targets.borrow_mut().insert(at, vec![inst.clone()]);
                self.return_type(&inst)
            }
            Ty::Class(_) => self.member_call(at, t, "operator()", &[], args),
            _ => Ty::Unknown,
        }
    }

    fn named_call(&self, at: usize, name: &str, explicit: &[Ty], args: &[Ty]) -> Ty {
        let l = last(name);
        let q = qualifier(name);
        let ix = self.ix;
        // A local closure or functor called by name is handled as a local; here: functions.
        let mut cands: Vec<(u32, u32)> = ix
            .visible(ix.functions, self.file, l)
            .filter(|&(f, i)| scope_ends_with(&ix.function(f, i).scope, &q))
            .collect();
        if cands.is_empty() {
            return library_call(name, explicit, args);
        }
        // `S(x)` naming only S's constructors: a construction, whose value is an S.
        if cands.iter().all(|&(f, i)| {
            let func = ix.function(f, i);
            func.name == l && func.class.as_deref() == Some(l)
        }) {
            let _ = self.overload(at, &cands, None, explicit, args);
            return self.resolve(name);
        }
        // `C<double>::go(...)`: a static member of a class template binds the class's arguments.
        if let Some(qt) = qualifier_text(name).filter(|t| t.contains('<')) {
            let class = self.resolve(qt);
            if let Ty::Class(c) = &class {
                let members: Vec<(u32, u32)> = cands
                    .iter()
                    .copied()
                    .filter(|&(f, i)| ix.function(f, i).class.as_deref() == Some(c.last()))
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

    fn member_call(&self, at: usize, recv: &Ty, name: &str, explicit: &[Ty], args: &[Ty]) -> Ty {
        let Ty::Class(c) = recv.strip_ref() else {
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
            let cands: Vec<(u32, u32)> = ix
                .visible(ix.functions, self.file, name)
                .filter(|&(f, i)| ix.function(f, i).class.as_deref() == Some(cc.last()))
                .collect();
            if !cands.is_empty() {
                return self.overload(at, &cands, Some(&class), explicit, args);
            }
        }
        Ty::Unknown
    }

    /// Picks among candidates by argument types; records the binding; the return type.
    fn overload(
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
        let mut chosen: Vec<&(u32, bool, Instance)> = if unknown_args {
            scored.iter().collect()
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

    /// Whether `func` takes these arguments: its score and instance.
    fn viable(
        &self,
        f: u32,
        i: u32,
        func: &Function,
        recv: Option<&Ty>,
        explicit: &[Ty],
        args: &[Ty],
    ) -> Option<(u32, Instance)> {
        // Parameters bound by the receiver's class, and by the caller for its own class.
        let class_params: HashMap<&str, Ty> = match recv.map(Ty::strip_ref) {
            Some(Ty::Class(c)) => c
                .decl
                .map(|(cf, ci)| {
                    self.ix.files[cf as usize].classes[ci as usize]
                        .tparams
                        .iter()
                        .zip(&c.args)
                        .map(|(p, a)| (p.name.as_str(), a.clone()))
                        .collect()
                })
                .unwrap_or_default(),
            _ => HashMap::default(),
        };
        let own: Vec<&TParam> = func
            .tparams
            .iter()
            .filter(|p| !class_params.contains_key(p.name.as_str()))
            .collect();
        let mut env: HashMap<String, Ty> = HashMap::default();
        for p in &func.tparams {
            let t = class_params
                .get(p.name.as_str())
                .cloned()
                .unwrap_or(Ty::Param(p.name.as_str().into()));
            env.insert(p.name.clone(), t);
        }
        if let Some(spec) = &func.spec_args {
            if !explicit.is_empty() {
                let sa: Vec<Ty> = spec
                    .iter()
                    .map(|t| resolve_text(self.ix, f, t, &env, self.depth + 1))
                    .collect();
                if sa.len() < explicit.len() || sa.iter().zip(explicit).any(|(s, e)| s != e) {
                    return None;
                }
            }
        } else if explicit.len() > own.len() && !own.iter().any(|p| p.name.is_empty()) {
            return None;
        }
        let mut b: HashMap<Arc<str>, Ty> = HashMap::default();
        if func.spec_args.is_none() {
            for (p, e) in own.iter().zip(explicit) {
                b.insert(p.name.as_str().into(), e.clone());
            }
        }
        let params: Vec<Ty> = func
            .params
            .iter()
            .map(|p| resolve_text(self.ix, f, p, &env, self.depth + 1))
            .collect();
        // Explicit arguments win over deduction; deduced ones must agree among themselves.
        let mut d: HashMap<Arc<str>, Ty> = HashMap::default();
        for (p, a) in params.iter().zip(args) {
            let mut one = b.clone();
            let _ = deduce(p, a, &mut one);
            for (k, v) in one {
                if b.contains_key(&k) {
                    continue;
                }
                match d.get(&k) {
                    Some(prev) if *prev != v => return None,
                    _ => {
                        d.insert(k, v);
                    }
                }
            }
        }
        b.extend(d);
        // Defaults for what is still unbound: a value parameter's default is its value (an
        // instance needs every argument to be made: `template <class T, int N = 0>`).
        for p in &own {
            if !b.contains_key(p.name.as_str()) {
                if let Some(d) = &p.default {
                    let t = match (p.is_type, literal_value(d)) {
                        (false, Some(v)) => Ty::Value(v),
                        _ => resolve_text(self.ix, f, d, &env, self.depth + 1),
                    };
                    b.insert(p.name.as_str().into(), t);
                }
            }
        }
        let mut score = 0;
        for (p, a) in params.iter().zip(args) {
            score += conversion_rank(&substitute(p, &b), a)?;
        }
        if !func.tparams.is_empty() && func.spec_args.is_none() && !own.is_empty() {
            // A non-template is preferred over a template at equal conversions.
            score = score * 2 + 1;
        } else {
            score *= 2;
        }
        let subst: Vec<Ty> = func
            .tparams
            .iter()
            .map(|p| match class_params.get(p.name.as_str()) {
                Some(t) => t.clone(),
                None => b
                    .get(p.name.as_str())
                    .cloned()
                    .or_else(|| {
                        // The caller's own class parameters, for calls within a class template.
                        self.subst.get(&p.name).cloned()
                    })
                    .unwrap_or(Ty::Param(p.name.as_str().into())),
            })
            .collect();
        Some((
            score,
            Instance {
                file: f,
                func: i,
                subst: Arc::from(subst),
            },
        ))
    }

    /// Which statements are code: not in the discarded branch of an `if constexpr`.
    fn live(&self, body: &Body) -> Vec<bool> {
        let mut live = vec![true; body.stmts.len()];
        for (i, s) in body.stmts.iter().enumerate() {
            if let Stmt::IfConstexpr {
                cond,
                then_len,
                else_len,
            } = s
            {
                let (t, e) = (*then_len as usize, *else_len as usize);
                let dead = match self.const_eval(*cond) {
                    Some(0) => i + 1..i + 1 + t,
                    Some(_) => i + 1 + t..i + 1 + t + e,
                    None => 0..0,
                };
                for d in dead {
                    if let Some(x) = live.get_mut(d) {
                        *x = false;
                    }
                }
            }
        }
        live
    }

    /// The type of the first live `return` (an `auto` or `decltype` return type, a lambda's).
    fn deduced_return(&self, inst: &Instance) -> Ty {
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

    fn return_type(&self, inst: &Instance) -> Ty {
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

    // ---- constants ---------------------------------------------------------------------------

    /// `std::is_same<A, B>::value` and friends written as a name.
    fn trait_value(&self, n: &str) -> Option<i64> {
        let prefix = n.strip_suffix("::value")?;
        self.trait_of(prefix)
    }

    fn trait_of(&self, text: &str) -> Option<i64> {
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

    fn const_eval(&self, e: ExprId) -> Option<i64> {
        match self.expr(e)? {
            Expr::Lit(Lit::Bool(b)) => Some(*b as i64),
            Expr::Lit(Lit::Int { value, .. }) => value.map(IntValue::get),
            Expr::TemplateName { name, targs } => {
                self.trait_of(&format!("{name}<{}>", joined(self.targ_list(*targs))))
            }
            // A value template parameter of this instance (`if constexpr (N > 1)`).
            Expr::Name(n) => match self.subst.get(&**n) {
                Some(Ty::Value(v)) => Some(*v),
                _ => self.trait_value(n),
            },
            Expr::SizeOf(Some(t)) => self.resolve(t).scalar_size().map(i64::from),
            Expr::SizeOfExpr(x) => self.ty(*x).strip_ref().scalar_size().map(i64::from),
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
                            _ => return None,
                        })
                    }
                }
            }
            _ => None,
        }
    }

    /// Folded at compile time: literals and operators over them.
    fn is_constant(&self, e: ExprId) -> bool {
        match self.expr(e) {
            Some(Expr::Lit(_) | Expr::SizeOf(_) | Expr::SizeOfExpr(_)) => true,
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

    // ---- uses --------------------------------------------------------------------------------

    fn run(&self) -> Typed {
        let reg = registry();
        // Per aspect, the first use in source order, the innermost expression among those
        // starting at the same place; keyed by the expression, located where it points.
        let mut found: HashMap<crate::devices::AspectId, Found> = HashMap::default();
        let mut dead: Vec<TextRange> = Vec::new();
        let mut add = |set: AspectSet, what: &dyn Fn() -> String, key: TextRange, span: Span| {
            for a in set.iter() {
                let better = found.get(&a).is_none_or(|(k, _)| {
                    (key.start, key.end - key.start) < (k.start, k.end - k.start)
                });
                if better {
                    found.insert(
                        a,
                        (
                            key,
                            SemUse {
                                aspect: a,
                                what: what(),
                                span,
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
                    add(self.aspects(&t), &|| t.to_string(), l.span.range(), l.span);
                }
            }
            if let Some(ret) = &self.func.ret {
                if !ret.contains("auto") {
                    let t = self.resolve(ret);
                    add(
                        self.aspects(&t),
                        &|| t.to_string(),
                        self.func.name_span.range(),
                        self.func.name_span,
                    );
                }
            }
            let live = self.live(body);
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
                    Stmt::Expr(e) | Stmt::Return(e) => self.visit(*e, &mut add),
                    Stmt::Local(id) => {
                        let l = &body.locals[*id as usize];
                        let t = self.local(*id);
                        add(self.aspects(&t), &|| t.to_string(), l.span.range(), l.span);
                    }
                    Stmt::IfConstexpr { .. } => {}
                }
            }
        } else {
            // A declaration only: its signature.
            for p in &self.func.params {
                let t = self.resolve(p);
                add(
                    self.aspects(&t),
                    &|| t.to_string(),
                    self.func.name_span.range(),
                    self.func.name_span,
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
                        span.range(),
                        *span,
                    );
                }
            }
        }
        let mut uses: Vec<SemUse> = found.into_values().map(|(_, u)| u).collect();
        uses.sort_by_key(|u| (u.span.range().start, u.aspect));
        let targets = self.targets.borrow();
        let calls = self
            .func
            .calls
            .iter()
            .map(|c| {
                let at = c.span.range().start;
                if dead.iter().any(|d| d.start <= at && at < d.end) {
                    return Some(Vec::new());
                }
                targets.get(&at).cloned()
            })
            .collect();
        let launches = self
            .func
            .launches
            .iter()
            .map(|l| self.launch(&l.kernel))
            .collect();
        Typed {
            uses,
            calls,
            launches,
            reads: Vec::new(),
        }
    }

    fn visit(&self, e: ExprId, add: &mut AddUse) {
        let Some(x) = self.expr(e) else { return };
        let body = self.body.expect("visited bodies exist");
        match x {
            Expr::SizeOf(_) | Expr::SizeOfExpr(_) | Expr::Lambda(_) => return,
            Expr::TemplateName { .. } | Expr::Name(_) if self.const_eval(e).is_some() => return,
            _ => {}
        }
        if !self.is_constant(e) {
            let t = self.op_ty(e);
            let set = self.aspects(&t);
            if !set.is_empty() {
                // Where a double literal is what makes arithmetic run in double, it is the use.
                let lit = match x {
                    Expr::Binary { lhs, rhs, .. }
                    | Expr::Assign {
                        op: Some(_),
                        lhs,
                        rhs,
                    } => [*lhs, *rhs].into_iter().find(|&o| {
                        matches!(self.expr(o), Some(Expr::Lit(Lit::Float(FloatLit::Double)))) && {
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
                            body.spans[e as usize].range(),
                            span,
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
                                                Some(Expr::Lit(Lit::Float(FloatLit::Double)))
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
                                    body.spans[e as usize].range(),
                                    span,
                                );
                            }
                            None => add(
                                set,
                                &|| t.to_string(),
                                body.spans[e as usize].range(),
                                body.spans[e as usize],
                            ),
                        }
                    }
                }
            }
        }
        for c in body.children(x) {
            self.visit(c, add);
        }
    }

    /// The type an operation computes in: comparisons and compound assignments run in the
    /// operands' common type, whatever their result.
    fn op_ty(&self, e: ExprId) -> Ty {
        match self.expr(e) {
            Some(Expr::Binary { op, lhs, rhs }) if op.is_comparison() => {
                let (l, r) = (self.ty(*lhs), self.ty(*rhs));
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
                let (l, r) = (self.ty(*lhs), self.ty(*rhs));
                if l.is_arithmetic() && r.is_arithmetic() {
                    Ty::common(&l, &r)
                } else {
                    l.strip_ref().clone()
                }
            }
            _ => self.ty(e),
        }
    }

    /// Aspects a value of this type uses (by value: pointers and references carry nothing).
    pub fn aspects(&self, t: &Ty) -> AspectSet {
        aspects_of(self.ix, t.strip_ref(), 0)
    }

    fn launch(&self, k: &KernelRef) -> Option<Vec<Instance>> {
        match k {
            KernelRef::Lambda(i) => {
                let f = self.ix.function(self.file, *i as u32);
                let n = f.tparams.len().min(self.inst_subst.len());
                Some(vec![Instance {
                    file: self.file,
                    func: *i as u32,
                    subst: Arc::from(&self.inst_subst[..n]),
                }])
            }
            KernelRef::Functor(t) => {
                // A local or parameter named as the kernel: its type; else a type name.
                let ty = self
                    .body
                    .and_then(|b| b.locals.iter().rposition(|l| l.name == *t))
                    .map(|id| self.local(id as u32))
                    .unwrap_or_else(|| self.resolve(t));
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
                        let ops: Vec<Instance> = ix
                            .visible(ix.functions, self.file, "operator()")
                            .filter(|&(f, i)| {
                                let func = ix.function(f, i);
                                func.class.as_deref() == Some(cl.name.as_str())
                                    && func.scope.starts_with(&cl.scope)
                            })
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
}

fn split_top(s: &str) -> Vec<String> {
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
        },
        _ if matches!(op, BinOp::Shl | BinOp::Shr) => l.promoted(),
        _ => Ty::common(l, r),
    }
}

/// The type of a call of a function the workspace does not define.
fn library_call(name: &str, explicit: &[Ty], args: &[Ty]) -> Ty {
    let l = last(name);
    let f = features();
    if l.starts_with("malloc") || l.starts_with("aligned_alloc") {
        return Ty::Ptr(Arc::new(explicit.first().cloned().unwrap_or(Ty::Void)));
    }
    if matches!(l, "move" | "forward" | "ref" | "cref") {
        return args.first().cloned().unwrap_or(Ty::Unknown);
    }
    let stem = l.strip_suffix('f').filter(|s| f.is_math(s));
    if let Some(_s) = stem {
        if !name.contains("::") {
            return FLOAT;
        }
    }
    if f.is_math(l)
        || matches!(
            l,
            "dot" | "length" | "distance" | "cross" | "normalize" | "fast_length"
        )
    {
        if let Some(v) = args.iter().find(|a| is_vector_like(a)) {
            return match l {
                "dot" | "length" | "distance" | "fast_length" => match v.strip_ref() {
                    Ty::Class(c) => c.args.first().cloned().unwrap_or(Ty::Unknown),
                    _ => Ty::Unknown,
                },
                _ => v.strip_ref().clone(),
            };
        }
        if args.iter().any(|a| !a.is_known()) {
            return Ty::Unknown;
        }
        let floats: Vec<&Ty> = args
            .iter()
            .map(Ty::strip_ref)
            .filter(|a| matches!(a, Ty::Float(_)))
            .collect();
        if let Some(k) = floats
            .iter()
            .filter_map(|t| match t {
                Ty::Float(k) => Some(*k),
                _ => None,
            })
            .max()
        {
            return Ty::Float(k);
        }
        if matches!(
            l,
            "min" | "max" | "clamp" | "abs" | "abs_diff" | "mad_sat" | "add_sat"
        ) {
            return args.iter().fold(Ty::Unknown, |acc, a| {
                if acc.is_known() {
                    Ty::common(&acc, a)
                } else {
                    a.strip_ref().clone()
                }
            });
        }
        // Integer arguments select the double overload of the C and std:: functions.
        if args.iter().all(Ty::is_arithmetic) && !args.is_empty() {
            return DOUBLE;
        }
    }
    Ty::Unknown
}

/// The type of a method call on a library class.
fn library_method(c: &ClassTy, name: &str, explicit: &[Ty], _args: &[Ty]) -> Ty {
    let t0 = c.args.first().cloned().unwrap_or(Ty::Unknown);
    let f = features();
    match c.last() {
        "vec" | "marray" => {
            let comps = |s: &str| s.chars().all(|ch| "xyzwrgba".contains(ch));
            if name.len() == 1 && comps(name) || (name.starts_with('s') && name.len() == 2) {
                return t0;
            }
            if matches!(name, "lo" | "hi" | "odd" | "even") {
                return c.as_ty();
            }
            if name.len() > 1 && comps(name) {
                return Ty::class(c.name.clone(), vec![t0, Ty::Value(name.len() as i64)]);
            }
            if matches!(name, "convert" | "as") {
                return match explicit.first() {
                    Some(t) => Ty::class(
                        c.name.clone(),
                        vec![t.clone(), c.args.get(1).cloned().unwrap_or(Ty::Unknown)],
                    ),
                    None => Ty::Unknown,
                };
            }
            Ty::Unknown
        }
        "atomic_ref" | "atomic" => match name {
            "load" | "exchange" | "fetch_add" | "fetch_sub" | "fetch_min" | "fetch_max"
            | "fetch_and" | "fetch_or" | "fetch_xor" => t0,
            "compare_exchange_strong" | "compare_exchange_weak" | "is_lock_free" => Ty::Bool,
            _ => Ty::Unknown,
        },
        "buffer" => match name {
            "get_access" | "get_host_access" => Ty::class(
                if name == "get_access" {
                    "sycl::accessor"
                } else {
                    "sycl::host_accessor"
                },
                c.args.clone(),
            ),
            "get_range" | "size" | "get_count" | "byte_size" => SIZE_T,
            _ => Ty::Unknown,
        },
        "complex" => match name {
            "real" | "imag" => t0,
            _ => Ty::Unknown,
        },
        l if f.is_element_template(l) => match name {
            "get_pointer" | "data" | "get" | "get_raw" | "get_decorated" => Ty::Ptr(Arc::new(t0)),
            "get_multi_ptr" => Ty::class("sycl::multi_ptr", vec![t0]),
            "size" | "get_count" | "get_size" | "byte_size" | "get_range" => SIZE_T,
            "front" | "back" | "at" => t0,
            _ => Ty::Unknown,
        },
        "id" | "item" | "nd_item" | "range" | "group" | "h_item" | "nd_range" | "sub_group" => {
            if name.starts_with("get") || matches!(name, "size" | "operator[]") {
                SIZE_T
            } else {
                Ty::Unknown
            }
        }
        _ => Ty::Unknown,
    }
}

impl ClassTy {
    fn as_ty(&self) -> Ty {
        Ty::Class(Arc::new(self.clone()))
    }
}

/// Aspects of a type held by value.
fn aspects_of(ix: &Index, t: &Ty, depth: usize) -> AspectSet {
    let reg = registry();
    let one = |n: &str| -> AspectSet { reg.by_name(n).into_iter().collect() };
    match t {
        Ty::Float(FloatKindOrd::Double | FloatKindOrd::LongDouble) => one("fp64"),
        Ty::Float(FloatKindOrd::Half) => one("fp16"),
        Ty::Array(x) => aspects_of(ix, x, depth),
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

fn class_aspects(ix: &Index, c: &ClassTy, depth: usize) -> AspectSet {
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
                set = set.union(super::known_aspects(&cl.uses_aspects));
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

fn is_trait(name: &str) -> bool {
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
fn trait_value(name: &str, args: &[Ty]) -> Option<i64> {
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
        "is_floating_point" => matches!(a, Ty::Float(_)),
        "is_integral" => matches!(a, Ty::Int { .. } | Ty::Bool),
        "is_arithmetic" => a.is_arithmetic(),
        "is_pointer" => matches!(a, Ty::Ptr(_)),
        "is_signed" => matches!(a, Ty::Int { signed: true, .. } | Ty::Float(_)),
        "is_unsigned" => matches!(a, Ty::Int { signed: false, .. } | Ty::Bool),
        _ => return None,
    };
    Some(v as i64)
}

/// A class template's parameters bound to a class type's arguments (unbound ones unknown).
fn class_subst(cl: &Class, c: &ClassTy) -> HashMap<String, Ty> {
    cl.tparams
        .iter()
        .enumerate()
        .map(|(i, p)| {
            (
                p.name.clone(),
                c.args.get(i).cloned().unwrap_or(Ty::Unknown),
            )
        })
        .collect()
}

/// The value of an integer or boolean literal (`0`, `16u`, `0x10`, `true`), as a template
/// argument's default is written.
fn literal_value(text: &str) -> Option<i64> {
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

/// Template argument texts as written between `<` and `>`.
fn joined(args: &[Name]) -> String {
    args.iter().map(Name::as_str).collect::<Vec<_>>().join(",")
}
