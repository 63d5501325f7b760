// Hand-checked oracle cases: kernels and device code in headers. headers/dev.hpp holds device
// helpers and templates (#pragma once), headers/sub/kernels.hpp kernels in inline functions, a
// function template, functors and a class (an include guard; it includes ../dev.hpp), and
// headers/body.inc the body of a kernel written here. Each header is included twice. The
// self-test reads the expect-oracle comments of the headers too.
#include "sycl_mini.hpp"
#include "headers/sub/kernels.hpp"
#include "headers/dev.hpp"
#include "headers/sub/kernels.hpp"

float declared_only(float x) { return static_cast<float>(x * 2.0); }

void run(sycl::queue &q, size_t n) {
  float *pf = sycl::malloc_device<float>(n, q);
  double *pd = sycl::malloc_device<double>(n, q);
  int *pi = sycl::malloc_device<int>(n, q);
  sycl::half *ph = sycl::malloc_device<sycl::half>(n, q);
  hk_inline(q, n, pf);
  hk_inline_d(q, n, pf);
  hk_templ(q, n, pf);
  hk_templ(q, n, ph);
  hk_pick(q, n, pi);
  hk_pick(q, n, pf);
  q.parallel_for(sycl::range<1>{n}, HFunctor{pd, pi});
  q.parallel_for(sycl::range<1>{n}, HTFunctor<double>{pd});
  q.parallel_for(sycl::range<1>{n}, HTFunctor<int>{pi});
  HRunner{pf}.go(q, n);
  // kernels written here that call helpers of the headers
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { ph[i] = to_half(pf[i]); }); // expect-oracle: fp16
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { pi[i] = static_cast<int>(halve_f(pf[i])); }); // expect-oracle: none
  q.single_task([=]() { // expect-oracle: fp64
#include "headers/body.inc"
  });
}

int main() {
  sycl::queue q{sycl::default_selector_v};
  run(q, 1024);
  return 0;
}
