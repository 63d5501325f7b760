//! Names of class template specialisations reached through aliases: typedefs of a
//! specialisation, member aliases of a class template, block-scoped aliases; and deduction
//! through a reference to an array.

use super::check_types;

#[test]
fn typedef_of_a_class_template_specialisation_binds_its_arguments() {
    // [dcl.typedef]/2: a typedef-name is a synonym for the type it names; `SD()` constructs an
    // `S<double>` and `SD::make` names the static member of `S<double>` ([class.static]/1).
    check_types(
        r#"
template <class T> struct S {
  using value_type = T;
  T run(T x) { return x * 2; }
//                    ^^^^^ ?; <double> double; <float> float
  static T make() { return T(); }
};
typedef S<double> SD;
using SF = S<float>;
void k(double x, float y) {
  SD().run(x);
//^^^^^^^^^^^ double
  SF s;
  s.run(y);
//^^^^^^^^ float
  SD::make();
//^^^^^^^^^^ double
  SF::make();
//^^^^^^^^^^ float
  SD::value_type v = 0;
  v;
//^ double
}
"#,
    );
}

#[test]
fn member_alias_of_a_class_template_binds_the_class_arguments() {
    // [temp.inst]/1, [temp.res]/6: `Tr<sycl::half>::input_t` names the member alias of the
    // specialisation, its `T` being the class's argument; `typename Tr<T>::input_t` in a
    // template names it once `T` is substituted.
    check_types(
        r#"
template <class T> struct Tr { using input_t = T; };
template <class T> void g(T *p) {
  typename Tr<T>::input_t v = p[0];
  v;
//^ T; <sycl::half> sycl::half
}
void k(sycl::half *h) {
  Tr<sycl::half>::input_t v;
  v;
//^ sycl::half
  Tr<double>::input_t d;
  d;
//^ double
  g(h);
}
"#,
    );
}

#[test]
fn block_scoped_aliases_of_one_name_in_sibling_blocks_are_distinct() {
    // [basic.scope.block]: a name declared in a block is local to it; a sibling block's
    // declaration of the same name is another entity.
    check_types(
        r#"
template <class F> F make() { return F(); }
void k() {
  {
    using T = double;
    T a = 1;
    a;
//  ^ double
    make<T>();
//  ^^^^^^^^^ double
    auto l = [] { T z = 0; return z; };
    l();
//  ^^^ double
  }
  {
    using T = float;
    T b = 1;
    b;
//  ^ float
    make<T>();
//  ^^^^^^^^^ float
  }
  {
    typedef short T;
    T c = 1;
    c;
//  ^ short
  }
}
"#,
    );
}

#[test]
fn deduction_through_a_reference_to_an_array() {
    // [temp.deduct.call]/1, [temp.deduct.type]/8: `T (&)[N]` deduces `T` from the element
    // type and `N` from the bound of an array argument.
    check_types(
        r#"
template <class T, int N> T first(T (&a)[N]) { return a[N - 1]; }
//                                                    ^^^^^^^^ T; <double, 4> double
void k() {
  double arr[4];
  first(arr);
//^^^^^^^^^^ double
}
"#,
    );
}

#[test]
fn template_template_parameters_name_the_class_template_bound() {
    // [temp.arg.template]: `Action<double>` with `Action` bound to `run_test` is
    // `run_test<double>` (SYCL-CTS's `for_all_types<action>(...)`).
    check_types(
        r#"
template <template <typename> class Action> void run_one(int q) { Action<double>{}(q); }
template <typename T> struct run_test {
  void operator()(int q) { T(1); }
//                         ^^^^ ?; <double> double
};
void k() { run_one<run_test>(0); }
"#,
    );
}

#[test]
fn a_pack_deduced_from_a_class_pattern_expands() {
    // [temp.deduct.type]/9, [temp.variadic]/5: `const type_pack<Ts...> &` deduces `Ts` from a
    // `type_pack<float, double>` argument; `(run<Ts>(), ...)` instantiates `run` per element.
    check_types(
        r#"
template <typename... Ts> struct type_pack {};
template <typename T> void run() { T x{}; x; }
//                                        ^ T; <double> double; <float> float
template <typename... Ts> void run_all(const type_pack<Ts...> &) { (run<Ts>(), ...); }
void k() { run_all(type_pack<float, double>{}); }
"#,
    );
}

#[test]
fn member_alias_used_inside_its_class_template() {
    check_types(
        r#"
template <class T> struct Box {
  using value_type = T;
  value_type v;
  value_type get() { value_type w = v; return w; }
//                                            ^ T; <double> double
};
void k(Box<double> b) {
  b.v;
//^^^ double
  b.get();
//^^^^^^^ double
}
"#,
    );
}

#[test]
fn deduction_through_a_reference_to_any_array_lvalue() {
    // [temp.deduct.type]/8: `N` is the bound of the array the argument is, however it is
    // named: a member from outside or of `this`, a row of a 2-D array (its inner bound), the
    // whole 2-D array (its outer bound, `T` an array), a reference bound to an array, a
    // capture, an array whose element type is an alias and that is initialised.
    check_types(
        r#"
template <class T, int N> T first(const T (&a)[N]) { return a[N - 1]; }
//                                                          ^^^^^^^^ T; <H, 8> H; <double, 12> double; <float, 10> float; <float, 3> float; <float, 6> float; <float[], 3> float[]; <int, 9> int; <long, 2> long; <unsigned int, 11> unsigned int
struct AF3 { float v[3]; };
template <class T, int N> struct Ring { T buf[N]; };
using i32 = int;
struct H { short x; };
void k() {
  AF3 s; first(s.v);
  Ring<long, 2> r; first(r.buf);
  float m[2][6]; first(m[1]);
  H h[8]; first(h);
  i32 c[9] = {1, 2}; first(c);
  float m2[3][10]; auto &row = m2[0]; first(row);
  first(m2);
}
template <class T, int N> struct Box { T v[N]; int get() { return first(v); } };
void k2() { Box<unsigned, 11> b; b.get(); [=]() { double a[12] = {}; [=]() { first(a); }(); }(); }
"#,
    );
}

#[test]
fn array_bounds_named_by_constants() {
    // [temp.deduct.type]/8, [expr.const]/4: a bound naming a constant deduces `N` all the same:
    // a local `constexpr` / `const int` (here or in the function enclosing a lambda), an
    // expression over one (`/` and `%` of `sizeof`s included, [expr.sizeof]/2), a static data
    // member named in a member function, an initializer's length ([dcl.init.aggr]).
    check_types(
        r#"
template <class T, int N> T first(T (&a)[N]) { return a[N - 1]; }
//                                                    ^^^^^^^^ T; <bool, 3> bool; <char, 2> char; <double, 4> double; <float, 5> float; <int, 4> int; <long, 3> long; <short, 6> short; <unsigned int, 7> unsigned int
template <class T> struct Box {
  static constexpr int m = 7;
  T get() { T v[m] = {}; return first(v); }
};
void k(int x) {
  constexpr int n = 2;
  const int c = 3;
  char a[n] = {}; first(a);
  long b[c] = {}; first(b);
  int d[n * 2] = {}; first(d);
  float e[] = {1, 2, 3, 4, 5}; first(e);
  [=]() { short s[n * 3] = {}; first(s); }();
  Box<unsigned> bx; bx.get();
  double w[8] = {};
  constexpr int h = sizeof(w) / sizeof(w[0]) / 2;
  double v[h] = {}; first(v);
  constexpr int r = sizeof(double) % 5;
  bool z[r] = {}; first(z);
}
"#,
    );
}
