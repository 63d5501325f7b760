// Device code that libraries launch (issue 35): oneDPL algorithms with device and host policies,
// sycl::reduction's reducers, group algorithms and sub-group shuffles.
#include "sycl_mini.hpp"
struct Scale {
  void operator()(float &x) const { x = x * 0.5; } // expect-oracle: fp64
};
struct Gen1 {
  template <class T> void operator()(T &x) const { x = x + x; } // expect-oracle: none
};
void run(sycl::queue &q, size_t n, float *pf, double *pd, int *pi, long *pl) {
  std::vector<float> v(n);
  std::vector<double> d(n);
  sycl::buffer<double, 1> bd(pd, sycl::range<1>{n});
  auto pol = oneapi::dpl::execution::make_device_policy(q);
  std::for_each(pol, v.begin(), v.end(), [](float &x) { x = x * 0.1; }); // expect-oracle: fp64
  std::for_each(pol, v.begin(), v.end(), [](auto &x) { x = x + x; }); // expect-oracle: none
  oneapi::dpl::transform(oneapi::dpl::execution::dpcpp_default, pf, pf + n, pf, [](auto x) { return x * 2.0f; }); // expect-oracle: none
  std::sort(pol, d.begin(), d.end(), [](auto a, auto b) { return a < b; }); // expect-oracle: fp64
  dpl::sort(oneapi::dpl::execution::make_device_policy<class S1>(q), oneapi::dpl::begin(bd), oneapi::dpl::end(bd), [](auto a, auto b) { return a < b; }); // expect-oracle: fp64
  std::for_each(std::execution::par, v.begin(), v.end(), [](float &x) { x = x * 0.1; });
  std::for_each(oneapi::dpl::execution::par_unseq, d.begin(), d.end(), [](auto &x) { x = x * 0.1; });
  std::for_each(v.begin(), v.end(), [](float &x) { x = x * 0.1; });
  std::for_each_n(pol, oneapi::dpl::counting_iterator<long>(0), n, [=](auto i) { pf[i] = pf[i] * 0.1; }); // expect-oracle: fp64
  std::for_each_n(pol, oneapi::dpl::counting_iterator<int>(0), n, [=](auto i) { pf[i] = i + i; }); // expect-oracle: none
  std::for_each(pol, pf, pf + n, Scale{});
  std::for_each(pol, pi, pi + n, Gen1{});
  float s = std::transform_reduce(pol, pf, pf + n, 0.0f, [](float a, float b) { return a + b; }, // expect-oracle: none
                                  [](auto a) { return a * 2.0; }); // expect-oracle: fp64
  std::generate(pol, pi, pi + n, [=]() { return static_cast<int>(pf[0] * 0.5); }); // expect-oracle: fp64
  q.submit([&](sycl::handler &h) {
    h.parallel_for(sycl::range<1>{n}, sycl::reduction(bd, h, sycl::plus<double>()),
                   [=](sycl::id<1> i, auto &acc) { acc += pf[i]; }); // expect-oracle: fp64
  });
  q.parallel_for(sycl::range<1>{n}, sycl::reduction(pi, 0, sycl::plus<>()), [=](sycl::item<1> i, auto &acc) { acc.combine(pf[i] > 0); }); // expect-oracle: none
  q.parallel_for(sycl::range<1>{n}, sycl::reduction(pi, sycl::plus<>()), sycl::reduction(pl, sycl::maximum<long>()), [=](auto i, auto &a, auto &b) { a += 1; b.combine(pl[i]); }); // expect-oracle: none
  q.parallel_for(sycl::nd_range<1>{sycl::range<1>{n}, sycl::range<1>{64}}, [=](sycl::nd_item<1> it) { // expect-oracle: fp64
    pf[it.get_global_id(0)] = sycl::reduce_over_group(it.get_group(), pf[0], 0.0, sycl::plus<>());
  });
  q.parallel_for(sycl::nd_range<1>{sycl::range<1>{n}, sycl::range<1>{64}}, [=](sycl::nd_item<1> it) { // expect-oracle: none
    auto sg = it.get_sub_group();
    pf[it.get_global_id(0)] = sycl::reduce_over_group(it.get_group(), pf[0], sycl::plus<>()) + sycl::shift_group_left(sg, pf[1]) + sycl::joint_reduce(it.get_group(), pf, pf + 4, sycl::plus<>());
  });
  q.parallel_for(sycl::nd_range<1>{sycl::range<1>{n}, sycl::range<1>{64}}, [=](sycl::nd_item<1> it) { // expect-oracle: fp64
    pf[it.get_global_id(0)] = sycl::joint_reduce(it.get_group(), pd, pd + 4, sycl::plus<>());
  });
  // SYCL 2020's inclusive scan takes its init last: a double result
  q.parallel_for(sycl::nd_range<1>{sycl::range<1>{n}, sycl::range<1>{64}}, [=](sycl::nd_item<1> it) { // expect-oracle: fp64
    auto r = sycl::inclusive_scan_over_group(it.get_group(), pf[0], sycl::plus<>(), 0.5);
    pf[1] = r;
  });
}
