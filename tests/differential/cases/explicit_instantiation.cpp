// Hand-checked oracle cases: explicit instantiation definitions instantiate (every member function
// of a class template specialization; a function template specialization), `extern template`
// instantiates nothing; array parameters are pointers; shifts in template argument lists.
#include "sycl_mini.hpp"

template <class T> struct XR {
  void go(sycl::queue &q, T *p, size_t n) {
    q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { p[i] = p[i] + p[i]; }); // expect-oracle: fp64
  }
  void unused_member() {}
};
template struct XR<double>;
extern template struct XR<sycl::half>;

template <class T> struct XE {
  void go(sycl::queue &q, T *p, size_t n) {
    q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { p[i] = p[i] * T(2); }); // no kernel: extern only
  }
};
extern template struct XE<double>;

template <class T> void run_x(sycl::queue &q, T *p, size_t n) {
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { p[i] = p[i] * T(2); }); // expect-oracle: fp16
}
template void run_x<sycl::half>(sycl::queue &, sycl::half *, size_t);
template void run_x(sycl::queue &, int *, size_t);
extern template void run_x<double>(sycl::queue &, double *, size_t);

template <class T> struct XM {
  void go(sycl::queue &q, T *p, size_t n) {
    q.single_task([=]() { p[0] = p[1]; }); // expect-oracle: none
  }
  void other(sycl::queue &q, T *p) {
    q.single_task([=]() { p[0] = p[1] * 0.5; }); // no kernel: only go is instantiated
  }
};
template void XM<float>::go(sycl::queue &, float *, size_t);

struct Plain {
  template <class T> void go(sycl::queue &q, T *p) const {
    q.single_task([=]() { p[0] += T(1); }); // expect-oracle: fp64
  }
};
template void Plain::go<double>(sycl::queue &, double *) const;

namespace ns {
template <class T> void nsrun(sycl::queue &q, T *p) {
  q.single_task([=]() { p[0] = p[0] + p[0]; }); // expect-oracle: fp16
}
template void nsrun<sycl::half>(sycl::queue &, sycl::half *);
} // namespace ns

template <class T, int N> T unroll(T x) {
  T s = x;
  for (int j = 1; j < N; ++j)
    s += x;
  return s;
}
constexpr int kN = 4;
float lutf(const double lut[4][8], float x) { return lut == nullptr ? x : x + 1.0f; }
float lutd(const double lut[4][8], int i) { return static_cast<float>(lut[i][0]); }

void run(sycl::queue &q, size_t n) {
  float *pf = sycl::malloc_device<float>(n, q);
  double *pd = sycl::malloc_device<double>(n, q);
  q.single_task([=]() { pf[0] = unroll<float, 1 << 3>(pf[1]) + unroll<float, kN + 1>(pf[2]); }); // expect-oracle: none
  q.single_task([=]() { pf[0] = lutf(reinterpret_cast<const double (*)[8]>(pd), pf[1]); }); // expect-oracle: none
  q.single_task([=]() { pf[0] = lutd(reinterpret_cast<const double (*)[8]>(pd), 1); }); // expect-oracle: fp64
}
