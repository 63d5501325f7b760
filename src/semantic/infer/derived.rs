//! Derived-to-base conversions of class arguments: the bases of a class type (a workspace
//! class's, and the `integral_constant` a standard trait derives from), how far up a base is,
//! and what that means for overload resolution and deduction (tag dispatch:
//! `refine(x, std::is_floating_point<T>{})` against `refine(T, std::true_type)` and
//! `refine(T, std::false_type)`).

use std::borrow::Cow;

use super::lookup::{library_trait_value, resolve_with_args};
use super::{Cx, MAX_DEPTH};
use crate::semantic::names::{last, qualifier};
use crate::semantic::ty::*;

/// Whether a class derives from another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Derivation {
    /// Through this many levels of bases (0: the class itself).
    Yes(u32),
    No,
    /// A base on the way could not be typed.
    Unknown,
}

impl Cx<'_, '_> {
    /// The direct bases of class type `t`; `None` when one cannot be typed.
    fn direct_bases(&self, t: &Ty) -> Option<Vec<Ty>> {
        let Ty::Class(c) = t.strip_ref() else {
            return Some(Vec::new());
        };
        let Some((f, i)) = c.decl else {
            // [meta.unary]/2: a trait is derived from `integral_constant<bool, v>`.
            let q = qualifier(&c.name);
            let mut class: Vec<&str> = q.to_vec();
            class.push(last(&c.name));
            return Some(match library_trait_value(&class, &c.args) {
                Some(v) => vec![resolve_with_args(
                    self.ix,
                    self.file,
                    "std::integral_constant",
                    vec![Ty::Bool, Ty::Value(v)],
                    self.depth + 1,
                )],
                None => Vec::new(),
            });
        };
        let cl = &self.ix.files[f as usize].classes[i as usize];
        let bases: Vec<Ty> = cl.bases.iter().map(|b| self.field_ty(c, cl, b)).collect();
        bases
            .iter()
            .all(|b| matches!(b, Ty::Class(_)))
            .then_some(bases)
    }

    /// Whether class type `derived` is `base` or derives from it, and through how many levels
    /// at the nearest.
    fn derivation(&self, derived: &Ty, base: &Ty, depth: usize) -> Derivation {
        if derived.strip_ref() == base.strip_ref() {
            return Derivation::Yes(0);
        }
        if depth >= MAX_DEPTH {
            return Derivation::Unknown;
        }
        let Some(bases) = self.direct_bases(derived) else {
            return Derivation::Unknown;
        };
        let mut out = Derivation::No;
        for b in &bases {
            out = match (out, self.derivation(b, base, depth + 1)) {
                (Derivation::Yes(a), Derivation::Yes(d)) => Derivation::Yes(a.min(d + 1)),
                (_, Derivation::Yes(d)) => Derivation::Yes(d + 1),
                (Derivation::Yes(a), _) => Derivation::Yes(a),
                (_, Derivation::Unknown) | (Derivation::Unknown, _) => Derivation::Unknown,
                (Derivation::No, Derivation::No) => Derivation::No,
            };
        }
        out
    }

    /// How an argument of class type (or pointer to one) converts to a parameter of another
    /// class type (pointer): [over.best.ics]/6, a derived-to-base Conversion (rank 2), the
    /// nearer base the better ([over.ics.rank]/4.4.4: the distance, second); `Some(None)` when
    /// it cannot convert (a library `integral_constant`, which has no converting constructor,
    /// from a class that does not derive from it); `None` when the types are not two such
    /// classes.
    pub(super) fn class_argument_rank(&self, param: &Ty, arg: &Ty) -> Option<Option<(u32, u32)>> {
        let (p, a) = match (param.strip_ref(), arg.strip_ref()) {
            // [conv.ptr]/3: a pointer to a derived class converts to a pointer to its base, the
            // nearer base the better too.
            (Ty::Ptr(p), Ty::Ptr(a)) => (&**p, &**a),
            (p, a) => (p, a),
        };
        let (Ty::Class(pc), Ty::Class(_)) = (p, a) else {
            return None;
        };
        if p == a || !p.is_concrete() || !a.is_concrete() {
            return None;
        }
        match self.derivation(a, p, 0) {
            Derivation::Yes(d) => Some(Some((2, d.min(15)))),
            Derivation::No if pc.decl.is_none() && pc.last() == "integral_constant" => Some(None),
            _ => None,
        }
    }

    /// [temp.deduct.call]/4.3: a parameter of a class template specialisation that names
    /// template parameters (`std::integral_constant<bool, B>`) deduces from the argument's base
    /// of that template when the argument's own class is another (`std::is_same<T, U>`).
    pub(super) fn deduction_args<'t>(&self, params: &[Ty], args: &'t [Ty]) -> Cow<'t, [Ty]> {
        let mut out = Cow::Borrowed(args);
        for (k, (p, a)) in params.iter().zip(args).enumerate() {
            let (Ty::Class(pc), Ty::Class(ac)) = (p.strip_ref(), a.strip_ref()) else {
                continue;
            };
            if !p.is_dependent() || pc.last() == ac.last() || !a.is_concrete() {
                continue;
            }
            if let Some(b) = self.base_named(a.strip_ref(), pc.last(), 0) {
                out.to_mut()[k] = b;
            }
        }
        out
    }

    /// The nearest base of class type `t` whose class is named `name`.
    fn base_named(&self, t: &Ty, name: &str, depth: usize) -> Option<Ty> {
        if depth >= MAX_DEPTH {
            return None;
        }
        let bases = self.direct_bases(t)?;
        bases
            .iter()
            .find(|b| matches!(b, Ty::Class(c) if c.last() == name))
            .cloned()
            .or_else(|| {
                bases
                    .iter()
                    .find_map(|b| self.base_named(b, name, depth + 1))
            })
    }
}
