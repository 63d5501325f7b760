//! The array bounds of an expression: what `T (&)[N]` deduces `N` from ([temp.deduct.type]/8),
//! kept beside the types because `Ty::Array` keeps no bound.

use rustc_hash::FxHashMap as HashMap;

use super::consts::literal_value;
use super::{bracketed, class_subst, lookup, Cx, MAX_DEPTH};
use crate::semantic::ty::*;
use crate::syntax::{Expr, ExprId, LocalTy};

impl<'i, 'a> Cx<'i, 'a> {
    /// The bounds of an expression of array type, outermost first (`double arr[4][8]`: 4, 8;
    /// `arr[1]`: 8); empty when one is unknown or the expression is no array.
    pub(super) fn array_bounds(&self, a: ExprId) -> Vec<i64> {
        let depth = dims(&self.ty(a));
        if depth == 0 {
            return Vec::new();
        }
        let mut out = self.written_bounds(a, 0);
        // The declarator lists the bounds of the whole object; an element (`m[1]`, `p[1]` of a
        // `float (*p)[4]`) has the innermost ones.
        if out.len() < depth {
            return Vec::new();
        }
        out.drain(..out.len() - depth);
        out
    }

    /// The bounds the declaration of what `a` names writes, for the whole declared object.
    fn written_bounds(&self, a: ExprId, depth: usize) -> Vec<i64> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        match self.expr(a) {
            Some(Expr::Local(id)) => self.local_bounds(*id, depth),
            Some(Expr::Index { base, .. }) => self.written_bounds(*base, depth + 1),
            Some(Expr::Member { base, arrow, name }) => {
                let t = self.ty(*base);
                let t = if *arrow { super::pointee(&t) } else { t };
                self.field_bounds(&t, name, depth + 1)
            }
            // A member of `this` named alone.
            Some(Expr::Name(n)) if !n.contains("::") => match &self.class {
                Some(c) => self.field_bounds(c, n, depth + 1),
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    fn local_bounds(&self, id: u32, depth: usize) -> Vec<i64> {
        let Some(var) = self.body.and_then(|b| b.locals.get(id as usize)) else {
            return Vec::new();
        };
        match &var.ty {
            LocalTy::Declared(text) => {
                let named = Named {
                    class: self.class.as_ref(),
                    before: Some(id),
                };
                // [dcl.init.aggr]: `int a[] = {x, y}` has as many elements as initializers.
                if let Some(rest) = text.split_once("[]").filter(|(t, _)| !t.contains('[')) {
                    let Some(n) = self.initializer_length(id) else {
                        return Vec::new();
                    };
                    let inner = self.bounds_in(self.file, rest.1, &self.subst, &named);
                    if inner.len() != bracketed(rest.1).len() {
                        return Vec::new();
                    }
                    return std::iter::once(n).chain(inner).collect();
                }
                self.bounds_in(self.file, text, &self.subst, &named)
            }
            // `auto &row = m[0]` names the array it is bound to.
            LocalTy::Auto(mods, e) if mods.contains('&') && !mods.contains('*') => {
                self.written_bounds(*e, depth + 1)
            }
            // A capture by copy copies the array.
            LocalTy::Outer(o) => self
                .parent
                .as_ref()
                .map_or_else(Vec::new, |p| p.local_bounds(*o, depth + 1)),
            _ => Vec::new(),
        }
    }

    /// The bounds a data member's declaration writes, under the class's arguments
    /// (`T buf[N]` of a `Ring<int, 4>`: 4).
    fn field_bounds(&self, t: &Ty, name: &str, depth: usize) -> Vec<i64> {
        let Ty::Class(c) = t.strip_ref() else {
            return Vec::new();
        };
        let Some((f, i)) = c.decl else {
            return Vec::new();
        };
        let cl = &self.ix.files[f as usize].classes[i as usize];
        if let Some(fl) = cl.fields.iter().find(|fl| fl.name == name) {
            let env = Named {
                class: Some(t.strip_ref()),
                before: None,
            };
            return self.bounds_in(f, &fl.ty, &class_subst(cl, c), &env);
        }
        if depth < MAX_DEPTH {
            for b in &cl.bases {
                let out = self.field_bounds(&self.field_ty(c, cl, b), name, depth + 1);
                if !out.is_empty() {
                    return out;
                }
            }
        }
        Vec::new()
    }

    /// The values of the bounds in a declared type's text, read in `file` under `subst`; the
    /// constants a bound names unqualified are read where it is written (`named`).
    fn bounds_in(
        &self,
        file: u32,
        text: &str,
        subst: &HashMap<String, Ty>,
        named: &Named,
    ) -> Vec<i64> {
        let mut out = Vec::new();
        for b in bracketed(text) {
            let v = literal_value(b)
                .or_else(|| lookup::const_text(self.ix, file, b, subst, self.depth))
                .or_else(|| {
                    let env = self.named_constants(b, subst, named)?;
                    lookup::const_text(self.ix, file, b, &env, self.depth)
                });
            match v {
                Some(v) => out.push(v),
                None => return Vec::new(),
            }
        }
        out
    }

    /// `subst` with the values of the unqualified names of `bound` that are constants of the
    /// scope it is written in ([expr.const]/4: a `const` integral or `constexpr` variable
    /// initialised by a constant is usable in a constant expression): a local of this body
    /// declared before (`constexpr int n = 2; int a[n];`) or of an enclosing one (a lambda's
    /// bound naming its function's local, which it does not capture: no odr-use), else a static
    /// data member of the class (`T a[m]` in a member of `C<T>` with `static constexpr int m`).
    /// `None` when it names none.
    fn named_constants(
        &self,
        bound: &str,
        subst: &HashMap<String, Ty>,
        named: &Named,
    ) -> Option<HashMap<String, Ty>> {
        let mut env: Option<HashMap<String, Ty>> = None;
        for name in unqualified_names(bound) {
            if subst.contains_key(name) {
                continue;
            }
            let v = self.local_constant(name, named.before, 0).or_else(|| {
                let class = named.class?;
                lookup::static_constant(self.ix, class, name, self.depth + 1)
            });
            if let Some(v) = v {
                env.get_or_insert_with(|| subst.clone())
                    .insert(name.to_string(), Ty::Value(v));
            }
        }
        env
    }

    /// The value of the local `name` declared (before local `before`, when given) in this body
    /// or an enclosing one, when its initializer is a constant.
    fn local_constant(&self, name: &str, before: Option<u32>, depth: usize) -> Option<i64> {
        let body = self.body?;
        let end = before.map_or(body.locals.len(), |b| b as usize);
        let found = body.locals[..end.min(body.locals.len())]
            .iter()
            .rposition(|l| l.name == *name && !l.param);
        match found {
            Some(id) => {
                let &(_, e) = body.inits.iter().find(|(l, _)| *l as usize == id)?;
                self.const_eval(e)
            }
            None if depth < MAX_DEPTH => {
                self.parent.as_ref()?.local_constant(name, None, depth + 1)
            }
            None => None,
        }
    }

    /// The number of elements of local `id`'s brace initializer.
    fn initializer_length(&self, id: u32) -> Option<i64> {
        let body = self.body?;
        let &(_, e) = body.inits.iter().find(|(l, _)| *l == id)?;
        match self.expr(e)? {
            Expr::InitList(l) => Some(l.len() as i64),
            _ => None,
        }
    }
}

/// Where a bound's unqualified names are looked up: the class whose static members it may
/// name, and the local it declares (locals declared before it).
struct Named<'t> {
    class: Option<&'t Ty>,
    before: Option<u32>,
}

/// The identifiers of a constant expression's text that are not part of a qualified name, a
/// template-id or a call (`n * 2`: `n`; `S::n`, `f(x)`: none).
fn unqualified_names(text: &str) -> impl Iterator<Item = &str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !(b[i].is_ascii_alphabetic() || b[i] == b'_') {
            i += 1;
            continue;
        }
        let s = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        let before = text[..s].trim_end();
        let after = text[i..].trim_start();
        let digit_suffix = s > 0 && b[s - 1].is_ascii_digit();
        if !digit_suffix
            && !before.ends_with("::")
            && !after.starts_with("::")
            && !after.starts_with(['<', '('])
            && !matches!(&text[s..i], "sizeof" | "true" | "false")
        {
            out.push(&text[s..i]);
        }
    }
    out.into_iter()
}

/// How many array levels a type has (`float[2][4]`: 2), through a reference.
fn dims(t: &Ty) -> usize {
    match t.strip_ref() {
        Ty::Array(x) => 1 + dims(x),
        _ => 0,
    }
}
