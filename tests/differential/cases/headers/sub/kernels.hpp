// Kernels of headers.cpp in a header of a subdirectory: it includes ../dev.hpp by a relative
// path, and headers.cpp includes it twice (the include guard keeps one copy).
#ifndef CASES_HEADERS_SUB_KERNELS_HPP
#define CASES_HEADERS_SUB_KERNELS_HPP
#include "../dev.hpp"

// kernels in inline functions
inline void hk_inline(sycl::queue &q, size_t n, float *pf) {
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { pf[i] = halve_f(pf[i]); }); // expect-oracle: none
}
inline void hk_inline_d(sycl::queue &q, size_t n, float *pf) {
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { pf[i] = halve_d(pf[i]); }); // expect-oracle: fp64
}
// never called: DPC++ still compiles its kernel, and the oracle's roots are every non-template
// function definition
inline void hk_uncalled(sycl::queue &q, double *pd) {
  q.single_task([=]() { pd[0] = pd[0] * 2.0; }); // expect-oracle: fp64
}
// a kernel in a function template, instantiated with float (no aspect) and sycl::half (fp16)
template <class T> void hk_templ(sycl::queue &q, size_t n, T *p) {
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { p[i] = twice_h(p[i]); }); // expect-oracle: fp16
}
// instantiated with int and float only: pick_h's double branch is discarded for both
template <class T> void hk_pick(sycl::queue &q, size_t n, T *p) {
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { p[i] = pick_h(p[i]); }); // expect-oracle: none
}

// functors: a pointer to double carries nothing; a template merged over double and int
struct HFunctor {
  double *pd;
  int *pi;
  void operator()(sycl::id<1> i) const { pi[i] = pd == nullptr ? 0 : 1; } // expect-oracle: none
};
template <class T> struct HTFunctor {
  T *p;
  void operator()(sycl::id<1> i) const { p[i] = p[i] * T(2); } // expect-oracle: fp64
};

// a member function that launches; declared_only is defined in headers.cpp (fp64 there)
class HRunner {
public:
  float *pf;
  void go(sycl::queue &q, size_t n) {
    q.parallel_for(sycl::range<1>{n}, [this](sycl::id<1> i) { pf[i] = declared_only(pf[i]); }); // expect-oracle: fp64
  }
};
#endif  // CASES_HEADERS_SUB_KERNELS_HPP
