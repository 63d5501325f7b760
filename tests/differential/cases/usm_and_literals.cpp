// Hand-checked oracle cases: USM pointers, captures and literals. A comment at the end of each
// kernel line gives what the oracle must report for that kernel ("none" = no aspect).
#include "sycl_mini.hpp"

void consume(double *p, int *q) { q[0] = 1; }

void run(sycl::queue &q, size_t n, float hf, double hd) {
  double *dp = sycl::malloc_device<double>(n, q);
  float *fp = sycl::malloc_device<float>(n, q);
  int *ip = sycl::malloc_device<int>(n, q);

  // A double read and written through a USM pointer.
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { dp[i] = dp[i] + 1; }); // expect-oracle: fp64
  // A double* that is only passed on, compared and copied: pointers carry nothing.
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { if (dp != nullptr) { double *d2 = dp + 1; consume(d2, ip); } }); // expect-oracle: none
  // A captured double.
  q.single_task([=]() { fp[0] = static_cast<float>(hd); }); // expect-oracle: fp64
  // 2.0f * x: all float.
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { fp[i] = 2.0f * fp[i]; }); // expect-oracle: none
  // x * 0.5 with float x: the literal is a double, and so is the product.
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { fp[i] = fp[i] * 0.5; }); // expect-oracle: fp64
  // float f = 2.0: the literal is a double expression (the rule types every expression); a
  // compiler folds the conversion, so with constants folded it is no use.
  q.single_task([=]() { float f = 2.0; fp[0] = f; }); // expect-oracle: fp64 // expect-oracle-fold: none
  // An init-capture computed on the host from a double: the kernel sees only a float.
  q.single_task([=, s = static_cast<float>(hd * 0.5)]() { fp[0] = s; }); // expect-oracle: none
  // An init-capture that is a double.
  q.single_task([s = hf * 0.5, fp]() { fp[0] = s; }); // expect-oracle: fp64
  // Casts of every form.
  q.single_task([=]() { fp[0] = (float)(double)ip[0]; }); // expect-oracle: fp64
  q.single_task([=]() { fp[0] = float(ip[0]) + static_cast<float>(ip[1]); }); // expect-oracle: none
  // A long double literal.
  q.single_task([=]() { fp[0] = static_cast<float>(1.0L); }); // expect-oracle: fp64 // expect-oracle-fold: none
  // Integers of every width: nothing.
  q.single_task([=]() { long l = ip[0]; unsigned long long u = 3ULL; ip[1] = static_cast<int>(l + u); }); // expect-oracle: none
  // The conditional operator with a double arm.
  q.parallel_for(sycl::range<1>{n}, [=](sycl::item<1> it) { fp[it] = ip[it] > 0 ? fp[it] : 0.0; }); // expect-oracle: fp64
  // Compound assignment with a double right-hand side.
  q.parallel_for(sycl::range<1>{n}, [=](sycl::item<1> it) { fp[it] += 1.5; }); // expect-oracle: fp64
  q.parallel_for(sycl::range<1>{n}, [=](sycl::item<1> it) { fp[it] += 1.5f; }); // expect-oracle: none
  sycl::free(dp, q);
}
