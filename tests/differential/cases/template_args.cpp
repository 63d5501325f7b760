// Hand-checked oracle cases: constant expressions in template arguments and array bounds are not
// evaluated; initializers are.
#include "sycl_mini.hpp"
template <int N> struct Tag { int v[N]; };
void run(sycl::queue &q, float *fp, int *ip) {
  q.single_task([=]() { std::array<float, (int)2.0> a{1.0f, 2.0f}; fp[0] = a[0]; }); // expect-oracle: none
  q.single_task([=]() { float b[(int)3.0] = {}; fp[0] = b[1]; }); // expect-oracle: none
  q.single_task([=]() { auto t = Tag<(int)2.0>{}; ip[0] = t.v[0]; }); // expect-oracle: none
  q.single_task([=]() { ip[0] = static_cast<std::array<int, (int)1.0>>(std::array<int, 1>{3})[0]; }); // expect-oracle: none
  q.single_task([=]() { float b[2] = {(float)2.0, 1.0f}; fp[0] = b[1]; }); // expect-oracle: fp64 // expect-oracle-fold: none
}
