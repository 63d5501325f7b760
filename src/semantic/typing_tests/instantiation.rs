//! C++ as the compiler instantiates it (issue 34): explicit instantiations, packs, overload
//! sets of templates, SFINAE, constant template arguments, the complete-class context.

use super::check_types;

#[test]
fn constant_expressions_as_template_arguments() {
    // [temp.arg.nontype]: a converted constant expression; clang folds macros, parentheses,
    // operators and constexpr variables before it instantiates.
    check_types(
        r#"
constexpr int M = 4;
template <class T, int N> T first(T *p) { return p[N - 1]; }
//                                               ^^^^^^^^ T; <double, 5> double; <double, 8> double; <float, 8> float; <int, 2> int
void run(double *d, float *f, int *i) {
  first<double, (8)>(d);
  first<float, 1 << 3>(f);
  first<double, M + 1>(d);
  first<int, (1 + 2 * 3) / 3>(i);
}
"#,
    );
}

#[test]
fn explicit_value_argument_with_a_class_parameter() {
    check_types(
        r#"
namespace sycl { class queue; }
template <class T, int N> struct bf { T *p; void operator()() const { p[0]; } };
template <class T, int N> void launch(sycl::queue &q, T *p) { p[N]; }
//                                                            ^^^^ T; <double, 8> double
void run(sycl::queue &q, double *p) {
  launch<double, 8>(q, p);
}
"#,
    );
}

#[test]
fn variadic_packs_recurse_expand_and_fold() {
    // [temp.variadic]: a pack binds any number of arguments, expansions spread them, and
    // overload resolution prefers the non-variadic base case ([temp.func.order]).
    check_types(
        r#"
template <class T> T one(T *p) { return p[0]; }
//                                      ^^^^ T; <double> double; <float> float; <int> int; <long> long; <short> short
template <class Q> void each(Q &q) {}
template <class Q, class T, class... R> void each(Q &q, T *p, R... rest) {
  one(p);
  each(q, rest...);
}
template <class... A> int count(A... a) { return sizeof...(A) + sizeof...(a); }
template <class... A> auto sum(A... a) { return (a + ...); }
template <class... A> void twice(A... a) { (one(&a), ...); }
struct Q {};
void run(Q &q, int *a, short *b, long *c, double *d) {
  each(q, a, b, c, d);
  count(1, 2.0, 'c');
//^^^^^^^^^^^^^^^^^^ int
  twice(1.5f, 2.5);
}
"#,
    );
}

#[test]
fn explicit_argument_then_an_empty_pack() {
    check_types(
        r#"
template <class B> struct K { B *p; void operator()() const { p[0]; } };
//                                                            ^^^^ B; <double> double
template <class B, class... A> void go(A &&...a) { B k; k(); }
void start() { go<K<double>>(); }
"#,
    );
}

#[test]
fn sfinae_chooses_overloads_and_partial_specialisations() {
    // [temp.deduct]/8 and [temp.class.spec.match]: a candidate or specialisation whose
    // substituted `enable_if_t` names no type is not viable; the primary template is chosen
    // when no specialisation matches.
    check_types(
        r#"
namespace std {
template <bool B, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { using type = T; };
template <bool B, class T = void> using enable_if_t = typename enable_if<B, T>::type;
}
template <class T, class E = void> struct Op { static T apply(T a) { return a; } };
template <class T> struct Op<T, std::enable_if_t<std::is_floating_point<T>::value>> {
  static double apply(T a) { return a * 0.5; }
};
template <class T, std::enable_if_t<std::is_integral<T>::value, int> = 0> T pick(T x) { return x; }
template <class T, std::enable_if_t<std::is_floating_point<T>::value, int> = 0> double pick(T x) { return x; }
template <class T> typename std::enable_if<std::is_integral<T>::value, T>::type ret(T x) { return x; }
template <class T> typename std::enable_if<!std::is_integral<T>::value, double>::type ret(T x) { return x; }
void k(short s, float f) {
  Op<short>::apply(s);
//^^^^^^^^^^^^^^^^^^^ short
  Op<float>::apply(f);
//^^^^^^^^^^^^^^^^^^^ double
  pick(s);
//^^^^^^^ short
  pick(f);
//^^^^^^^ double
  ret(s);
//^^^^^^ short
  ret(f);
//^^^^^^ double
}
"#,
    );
}

#[test]
fn promotion_beats_conversion_and_unknown_arguments_bind_nothing() {
    // [over.ics.rank]: char → int is a promotion, char → float or double a conversion; an
    // argument whose type is unknown picks no overload rather than all of them.
    check_types(
        r#"
float f(float);
double f(double);
int f(int);
void k(float x) {
  f('c');
//^^^^^^ int
  f(true);
//^^^^^^^ int
  f(x);
//^^^^ float
  f(unknown_library_call());
//^^^^^^^^^^^^^^^^^^^^^^^^^ ?
}
"#,
    );
}

