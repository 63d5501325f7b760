//! oneMKL / oneMath calls whose precompiled kernels need an aspect (`Typed::library`): the
//! element type read from typed arguments, by routine family.

use super::{Decls, Index, Instance};
use crate::devices::registry;
use crate::semantic::type_function;
use crate::syntax::extract;

/// Per call found in the plain typings of `src`'s functions: `routine element aspect` and the
/// text of the argument the element type was read from, in source order.
fn library_kernels(src: &str) -> Vec<String> {
    let facts = extract(src);
    assert_eq!(facts.syntax_errors, 0, "the source does not parse");
    let files = vec![&facts];
    let sees = vec![vec![0u32]];
    let decls = Decls::new([&facts]);
    let ix = Index::new(files, &sees, &decls);
    let mut found = Vec::new();
    for (i, f) in facts.functions.iter().enumerate() {
        if f.body.is_none() {
            continue;
        }
        for k in type_function(&ix, &Instance::plain(0, i as u32)).library {
            let data = &src[k.data.start as usize..k.data.end as usize];
            found.push((
                k.span.range().start,
                format!(
                    "{} {} {} @{data}",
                    k.routine,
                    k.element,
                    registry().name(k.aspect)
                ),
            ));
        }
    }
    found.sort();
    found.into_iter().map(|(_, s)| s).collect()
}

const PRELUDE: &str = r#"
#include <sycl/sycl.hpp>
#include <oneapi/mkl.hpp>
#include <complex>
"#;

#[test]
fn blas_data_pointers_and_buffers() {
    let src = format!(
        "{PRELUDE}{}",
        r#"
void run(sycl::queue &q, double *a, double *b, double *c, float *fa, float *fb, float *fc,
         sycl::buffer<double, 1> &ba, sycl::buffer<float, 1> &bf, std::complex<double> *za,
         sycl::half *ha, sycl::half *hb, float *hc, int *ia, std::int64_t m) {
  auto t = oneapi::mkl::transpose::nontrans;
  oneapi::mkl::blas::column_major::gemm(q, t, t, m, m, m, 1.0, a, m, b, m, 0.0, c, m);
  oneapi::mkl::blas::row_major::gemm(q, t, t, m, m, m, 1.0f, fa, m, fb, m, 0.0f, fc, m);
  oneapi::mkl::blas::gemm(q, t, t, m, m, m, 1.0, ba, m, ba, m, 0.0, ba, m);
  oneapi::mkl::blas::gemm(q, t, t, m, m, m, 1.0f, bf, m, bf, m, 0.0f, bf, m);
  oneapi::math::blas::column_major::axpy(q, m, 2.0, za, 1, za, 1);
  oneapi::mkl::blas::column_major::gemm(q, t, t, m, m, m, 1.0f, ha, m, hb, m, 0.0f, hc, m);
  oneapi::mkl::blas::column_major::iamax(q, m, fa, 1, ia);
}
"#
    );
    assert_eq!(
        library_kernels(&src),
        [
            "oneapi::mkl::blas::column_major::gemm double fp64 @a",
            "oneapi::mkl::blas::gemm double fp64 @ba",
            "oneapi::math::blas::column_major::axpy std::complex<double> fp64 @za",
            "oneapi::mkl::blas::column_major::gemm sycl::half fp16 @ha",
        ]
    );
}

#[test]
fn usm_allocations_lapack_vm_sparse() {
    let src = format!(
        "{PRELUDE}{}",
        r#"
void run(sycl::queue &q, std::int64_t n, std::int64_t *ipiv, oneapi::mkl::sparse::matrix_handle_t h,
         int *rows, int *cols, float *fv) {
  double *a = sycl::malloc_device<double>(n * n, q);
  auto s = sycl::malloc_device<double>(n, q);
  oneapi::mkl::lapack::getrf(q, n, n, a, n, ipiv, s, n);
  oneapi::mkl::vm::exp(q, n, a, a);
  oneapi::mkl::sparse::set_csr_data(q, h, n, n, oneapi::mkl::index_base::zero, rows, cols, a);
  oneapi::mkl::sparse::set_csr_data(q, h, n, n, oneapi::mkl::index_base::zero, rows, cols, fv);
  auto size = oneapi::mkl::lapack::getrf_scratchpad_size<double>(q, n, n, n);
}
"#
    );
    assert_eq!(
        library_kernels(&src),
        [
            "oneapi::mkl::lapack::getrf double fp64 @a",
            "oneapi::mkl::vm::exp double fp64 @a",
            "oneapi::mkl::sparse::set_csr_data double fp64 @a",
        ]
    );
}

#[test]
fn dft_descriptors_and_rng_distributions() {
    let src = format!(
        "{PRELUDE}{}",
        r#"
using real_desc = oneapi::mkl::dft::descriptor<oneapi::mkl::dft::precision::DOUBLE,
                                               oneapi::mkl::dft::domain::REAL>;
void run(sycl::queue &q, double *d, float *f, std::int64_t n) {
  real_desc desc(n);
  desc.commit(q);
  oneapi::mkl::dft::compute_forward(desc, d);
  oneapi::mkl::dft::descriptor<oneapi::mkl::dft::precision::SINGLE,
                               oneapi::mkl::dft::domain::COMPLEX> fdesc(n);
  oneapi::mkl::dft::compute_backward(fdesc, f);
  oneapi::mkl::rng::philox4x32x10 engine(q, 42);
  oneapi::mkl::rng::uniform<double> ud(0.0, 1.0);
  oneapi::mkl::rng::generate(ud, engine, n, d);
  oneapi::mkl::rng::uniform<float> uf(0.0f, 1.0f);
  oneapi::mkl::rng::generate(uf, engine, n, f);
}
"#
    );
    assert_eq!(
        library_kernels(&src),
        [
            "oneapi::mkl::dft::compute_forward double fp64 @desc",
            "oneapi::mkl::rng::generate double fp64 @ud",
        ]
    );
}

#[test]
fn unreadable_or_not_the_library() {
    let src = format!(
        "{PRELUDE}{}",
        r#"
namespace mylib { void gemm(double *a, double *b); }
namespace oneapi::mkl::blas { void mine(double *a) {} }
void run(sycl::queue &q, double *a, std::int64_t n) {
  auto p = get_data();
  oneapi::mkl::blas::column_major::scal(q, n, 2.0, p, 1);
  mylib::gemm(a, a);
  gemm(a, a);
  oneapi::mkl::blas::mine(a);
}
"#
    );
    assert_eq!(library_kernels(&src), Vec::<String>::new());
}
