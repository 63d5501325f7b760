// Device helpers and templates of headers.cpp, in a header it includes twice (the second time
// through sub/kernels.hpp or directly: #pragma once keeps one copy).
#pragma once
#include "../../sycl_mini.hpp"

#define SCALE 0.5
inline float halve_f(float x) { return x * 0.5f; }
inline float halve_d(float x) { return x * 0.5; }
template <class T> T twice_h(T x) { return x + x; }
inline sycl::half to_half(float x) { return sycl::half(x); }
template <class T> T pick_h(T x) {
  if constexpr (sizeof(T) == 8) {
    return static_cast<T>(x * 2.0);
  } else {
    return x + x;
  }
}
float declared_only(float x);
