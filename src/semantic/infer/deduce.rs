//! Template argument deduction and overload viability: binding a candidate's template
//! parameters from explicit and deduced arguments, and ranking its argument conversions.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use super::consts::literal_value;
use super::lookup::{const_text, resolve_text};
use super::Cx;
use crate::semantic::names::last;
use crate::semantic::ty::*;
use crate::semantic::Instance;
use crate::syntax::{Function, TParam};

/// Binds template parameters of `pattern` from `arg`; false on a conflict.
pub(super) fn deduce(pattern: &Ty, arg: &Ty, b: &mut HashMap<Arc<str>, Ty>) -> bool {
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
            // [temp.deduct.type]/9: a trailing `Ts...` takes the remaining arguments.
            if let Some(pk) = p.args.last().and_then(expansion_of) {
                let k = p.args.len() - 1;
                if a.args.len() < k {
                    return true;
                }
                let rest = Ty::Pack(a.args[k..].iter().cloned().collect());
                let ok = p.args[..k]
                    .iter()
                    .zip(&a.args)
                    .all(|(p, a)| deduce(p, a, b));
                return ok
                    && match b.get(pk) {
                        Some(prev) => *prev == rest,
                        None => {
                            b.insert(pk.into(), rest);
                            true
                        }
                    };
            }
            p.args.iter().zip(&a.args).all(|(p, a)| deduce(p, a, b))
        }
        _ => true,
    }
}

/// The pack a pattern argument `Ts...` expands (see `ty::Parser::targs`).
fn expansion_of(t: &Ty) -> Option<&str> {
    match t {
        Ty::Param(n) => n.strip_suffix("..."),
        _ => None,
    }
}

/// Whether `t` names template parameter `name` (or its expansion `name...`).
fn mentions(t: &Ty, name: &str) -> bool {
    match t {
        Ty::Param(n) => **n == *name || n.strip_suffix("...") == Some(name),
        Ty::Ptr(x) | Ty::Ref(x) | Ty::Array(x) => mentions(x, name),
        Ty::Class(c) => c.args.iter().any(|a| mentions(a, name)),
        Ty::Pack(xs) => xs.iter().any(|a| mentions(a, name)),
        _ => false,
    }
}

/// [temp.deduct.call]/4: a parameter whose type is a dependent class template
/// specialisation or pointer deduces only from an argument of that form; an arithmetic
/// argument makes deduction fail (no conversion is considered), so the candidate is not viable.
fn cannot_deduce(param: &Ty, arg: &Ty) -> bool {
    let (p, a) = (param.strip_ref(), arg.strip_ref());
    p.is_dependent() && a.is_arithmetic() && matches!(p, Ty::Class(_) | Ty::Ptr(_) | Ty::Array(_))
}

pub(super) fn substitute(t: &Ty, b: &HashMap<Arc<str>, Ty>) -> Ty {
    match t {
        Ty::Param(n) => b.get(n).cloned().unwrap_or_else(|| t.clone()),
        Ty::Ptr(x) => Ty::Ptr(Arc::new(substitute(x, b))),
        Ty::Ref(x) => Ty::Ref(Arc::new(substitute(x, b))),
        Ty::Array(x) => Ty::Array(Arc::new(substitute(x, b))),
        Ty::Class(c) => Ty::Class(Arc::new(ClassTy {
            name: c.name.clone(),
            args: c
                .args
                .iter()
                .flat_map(|a| match (expansion_of(a).and_then(|n| b.get(n)), a) {
                    (Some(Ty::Pack(xs)), _) => xs.to_vec(),
                    (_, a) => vec![substitute(a, b)],
                })
                .collect(),
            decl: c.decl,
        })),
        t => t.clone(),
    }
}

/// How well an argument converts to a parameter: lower is better, `None` is not viable.
pub(super) fn conversion_rank(param: &Ty, arg: &Ty) -> Option<u32> {
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
                // [conv.prom]: bool, char and short promote to int.
                (
                    Ty::Int {
                        bytes: 4,
                        signed: true,
                        ..
                    },
                    Ty::Bool | Ty::Int { bytes: 1 | 2, .. },
                ) => Some(1),
                (Ty::Int { .. }, Ty::Int { .. }) | (Ty::Float(_), Ty::Float(_)) => Some(2),
                _ => Some(2),
            }
        }
        (Ty::Class(x), Ty::Class(y)) if x.name == y.name => Some(1),
        (Ty::Class(_), _) | (_, Ty::Class(_)) => Some(3),
        _ => Some(3),
    }
}

