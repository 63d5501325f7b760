// Hand-checked oracle cases: unevaluated operands and discarded branches are no use.
#include "sycl_mini.hpp"

template <class T> T pick(T x) {
  if constexpr (std::is_same_v<T, double>) {
    return x * 2.0;
  } else {
    return x + x;
  }
}

template <class T> T wide(T x) {
  if constexpr (sizeof(T) == 8) {
    return x * 2.0;
  } else {
    return x * 2.0f;
  }
}

void run(sycl::queue &q, size_t n, double hd) {
  float *fp = sycl::malloc_device<float>(n, q);
  double *dp = sycl::malloc_device<double>(n, q);
  int *ip = sycl::malloc_device<int>(n, q);
  q.single_task([=]() { ip[0] = sizeof(double) + alignof(double) + sizeof(hd); }); // expect-oracle: none
  q.single_task([=]() { static_assert(sizeof(double) == 8, "8"); ip[0] = 1; }); // expect-oracle: none
  q.single_task([=]() { using D = decltype(hd * 2.0); ip[0] = sizeof(D); }); // expect-oracle: none
  q.single_task([=]() { std::remove_reference_t<decltype(dp[0])> *p2 = dp; ip[0] = p2 != nullptr; }); // expect-oracle: none
  q.single_task([=]() { ip[0] = noexcept(sycl::sqrt(1.0)); }); // expect-oracle: none
  q.single_task([=]() { ip[0] = std::is_same_v<decltype(hd), double>; }); // expect-oracle: none
  // if constexpr in a non-template kernel: the condition is evaluated.
  q.single_task([=]() { if constexpr (sizeof(long) == 4) { fp[0] = 1.0; } else { fp[0] = 1.0f; } }); // expect-oracle: none
  q.single_task([=]() { if constexpr (sizeof(long) == 8) { fp[0] = 1.0; } else { fp[0] = 1.0f; } }); // expect-oracle: fp64 // expect-oracle-fold: none
  // if constexpr in instantiated templates.
  q.single_task([=]() { fp[0] = pick(fp[1]); }); // expect-oracle: none
  q.single_task([=]() { dp[0] = pick(dp[1]); }); // expect-oracle: fp64
  q.single_task([=]() { fp[0] = wide(fp[1]); ip[0] = wide(ip[1]); }); // expect-oracle: none
  q.single_task([=]() { ip[0] = static_cast<int>(wide(static_cast<long>(ip[1]))); }); // expect-oracle: fp64
  // A local lambda that is never called is no use; one that is called is.
  q.single_task([=]() { auto unused = [](double v) { return v * 2.0; }; ip[0] = 1; }); // expect-oracle: none
  q.single_task([=]() { auto twice = [](double v) { return v * 2; }; fp[0] = static_cast<float>(twice(3)); }); // expect-oracle: fp64
  q.single_task([=]() { auto g = [](auto v) { return v + v; }; fp[0] = g(1.0f); }); // expect-oracle: none
  // The same generic lambda instantiated with double.
  q.single_task([=]() { auto g = [](auto v) { return v + v; }; fp[0] = static_cast<float>(g(1.0)); }); // expect-oracle: fp64
}
