// Math helpers shared by the kernels.
#pragma once
#include <sycl/sycl.hpp>

// Linear blend of two samples. The literal 0.5 is a double: `a * 0.5` computes in double, so
// every kernel that calls blend() uses fp64.
inline float blend(float a, float b) { return a * 0.5 + b * 0.5f; }

inline float clamp01(float v) { return sycl::fmin(sycl::fmax(v, 0.0f), 1.0f); }
