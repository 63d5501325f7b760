//! Return types of library calls and methods the workspace does not define (math functions,
//! `std::move`, SYCL vectors, atomics, buffers, accessors, ids): tables by name.

use std::sync::Arc;

use super::is_vector_like;
use crate::semantic::features::features;
use crate::semantic::names::last;
use crate::semantic::ty::*;

/// The type of a call of a function the workspace does not define.
pub(super) fn library_call(name: &str, explicit: &[Ty], args: &[Ty]) -> Ty {
    let l = last(name);
    let f = features();
    if l.starts_with("malloc") || l.starts_with("aligned_alloc") {
        return Ty::Ptr(Arc::new(explicit.first().cloned().unwrap_or(Ty::Void)));
    }
    if matches!(l, "move" | "forward" | "ref" | "cref") {
        return args.first().cloned().unwrap_or(Ty::Unknown);
    }
    if let Some(t) = parallel_library_call(l, explicit, args) {
        return t;
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
        let integer_family = matches!(
            l,
            "min" | "max" | "clamp" | "abs" | "abs_diff" | "mad_sat" | "add_sat"
        );
        // SYCL's builtins (`sycl::pow`, `sycl::mad`) take one genfloat type: no integer
        // overloads, no promotion. <cmath>'s (`std::pow`, `::fmod`) promote: an integer
        // argument beside a float selects the double overload (libstdc++'s `__promote_2`).
        let sycl_builtin = name.starts_with("sycl::") || name.contains("::sycl::");
        let promotes = !sycl_builtin
            && !integer_family
            && !floats.is_empty()
            && args
                .iter()
                .any(|a| matches!(a.strip_ref(), Ty::Int { .. } | Ty::Bool));
        if promotes {
            let k = floats
                .iter()
                .filter_map(|t| match t {
                    Ty::Float(k) => Some(*k),
                    _ => None,
                })
                .max()
                .unwrap_or(FloatKindOrd::Double);
            return Ty::Float(k.max(FloatKindOrd::Double));
        }
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
        // Integer arguments select the double overload of the C and std:: functions; SYCL's
        // builtins have no such overload (an integer call converts to the caller's genfloat,
        // which the arguments do not say).
        if args.iter().all(Ty::is_arithmetic) && !args.is_empty() && !sycl_builtin {
            return DOUBLE;
        }
    }
    Ty::Unknown
}

/// oneDPL policies and iterators, `sycl::reduction`, group algorithms and sub-group shuffles:
/// the types that decide what their kernels compute in.
fn parallel_library_call(l: &str, explicit: &[Ty], args: &[Ty]) -> Option<Ty> {
    let arg = |k: usize| args.get(k).map(|a| a.strip_ref().clone());
    // The element a pointer, a buffer or a container holds.
    let element = |t: Ty| match t {
        Ty::Ptr(x) => Some(x.strip_ref().clone()),
        Ty::Class(c) if c.decl.is_none() => c.args.first().cloned(),
        _ => None,
    };
    let t = match l {
        "make_device_policy" => {
            Ty::class("oneapi::dpl::execution::device_policy", explicit.to_vec())
        }
        "make_fpga_policy" => Ty::class("oneapi::dpl::execution::fpga_policy", explicit.to_vec()),
        // `oneapi::dpl::begin(buf)`: an iterator over the buffer's elements.
        "begin" | "end" | "cbegin" | "cend" => Ty::Ptr(Arc::new(element(arg(0)?)?)),
        // `reduction(var, [handler | identity,] op)`: the variable's element and the operator.
        "reduction" => {
            let value = element(arg(0)?)?;
            let op = args.last().filter(|_| args.len() > 1).map(Ty::strip_ref);
            match op.filter(|o| o.is_concrete()) {
                Some(op) => Ty::class("sycl::reduction", vec![value, op.clone()]),
                None => Ty::class("sycl::reduction", vec![value]),
            }
        }
        // (group, x[, init], op): the result is the value's (init's) type; SYCL 2020 puts
        // the inclusive scan's init last, (group, x, op, init).
        "reduce_over_group" | "exclusive_scan_over_group" => {
            arg(if args.len() == 4 { 2 } else { 1 })?
        }
        "inclusive_scan_over_group" => arg(if args.len() == 4 { 3 } else { 1 })?,
        "group_broadcast"
        | "select_from_group"
        | "permute_group_by_xor"
        | "shift_group_left"
        | "shift_group_right" => arg(1)?,
        // (group, first, last[, init], op): init's type, else the element's.
        "joint_reduce" => {
            if args.len() == 5 {
                arg(3)?
            } else {
                element(arg(1)?)?
            }
        }
        _ => return None,
    };
    Some(t)
}

/// The type of a method call on a library class.
pub(super) fn library_method(c: &ClassTy, name: &str, explicit: &[Ty], _args: &[Ty]) -> Ty {
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
        // `acc.combine(x)` combines in the reduction's type.
        "reducer" if name == "combine" => t0,
        "complex" => match name {
            "real" | "imag" => t0,
            _ => Ty::Unknown,
        },
        l if f.is_element_template(l) => match name {
            "get_pointer" | "data" | "get" | "get_raw" | "get_decorated" => Ty::Ptr(Arc::new(t0)),
            "get_multi_ptr" => Ty::class("sycl::multi_ptr", vec![t0]),
            "size" | "get_count" | "get_size" | "byte_size" | "get_range" => SIZE_T,
            "front" | "back" | "at" => t0,
            // Iterators of contiguous containers, modelled as pointers to the element.
            "begin" | "end" | "cbegin" | "cend" => Ty::Ptr(Arc::new(t0)),
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
