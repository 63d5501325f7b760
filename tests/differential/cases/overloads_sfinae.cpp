// Hand-checked oracle cases: variadic packs, overload sets, SFINAE, enable_if-guarded partial
// specialisations, default arguments, late members, macros and constants (gen.py's FORM_TEXT).
#include "sycl_mini.hpp"
#define EPT (8)
#define SQR(x) ((x) * (x))
constexpr double kScale = 0.25;
const float kG = 1.0 / 3.0;
constexpr int kN = 4;

template <class T> T vsum(T x) { return x; }
template <class T, class... R> T vsum(T x, R... r) { return x + vsum(r...); }
template <class... A> auto vprod(A... a) { return (a * ...); }
template <class... A> constexpr int tcount() { return static_cast<int>(sizeof...(A)); }
template <class R, class... A> R build(A... a) { return static_cast<R>((a + ... + 0)); }
template <class... P> void touch_all(size_t k, P *...ps) { ((ps[k] = ps[k] + ps[k]), ...); }
int pr(int x) { return x + 1; }
double pr(double x) { return x * 2.0; }
template <class T> T ntm(T x) { return x + x; }
float ntm(float x) { return static_cast<float>(x * 0.5); }
template <class T> std::enable_if_t<(sizeof(T) > 4), double> wide(T x) { return static_cast<double>(x); }
template <class T> std::enable_if_t<(sizeof(T) <= 4), float> wide(T x) { return static_cast<float>(x); }
template <class T, class = std::enable_if_t<std::is_integral<T>::value>> T halve(T x) { return x / 2; }
double halve(double x) { return x * 0.5; }
template <class T, class E = void> struct Op {
  static T apply(T x) { return x + x; }
};
template <class T> struct Op<T, std::enable_if_t<std::is_floating_point<T>::value>> {
  static T apply(T x) { return static_cast<T>(x * 0.5); }
};
template <class T, int N> T unroll(T x) {
  T s = x;
  for (int j = 1; j < N; ++j) {
    s += x;
  }
  return s;
}
float dhalf(float x, float t = 0.5) { return x * t; }
struct LateP {
  float get(int k) const { return dp[k] > 0 ? 1.0f : 0.0f; }
  double *dp;
};
struct KL {
  void operator()(sycl::id<1> i) const { p[i] = p[i] * 2.0f; } // expect-oracle: none
  float *p;
};
template <class B, class... A> void vlaunch(sycl::queue &q, size_t n, A... a) { q.parallel_for(sycl::range<1>{n}, B{a...}); }
struct KE {
  void operator()(sycl::id<1> i) const { double d = 1.5; (void)d; } // expect-oracle: fp64
};

void run(sycl::queue &q, size_t n) {
  float *pf = sycl::malloc_device<float>(n, q);
  double *pd = sycl::malloc_device<double>(n, q);
  int *pi = sycl::malloc_device<int>(n, q);
  sycl::half *ph = sycl::malloc_device<sycl::half>(n, q);
  q.single_task([=]() { pf[0] = vsum(pf[0], pf[1], pf[2], pf[3], pf[4]); }); // expect-oracle: none
  q.single_task([=]() { pf[0] = vsum(pf[0], pf[1], pf[2], pf[3], static_cast<float>(pd[0])); }); // expect-oracle: fp64
  q.single_task([=]() { pi[0] = vprod(pi[1], pi[2]) + tcount<double, sycl::half>(); }); // expect-oracle: none
  q.single_task([=]() { pf[0] = build<float>() + build<float>(pi[0], 2); }); // expect-oracle: none
  q.single_task([=]() { pf[0] = static_cast<float>(build<double>()); }); // expect-oracle: fp64
  q.single_task([=]() { touch_all(0, pf, pi); }); // expect-oracle: none
  q.single_task([=]() { touch_all(0, pf, pi, ph); }); // expect-oracle: fp16
  q.single_task([=]() { pi[0] = pr('c') + pr(static_cast<short>(pi[1])); }); // expect-oracle: none
  q.single_task([=]() { pf[0] = static_cast<float>(pr(pf[1])); }); // expect-oracle: fp64
  q.single_task([=]() { pf[0] = ntm(pf[1]); }); // expect-oracle: fp64
  q.single_task([=]() { pf[0] = ntm<float>(pf[1]); }); // expect-oracle: none
  q.single_task([=]() { pf[0] = wide(pf[1]) + wide(pi[1]); }); // expect-oracle: none
  q.single_task([=]() { pf[0] = static_cast<float>(wide(pd[1])); }); // expect-oracle: fp64
  q.single_task([=]() { pi[0] = halve(pi[1]); }); // expect-oracle: none
  q.single_task([=]() { pf[0] = static_cast<float>(halve(pf[1])); }); // expect-oracle: fp64
  q.single_task([=]() { ph[0] = Op<sycl::half>::apply(ph[1]); }); // expect-oracle: fp16
  q.single_task([=]() { pi[0] = static_cast<int>(Op<short>::apply(static_cast<short>(pi[1]))); }); // expect-oracle: none
  q.single_task([=]() { pf[0] = Op<float>::apply(pf[1]); }); // expect-oracle: fp64
  q.single_task([=]() { pf[0] = unroll<float, EPT>(pf[1]) + unroll<float, 1 << 3>(pf[1]) + SQR((pf[2])); }); // expect-oracle: none
  q.single_task([=]() { pf[0] = pf[1] * kG + dhalf(pf[2]); }); // expect-oracle: none
  q.single_task([=]() { pf[0] = pf[1] * kScale; }); // expect-oracle: fp64
  q.single_task([=]() { pf[0] = static_cast<float>(kScale) + pf[1]; }); // expect-oracle: fp64 // expect-oracle-fold: none
  q.single_task([=]() { pf[0] = LateP{pd}.get(pi[0]); }); // expect-oracle: fp64
  vlaunch<KL>(q, n, pf);
  vlaunch<KE>(q, n);
}
