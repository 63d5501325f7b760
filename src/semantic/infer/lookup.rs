//! Qualified name lookup for type texts: a `ty::NameResolver` that resolves a path seen from a
//! file through the visible aliases and classes (specialisations picked by their arguments),
//! memoised per set of visible declarations.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use super::consts::{is_trait, trait_value};
use super::deduce::deduce;
use super::MAX_DEPTH;
use crate::semantic::names::scope_ends_with;
use crate::semantic::ty::*;
use crate::semantic::Index;
use crate::syntax::Class;

pub(super) fn is_half_name(path: &[&str]) -> bool {
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

/// The type of a body's local by name (`None`: no local of that name).
pub(super) type LocalTypes<'l> = dyn Fn(&str) -> Option<Ty> + 'l;

/// Resolves names of a type text seen from `from` with `subst` for template parameters.
struct Resolver<'r, 'i, 'a> {
    ix: &'r Index<'a>,
    from: u32,
    subst: &'r HashMap<String, Ty>,
    depth: usize,
    /// The types of the locals of the body the text is written in, for `decltype(local)`.
    locals: Option<&'r LocalTypes<'r>>,
    _p: std::marker::PhantomData<&'i ()>,
}

impl crate::semantic::ty::NameResolver for Resolver<'_, '_, '_> {
    fn decltype_of(&mut self, path: &[&str]) -> Ty {
        // [dcl.type.decltype]/1.3: `decltype(acc)` of a local is its declared type.
        if let (Some(locals), [name]) = (self.locals, path) {
            if let Some(t) = locals(name) {
                return t;
            }
        }
        let (q, name) = path.split_at(path.len() - 1);
        super::properties::variable_type(self.ix, self.from, q, name[0], self.depth + 1)
    }

    fn resolve(&mut self, path: &[&str], args: Vec<Ty>) -> Ty {
        let Some(&name) = path.last() else {
            return Ty::Unknown;
        };
        if path.len() == 1 && args.is_empty() {
            if let Some(t) = self.subst.get(name) {
                return t.clone();
            }
        }
        // [temp.arg.template]: a template template parameter bound to a class template
        // (`Action<double>` with `Action` = `run_test`) names that template's specialisation.
        if let ([_], Some(Ty::Class(c))) = (path, self.subst.get(name)) {
            let template = c.decl.is_some() || self.is_alias_template(&c.name);
            if c.args.is_empty() && template && c.last() != name {
                let qualified = c.name.clone();
                let p: Vec<&str> = qualified.split("::").collect();
                return self.resolve(&p, args);
            }
        }
        if is_half_name(path) {
            return HALF;
        }
        if let Some(t) = self.detected(path, &args) {
            return t;
        }
        if path.len() <= 2 && path.first().is_none_or(|&q| q == "std" || path.len() == 1) {
            if let Some(n) = name.strip_suffix("_v").filter(|n| is_trait(n)) {
                return trait_value(n, &args).map_or(Ty::Unknown, Ty::Value);
            }
            // SFINAE: `enable_if_t<false, T>` names no type; substitution fails.
            if name == "enable_if_t" && !args.is_empty() {
                return match args[0] {
                    Ty::Value(0) => Ty::substitution_failure(),
                    Ty::Value(_) => args.get(1).cloned().unwrap_or(Ty::Void),
                    _ => Ty::Unknown,
                };
            }
            if name == "void_t" {
                return if args.iter().any(Ty::is_substitution_failure) {
                    Ty::substitution_failure()
                } else if args.iter().all(Ty::is_concrete) {
                    Ty::Void
                } else {
                    Ty::Unknown
                };
            }
            // [meta.trans.other], [meta.trans.ref], [meta.trans.cv]: the library's type
            // transformations of a type already known (`const` is not kept in types).
            if let Some(t) = args
                .first()
                .filter(|_| args.len() == 1)
                .and_then(|a| transformed(name.strip_suffix("_t")?, a))
            {
                return t;
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
        if path.len() == 1 && args.is_empty() && !self.subst.is_empty() {
            if let Some(t) = self.own_member_alias(name) {
                return t;
            }
        }
        // [temp.dep.type]: `D::result_type` with `D` bound to a class by this substitution
        // names a member of that class; the memo is keyed by declarations only.
        if path.len() > 1 {
            match self.bound_head(path[0]) {
                Some(true) => return self.lookup(path, args),
                Some(false) => return Ty::class(path.join("::"), args),
                None => {}
            }
        }
        let ix = self.ix;
        let decls: Vec<(u32, u32)> = ix
            .visible(ix.aliases, self.from, name)
            .chain(
                ix.visible(ix.classes, self.from, name)
                    .map(|(f, i)| (f | 1 << 31, i)),
            )
            .chain(
                ix.visible(ix.globals, self.from, name)
                    .map(|(f, i)| (f | 1 << 30, i)),
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

    fn call(&mut self, recv: Option<&Ty>, path: &[&str], explicit: Vec<Ty>, args: &[Ty]) -> Ty {
        let (ix, from, depth) = (self.ix, self.from, self.depth + 1);
        super::sfinae::call_result(ix, from, self.subst, depth, recv, path, &explicit, args)
    }

    /// [temp.inst]/1, [temp.res]/6: a member alias of a class template specialisation
    /// (`Tr<sycl::half>::input_t`, `typename Tr<T>::input_t` once `T` is substituted) names
    /// its target with the class's parameters bound to the specialisation's arguments (the
    /// primary's defaults filled in). A partial specialisation's members, or aliases of the
    /// name in several class bodies that disagree, are read as before: by name alone.
    fn resolve_member(
        &mut self,
        class: &[&str],
        class_args: Vec<Ty>,
        member: &[&str],
        args: Vec<Ty>,
    ) -> Ty {
        // `std::decay<T>::type` is `std::decay_t<T>`.
        if let ([.., trait_name], ["type"], [a]) = (class, member, class_args.as_slice()) {
            if matches!(class, ["std", _] | [_]) {
                if let Some(t) = transformed(trait_name, a) {
                    return t;
                }
            }
        }
        // [meta.help]: a trait's `type` is the `integral_constant` it derives from.
        if let (["type"], Some(v)) = (member, library_trait_value(class, &class_args)) {
            return self.resolve(&["std", "integral_constant"], vec![Ty::Bool, Ty::Value(v)]);
        }
        let path: Vec<&str> = class.iter().chain(member).copied().collect();
        if let ([name], false) = (member, self.depth > MAX_DEPTH) {
            let ct = self.resolve(class, class_args);
            if let Some(t) = self.member_alias(&ct, name, &args) {
                return t;
            }
            if args.is_empty() {
                if let Some(v) = static_constant(self.ix, &ct, name, self.depth + 1) {
                    return Ty::Value(v);
                }
            }
            // A workspace class template whose specialisation is undecided (`pick_class`):
            // its member is unknown, not the primary's.
            if matches!(&ct, Ty::Class(c) if c.decl.is_none() && !c.args.is_empty())
                && self.declares_class(class)
            {
                return Ty::Unknown;
            }
        }
        self.resolve(&path, args)
    }

    fn member_of(&mut self, ty: &Ty, member: &[&str], args: Vec<Ty>) -> Ty {
        match member {
            [name] if self.depth <= MAX_DEPTH => {
                self.member_alias(ty, name, &args).unwrap_or(Ty::Unknown)
            }
            _ => Ty::Unknown,
        }
    }
}

impl Resolver<'_, '_, '_> {
    /// An alias's target with its own parameters bound to `args` (then to their defaults),
    /// on top of `env` (an enclosing class's parameters).
    fn alias_target(
        &self,
        f: u32,
        a: &crate::syntax::Alias,
        args: &[Ty],
        mut env: HashMap<String, Ty>,
    ) -> Ty {
        let ix = self.ix;
        for (k, p) in a.tparams.iter().enumerate() {
            let t = match (args.get(k), &p.default) {
                (Some(t), _) => t.clone(),
                (None, Some(d)) => resolve_text(ix, f, d, &env, self.depth + 1),
                (None, None) => Ty::Param(p.name.as_str().into()),
            };
            env.insert(p.name.clone(), t);
        }
        resolve_text(ix, f, &a.target, &env, self.depth + 1)
    }

    /// [meta.detect] (Library Fundamentals v2): `std::experimental::is_detected<Op, Args...>`
    /// is `true_type` when `Op<Args...>` forms, `false_type` when it fails; `_v` its value.
    fn detected(&mut self, path: &[&str], args: &[Ty]) -> Option<Ty> {
        let (q, name) = path.split_at(path.len() - 1);
        if !matches!(q, [] | ["std", "experimental"]) {
            return None;
        }
        let value = match name[0] {
            "is_detected" => false,
            "is_detected_v" => true,
            _ => return None,
        };
        let Some((Ty::Class(op), rest)) = args.split_first() else {
            return None;
        };
        if !op.args.is_empty() || !self.is_alias_template(&op.name) {
            return None;
        }
        let p: Vec<&str> = op.name.split("::").collect();
        let formed = match self.resolve(&p, rest.to_vec()) {
            t if t.is_substitution_failure() => false,
            t if t.is_known() => true,
            _ => return Some(Ty::Unknown),
        };
        Some(match (value, formed) {
            (true, b) => Ty::Value(b as i64),
            (false, true) => Ty::class("std::true_type", Vec::new()),
            (false, false) => Ty::class("std::false_type", Vec::new()),
        })
    }

    /// Whether `qualified` names a visible alias template (a template template argument).
    fn is_alias_template(&self, qualified: &str) -> bool {
        let ix = self.ix;
        let last = qualified.rsplit("::").next().unwrap_or(qualified);
        ix.visible(ix.aliases, self.from, last).any(|(f, i)| {
            let a = &ix.files[f as usize].aliases[i as usize];
            !a.tparams.is_empty() && qualified_alias(a) == qualified
        })
    }

    /// Whether a workspace class of that qualified name is visible.
    fn declares_class(&self, path: &[&str]) -> bool {
        let (q, name) = path.split_at(path.len() - 1);
        let ix = self.ix;
        ix.visible(ix.classes, self.from, name[0])
            .any(|(f, i)| scope_ends_with(&ix.files[f as usize].classes[i as usize].scope, q))
    }

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
            let t = self.alias_target(f, a, &args, HashMap::default());
            // Where it names no type by itself (`decltype(...)` of its parameter), rather than
            // alias CTAD (`Buf b(p, r)`).
            let t = match as_template_argument(a, &args) && !t.is_known() {
                true => Ty::class(qualified_alias(a), Vec::new()),
                false => t,
            };
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
        // A member alias of a class named through a typedef (`SD::value_type` with
        // `typedef S<double> SD;`) or a template parameter, or inherited from a base.
        if !q.is_empty() && self.depth <= MAX_DEPTH {
            let ct = self.resolve(q, Vec::new());
            if matches!(&ct, Ty::Class(c) if c.decl.is_some()) {
                if let Some(t) = self.member_alias(&ct, name, &args) {
                    return t;
                }
            }
            // `S::n` of a class's `static constexpr int n = 4;`.
            if args.is_empty() {
                if let Some(v) = static_constant(self.ix, &ct, name, self.depth + 1) {
                    return Ty::Value(v);
                }
            }
        }
        if args.is_empty() {
            if let Some(t) = self.vec_alias(path) {
                return t;
            }
            if let Some(v) = self.constant(path) {
                return Ty::Value(v);
            }
        }
        if !args.is_empty() {
            if let Some(v) = self.variable_template(path, &args) {
                return Ty::Value(v);
            }
        }
        if let Some(t) = self.integral_constant_alias(path, &args) {
            return t;
        }
        Ty::class(path.join("::"), args)
    }

    /// [meta.help]: `true_type`, `false_type` and `bool_constant<B>` are aliases of
    /// `integral_constant<bool, v>`, so a parameter of one takes an argument of another and a
    /// trait derived from it (tag dispatch); named so where the workspace declares none of them.
    fn integral_constant_alias(&mut self, path: &[&str], args: &[Ty]) -> Option<Ty> {
        let (q, name) = path.split_at(path.len().checked_sub(1)?);
        if !matches!(q, [] | ["std"]) {
            return None;
        }
        let v = match (name[0], args) {
            ("true_type", []) => Ty::Value(1),
            ("false_type", []) => Ty::Value(0),
            ("bool_constant", [b]) => b.clone(),
            _ => return None,
        };
        Some(self.resolve(&["std", "integral_constant"], vec![Ty::Bool, v]))
    }

    /// [class.mem]: a member alias of a class template named inside the class (a field's
    /// type, a member function's body) under the class's arguments: `value_type` of
    /// `template <class T> struct Box { using value_type = T; value_type v; }` is `double` in
    /// `Box<double>`. Not memoised: it depends on the substitution. All visible ones agree.
    fn own_member_alias(&mut self, name: &str) -> Option<Ty> {
        let ix = self.ix;
        let mut found: Option<Ty> = None;
        for (f, i) in ix.visible(ix.aliases, self.from, name) {
            let a = &ix.files[f as usize].aliases[i as usize];
            let (Some(class), false) = (a.scope.last(), a.target == name) else {
                return None;
            };
            let q: Vec<&str> = a.scope[..a.scope.len() - 1]
                .iter()
                .map(String::as_str)
                .collect();
            let templ = ix.visible(ix.classes, self.from, class).find(|&(cf, ci)| {
                let c = &ix.files[cf as usize].classes[ci as usize];
                c.spec_args.is_none() && !c.tparams.is_empty() && scope_ends_with(&c.scope, &q)
            });
            let (cf, ci) = templ?;
            let c = &ix.files[cf as usize].classes[ci as usize];
            let env: HashMap<String, Ty> = c
                .tparams
                .iter()
                .filter_map(|p| Some((p.name.clone(), self.subst.get(&p.name)?.clone())))
                .collect();
            if env.is_empty() || !a.tparams.is_empty() {
                return None;
            }
            let t = resolve_text(ix, f, &a.target, &env, self.depth + 1);
            match &found {
                Some(prev) if *prev != t => return None,
                _ => found = Some(t),
            }
        }
        found
    }

    /// Member type `name` of class type `ct`, its own `args` bound too: an alias declared in
    /// the body of the class or specialisation `ct` names ([temp.expl.spec],
    /// [temp.spec.partial.member]: a specialisation's members are its own), a nested class,
    /// else an alias inherited ([class.member.lookup]).
    fn member_alias(&mut self, ct: &Ty, name: &str, args: &[Ty]) -> Option<Ty> {
        let Ty::Class(c) = ct else { return None };
        let (cf, ci) = c.decl?;
        let ix = self.ix;
        let cl = &ix.files[cf as usize].classes[ci as usize];
        let env = self.class_env((cf, ci), &c.args)?;
        let mut scope = cl.scope.clone();
        scope.push(cl.name.clone());
        let (first, end) = cl.member_aliases.unwrap_or((0, 0));
        let mut found: Option<Ty> = None;
        for i in first..end {
            let a = &ix.files[cf as usize].aliases[i as usize];
            if a.name != name || a.scope != scope {
                continue;
            }
            let t = self.alias_target(cf, a, args, env.clone());
            match &found {
                Some(prev) if *prev != t => return None,
                _ => found = Some(t),
            }
        }
        found
            .or_else(|| {
                // A nested class template's parameters follow the enclosing class's.
                let mut all: Vec<Ty> = Vec::new();
                if !args.is_empty() {
                    all.extend(cl.tparams.iter().filter_map(|p| env.get(&p.name).cloned()));
                }
                all.extend(args.iter().cloned());
                self.nested_class(&scope, name, &all)
            })
            .or_else(|| self.inherited_alias(cf, &cl.bases, &env, name, args))
    }

    /// [class.mem]: a class nested in the class whose qualified name is `scope`
    /// (`typename Traits::ScanElement` of `struct Traits { struct ScanElement { ... }; }`).
    fn nested_class(&self, scope: &[String], name: &str, args: &[Ty]) -> Option<Ty> {
        let ix = self.ix;
        let classes: Vec<(u32, u32)> = ix
            .visible(ix.classes, self.from, name)
            .filter(|&(f, i)| ix.files[f as usize].classes[i as usize].scope == scope)
            .collect();
        let &(f, i) = pick_class(ix, &classes, args, self.depth)?;
        Some(Ty::Class(Arc::new(ClassTy {
            name: ix.files[f as usize].classes[i as usize].qualified_name(),
            args: args.to_vec(),
            decl: Some((f, i)),
        })))
    }

    /// The parameters of class `c`'s body bound for a use with `args`: the primary's to the
    /// arguments with its defaults; a partial specialisation's to what matching deduces from
    /// them ([temp.spec.partial.match]); an explicit specialisation has none.
    fn class_env(&self, c: (u32, u32), args: &[Ty]) -> Option<HashMap<String, Ty>> {
        let ix = self.ix;
        let cl = &ix.files[c.0 as usize].classes[c.1 as usize];
        let Some(sa) = &cl.spec_args else {
            let full = with_defaults(ix, &c, args, self.depth);
            return Some(
                cl.tparams
                    .iter()
                    .zip(full)
                    .map(|(p, t)| (p.name.clone(), t))
                    .collect(),
            );
        };
        if cl.tparams.is_empty() {
            return Some(HashMap::default());
        }
        let own: HashMap<String, Ty> = cl
            .tparams
            .iter()
            .map(|p| (p.name.clone(), Ty::Param(p.name.as_str().into())))
            .collect();
        let primary = ix.visible(ix.classes, self.from, &cl.name).find(|&(f, i)| {
            let p = &ix.files[f as usize].classes[i as usize];
            p.spec_args.is_none() && p.scope == cl.scope
        });
        let full = match primary {
            Some(p) => with_defaults(ix, &p, args, self.depth),
            None => args.to_vec(),
        };
        if sa.len() != full.len() {
            return None;
        }
        let mut b = HashMap::default();
        for (s, a) in sa.iter().zip(&full) {
            let pattern = spec_arg(ix, c.0, s, &own, self.depth + 1);
            if !deduce(&pattern, a, &mut b) {
                return None;
            }
        }
        cl.tparams
            .iter()
            .map(|p| Some((p.name.clone(), b.get(p.name.as_str())?.clone())))
            .collect()
    }

    /// [class.member.lookup]: member alias `name` found in the bases (written in the class's
    /// file, under its parameters `env`), when the bases that declare it agree.
    fn inherited_alias(
        &self,
        file: u32,
        bases: &[String],
        env: &HashMap<String, Ty>,
        name: &str,
        args: &[Ty],
    ) -> Option<Ty> {
        if self.depth > MAX_DEPTH || bases.is_empty() {
            return None;
        }
        let none = HashMap::default();
        let mut inner = Resolver::new(self.ix, self.from, &none, self.depth + 1);
        let mut found: Option<Ty> = None;
        for b in bases {
            let bt = resolve_text(self.ix, file, b, env, self.depth + 1);
            let Some(t) = inner.member_alias(&bt, name, args) else {
                continue;
            };
            match &found {
                Some(prev) if *prev != t => return None,
                _ => found = Some(t),
            }
        }
        found
    }

    /// Whether this substitution binds `head` to a concrete type: a template parameter, an
    /// alias of the body, or a member alias of the class template whose member is being
    /// typed. A head still dependent (an instance whose arguments are partly unknown) is read
    /// as the pattern is: resolving its members there lets the pattern's dependent calls reach
    /// every overload from code no instance runs.
    fn bound_head(&mut self, head: &str) -> Option<bool> {
        let bound = match self.subst.get(head) {
            Some(t) => Some(t.clone()),
            None if !self.subst.is_empty() => self.own_member_alias(head),
            None => None,
        };
        bound.map(|t| t.is_concrete())
    }

    /// A `const` / `constexpr` variable at namespace scope with a constant initializer: its
    /// value (clang folds it wherever a constant is needed). All visible ones must agree.
    fn constant(&mut self, path: &[&str]) -> Option<i64> {
        let (q, name) = path.split_at(path.len() - 1);
        let ix = self.ix;
        let mut value = None;
        for (f, i) in ix.visible(ix.globals, self.from, name[0]) {
            let g = &ix.files[f as usize].globals[i as usize];
            if !scope_ends_with(&g.scope, q) || !g.tparams.is_empty() {
                continue;
            }
            let v = const_text(
                ix,
                f,
                g.init.as_deref()?,
                &HashMap::default(),
                self.depth + 1,
            )?;
            if value.is_some_and(|p| p != v) {
                return None;
            }
            value = Some(v);
        }
        value
    }

    /// [temp.pre]/1, [temp.inst]/7: a variable template's value for these arguments
    /// (`has_run_v<B>` declared `= has_run<T>::value`), its initializer under its parameters
    /// bound to them. Only a sole declaration is read: an explicit or partial specialisation
    /// beside it would need its own matching, so several are undecided.
    fn variable_template(&mut self, path: &[&str], args: &[Ty]) -> Option<i64> {
        let (q, name) = path.split_at(path.len() - 1);
        let ix = self.ix;
        let mut decls = ix
            .visible(ix.globals, self.from, name[0])
            .filter(|&(f, i)| scope_ends_with(&ix.files[f as usize].globals[i as usize].scope, q));
        let (f, i) = decls.next()?;
        if decls.next().is_some() {
            return None;
        }
        let g = &ix.files[f as usize].globals[i as usize];
        if g.tparams.is_empty() || g.tparams.iter().any(|p| p.pack) {
            return None;
        }
        let mut env = HashMap::default();
        for (k, p) in g.tparams.iter().enumerate() {
            let t = match (args.get(k), &p.default) {
                (Some(t), _) => t.clone(),
                (None, Some(d)) => resolve_text(ix, f, d, &env, self.depth + 1),
                (None, None) => return None,
            };
            env.insert(p.name.clone(), t);
        }
        const_text(ix, f, g.init.as_deref()?, &env, self.depth + 1)
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

/// The value of a standard type trait named by `class` (`std::is_same`, `is_floating_point`)
/// for concrete `args`.
pub(super) fn library_trait_value(class: &[&str], args: &[Ty]) -> Option<i64> {
    match class {
        ["std", name] | [name] if is_trait(name) => trait_value(name, args),
        _ => None,
    }
}

/// `std::decay<T>`, `remove_cv`, `remove_reference`, `remove_cvref` (and `remove_const`,
/// `remove_volatile`) of a concrete `T` ([meta.trans]); `None` for any other name or a
/// dependent argument (left to the instance, where it is known).
fn transformed(trait_name: &str, t: &Ty) -> Option<Ty> {
    if !t.is_concrete() {
        return None;
    }
    match trait_name {
        "remove_cv" | "remove_const" | "remove_volatile" => Some(t.clone()),
        "remove_reference" | "remove_cvref" => Some(t.strip_ref().clone()),
        // [meta.trans.other]: an array decays to a pointer to its element.
        "decay" => Some(match t.strip_ref() {
            Ty::Array(x) => Ty::Ptr(x.clone()),
            t => t.clone(),
        }),
        _ => None,
    }
}

/// The primary template or the specialisation whose arguments match
/// ([temp.class.spec.match]): the specialisation's parameters are deduced from the arguments
/// (the primary's defaults filled in), substituted back, and every argument must then be
/// the one given; one that names no type (`enable_if_t<false>`) fails to match (SFINAE).
pub(super) fn pick_class<'c>(
    ix: &Index,
    classes: &'c [(u32, u32)],
    args: &[Ty],
    depth: usize,
) -> Option<&'c (u32, u32)> {
    let class = |&(f, i): &(u32, u32)| -> &Class { &ix.files[f as usize].classes[i as usize] };
    let primary = classes.iter().find(|c| class(c).spec_args.is_none());
    let full = match primary {
        Some(p) => with_defaults(ix, p, args, depth),
        None => args.to_vec(),
    };
    let mut undecided = false;
    let spec = classes.iter().find(|c| {
        let cl = class(c);
        let Some(sa) = &cl.spec_args else {
            return false;
        };
        let own: HashMap<String, Ty> = cl
            .tparams
            .iter()
            .map(|p| (p.name.clone(), Ty::Param(p.name.as_str().into())))
            .collect();
        let pattern: Vec<Ty> = sa
            .iter()
            .map(|t| spec_arg(ix, c.0, t, &own, depth + 1))
            .collect();
        if pattern.len() != full.len() {
            return false;
        }
        let mut b = HashMap::default();
        for (s, a) in pattern.iter().zip(&full) {
            if !deduce(s, a, &mut b) {
                return false;
            }
        }
        let mut env: HashMap<String, Ty> = HashMap::default();
        for p in &cl.tparams {
            match b.get(p.name.as_str()) {
                Some(t) => {
                    env.insert(p.name.clone(), t.clone());
                }
                None => return false,
            }
        }
        let back: Vec<Ty> = sa
            .iter()
            .map(|t| spec_arg(ix, c.0, t, &env, depth + 1))
            .collect();
        undecided |= undecided_expression(sa, &back, &full);
        back.iter()
            .zip(&full)
            .all(|(s, a)| *s == *a || (!s.is_concrete() && s.is_known() && !a.is_concrete()))
    });
    // Which one an expression the analysis cannot judge picks is not guessed: no class.
    if spec.is_none() && undecided {
        return None;
    }
    spec.or(primary).or_else(|| classes.first())
}

/// A specialisation's argument as written (`T`, `8`, `N + 1`): a type, else a constant
/// ([temp.arg.nontype]), as a use's template argument list reads it.
fn spec_arg(ix: &Index, file: u32, text: &str, env: &HashMap<String, Ty>, depth: usize) -> Ty {
    match resolve_text(ix, file, text, env, depth) {
        Ty::Unknown => const_text(ix, file, text, env, depth).map_or(Ty::Unknown, Ty::Value),
        t => t,
    }
}

/// Whether a specialisation's argument written with `decltype(e)` (expression SFINAE) is
/// undecided for concrete arguments: `e` calls what the analysis cannot see (a library
/// class's member), so whether the specialisation matches is unknown.
fn undecided_expression(written: &[String], back: &[Ty], full: &[Ty]) -> bool {
    written
        .iter()
        .zip(back)
        .zip(full)
        .any(|((w, s), a)| w.contains("decltype") && !s.is_known() && a.is_concrete())
}

/// The arguments of a use of class template `c` with its trailing defaults filled in
/// (`Op<short>` of `template <class T, class E = void>` is `Op<short, void>`).
fn with_defaults(ix: &Index, c: &(u32, u32), args: &[Ty], depth: usize) -> Vec<Ty> {
    let cl = &ix.files[c.0 as usize].classes[c.1 as usize];
    let mut out = args.to_vec();
    if out.len() >= cl.tparams.len() || depth > MAX_DEPTH {
        return out;
    }
    let mut env: HashMap<String, Ty> = HashMap::default();
    for (p, a) in cl.tparams.iter().zip(args) {
        env.insert(p.name.clone(), a.clone());
    }
    for p in &cl.tparams[out.len()..] {
        let Some(d) = &p.default else { break };
        let t = match (p.is_type, super::consts::literal_value(d)) {
            (false, Some(v)) => Ty::Value(v),
            _ => resolve_text(ix, c.0, d, &env, depth + 1),
        };
        env.insert(p.name.clone(), t.clone());
        out.push(t);
    }
    out
}

/// [class.static.data]/4: the value of the static data member `name` of class type `ct` (or of
/// a base) initialised in its class by a constant expression (`static constexpr bool value =
/// std::is_same_v<T, double>;`), under the class's arguments. A partial specialisation's own
/// parameters are left unbound (the arguments it was picked for are not its parameters).
pub(super) fn static_constant(ix: &Index, ct: &Ty, name: &str, depth: usize) -> Option<i64> {
    let Ty::Class(c) = ct.strip_ref() else {
        return None;
    };
    let Some((f, i)) = c.decl else {
        return (name == "value").then(|| library_value(c)).flatten();
    };
    if depth > MAX_DEPTH {
        return None;
    }
    let cl = &ix.files[f as usize].classes[i as usize];
    let subst: HashMap<String, Ty> = match cl.spec_args {
        Some(_) => HashMap::default(),
        None => cl
            .tparams
            .iter()
            .zip(with_defaults(ix, &(f, i), &c.args, depth))
            .map(|(p, a)| (p.name.clone(), a))
            .collect(),
    };
    if let Some(fl) = cl.fields.iter().find(|fl| fl.name == name) {
        let init = fl.init.as_deref().filter(|_| fl.is_static)?;
        return const_text(ix, f, init, &subst, depth + 1);
    }
    cl.bases.iter().find_map(|b| {
        let bt = resolve_text(ix, f, b, &subst, depth + 1);
        static_constant(ix, &bt, name, depth + 1)
    })
}

/// [temp.arg.template]: an alias template named without arguments, all its parameters
/// wanting one (`detect<B, run_t>` of `template <class T> using run_t = decltype(...)`), is
/// the template itself, for a template template parameter to apply.
fn as_template_argument(a: &crate::syntax::Alias, args: &[Ty]) -> bool {
    args.is_empty()
        && !a.tparams.is_empty()
        && a.tparams.iter().all(|p| p.default.is_none() && !p.pack)
}

fn qualified_alias(a: &crate::syntax::Alias) -> String {
    a.scope
        .iter()
        .map(String::as_str)
        .chain([a.name.as_str()])
        .collect::<Vec<_>>()
        .join("::")
}

/// [meta.help]: the `value` of `std::true_type`, `false_type`, `integral_constant<T, v>`,
/// `bool_constant<b>` (a base of a detector: `struct has_run<...> : std::true_type {}`).
fn library_value(c: &ClassTy) -> Option<i64> {
    let std = c.name.starts_with("std::") || !c.name.contains("::");
    let arg = |k: usize| match c.args.get(k) {
        Some(Ty::Value(v)) => Some(*v),
        _ => None,
    };
    match c.last() {
        "true_type" if std => Some(1),
        "false_type" if std => Some(0),
        "integral_constant" if std => arg(1),
        "bool_constant" if std => arg(0),
        _ => None,
    }
}

/// The value of a constant expression text seen from `from` (`(8)`, `1 << 3`, `N + 1` with a
/// `constexpr` N or a value parameter in `subst`).
pub(super) fn const_text(
    ix: &Index,
    from: u32,
    text: &str,
    subst: &HashMap<String, Ty>,
    depth: usize,
) -> Option<i64> {
    if depth > MAX_DEPTH {
        return None;
    }
    parse_const(text, &mut Resolver::new(ix, from, subst, depth))
}

pub(super) fn resolve_text(
    ix: &Index,
    from: u32,
    text: &str,
    subst: &HashMap<String, Ty>,
    depth: usize,
) -> Ty {
    parse_type(text, &mut Resolver::new(ix, from, subst, depth))
}

/// `resolve_text` in a body whose locals `decltype` may name (`Kernel<decltype(acc), false>`).
pub(super) fn resolve_text_in_body(
    ix: &Index,
    from: u32,
    text: &str,
    subst: &HashMap<String, Ty>,
    depth: usize,
    locals: &LocalTypes,
) -> Ty {
    let mut r = Resolver::new(ix, from, subst, depth);
    r.locals = Some(locals);
    parse_type(text, &mut r)
}

/// A class (template) name with its arguments already typed: `K<decltype(p)>(p)`'s class.
pub(super) fn resolve_with_args(
    ix: &Index,
    from: u32,
    name: &str,
    args: Vec<Ty>,
    depth: usize,
) -> Ty {
    use crate::semantic::ty::NameResolver;
    let path: Vec<&str> = name.split("::").filter(|p| !p.is_empty()).collect();
    Resolver::new(ix, from, &HashMap::default(), depth).resolve(&path, args)
}

impl<'r, 'a> Resolver<'r, '_, 'a> {
    fn new(ix: &'r Index<'a>, from: u32, subst: &'r HashMap<String, Ty>, depth: usize) -> Self {
        Resolver {
            ix,
            from,
            subst,
            depth,
            locals: None,
            _p: std::marker::PhantomData,
        }
    }
}
