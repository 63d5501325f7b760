//! Class template argument deduction for the SYCL classes ([over.match.class.deduct]; the
//! deduction guides of SYCL 2020 4.7.2.1 and 4.7.6.9), and `decltype` of a local as a
//! template argument.

use super::check_types;

#[test]
fn a_buffer_from_a_pointer_takes_the_range_dimensions() {
    // `buffer(const T*, const range<D>&)` -> `buffer<T, D>`; `buffer(first, last)` ->
    // `buffer<value_type, 1>`; `buffer(Container&)` -> `buffer<Container::value_type, 1>`.
    // The range is written as a vexing parse (`sycl::range(n)` reads as a function type) or
    // as an expression. A bare count is no range: `buffer b(p, n)` deduces nothing (ill-formed).
    check_types(
        r#"
#include <sycl/sycl.hpp>
#include <vector>
using namespace sycl;
void k(double* dp, const float* cp, size_t n, size_t m, std::vector<double>& v) {
  sycl::buffer b(dp, sycl::range(n));
  b;
//^ sycl::buffer<double, 1>
  buffer b2(dp, range<2>(n, m));
  b2;
//^^ buffer<double, 2>
  buffer b3(cp, range(n, m));
  b3;
//^^ buffer<float, 2>
  auto b4 = sycl::buffer(dp, sycl::range(n));
  b4;
//^^ sycl::buffer<double, 1>
  buffer b5{v};
  b5;
//^^ buffer<double, 1>
  buffer b6(v.begin(), v.end());
  b6;
//^^ buffer<double, 1>
  sycl::buffer b7(dp, n);
  b7;
//^^ sycl::buffer
}
"#,
    );
}

#[test]
fn an_accessor_takes_the_deduced_buffer_element() {
    // `accessor(buffer<T, D>&, handler&[, tag])` -> `accessor<T, D>` (SYCL 2020 4.7.6.9).
    check_types(
        r#"
#include <sycl/sycl.hpp>
using namespace sycl;
void k(queue& q, double* dp, const float* cp, size_t n) {
  sycl::buffer b(dp, sycl::range(n));
  buffer b2(cp, range(n, n));
  q.submit([&](handler& h) {
    accessor a(b, h);
    a;
//  ^ accessor<double, 1>
    a[0];
//  ^^^^ double
    accessor a2(b2, h, read_only);
    a2;
//  ^^ accessor<float, 2>
  });
}
"#,
    );
}

#[test]
fn decltype_of_a_local_is_its_type_as_a_template_argument() {
    // [dcl.type.decltype]/1.3: `Kernel<decltype(acc), false>` is instantiated with the
    // accessor's type: its member `a` and what its `operator()` reads are typed from it.
    check_types(
        r#"
#include <sycl/sycl.hpp>
using namespace sycl;
template <class Acc, bool B> struct Kernel {
  Acc a;
  void operator()() const { a[0]; }
//                          ^^^^ ?; <accessor<double, 1>, 0> double; <accessor<float, 1>, 0> float
};
void k(handler& h, double* dp, float* fp, size_t n) {
  buffer b(dp, range(n));
  accessor acc(b, h);
  Kernel<decltype(acc), false> kd{acc};
  kd.a;
//^^^^ accessor<double, 1>
  kd();
  buffer bf(fp, range(n));
  accessor facc(bf, h);
  Kernel<decltype(facc), false> kf{facc};
  kf();
}
"#,
    );
}