impl Cx<'_, '_> {
    /// Whether `func` takes these arguments: its score and instance.
    pub(super) fn viable(
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
                    let tparams = &self.ix.files[cf as usize].classes[ci as usize].tparams;
                    super::class_bindings(tparams, &c.args)
                        .filter_map(|(p, a)| Some((p, a?)))
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
                    .map(|t| {
                        literal_value(t)
                            .or_else(|| const_text(self.ix, f, t, &env, self.depth + 1))
                            .map_or_else(
                                || resolve_text(self.ix, f, t, &env, self.depth + 1),
                                Ty::Value,
                            )
                    })
                    .collect();
                if sa.len() < explicit.len() || sa.iter().zip(explicit).any(|(s, e)| s != e) {
                    return None;
                }
            }
        } else if explicit.len() > own.len() && !own.iter().any(|p| p.name.is_empty() || p.pack) {
            return None;
        }
        let mut b: HashMap<Arc<str>, Ty> = HashMap::default();
        // [temp.arg.explicit]: arguments bind the parameters in order; a pack takes the rest.
        let mut explicit_pack: Vec<Ty> = Vec::new();
        if func.spec_args.is_none() {
            let mut es = explicit.iter();
            for p in &own {
                if p.pack {
                    explicit_pack.extend(es.by_ref().cloned());
                    if explicit_pack.iter().any(|e| !kind_fits(p, e)) {
                        return None;
                    }
                    break;
                }
                match es.next() {
                    Some(e) if !kind_fits(p, e) => return None,
                    Some(e) => {
                        b.insert(p.name.as_str().into(), e.clone());
                    }
                    None => break,
                }
            }
        }
        let mut params: Vec<Ty> = func
            .params
            .iter()
            .map(|p| resolve_text(self.ix, f, p, &env, self.depth + 1))
            .collect();
        // [temp.deduct.call]/1: a trailing function parameter pack's pattern is deduced
        // against each remaining argument.
        let pattern = if func.pack { params.pop() } else { None };
        let fixed = params.len().min(args.len());
        deduce_args(
            &params,
            &self.deduction_args(&params, &args[..fixed]),
            &mut b,
        )?;
        // [temp.deduct.type]/8: `T (&)[N]` deduces `N` from an array argument's outermost
        // bound (`float m[2][4]` gives 2, `T` is `float[4]`).
        for (p, bounds) in func.params.iter().zip(self.arg_bounds.borrow().iter()) {
            let names = super::bracketed(p);
            if names.len() != 1 || bounds.is_empty() {
                continue;
            }
            for (n, &v) in names.into_iter().zip(bounds) {
                if own.iter().any(|t| !t.is_type && t.name == n) {
                    match b.get(n) {
                        Some(Ty::Value(w)) if *w != v => return None,
                        Some(_) => {}
                        None => {
                            b.insert(n.into(), Ty::Value(v));
                        }
                    }
                }
            }
        }
        // Each pack: explicit arguments bind the first ([temp.arg.explicit]/4); the pack the
        // trailing function parameter pack expands is deduced from the remaining arguments
        // ([temp.deduct.call]/1); one deduced from a class pattern (`type_pack<Ts...>`,
        // [temp.deduct.type]/9) keeps that; any other is empty.
        let packs: Vec<Arc<str>> = own
            .iter()
            .filter(|p| p.pack)
            .map(|p| Arc::<str>::from(p.name.as_str()))
            .collect();
        let named = |pk: &str| pattern.as_ref().is_some_and(|p| mentions(p, pk));
        let none_named = !packs.iter().any(|pk| named(pk));
        for (k, pk) in packs.iter().enumerate() {
            let mut elems = if k == 0 {
                std::mem::take(&mut explicit_pack)
            } else {
                Vec::new()
            };
            let expanded = pattern.is_some() && (named(pk) || (none_named && k == 0));
            if expanded {
                let pat = pattern.as_ref().expect("checked");
                for a in args[fixed..].iter().skip(elems.len()) {
                    let mut one = b.clone();
                    one.remove(pk);
                    let _ = deduce(pat, a, &mut one);
                    elems.push(one.remove(pk).unwrap_or(Ty::Unknown));
                }
            } else if elems.is_empty() && b.contains_key(pk) {
                continue;
            }
            b.insert(pk.clone(), Ty::Pack(elems.into()));
        }
        self.bind_defaults(f, &own, &env, &mut b);
        if !self.substitutes(f, func, &own, &env, &b) {
            return None;
        }
        // The conversions' ranks, then how far up the derived-to-base ones go.
        let (mut score, mut distance) = (0, 0);
        for (p, a) in params.iter().zip(args) {
            let (r, d) = self.argument_rank(&substitute(p, &b), a)?;
            score += r;
            distance += d;
        }
        if let Some(pat) = &pattern {
            for (k, a) in args[fixed..].iter().enumerate() {
                let mut one = b.clone();
                for v in one.values_mut() {
                    if let Ty::Pack(xs) = v {
                        *v = xs.get(k).cloned().unwrap_or(Ty::Unknown);
                    }
                }
                let (r, d) = self.argument_rank(&substitute(pat, &one), a)?;
                score += r;
                distance += d;
            }
        }
        // [temp.func.order]: a non-template is preferred over a template at equal
        // conversions, and a template over one that takes a pack.
        let template = !func.tparams.is_empty() && func.spec_args.is_none() && !own.is_empty();
        score = (score * 16 + distance.min(15)) * 4
            + u32::from(template)
            + 2 * u32::from(pattern.is_some() || own.iter().any(|p| p.pack));
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

    /// An argument's conversion to a parameter: its rank and, for a derived-to-base one, the
    /// distance to the base; `None` when it does not convert.
    fn argument_rank(&self, param: &Ty, arg: &Ty) -> Option<(u32, u32)> {
        match self.class_argument_rank(param, arg) {
            Some(r) => r,
            None => conversion_rank(param, arg).map(|r| (r, 0)),
        }
    }

    /// SFINAE ([temp.deduct]/8): the deduced arguments substituted into the parts of the
    /// declaration that can fail to form (`enable_if_t` / `void_t` / `decltype` in a default
    /// template argument, a value parameter's type or the return type) all form.
    fn substitutes(
        &self,
        f: u32,
        func: &Function,
        own: &[&TParam],
        env: &HashMap<String, Ty>,
        b: &HashMap<Arc<str>, Ty>,
    ) -> bool {
        // `decltype(e)`: expression SFINAE (`sfinae`).
        let can_fail =
            |t: &str| t.contains("enable_if") || t.contains("void_t") || t.contains("decltype");
        let texts = own
            .iter()
            .filter_map(|p| match (p.is_type, &p.default, &p.constraint) {
                (true, Some(d), _) => Some(d.as_str()),
                (false, _, Some(c)) => Some(c.as_str()),
                _ => None,
            })
            .chain(func.ret.as_deref())
            .filter(|t| can_fail(t));
        let mut full: Option<HashMap<String, Ty>> = None;
        for t in texts {
            let full = full.get_or_insert_with(|| {
                let mut m = env.clone();
                for (k, v) in b {
                    m.insert(k.to_string(), v.clone());
                }
                m
            });
            if resolve_text(self.ix, f, t, full, self.depth + 1).is_substitution_failure() {
                return false;
            }
        }
        true
    }

    /// Defaults for what is still unbound: a value parameter's default is its value (an
    /// instance needs every argument to be made: `template <class T, int N = 0>`).
    fn bind_defaults(
        &self,
        f: u32,
        own: &[&TParam],
        env: &HashMap<String, Ty>,
        b: &mut HashMap<Arc<str>, Ty>,
    ) {
        let mut seen: Option<HashMap<String, Ty>> = None;
        for p in own {
            if !b.contains_key(p.name.as_str()) {
                if let Some(d) = &p.default {
                    // A default sees the parameters before it ([temp.param]/13:
                    // `class = decltype(std::declval<B &>().run())`).
                    let seen = seen.get_or_insert_with(|| {
                        let mut m = env.clone();
                        m.extend(b.iter().map(|(k, v)| (k.to_string(), v.clone())));
                        m
                    });
                    let t = match (p.is_type, literal_value(d)) {
                        (false, Some(v)) => Ty::Value(v),
                        _ => resolve_text(self.ix, f, d, seen, self.depth + 1),
                    };
                    // An unnamed parameter only checks its default (SFINAE): what it names
                    // does not change the instance's code.
                    let t = match (p.is_type && p.name.is_empty(), t.is_concrete()) {
                        (true, false) if !t.is_substitution_failure() => Ty::Void,
                        _ => t,
                    };
                    seen.insert(p.name.clone(), t.clone());
                    b.insert(p.name.as_str().into(), t);
                }
            }
        }
    }
}

/// Adds to `b` (the explicit arguments) what the arguments deduce for the parameters:
/// explicit arguments win over deduction; deduced ones must agree among themselves (`None` when
/// they do not).
fn deduce_args(params: &[Ty], args: &[Ty], b: &mut HashMap<Arc<str>, Ty>) -> Option<()> {
    let mut d: HashMap<Arc<str>, Ty> = HashMap::default();
    for (p, a) in params.iter().zip(args) {
        if cannot_deduce(p, a) {
            return None;
        }
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
    Some(())
}

/// [temp.arg]/1, [temp.deduct]/2: a value given for a type parameter makes the candidate
/// not viable (Catch2's `get_wrapper<double, 2>()` is its `Nttp` overload, never the
/// `TypeList<Ts...>` one). What is not known to be a value is let through.
fn kind_fits(p: &TParam, arg: &Ty) -> bool {
    !(p.is_type && matches!(arg, Ty::Value(_)))
}
