//! Function templates named as values (issue 50 form 5): [over.over], [temp.deduct.funcaddr].
//! Naming a template's specialisation instantiates it; its arguments are deduced from the
//! target's function type, after the explicit ones.

use super::check_types;

#[test]
fn a_template_assigned_to_a_function_pointer_deduces_from_its_type() {
    check_types(
        r#"
namespace sycl { class queue; }
template <class T> void star(sycl::queue &q, T *p) { p[0]; }
//                                                   ^^^^ T; <double> double
void run() {
  void (*stencil)(sycl::queue &, double *);
  stencil = star;
}
"#,
    );
}

#[test]
fn a_table_of_pointers_deduces_after_the_explicit_arguments() {
    // In the instance `table<float>`, `run<32>` is `run<32, float>`; the pattern `table<T>`
    // makes none.
    check_types(
        r#"
namespace sycl { class queue; }
template <int N, class T> void runk(sycl::queue &q, T *p) { p[N]; }
//                                                          ^^^^ T; <32, float> float; <64, float> float
template <class T> void table(sycl::queue &q, T *p) {
  void (*fs[])(sycl::queue &, T *) = {runk<32>, runk<64>};
}
void go(sycl::queue &q, float *p) { table(q, p); }
"#,
    );
}

#[test]
fn the_target_type_picks_among_the_candidates() {
    // `void (*)(int *)` deduces `T = int`: no `double` instance, though one would be viable
    // for a `double *` call; `&f<double>` and `std::function<void(long *)>` name theirs.
    check_types(
        r#"
template <class T> void f(T *p) { p[0]; }
//                                ^^^^ T; <double> double; <int> int; <long> long; <unsigned int> unsigned int
namespace std { template <class F> class function; }
void pick() {
  void (*a)(int *) = f;
  void (*table[2])(unsigned *);
  table[1] = f;
  auto b = &f<double>;
  std::function<void(long *)> c = f;
}
"#,
    );
}

#[test]
fn a_name_passed_to_a_function_pointer_parameter_or_returned() {
    check_types(
        r#"
template <class T> void g(T *p) { p[0]; }
//                                ^^^^ T; <float> float; <short> short
void reg(void (*cb)(float *));
void use() { reg(g); }
auto table() { return &g<short>; }
"#,
    );
}

#[test]
fn a_template_assigned_to_a_data_member_deduces_in_the_class_context() {
    // `Ops<float>::apply` is a `void (*)(float *)`: the member's type is read with the
    // class's arguments.
    check_types(
        r#"
template <class T> void h(T *p) { p[0]; }
//                                ^^^^ T; <float> float
template <class U> struct Ops { void (*apply)(U *); };
void wire(Ops<float> &ops) { ops.apply = h; }
"#,
    );
}

#[test]
fn a_template_named_in_a_pack_expansion_names_one_specialisation_per_element() {
    // [temp.variadic]/8: `(add(&b<Ts>), ...)` over `int, double` names `b<int>` and
    // `b<double>`, not one `b` over the whole pack.
    check_types(
        r#"
template <class T> void b() { T x{}; x; }
//                                   ^ T; <double> double; <int> int
void add(void (*f)());
template <class... Ts> void all() { (add(&b<Ts>), ...); }
void k() { all<int, double>(); }
"#,
    );
}
