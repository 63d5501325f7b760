// vector-math: a small SYCL program that shows each check of sycl-analyzer.
// Build: see compile_commands.json (-fsycl-targets=intel_gpu_dg1,intel_gpu_pvc).
#include <sycl/sycl.hpp>
#include "blend.hpp"

SYCL_EXTERNAL void mix(sycl::half *out, const float *a, const float *b, size_t i);

int main() {
  sycl::queue q;
  constexpr size_t n = 1024;
  float *a = sycl::malloc_shared<float>(n, q);
  float *b = sycl::malloc_shared<float>(n, q);
  sycl::half *h = sycl::malloc_shared<sycl::half>(n, q);
  unsigned long long *count = sycl::malloc_shared<unsigned long long>(1, q);

  // Declares fp16 only; mix() (another file) reaches blend(), which computes in double.
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) [[sycl::device_has(sycl::aspect::fp16)]] {
    mix(h, a, b, i);
  });

  // Counts with a 64-bit atomic and says so: fine everywhere the targets support atomic64.
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) [[sycl::device_has(sycl::aspect::atomic64)]] {
    sycl::atomic_ref<unsigned long long, sycl::memory_order::relaxed, sycl::memory_scope::device> c(*count);
    if (a[i] > b[i]) c++;
  });

  // Requires sub-group size 8, which intel_gpu_pvc does not have.
  q.parallel_for(sycl::nd_range<1>{n, 64}, [=](sycl::nd_item<1> it) [[sycl::reqd_sub_group_size(8)]] {
    size_t i = it.get_global_id(0);
    a[i] = clamp01(a[i]);
  });

  // Float only: no warning anywhere.
  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { b[i] = clamp01(b[i] * 2.0f); }).wait();

  double checksum = 0; // host code: double is fine here
  for (size_t i = 0; i < n; ++i) checksum += a[i];
  sycl::free(a, q);
  sycl::free(b, q);
  sycl::free(h, q);
  sycl::free(count, q);
  return checksum > 0 ? 0 : 1;
}
