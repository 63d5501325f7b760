// Hand-checked oracle cases: sycl::half and the math functions.
#include "sycl_mini.hpp"

void run(sycl::queue &q, size_t n) {
  float *fp = sycl::malloc_device<float>(n, q);
  sycl::half *hp = sycl::malloc_device<sycl::half>(n, q);
  double *dp = sycl::malloc_device<double>(n, q);
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { fp[i] = sycl::sqrt(fp[i]); }); // expect-oracle: none
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { fp[i] = sycl::fmax(sycl::fabs(fp[i]), 0.0f); }); // expect-oracle: none
  q.single_task([=]() { fp[0] = static_cast<float>(sqrt(2.0)); }); // expect-oracle: fp64
  q.single_task([=]() { fp[0] = sqrt(fp[1]); }); // expect-oracle: fp64
  q.single_task([=]() { fp[0] = sqrtf(fp[1]) + std::sqrt(fp[2]); }); // expect-oracle: none
  q.single_task([=]() { fp[0] = std::sqrt(2.0); }); // expect-oracle: fp64
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { hp[i] = hp[i] * hp[i] + sycl::half(1.0f); }); // expect-oracle: fp16
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { sycl::half h = 2.0f; fp[i] = h * fp[i]; }); // expect-oracle: fp16
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { fp[i] = sycl::sqrt(sycl::half(fp[i])); }); // expect-oracle: fp16
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { dp[i] = hp[i] * 0.5; }); // expect-oracle: fp64, fp16
  // A half* that is only copied: nothing.
  q.single_task([=]() { sycl::half *h2 = hp; fp[0] = h2 == nullptr; }); // expect-oracle: none
  q.single_task([=]() { fp[0] = sizeof(sycl::half); }); // expect-oracle: none
  q.single_task([=]() { sycl::marray<sycl::half, 4> m(sycl::half(1.0f)); fp[0] = m.size(); }); // expect-oracle: fp16
  q.single_task([=]() { sycl::vec<double, 2> v(1.0, 2.0); fp[0] = static_cast<float>(v.x()); }); // expect-oracle: fp64
  q.single_task([=]() { sycl::vec<float, 4> v(1.0f); fp[0] = v.y() + sycl::sqrt(v).x(); }); // expect-oracle: none
  q.single_task([=]() { std::complex<double> c(1.0, 2.0); fp[0] = 1.0f; (void)c; }); // expect-oracle: fp64
  q.single_task([=]() { std::complex<float> c(1.0f, 2.0f); fp[0] = c.real(); }); // expect-oracle: none
}
