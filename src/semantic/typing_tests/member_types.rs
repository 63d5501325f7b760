//! Member types named through template parameters, specialisations and bases: traits
//! classes specialised for an argument, `typename D::result_type` with `D` bound by the
//! instance, member aliases inherited from a base class.

use super::check_types;

#[test]
fn an_explicit_specialisation_of_a_traits_class_has_its_own_members() {
    // [temp.expl.spec]: `accumulator<float>` is the specialisation's class, whose `type` is
    // `double`; other arguments use the primary template's `type`.
    check_types(
        r#"
template <class T> struct accumulator { using type = T; };
template <> struct accumulator<float> { using type = double; };
template <class T> void acc(T* p) {
  typename accumulator<T>::type s = 0;
  s;
//^ T; <float> double; <int> int
}
void k(float* p, int* q) {
  acc(p);
  acc(q);
  accumulator<float>::type d = 0;
  d;
//^ double
  accumulator<short>::type h = 0;
  h;
//^ short
}
"#,
    );
}

#[test]
fn a_partial_specialisation_binds_its_own_parameters() {
    // [temp.spec.partial.match]: `accumulator<float*>` matches `accumulator<T*>` with
    // `T = float`; its members are read with that binding.
    check_types(
        r#"
template <class T> struct accumulator { using type = T; };
template <class T> struct accumulator<T*> { using type = T; using wide = double; };
template <class T> void acc(T p) {
  typename accumulator<T>::type s = 0;
  s;
//^ T; <float*> float; <int> int
}
void k(float* p, int q) {
  acc(p);
  acc(q);
  accumulator<float*>::wide w = 0;
  w;
//^ double
}
"#,
    );
}

#[test]
fn a_member_of_a_template_parameter_is_the_bound_class_member() {
    // [temp.dep.type], [temp.res]/6: `typename D::result_type` names the member of the class
    // `D` is bound to in each instance (two instances: one must not answer for the other),
    // in the function, in a block-scope alias and in a lambda; `typename D::State` the class
    // nested in it ([class.mem]).
    check_types(
        r#"
struct Dist { using result_type = double; struct State { double s; }; };
struct Uniform { using result_type = float; struct State { float s; }; };
template <class D> void gen(float* p) {
  typename D::State st;
  st.s;
//^^^^ ?; <Dist> double; <Uniform> float
  typename D::result_type r = p[0];
  r;
//^ D::result_type; <Dist> double; <Uniform> float
  using T = typename D::result_type;
  T t = p[0];
  t;
//^ D::result_type; <Dist> double; <Uniform> float
  auto l = [=]() { using U = typename D::result_type; U v = p[0]; return v; };
  l();
//^^^ D::result_type; <Dist> double; <Uniform> float
}
void k(float* p) { gen<Uniform>(p); gen<Dist>(p); }
"#,
    );
}

#[test]
fn member_aliases_are_inherited_from_bases() {
    // [class.member.lookup]: a member alias not declared in the class is looked up in its
    // bases; one declared in the class hides the base's.
    check_types(
        r#"
template <class T> struct B { using type = T; using other = T; };
template <class T> struct D : B<T> { using other = int; };
struct E : B<double> {};
template <class T> void f(T p) {
  typename D<T>::type d = p;
  d;
//^ T; <float> float
  typename D<T>::other o = 0;
  o;
//^ int; <float> int
}
void k(float p) {
  f(p);
  E::type e = 0;
  e;
//^ double
  D<double>::type x = 0;
  x;
//^ double
}
"#,
    );
}

#[test]
fn a_member_alias_naming_the_base_names_its_members() {
    // [temp.res]/6: `typename base_type::item_type` in a member of `Derived<T>`, with
    // `base_type` a member alias of the class template, is `Base<T>::item_type` under each
    // instance's `T`; `typename K::input_t` with `K = Tr` is `Tr`'s member.
    check_types(
        r#"
template <class T> struct Base { using item_type = T; };
template <class T> struct Derived : Base<T> {
  using base_type = Base<T>;
  typename base_type::item_type get(T* p) { return p[0]; }
};
struct Tr { using input_t = double; };
struct Tf { using input_t = float; };
template <class K> struct Run {
  typename K::input_t x;
};
void k(double* p, float* q) {
  Derived<double> d;
  d.get(p);
//^^^^^^^^ double
  Derived<float> f;
  f.get(q);
//^^^^^^^^ float
  Run<Tr> r;
  r.x;
//^^^ double
  Run<Tf> s;
  s.x;
//^^^ float
}
"#,
    );
}

#[test]
fn a_member_template_of_a_member_names_its_members() {
    // [temp.names]/5, [temp.res]/6: `typename A<T>::template rebind<U>::type` is the member
    // `type` of the class template `rebind<U>` nested in `A<T>`; an alias template member
    // (`rebind_t<U>`) names its target with both arguments bound.
    check_types(
        r#"
template <class T> struct A {
  template <class U> struct rebind { using type = A<U>; using elem = U; };
  template <class U> using rebind_t = A<U>;
  T v;
};
template <class T, class U> void f(T x, U y) {
  typename A<T>::template rebind<U>::elem e = y;
  e;
//^ U; <int, double> double; <int, float> float
  typename A<T>::template rebind<U>::type r;
  r.v;
//^^^ U; <int, double> double; <int, float> float
}
void k() {
  f(1, 2.0);
  f(1, 2.0f);
  A<int>::rebind_t<double> a;
  a.v;
//^^^ double
}
"#,
    );
}

#[test]
fn a_partial_specialisation_on_a_value_argument_gives_its_member_type() {
    // [temp.spec.partial.match]/2: `wide<T, 8>` matches `wide<long, sizeof(long)>`, its
    // value argument equal to the one given; `wide<float, 4>` takes the primary.
    check_types(
        r#"
template <class T, int N> struct wide { using type = T; };
template <class T> struct wide<T, 8> { using type = double; };
template <class T> void f(T *p) {
  typename wide<T, sizeof(T)>::type w = p[0];
  w;
//^ T; <float> float; <long> double
}
void k(float *x, long *y) {
  typename wide<float, 8>::type a = x[0];
  a;
//^ double
  typename wide<float, 4>::type b = x[0];
  b;
//^ float
  f(x);
  f(y);
}
"#,
    );
}
