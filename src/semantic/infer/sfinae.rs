//! Expression SFINAE ([temp.deduct]/8): whether a call written in an unevaluated operand of a
//! type text (`decltype(std::declval<T>().run(x))` in a partial specialisation's `void_t`, a
//! default template argument) takes a function, judged by the typing's overload viability.
//! A call is valid when a candidate takes its arguments, invalid when the candidates are all
//! known and none does, undecided (`Unknown`) when the analysis cannot see them all.

use std::cell::{Cell, RefCell};
use std::sync::LazyLock;

use rustc_hash::FxHashMap as HashMap;

use super::{Cx, MAX_DEPTH};
use crate::semantic::names::scope_ends_with;
use crate::semantic::ty::*;
use crate::semantic::{Index, Instance};
use crate::syntax::Function;

/// The function a detached typing context stands in (it types no body).
static DETACHED: LazyLock<Function> = LazyLock::new(Function::default);

/// Bases searched for a member before giving up (deep hierarchies are undecided).
const MAX_CLASSES: usize = 16;

/// See `ty::NameResolver::call`: the result of a call in an operand written in file `from`
/// under `subst`.
#[allow(clippy::too_many_arguments)]
pub(super) fn call_result(
    ix: &Index,
    from: u32,
    subst: &HashMap<String, Ty>,
    depth: usize,
    recv: Option<&Ty>,
    path: &[&str],
    explicit: &[Ty],
    args: &[Ty],
) -> Ty {
    let Some(&name) = path.last() else {
        return Ty::Unknown;
    };
    if depth > MAX_DEPTH
        || args
            .iter()
            .any(|a| a.is_dependent() && !a.is_substitution_failure())
    {
        return Ty::Unknown;
    }
    let cx = Cx::detached(ix, from, subst, depth);
    match recv {
        Some(r) => cx.member_call_result(r, name, explicit, args),
        None => cx.named_call_result(path, explicit, args),
    }
}

impl<'i, 'a> Cx<'i, 'a> {
    /// A context that types no body: overload viability seen from `file`.
    fn detached(ix: &'i Index<'a>, file: u32, subst: &HashMap<String, Ty>, depth: usize) -> Self {
        Cx {
            ix,
            file,
            func: &DETACHED,
            body: None,
            subst: subst.clone(),
            inst_subst: Vec::new().into(),
            class: None,
            parent: None,
            locals: RefCell::default(),
            exprs: RefCell::default(),
            targets: RefCell::default(),
            depth,
            pack_index: Cell::new(None),
            scoped_aliases: Vec::new(),
            at: Cell::new(None),
            arg_bounds: RefCell::default(),
            converted: RefCell::default(),
            library: RefCell::default(),
        }
    }

    /// [class.member.lookup]: the first class of `recv`'s hierarchy that declares `name`
    /// decides; a scalar has no members; a class outside the workspace is undecided.
    fn member_call_result(&self, recv: &Ty, name: &str, explicit: &[Ty], args: &[Ty]) -> Ty {
        match recv.strip_ref() {
            Ty::Class(c) if c.decl.is_some() => {}
            Ty::Bool | Ty::Int { .. } | Ty::Ptr(_) => return Ty::substitution_failure(),
            Ty::Float(k) if *k != FloatKindOrd::Half => return Ty::substitution_failure(),
            _ => return Ty::Unknown,
        }
        let mut todo = vec![recv.strip_ref().clone()];
        let mut open = false;
        let mut seen = 0;
        while let Some(t) = todo.pop() {
            seen += 1;
            let (Ty::Class(c), true) = (&t, seen <= MAX_CLASSES) else {
                open = true;
                continue;
            };
            let Some((f, i)) = c.decl else {
                open = true;
                continue;
            };
            let cands = self.members_named(c, name);
            if !cands.is_empty() {
                return self.viable_result(&cands, Some(&t), explicit, args);
            }
            let cl = &self.ix.files[f as usize].classes[i as usize];
            todo.extend(cl.bases.iter().map(|b| self.field_ty(c, cl, b)));
        }
        match open {
            true => Ty::Unknown,
            false => Ty::substitution_failure(),
        }
    }

    /// A free function (or a static member named through its class) by name; with no
    /// candidate visible, only an operator is known to be invalid (its operands are workspace
    /// classes): any other name may be a library's.
    fn named_call_result(&self, path: &[&str], explicit: &[Ty], args: &[Ty]) -> Ty {
        let (q, name) = path.split_at(path.len() - 1);
        let ix = self.ix;
        let operator = name[0].starts_with("operator");
        let cands: Vec<(u32, u32)> = ix
            .visible(ix.functions, self.file, name[0])
            .filter(|&(f, i)| {
                let func = ix.function(f, i);
                scope_ends_with(&func.scope, q) && !(operator && func.class.is_some())
            })
            .collect();
        match (cands.is_empty(), operator) {
            (true, true) => Ty::substitution_failure(),
            (true, false) => Ty::Unknown,
            (false, _) => self.viable_result(&cands, None, explicit, args),
        }
    }

