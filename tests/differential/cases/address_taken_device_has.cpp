// Hand-checked oracle cases (issue 50): function template instances named without a call are
// compiled with their kernels ([basic.def.odr], [temp.inst]), braced arrays of them included
// (libclang shows the list unresolved: the oracle probes each element); a name in an unevaluated
// operand instantiates nothing. Functions declaring device_has: only the instances a kernel
// reaches are device code (`expect-oracle-device-has`: the aspects they use and do not declare).
#include "sycl_mini.hpp"

template <class T> void star(sycl::queue &q, T *p) {
  q.single_task([=]() { p[0] = p[0] + p[1]; }); // expect-oracle: fp64, fp16
}
template <int N, class T> void runk(sycl::queue &q, T *p) {
  q.single_task([=]() { // expect-oracle: fp64
    if constexpr (N > 32) {
      p[0] = static_cast<T>(p[0] * 0.5);
    } else {
      p[0] = p[0] + p[1];
    }
  });
}
template <class T> void table(sycl::queue &q, T *p) {
  void (*fs[])(sycl::queue &, T *) = {runk<16>, runk<64>};
  fs[0](q, p);
}
template <class T> void only_typed(sycl::queue &q, T *p) {
  q.single_task([=]() { p[0] = p[1]; }); // expect-oracle: none
}
template <class F, class P> void call_with(F f, sycl::queue &q, P p) { f(q, p); }

template <class T> [[sycl::device_has()]] T smooth(T x) { return x * x * (T(3) - T(2) * x); } // expect-oracle-device-has: fp16
template <class T> [[sycl::device_has(sycl::aspect::fp64)]] T hostonly(T x) { return x * x; } // expect-oracle-device-has: none

void run(sycl::queue &q, size_t n, double *pd, sycl::half *ph, float *pf, int *pi) {
  void (*fp)(sycl::queue &, double *) = star;  // star<double>
  fp(q, pd);
  auto g = &star<sycl::half>;  // never called: compiled all the same
  (void)g;
  table(q, pf);  // runk<16, float>, runk<64, float>
  call_with(only_typed<int>, q, pi);
  using Unused = decltype(&only_typed<double>);  // unevaluated: no instance
  double h = smooth<double>(2.0) + hostonly<long double>(0.5L);  // host only: no device code
  (void)h;
  q.single_task([=]() { ph[0] = smooth(ph[1]); }); // expect-oracle: fp16
}
