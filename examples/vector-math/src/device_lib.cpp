// Device functions linked into kernels of other translation units.
#include "blend.hpp"

// Declared to need only fp16, but blend() computes in double.
[[sycl::device_has(sycl::aspect::fp16)]] SYCL_EXTERNAL void mix(sycl::half *out, const float *a, const float *b, size_t i) {
  out[i] = static_cast<sycl::half>(clamp01(blend(a[i], b[i])));
}