    /// The return type of the first candidate that takes the arguments; invalid when none
    /// does and every argument is known.
    fn viable_result(
        &self,
        cands: &[(u32, u32)],
        recv: Option<&Ty>,
        explicit: &[Ty],
        args: &[Ty],
    ) -> Ty {
        let mut known = args.iter().all(|a| a.is_known());
        for &(f, i) in cands {
            let func = self.ix.function(f, i);
            if !func.accepts_args(args.len()) {
                continue;
            }
            let Some((_, inst)) = self.viable(f, i, func, recv, explicit, args) else {
                continue;
            };
            match self.converts(&inst, recv, args) {
                Some(true) if known => return self.return_type(&inst),
                Some(false) => continue,
                _ => known = false,
            }
        }
        match known {
            true => Ty::substitution_failure(),
            false => Ty::Unknown,
        }
    }

    /// What overload ranking lets pass but no conversion does ([over.best.ics]): a class
    /// given for an arithmetic or pointer parameter converts only by a conversion function,
    /// which a workspace class shows and a library class may have (`sycl::id<1>` to
    /// `size_t`): `None`, undecided.
    fn converts(&self, inst: &Instance, recv: Option<&Ty>, args: &[Ty]) -> Option<bool> {
        let func = self.ix.function(inst.file, inst.func);
        let mut env: HashMap<String, Ty> = func
            .tparams
            .iter()
            .zip(inst.subst.iter())
            .map(|(p, t)| (p.name.clone(), t.clone()))
            .collect();
        if let Some(Ty::Class(c)) = recv.map(Ty::strip_ref) {
            if let Some((cf, ci)) = c.decl {
                let cl = &self.ix.files[cf as usize].classes[ci as usize];
                env.extend(super::class_subst(cl, c));
            }
        }
        let mut decided = true;
        for (p, a) in func.params.iter().zip(args) {
            let p = super::lookup::resolve_text(self.ix, inst.file, p, &env, self.depth + 1);
            let scalar = p.strip_ref().is_arithmetic() || matches!(p.strip_ref(), Ty::Ptr(_));
            let verdict = match scalar {
                true => self.class_conversions(a),
                false => self.converts_to_class(&p, a),
            };
            match verdict {
                Some(false) => return Some(false),
                None => decided = false,
                Some(true) => {}
            }
        }
        decided.then_some(true)
    }

    /// A workspace class parameter takes its own class, and another type only through a
    /// converting constructor, a conversion function or a base ([over.best.ics]): a class
    /// with none of them is decided.
    fn converts_to_class(&self, p: &Ty, a: &Ty) -> Option<bool> {
        let (Ty::Class(pc), a) = (p.strip_ref(), a.strip_ref()) else {
            return Some(true);
        };
        if distinct_library_specialisation(pc, a) {
            return Some(false);
        }
        if pc.decl.is_none() || Some(pc.as_ref()) == a_class(a) {
            return Some(true);
        }
        if !self.members_named(pc, pc.last()).is_empty() {
            return None;
        }
        match a {
            Ty::Class(ac) if ac.decl.is_some() => match self.class_conversions(a) {
                Some(false) => Some(false),
                _ => None,
            },
            Ty::Class(_) | Ty::Unknown | Ty::Param(_) => None,
            _ => Some(false),
        }
    }

    /// Whether a value of class type `t` may convert to a scalar: a workspace class by its
    /// (or its bases') conversion functions; the library containers and SYCL handles have
    /// none; other library classes are undecided. Not a class: `Some(true)`.
    fn class_conversions(&self, t: &Ty) -> Option<bool> {
        let Ty::Class(c) = t.strip_ref() else {
            return Some(true);
        };
        let Some((f, i)) = c.decl else {
            let none = [
                "std::vector",
                "std::array",
                "std::string",
                "std::basic_string",
                "sycl::event",
                "sycl::queue",
                "sycl::handler",
                "sycl::buffer",
            ];
            return none.contains(&c.name.as_str()).then_some(false);
        };
        let cl = &self.ix.files[f as usize].classes[i as usize];
        match (cl.conversions.is_empty(), cl.bases.is_empty()) {
            (false, _) => Some(true),
            (true, true) => Some(false),
            (true, false) => None,
        }
    }
}

/// [over.best.ics], [dcl.init.ref]/5: a library container or buffer of one element type has
/// no constructor from one of another (`std::vector<int> &` takes no
/// `std::vector<sycl::event>`), so another specialisation of it does not convert.
fn distinct_library_specialisation(p: &ClassTy, a: &Ty) -> bool {
    const NO_CROSS: [&str; 3] = ["std::vector", "std::array", "sycl::buffer"];
    let Some(ac) = a_class(a) else {
        return false;
    };
    let concrete = |c: &ClassTy| c.args.iter().all(Ty::is_concrete);
    NO_CROSS.contains(&p.name.as_str())
        && (p.decl, ac.decl) == (None, None)
        && p.name == ac.name
        && p.args.len() == ac.args.len()
        && concrete(p)
        && concrete(ac)
        && p.args
            .iter()
            .zip(&ac.args)
            .any(|(x, y)| surely_distinct(x, y))
}

/// Two element types that cannot be one type however they were spelled: a library class
/// has no declaration to compare (`s::event` through a namespace alias is `sycl::event`), so
/// only a class against a non-class, two declared classes, or two non-classes differ surely.
fn surely_distinct(x: &Ty, y: &Ty) -> bool {
    match (x, y) {
        (Ty::Class(a), Ty::Class(b)) => a.decl.is_some() && b.decl.is_some() && a.decl != b.decl,
        (Ty::Class(_), _) | (_, Ty::Class(_)) => true,
        (x, y) => x != y,
    }
}

fn a_class(t: &Ty) -> Option<&ClassTy> {
    match t {
        Ty::Class(c) => Some(c),
        _ => None,
    }
}