#[test]
fn class_template_argument_deduction_and_zero_dimensional_accessors() {
    check_types(
        r#"
void k(sycl::handler &h) {
  std::vector<double> v(8);
  sycl::buffer bv(v);
  sycl::accessor a(bv, h, sycl::write_only);
  a[0];
//^^^^ double
  bv;
//^^ sycl::buffer<double, 1>
  sycl::local_accessor<float, 0> l(h);
  l * 2.0f;
//^^^^^^^^ float
}
"#,
    );
}

#[test]
fn generic_lambdas_get_one_instance_per_argument_types() {
    // [expr.prim.lambda.closure]/3: a generic lambda's call operator is a template over its
    // `auto` parameters.
    check_types(
        r#"
void k(float a, float b) {
  auto mix = [](auto x, auto y, auto t) { return x + (y - x) * t; };
//                                               ^^^^^^^^^^^^^^^ ?; <float, float, double> double; <float, float, float> float
  mix(a, b, 0.25f);
//^^^^^^^^^^^^^^^^ float
  mix(a, b, 0.25);
//^^^^^^^^^^^^^^^ double
}
"#,
    );
}

#[test]
fn a_fold_over_arithmetic_elements_has_their_common_type() {
    // [expr.prim.fold]/3: `(... + a)` is `a1 + ... + an`; an `auto` function returning it
    // returns that type, and SFINAE then picks `mag`'s floating-point overload for a float.
    check_types(
        r#"
namespace std {
template <bool B, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { using type = T; };
template <bool B, class T = void> using enable_if_t = typename enable_if<B, T>::type;
}
template <class T, std::enable_if_t<std::is_floating_point<T>::value, int> = 0> T mag(T x) { return x; }
template <class T, std::enable_if_t<std::is_integral<T>::value, int> = 0> double mag(T x) { return x * 0.5; }
template <class... A> auto vadd(A... a) { return (... + a); }
void k(float x, double d, short s) {
  vadd(x);
//^^^^^^^ float
  vadd(x, d);
//^^^^^^^^^^ double
  vadd(s, s);
//^^^^^^^^^^ int
  mag(vadd(x));
//^^^^^^^^^^^^ float
}
"#,
    );
}

#[test]
fn two_packs_one_from_a_class_pattern_one_from_the_arguments() {
    // [temp.deduct.type]/9: `type_pack<Ts...>` deduces `Ts`; [temp.arg.explicit]/4: a trailing
    // pack not otherwise deduced is deduced from the function arguments (`ArgsT... args`).
    check_types(
        r#"
template <typename... Ts> struct type_pack {};
template <typename T> struct run_test {
  void operator()(int) { T *p = nullptr; p[0]; }
//                                       ^^^^ T; <double> double; <float> float
};
template <template <typename> class Action, typename... Ts, typename... ArgsT>
void for_all_types(const type_pack<Ts...> &, ArgsT... args) {
  (Action<Ts>{}(args...), ...);
}
void go() { for_all_types<run_test>(type_pack<double, float>{}, 0); }
"#,
    );
    // Three packs, the first explicit and empty, expanded inside the per-element pattern
    // (`Action<Ts, ActionArgsT...>`: it stays whole while `Ts` is taken element by element).
    check_types(
        r#"
template <typename... Ts> struct type_pack {};
template <typename T, typename... U> struct run_test {
  void operator()(int) { T *p = nullptr; p[0]; }
//                                       ^^^^ T; <double, > double; <float, > float
};
template <template <typename, typename...> class Action, typename... ActionArgsT,
          typename... Ts, typename... ArgsT>
void for_all_types(const type_pack<Ts...> &, ArgsT &&...args) {
  int i = 0;
  ((Action<Ts, ActionArgsT...>{}(args...), ++i), ...);
}
void go() { for_all_types<run_test>(type_pack<double, float>{}, 0); }
"#,
    );
}

/// [temp.arg.explicit]/4 with a pack before a deduced parameter: the explicit arguments all go
/// into the pack, `HeadT` is deduced from a standard class built in the call (SYCL-CTS
/// `for_all_combinations`: `run<double, M>(std::string("x"))`).
#[test]
fn explicit_arguments_fill_a_pack_before_a_parameter_deduced_from_a_std_class() {
    check_types(
        r#"
#include <string>
template <typename T, typename M> struct F {
  void go(const std::string &) { T t{}; t; }
//                                      ^ T; <double, int> double
};
template <typename... ActionArgsT, typename HeadT>
void run(HeadT &&head) { F<ActionArgsT...>{}.go(head); }
void f() {
  std::string("x");
//^^^^^^^^^^^^^^^^ std::string
  run<double, int>(std::string("x"));
}
"#,
    );
}

#[test]
fn a_class_template_pack_binds_every_argument_in_its_members() {
    // [temp.variadic]/1: `template <class... Ts> struct reg` over `float, double` binds `Ts`
    // to both, so its constructor's `(run<Ts>(), ...)` instantiates `run` for each.
    check_types(
        r#"
template <class T> void run() { T x{}; x; }
//                                     ^ T; <double> double; <float> float
template <class... Ts> struct reg { reg() { (run<Ts>(), ...); } };
void k() { reg<float, double>(); }
"#,
    );
}
