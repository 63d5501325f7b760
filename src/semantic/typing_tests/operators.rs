//! Operators on workspace classes ([over.match.oper]), the library's type transformations
//! ([meta.trans]), subscripts of SYCL's index classes, `atomic_ref` compound assignments.

use super::check_types;

#[test]
fn user_operators_give_their_return_type() {
    check_types(
        r#"
struct Fv { float v; float get() const { return v; } };
struct Dv { double v; };
Dv operator*(Fv a, Fv b) { return Dv{a.v * 1.0}; }
Fv operator+(Fv a, Fv b) { return Fv{a.v + b.v}; }
struct M { float v; double operator+(float o) const { return v + o; } float operator[](int i) const { return v; } };
void k(Fv a, Fv b, M m) {
  auto r1 = a * b;
//          ^^^^^ Dv
  auto r2 = a + b;
//          ^^^^^ Fv
  auto r3 = m + 2.0f;
//          ^^^^^^^^ double
  auto r4 = m[0];
//          ^^^^ float
}
"#,
    );
}

#[test]
fn std_type_transformations() {
    check_types(
        r#"
#include <type_traits>
void k(float y) {
  std::decay_t<double> a = 2.0;
  a;
//^ double
  std::remove_cv_t<const double> b = 2.0;
  b;
//^ double
  std::remove_reference_t<float &> c = y;
  c;
//^ float
  typename std::remove_cvref<const double &>::type d = 2.0;
  d;
//^ double
  std::decay_t<decltype(static_cast<double>(y))> e = y;
  e;
//^ double
}
"#,
    );
}

#[test]
fn sycl_index_subscripts_and_atomic_compound_assignment() {
    check_types(
        r#"
#include <sycl/sycl.hpp>
void k(sycl::id<1> idx, sycl::item<2> it, sycl::atomic_ref<sycl::half, sycl::memory_order::relaxed, sycl::memory_scope::device> a) {
  idx[0];
//^^^^^^ unsigned long
  it[1] * 0.5;
//^^^^^^^^^^^ double
  a += sycl::half{2.0f};
//^^^^^^^^^^^^^^^^^^^^^ sycl::half
}
"#,
    );
}
