// Hand-checked oracle cases (issue 41): user-defined operators and conversion functions, T (&)[N]
// deduction, an atomic_ref that only stores a constant. gen.py's EXTRA_FORMS write these.
#include "sycl_mini.hpp"

using i32 = int;
template <class T>
using aref = sycl::atomic_ref<T, sycl::memory_order::relaxed, sycl::memory_scope::device>;

// Operators: on a class holding a double, on a class of floats (+ in float, - in double,
// * returning the double class), a member operator computing in double.
struct Dv {
  double v;
  Dv operator+(const Dv &o) const { return Dv{v + o.v}; }
  float f() const { return static_cast<float>(v); }
};
struct Fv {
  float v;
  float get() const { return v; }
};
Fv operator+(Fv a, Fv b) { return Fv{a.v + b.v}; }
Fv operator-(Fv a, Fv b) { return Fv{static_cast<float>(a.v - b.v * 0.5)}; }
Dv operator*(Fv a, Fv b) { return Dv{static_cast<double>(a.v) * b.v}; }
struct M {
  float v;
  float operator+(float o) const { return static_cast<float>(v + o * 0.5); }
};
// Conversion functions: to float in float, to double, to float computing in double.
struct CvF {
  float v;
  operator float() const { return v * 2.0f; }
};
struct CvD {
  float v;
  operator double() const { return v; }
};
struct CvW {
  float v;
  operator float() const { return static_cast<float>(v * 0.5); }
};
// T (&)[N]: apick's double branch when N == 4.
template <class T, std::size_t N> float apick(const T (&a)[N]) {
  if constexpr (N == 4) {
    return static_cast<float>(static_cast<float>(a[0]) * 0.5);
  } else {
    return static_cast<float>(a[N - 1]) * 0.5f;
  }
}
template <class T, std::size_t N> constexpr int alen(const T (&)[N]) { return static_cast<int>(N); }
struct AF4 {
  float v[4];
};
template <class T, int N> struct Ring {
  T buf[N];
  float top() const { return apick(buf); }
};

void run(sycl::queue &q, size_t n) {
  float *pf = sycl::malloc_device<float>(n, q);
  double *pd = sycl::malloc_device<double>(n, q);
  int *pi = sycl::malloc_device<int>(n, q);
  sycl::half *ph = sycl::malloc_device<sycl::half>(n, q);
  // operators
  q.single_task([=]() { pf[0] = (Fv{pf[0]} + Fv{2.0f}).get(); }); // expect-oracle: none
  q.single_task([=]() { pf[0] = (Fv{pf[0]} - Fv{2.0f}).get(); }); // expect-oracle: fp64
  q.single_task([=]() { pf[0] = static_cast<float>((Fv{pf[0]} * Fv{2.0f}).v); }); // expect-oracle: fp64
  q.single_task([=]() { auto p = Fv{pf[0]} * Fv{2.0f}; (void)p; }); // expect-oracle: fp64
  q.single_task([=]() { pf[0] = (Dv{pf[0]} + Dv{1.0f}).f(); }); // expect-oracle: fp64
  q.single_task([=]() { pf[0] = M{pf[0]} + 2.0f; }); // expect-oracle: fp64
  // conversion functions, implicit and explicit
  q.single_task([=]() { pf[0] = pf[0] * CvF{pf[1]}; }); // expect-oracle: none
  q.single_task([=]() { float z = CvF{pf[1]}; pf[0] = z; }); // expect-oracle: none
  q.single_task([=]() { pf[0] = pf[0] * CvD{pf[1]}; }); // expect-oracle: fp64
  q.single_task([=]() { float z = CvD{pf[1]}; pf[0] = z; }); // expect-oracle: fp64
  q.single_task([=]() { pf[0] = pf[0] + CvW{pf[1]}; }); // expect-oracle: fp64
  q.single_task([=]() { pf[0] = static_cast<float>(CvW{pf[1]}); }); // expect-oracle: fp64
  // T (&)[N] deduction
  q.single_task([=]() { float a[4] = {pf[0], 1.0f, 2.0f, 3.0f}; pf[0] = apick(a); }); // expect-oracle: fp64
  q.single_task([=]() { float a[3] = {pf[0], 1.0f, 2.0f}; pf[0] = apick(a) + static_cast<float>(alen(a)); }); // expect-oracle: none
  q.single_task([=]() { std::int32_t a[2] = {pi[0], 0}; pf[0] = apick(a); }); // expect-oracle: none
  q.single_task([=]() { i32 a[4] = {pi[0], 0, 1, 2}; pf[0] = apick(a); }); // expect-oracle: fp64
  q.single_task([=]() { sycl::half a[2] = {ph[0], ph[1]}; pf[0] = apick(a); }); // expect-oracle: fp16
  q.single_task([=]() { AF4 s{{pf[0], 1.0f, 2.0f, 3.0f}}; pf[0] = apick(s.v); }); // expect-oracle: fp64
  q.single_task([=]() { Ring<int, 2> r{{pi[0], 1}}; pf[0] = apick(r.buf) + r.top(); }); // expect-oracle: none
  q.single_task([=]() { Ring<int, 4> r{{pi[0], 1, 2, 3}}; pf[0] = r.top(); }); // expect-oracle: fp64
  q.single_task([=]() { float m[2][3] = {}; pf[0] = apick(m[1]); }); // expect-oracle: none
  q.single_task([=]() { float a[4] = {pf[0], 1.0f, 2.0f, 3.0f}; auto &w = a; pf[0] = apick(w); }); // expect-oracle: fp64
  // an atomic_ref whose only operation stores or adds a constant: the referenced element is the use
  q.single_task([=]() { aref<double> a(pd[0]); a.store(1.0); }); // expect-oracle: fp64, atomic64
  q.single_task([=]() { aref<sycl::half> a(ph[0]); a += sycl::half{2.0f}; }); // expect-oracle: fp16, ext_oneapi_atomic16
}
