// Hand-checked oracle cases: templates, functors, wrappers, overloads and specializations.
#include "sycl_mini.hpp"

template <class T> T twice(T x) { return x + x; }
template <class T> T bump(T x) { return x * 1.5; }
template <> int bump<int>(int x) { return x + 1; }
void scan(int *p, size_t k) { p[k] += 1; }
void scan(double *p, size_t k) { p[k] += 1.0; }
double as_double(float x) { return x; }

template <class T> struct Saxpy {
  T a;
  T *x;
  void operator()(sycl::id<1> i) const { x[i] = a * x[i]; } // expect-oracle: fp64
};
template <class T> struct Scale {
  T *x;
  void operator()(sycl::id<1> i) const { x[i] = x[i] * T(2); } // expect-oracle: none
};
struct Gen {
  float *p;
  template <class I> void operator()(I i) const { p[i] = 1.0f; } // expect-oracle: none
};

template <class K> void launch(sycl::queue &q, size_t n, K k) { q.parallel_for(sycl::range<1>{n}, k); }

template <class T> void run_t(sycl::queue &q, T *p, size_t n) {
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { p[i] = twice(p[i]); }); // expect-oracle: fp64
}
template <class T> void run_f(sycl::queue &q, T *p, size_t n) {
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { p[i] = twice(p[i]); }); // expect-oracle: none
}

void run(sycl::queue &q, size_t n) {
  float *fp = sycl::malloc_device<float>(n, q);
  double *dp = sycl::malloc_device<double>(n, q);
  int *ip = sycl::malloc_device<int>(n, q);
  q.parallel_for(sycl::range<1>{n}, Saxpy<float>{2.0f, fp});
  q.parallel_for(sycl::range<1>{n}, Saxpy<double>{2.0, dp});
  q.parallel_for(n, Scale<float>{fp});
  q.parallel_for(n, Scale<int>{ip});
  q.parallel_for(sycl::range<1>{n}, Gen{fp});
  run_t(q, fp, n);
  run_t(q, dp, n);
  run_f(q, fp, n);
  run_f<int>(q, ip, n);
  launch(q, n, [=](auto i) { fp[i] = twice<float>(fp[i]); }); // expect-oracle: none
  launch(q, n, [=](auto i) { dp[i] = twice(dp[i]); }); // expect-oracle: fp64
  q.single_task([=]() { ip[0] = bump(ip[1]); }); // expect-oracle: none
  q.single_task([=]() { fp[0] = bump(fp[1]); }); // expect-oracle: fp64
  q.single_task([=]() { scan(ip, 0); }); // expect-oracle: none
  q.single_task([=]() { scan(dp, 0); }); // expect-oracle: fp64
  q.single_task([=]() { fp[0] = static_cast<float>(as_double(fp[1])); }); // expect-oracle: fp64
  q.submit([&](sycl::handler &h) { h.parallel_for<class Named>(sycl::range<1>{n}, [=](sycl::item<1> it) { ip[it] = 0; }); }); // expect-oracle: none
  q.submit([&](auto &h) { h.single_task([=]() { dp[0] = 1; }); }); // expect-oracle: fp64
}
