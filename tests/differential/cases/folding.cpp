// Hand-checked oracle cases where the rule (every expression's type) and the folded view (constant
// expressions are computed by the compiler: no use) differ. `expect-oracle` is the rule,
// `expect-oracle-fold` the folded view (`used_folded`, run.py --fold-constants). The kernels
// follow tests/fixtures/literals.cpp.
#include "sycl_mini.hpp"

constexpr int N = 4;

void run(sycl::queue &q, float *out, sycl::half *ph, int *ip) {
  q.single_task([=]() { float a = 2.0; a = 0.5; constexpr float k = 2.0 * N; float arr[2] = {1.0, 2.0}; static_assert(1.0 > 0.5, "c"); out[0] = a + k + arr[0]; }); // expect-oracle: fp64 // expect-oracle-fold: none
  q.single_task([=]() { float x = out[0]; out[1] = x * 2.0; }); // expect-oracle: fp64
  q.single_task([=]() { float x = out[0]; if (x < 1e-3) out[0] = 0; }); // expect-oracle: fp64
  q.single_task([=]() { out[0] = sycl::sqrt(2.0); }); // expect-oracle: fp64
  q.single_task([=]() { float x = out[0]; x *= 0.5; out[0] = x; }); // expect-oracle: fp64
  q.single_task([=]() { out[0] += 0.5 * 2.0; }); // expect-oracle: fp64
  q.single_task([=]() { out[0] = sycl::sqrt(2.0f) + 1.5f * out[1]; }); // expect-oracle: none
  q.single_task([=]() { out[0] = static_cast<float>(0.5 * 3.0) + (float)(1.0) + float(2.0L); }); // expect-oracle: fp64 // expect-oracle-fold: none
  q.single_task([=]() { ip[0] = (0.5 < 1.0) ? 1 : 2; }); // expect-oracle: fp64 // expect-oracle-fold: none
  q.single_task([=]() { out[0] = sycl::half(1.0f); }); // expect-oracle: fp16 // expect-oracle-fold: none
  q.single_task([=]() { ip[0] = sycl::half(1.0f) < sycl::half{2.0f}; }); // expect-oracle: fp16 // expect-oracle-fold: none
  q.single_task([=]() { ph[0] = 0.5; }); // expect-oracle: fp64, fp16 // expect-oracle-fold: fp16
  q.single_task([=]() { double d = 2.0; out[0] = static_cast<float>(d); }); // expect-oracle: fp64
  q.single_task([=]() { constexpr double c = 2.0; out[0] = static_cast<float>(c); }); // expect-oracle: fp64
  q.single_task([=]() { out[0] = out[1] * static_cast<float>(sizeof(double)); }); // expect-oracle: none
}
