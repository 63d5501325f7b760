// Hand-checked oracle cases, issue 50 forms 4, 8 and 10 (what sycl-analyzer's fixtures
// tag_dispatch_by_base_class.cpp, equal_width_types_are_distinct.cpp and
// array_bounds_named_constants.cpp hold it to): tag dispatch by the derived-to-base conversion
// of a trait or a user tag ([over.ics.rank]/4.4.4), `long` and `long long` told apart by overload
// resolution ([basic.fundamental]/2), and `T (&)[N]` deduced from bounds that name constants
// ([temp.deduct.type]/8). Each kernel's aspects are the union over dispatch's instances (int,
// long, float).
#include "sycl_mini.hpp"
template <class T> T refine(T x, std::true_type) { double d = x; return d * 0.5; }
template <class T> T refine(T x, std::false_type) { return x / 2; }
struct fast_tag {};
struct exact_tag : fast_tag {};
struct precise_tag : exact_tag {};
template <class T> T go(T x, fast_tag) { return x / 2; }
template <class T> T go(T x, exact_tag) { double d = x; return d * 0.5; }
template <class T> struct is_f : std::false_type {};
template <> struct is_f<float> : std::true_type {};
template <class T, bool B> T pick(T x, std::integral_constant<bool, B>) { if constexpr (B) { double d = x; return d; } else { return x; } }
template <class T> void dispatch(sycl::queue &q, T *p) {
  q.single_task([=]() { p[0] = refine(p[0], std::is_floating_point<T>{}); }); // expect-oracle: fp64
  q.single_task([=]() { p[0] = refine(p[0], std::integral_constant<bool, sizeof(T) == 8>{}); }); // expect-oracle: fp64
  q.single_task([=]() { p[0] = refine(p[0], std::is_same<T, double>{}); }); // expect-oracle: none
  q.single_task([=]() { p[0] = refine(p[0], std::is_same<T, long>{}); }); // expect-oracle: fp64
  q.single_task([=]() { p[0] = refine(p[0], is_f<T>{}); }); // expect-oracle: fp64
  q.single_task([=]() { p[0] = pick(p[0], std::is_floating_point<T>{}); }); // expect-oracle: fp64
  q.single_task([=]() { p[0] = go(p[0], fast_tag{}); }); // expect-oracle: none
  q.single_task([=]() { p[0] = go(p[0], precise_tag{}); }); // expect-oracle: fp64
}
float widen(long long x) { return static_cast<float>(x * 0.5); }
float widen(long x) { return static_cast<float>(x) * 0.5f; }
double scale(double x, int n) { return x / n; }
int scale(int x, int n) { return x / n; }
template <class T, int N> T total(T (&a)[N]) { T s = 0; for (int i = 0; i < N; ++i) s += a[i]; return scale(s, N); }
template <class T, int N> float wide(T (&a)[N]) { if constexpr (N == 4) { return static_cast<float>(a[0] * 0.5); } else { return static_cast<float>(a[0]) * 0.5f; } }
void run(sycl::queue &q, int *i, long *l, float *f, long long *ll, std::int64_t *i64) {
  dispatch(q, i); dispatch(q, l); dispatch(q, f);
  q.single_task([=]() { f[0] = widen(i64[0]) + widen(l[0]); }); // expect-oracle: none
  q.single_task([=]() { f[0] = widen(ll[0]); }); // expect-oracle: fp64
  q.single_task([=]() { constexpr int n = 2; int a[n] = {i[0], i[1]}; i[0] = total(a); }); // expect-oracle: none
  q.single_task([=]() { constexpr int n = 2; int a[n * 2] = {i[0], i[1]}; f[0] = wide(a); }); // expect-oracle: fp64
  q.single_task([=]() { int a[] = {i[0], i[1], i[2], i[3]}; f[0] = wide(a); }); // expect-oracle: fp64
  q.single_task([=]() { int b[4] = {}; constexpr int n = sizeof(b) / sizeof(b[0]) / 2; int a[n] = {i[0], i[1]}; i[0] = total(a); }); // expect-oracle: none
}
