// Hand-checked oracle cases: atomic_ref and the deprecated atomic.
#include "sycl_mini.hpp"

using u64 = unsigned long long;
using counter_t = unsigned int;
template <class T>
using aref = sycl::atomic_ref<T, sycl::memory_order::relaxed, sycl::memory_scope::device>;

void run(sycl::queue &q, size_t n) {
  u64 *up = sycl::malloc_device<u64>(n, q);
  int *ip = sycl::malloc_device<int>(n, q);
  counter_t *cp = sycl::malloc_device<counter_t>(n, q);
  double *dp = sycl::malloc_device<double>(n, q);
  float *fp = sycl::malloc_device<float>(n, q);
  long *lp = sycl::malloc_device<long>(n, q);
  int **pp = sycl::malloc_device<int *>(n, q);
  sycl::half *hp = sycl::malloc_device<sycl::half>(n, q);
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { aref<u64> a(up[0]); a.fetch_add(1ULL); }); // expect-oracle: atomic64
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { aref<int> a(ip[0]); a.fetch_add(1); }); // expect-oracle: none
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { aref<counter_t> a(*cp); aref<float> b(fp[i]); a++; b.store(1.0f); }); // expect-oracle: none
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { aref<double> a(dp[0]); a.fetch_add(1.0); }); // expect-oracle: fp64, atomic64
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { sycl::atomic_ref<long, sycl::memory_order::relaxed, sycl::memory_scope::device, sycl::access::address_space::global_space>(lp[1]).fetch_max(2L); }); // expect-oracle: atomic64
  q.single_task([=]() { aref<int *> a(pp[0]); ip[0] = a.load() != nullptr; }); // expect-oracle: atomic64
  q.single_task([=]() { sycl::atomic<long> a{sycl::global_ptr<long>{lp}}; a.fetch_add(1L); }); // expect-oracle: atomic64
  q.single_task([=]() { sycl::atomic<int> a{sycl::global_ptr<int>{ip}}; a.fetch_add(1); }); // expect-oracle: none
  q.single_task([=]() { aref<sycl::half> a(hp[0]); }); // expect-oracle: fp16, ext_oneapi_atomic16
  // Unevaluated: no use.
  q.single_task([=]() { ip[0] = sizeof(aref<u64>); }); // expect-oracle: none
}
