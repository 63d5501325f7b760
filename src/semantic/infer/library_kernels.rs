//! Calls of oneMKL / oneMath routines (`oneapi::mkl::`, `oneapi::math::`): each runs a kernel
//! precompiled into the library, which the device compile never sees. A routine on `double`,
//! `std::complex<double>` or `sycl::half` data runs the library's fp64 / fp16 kernel, and
//! throws on a device without the aspect. The element type is read from the typed arguments,
//! by family (protocol.md, "Library kernels"); a call whose element type cannot be read is not
//! recorded: no finding from a guess.

use super::Cx;
use crate::devices::registry;
use crate::semantic::names::{components, last};
use crate::semantic::ty::*;
use crate::semantic::LibraryKernel;
use crate::syntax::{Expr, ExprId, Span};

/// The routine families whose calls run library kernels on data.
const FAMILIES: &[&str] = &["blas", "lapack", "sparse", "dft", "rng", "vm"];

/// The family of a qualified routine name of oneMKL (`oneapi::mkl::`) or oneMath
/// (`oneapi::math::`), when it is one of `FAMILIES`. `rng::device` is the device API, inlined into the
/// user's kernels (so the device compile does see it): no library kernel.
fn routine_family(name: &str) -> Option<&'static str> {
    let parts: Vec<&str> = components(name)
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect();
    let (family, rest) = match parts.as_slice() {
        ["oneapi", "mkl" | "math", family, rest @ ..] => (*family, rest),
        _ => return None,
    };
    let family = FAMILIES.iter().find(|f| **f == family)?;
    if rest.is_empty() || (*family == "rng" && rest.first() == Some(&"device")) {
        return None;
    }
    Some(family)
}

/// The aspect a library kernel on elements of type `t` needs, and how the finding names the
/// type: only the element types oneMKL's routines take that need one.
fn element_aspect(t: &Ty) -> Option<(&'static str, &'static str)> {
    match t.strip_ref() {
        Ty::Float(FloatKindOrd::Double) => Some(("fp64", "double")),
        Ty::Float(FloatKindOrd::Half) => Some(("fp16", "sycl::half")),
        Ty::Class(c) if is_std_complex(&c.name) => match c.args.first() {
            Some(Ty::Float(FloatKindOrd::Double)) => Some(("fp64", "std::complex<double>")),
            _ => None,
        },
        _ => None,
    }
}

fn is_std_complex(name: &str) -> bool {
    matches!(name.trim_start_matches("::"), "std::complex" | "complex")
}

fn is_sycl_buffer(name: &str) -> bool {
    let n = name.trim_start_matches("::");
    matches!(n, "buffer" | "sycl::buffer" | "cl::sycl::buffer")
}

/// The element type of a data argument: what a pointer or array points to (USM), a
/// `sycl::buffer<T>`'s `T`.
fn data_element(t: &Ty) -> Option<&Ty> {
    match t.strip_ref() {
        Ty::Ptr(x) | Ty::Array(x) => Some(x),
        Ty::Class(c) if is_sycl_buffer(&c.name) => c.args.first(),
        _ => None,
    }
}

/// `dft::precision::DOUBLE` as the descriptor's first template argument: the data are
/// double. Read from the argument's text, an enumerator the workspace does not declare.
fn descriptor_element(t: &Ty) -> Option<Ty> {
    let Ty::Class(c) = t.strip_ref() else {
        return None;
    };
    if c.last() != "descriptor" || !c.name.contains("dft") {
        return None;
    }
    let precision = c.args.first()?.to_string();
    let precision = precision.trim_end_matches("()");
    (last(precision) == "DOUBLE" && precision.contains("precision"))
        .then_some(Ty::Float(FloatKindOrd::Double))
}

/// A distribution of `oneapi::mkl::rng` (`uniform<double>`): its first template argument,
/// the type it generates.
fn distribution_element(t: &Ty) -> Option<&Ty> {
    match t.strip_ref() {
        Ty::Class(c) if c.name.contains("rng") => c.args.first(),
        _ => None,
    }
}

impl Cx<'_, '_> {
    /// Records the library kernels a call of a oneMKL / oneMath routine runs, when the
    /// element type of its data can be read from `arg_tys` (spread: one per argument
    /// expression unless `spread`).
    pub(super) fn note_library_kernel(
        &self,
        at: usize,
        callee: ExprId,
        args: &[ExprId],
        arg_tys: &[Ty],
    ) {
        let (Some(body), Some(c)) = (self.body, self.expr(callee)) else {
            return;
        };
        let name = match c {
            Expr::Name(n) | Expr::TemplateName { name: n, .. } => n,
            _ => return,
        };
        // Every call typed comes here: the common case leaves before any allocation.
        if !name.trim_start_matches("::").starts_with("oneapi::") {
            return;
        }
        let Some(family) = routine_family(name) else {
            return;
        };
        // A routine the workspace defines is no precompiled kernel (a wrapper, a mock, the
        // library's own sources).
        let defined_here = self.targets.borrow().get(&at).is_some_and(|insts| {
            insts
                .iter()
                .any(|i| self.ix.function(i.file, i.func).body.is_some())
        });
        if defined_here {
            return;
        }
        let call_span = body.spans[callee as usize];
        let arg_span = |k: usize| match args.len() == arg_tys.len() {
            true => args.get(k).map_or(call_span, |&a| body.spans[a as usize]),
            false => call_span,
        };
        let routine = name.trim_start_matches("::").to_string();
        let mut found: Vec<(&'static str, &'static str, Span)> = Vec::new();
        let mut add = |t: &Ty, span: Span| {
            if let Some((aspect, element)) = element_aspect(t) {
                if !found.iter().any(|(a, _, _)| *a == aspect) {
                    found.push((aspect, element, span));
                }
            }
        };
        match family {
            "dft" => {
                if matches!(last(name), "compute_forward" | "compute_backward") {
                    if let Some(t) = arg_tys.first().and_then(descriptor_element) {
                        add(&t, arg_span(0));
                    }
                }
            }
            _ => {
                let distribution = (family == "rng")
                    .then(|| arg_tys.first().and_then(distribution_element))
                    .flatten();
                match distribution {
                    Some(t) => add(t, arg_span(0)),
                    None => {
                        for (k, t) in arg_tys.iter().enumerate() {
                            if let Some(x) = data_element(t) {
                                add(x, arg_span(k));
                            }
                        }
                    }
                }
            }
        }
        let reg = registry();
        let mut out = self.library.borrow_mut();
        for (aspect, element, data) in found {
            let Some(aspect) = reg.by_name(aspect) else {
                continue;
            };
            let k = LibraryKernel {
                routine: routine.clone(),
                element,
                aspect,
                span: call_span,
                data,
            };
            if !out.contains(&k) {
                out.push(k);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::routine_family;

    #[test]
    fn families() {
        assert_eq!(
            routine_family("oneapi::mkl::blas::column_major::gemm"),
            Some("blas")
        );
        assert_eq!(
            routine_family("::oneapi::math::lapack::getrf"),
            Some("lapack")
        );
        assert_eq!(routine_family("oneapi::mkl::rng::device::generate"), None);
        assert_eq!(routine_family("oneapi::mkl::transpose"), None);
        assert_eq!(routine_family("oneapi::mkl::blas"), None);
        assert_eq!(routine_family("mylib::blas::gemm"), None);
        assert_eq!(routine_family("gemm"), None);
    }
}
