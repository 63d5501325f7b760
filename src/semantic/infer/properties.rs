//! Kernel property lists as types. DPC++'s `properties{device_has<aspect::fp64>}` has a type
//! that carries its property values, so a functor template instantiated with `decltype(props)`
//! declares what the list says through a `get(properties_tag)` that returns a member of that
//! type (DPC++'s `properties_kernel_device_has_warning.cpp`: `K<decltype(props_64)>(props_64)`
//! whose `get` returns `*Props`). Only `device_has` is read; the other properties are no use here.

use rustc_hash::FxHashMap as HashMap;

use super::lookup::resolve_text;
use super::Cx;
use crate::semantic::names::{last, scope_ends_with};
use crate::semantic::ty::Ty;
use crate::semantic::{Index, Instance};
use crate::syntax::{Global, Span};

const PROPERTIES: &str = "sycl::ext::oneapi::experimental::properties";
const DEVICE_HAS: &str = "sycl::ext::oneapi::experimental::device_has";

/// The type of a property list built by `init` (`properties{device_has<aspect::fp64>}`,
/// `syclex::properties(...)`): the class with, when it lists `device_has<...>`, an argument
/// holding the aspects (`sycl::aspect::fp64`), so lists that differ are distinct types.
fn property_list(init: &str) -> Option<Ty> {
    let init = init.trim();
    let open = init.find(['{', '('])?;
    let name: String = init[..open]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    if last(&name) != "properties" {
        return None;
    }
    let found = crate::syntax::prepare::properties_in(init, open, init.len());
    let mut args = Vec::new();
    if !found.is_empty() {
        let aspects = found
            .iter()
            .flat_map(|p| p.args.iter())
            .map(|(text, _)| {
                let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
                Ty::class(format!("sycl::aspect::{}", last(&text)), Vec::new())
            })
            .collect();
        args.push(Ty::class(DEVICE_HAS, aspects));
    }
    Some(Ty::class(PROPERTIES, args))
}

/// The type of a namespace-scope variable: as declared, or, for `auto`, a property list its
/// initializer builds.
pub(super) fn global_type(ix: &Index, file: u32, g: &Global, depth: usize) -> Ty {
    let deduced = g.ty.split_whitespace().any(|w| w == "auto");
    if let (true, Some(init)) = (deduced, g.init.as_deref()) {
        return property_list(init).unwrap_or(Ty::Unknown);
    }
    resolve_text(ix, file, &g.ty, &HashMap::default(), depth)
}

/// The type of the namespace-scope variable `q::name` seen from `from`, when every visible
/// declaration of it agrees (an expression naming it, `decltype(name)`).
pub(super) fn variable_type(ix: &Index, from: u32, q: &[&str], name: &str, depth: usize) -> Ty {
    let found: Vec<Ty> = ix
        .visible(ix.globals, from, name)
        .filter(|&(f, i)| scope_ends_with(&ix.files[f as usize].globals[i as usize].scope, q))
        .map(|(f, i)| global_type(ix, f, &ix.files[f as usize].globals[i as usize], depth))
        .collect();
    match found.as_slice() {
        [first, rest @ ..] if rest.iter().all(|t| t == first) => first.clone(),
        _ => Ty::Unknown,
    }
}

/// The aspects `device_has` lists in a property list type, `None` when it has no `device_has`.
fn declared_aspects(t: &Ty) -> Option<Vec<String>> {
    let Ty::Class(c) = t.strip_ref() else {
        return None;
    };
    if c.name != PROPERTIES {
        return None;
    }
    c.args.iter().find_map(|a| match a {
        Ty::Class(d) if d.name == DEVICE_HAS => Some(
            d.args
                .iter()
                .filter_map(|x| match x {
                    Ty::Class(x) => Some(x.last().to_string()),
                    _ => None,
                })
                .collect(),
        ),
        _ => None,
    })
}

/// What a functor kernel declares through the type its `get(properties_tag)` returns, for the
/// instance `op` of its `operator()`: the aspects and where `get` is, with the files typing
/// read. `None` when the class has no such member or its list has no `device_has`.
pub fn kernel_properties(ix: &Index, op: &Instance) -> (Option<(Vec<String>, Span)>, Vec<u32>) {
    let f = ix.function(op.file, op.func);
    let Some(class) = &f.class else {
        return (None, Vec::new());
    };
    let file = &ix.files[op.file as usize];
    let get = file.functions.iter().position(|g| {
        g.name == "get"
            && g.class.as_ref() == Some(class)
            && g.scope == f.scope
            && g.params.iter().any(|p| p.contains("properties_tag"))
    });
    let Some(get) = get else {
        return (None, Vec::new());
    };
    let g = &file.functions[get];
    let inst = Instance {
        file: op.file,
        func: get as u32,
        subst: op.subst[..g.tparams.len().min(op.subst.len())].into(),
    };
    let (ret, reads) = ix.reading(|| {
        ix.read(op.file);
        Cx::new(ix, &inst, 0).return_type(&inst)
    });
    (declared_aspects(&ret).map(|a| (a, g.name_span)), reads)
}
