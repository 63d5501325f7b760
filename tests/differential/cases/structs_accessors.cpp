// Hand-checked oracle cases: structs by value, this, buffers and accessors.
#include "sycl_mini.hpp"

struct P2 { double x; float y; };
struct F2 { float a; int b; };
struct Base { double d; };
struct Derived : Base { int i; };

class Runner {
  double scale_;
  float *data_;

public:
  void go(sycl::queue &q, size_t n) {
    // `this` is a pointer: the unused double member is no use.
    q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { data_[i] = data_[i] * 2.0f; }); // expect-oracle: none
    q.parallel_for(sycl::range<1>{n}, [this](sycl::id<1> i) { data_[i] = static_cast<float>(scale_); }); // expect-oracle: fp64
  }
};

void run(sycl::queue &q, size_t n, P2 p, F2 f, Derived dv) {
  float *fp = sycl::malloc_device<float>(n, q);
  double *dp = sycl::malloc_device<double>(n, q);
  // A struct with a double field captured by value and used, even through its float field.
  q.single_task([=]() { fp[0] = p.y; }); // expect-oracle: fp64
  q.single_task([=]() { fp[0] = f.a + f.b; }); // expect-oracle: none
  q.single_task([=]() { fp[0] = dv.i; }); // expect-oracle: fp64
  q.single_task([=]() { auto [a, b] = f; fp[0] = a + b; }); // expect-oracle: none
  q.single_task([=]() { auto [x, y] = p; fp[0] = y; }); // expect-oracle: fp64
  q.single_task([=]() { float arr[3] = {1.0f, 2.0f, 3.0f}; for (float v : arr) fp[0] += v; }); // expect-oracle: none
  q.single_task([=]() { std::array<double, 2> arr{}; for (const auto &v : arr) fp[0] += static_cast<float>(v); }); // expect-oracle: fp64
  q.single_task([=]() { std::array<float, 2> arr{1.0f, 2.0f}; for (auto v : arr) fp[0] += v; }); // expect-oracle: none
  q.single_task([=]() { const auto &r = dp[0]; fp[0] = r > 0; }); // expect-oracle: fp64
  q.single_task([=]() { decltype(fp[0] * 2.0f) z = 1.0f; fp[0] = z; }); // expect-oracle: none
  q.single_task([=]() { decltype(fp[0] * 2.0) z = 1.0f; fp[0] = z; }); // expect-oracle: fp64
  q.submit([&](sycl::handler &h) {
    sycl::buffer buf{dp, sycl::range<1>{n}};
    sycl::buffer<float, 1> fbuf(fp, sycl::range<1>{n});
    sycl::accessor acc{buf, h, sycl::read_only};
    sycl::accessor<float, 1, sycl::access::mode::write> out(fbuf, h);
    auto fa = fbuf.get_access<sycl::access::mode::read_write>(h);
    sycl::local_accessor<double, 1> tile(sycl::range<1>{64}, h);
    // Accessors hold pointers: an accessor of double that is only asked its size is no use.
    h.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { out[i] = acc.size(); (void)tile; }); // expect-oracle: none
    h.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { out[i] = acc[i]; }); // expect-oracle: fp64
    h.parallel_for(sycl::nd_range<1>{sycl::range<1>{n}, sycl::range<1>{64}}, [=](sycl::nd_item<1> it) { tile[it.get_local_id(0)] = 0; fa[it.get_global_id()] = 1.0f; }); // expect-oracle: fp64
    h.parallel_for(sycl::nd_range<1>{sycl::range<1>{n}, sycl::range<1>{64}}, [=](sycl::nd_item<1> it) { fa[it.get_global_id(0)] += out[it.get_global_id()]; }); // expect-oracle: none
  });
  sycl::ext::oneapi::experimental::properties props{sycl::ext::oneapi::experimental::device_has<sycl::aspect::fp64>};
  q.parallel_for(sycl::range<1>{n}, props, [=](sycl::id<1> i) { fp[i] = 0; }); // expect-oracle: none
  q.submit([&](sycl::handler &h) {
    h.parallel_for_work_group(sycl::range<1>{n}, [=](sycl::group<1> g) { dp[g.get_group_id(0)] = 0; }); // expect-oracle: fp64
  });
}
