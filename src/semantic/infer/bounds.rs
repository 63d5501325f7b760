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
            LocalTy::Declared(text) => self.bounds_in(self.file, text, &self.subst),
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
            return self.bounds_in(f, &fl.ty, &class_subst(cl, c));
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

    /// The values of the bounds in a declared type's text, read in `file` under `subst`.
    fn bounds_in(&self, file: u32, text: &str, subst: &HashMap<String, Ty>) -> Vec<i64> {
        let mut out = Vec::new();
        for b in bracketed(text) {
            match literal_value(b)
                .or_else(|| lookup::const_text(self.ix, file, b, subst, self.depth))
            {
                Some(v) => out.push(v),
                None => return Vec::new(),
            }
        }
        out
    }
}

/// How many array levels a type has (`float[2][4]`: 2), through a reference.
fn dims(t: &Ty) -> usize {
    match t.strip_ref() {
        Ty::Array(x) => 1 + dims(x),
        _ => 0,
    }
}
