// sycl_mini.hpp: a small, self-contained stand-in for <sycl/sycl.hpp> for the differential test.
//
// It includes nothing, so libclang parses it with -nostdinc -nostdinc++. It declares just enough of
// SYCL 2020 (and of namespace std) for the programs gen.py writes to be valid C++17. Most functions
// are declarations only; the kernel launchers (parallel_for, single_task, parallel_for_work_group)
// have bodies that CALL the kernel, so that clang instantiates generic lambdas and templated
// operator()s exactly as a SYCL compiler would. Nothing in this file is ever part of a kernel's
// reach: the oracle treats it as "the library".
#pragma once

namespace std {
typedef decltype(sizeof(0)) size_t;
typedef decltype((int *)0 - (int *)0) ptrdiff_t;
typedef decltype(nullptr) nullptr_t;
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;

template <class T, T V> struct integral_constant {
  static constexpr T value = V;
  using value_type = T;
  using type = integral_constant;
  constexpr operator T() const noexcept { return V; }
  constexpr T operator()() const noexcept { return V; }
};
using true_type = integral_constant<bool, true>;
using false_type = integral_constant<bool, false>;
template <bool B> using bool_constant = integral_constant<bool, B>;
template <class...> using void_t = void;

template <class A, class B> struct is_same : false_type {};
template <class A> struct is_same<A, A> : true_type {};
template <class A, class B> inline constexpr bool is_same_v = is_same<A, B>::value;

template <class T> struct remove_cv { using type = T; };
template <class T> struct remove_cv<const T> { using type = T; };
template <class T> struct remove_cv<volatile T> { using type = T; };
template <class T> struct remove_cv<const volatile T> { using type = T; };
template <class T> using remove_cv_t = typename remove_cv<T>::type;
template <class T> struct remove_reference { using type = T; };
template <class T> struct remove_reference<T &> { using type = T; };
template <class T> struct remove_reference<T &&> { using type = T; };
template <class T> using remove_reference_t = typename remove_reference<T>::type;
template <class T> using remove_cvref_t = remove_cv_t<remove_reference_t<T>>;
template <class T> using decay_t = remove_cvref_t<T>;

namespace detail_ {
template <class T> struct is_fp : false_type {};
template <> struct is_fp<float> : true_type {};
template <> struct is_fp<double> : true_type {};
template <> struct is_fp<long double> : true_type {};
template <class T> struct is_int : false_type {};
template <> struct is_int<bool> : true_type {};
template <> struct is_int<char> : true_type {};
template <> struct is_int<signed char> : true_type {};
template <> struct is_int<unsigned char> : true_type {};
template <> struct is_int<short> : true_type {};
template <> struct is_int<unsigned short> : true_type {};
template <> struct is_int<int> : true_type {};
template <> struct is_int<unsigned int> : true_type {};
template <> struct is_int<long> : true_type {};
template <> struct is_int<unsigned long> : true_type {};
template <> struct is_int<long long> : true_type {};
template <> struct is_int<unsigned long long> : true_type {};
} // namespace detail_
template <class T> struct is_floating_point : detail_::is_fp<remove_cv_t<T>> {};
template <class T> inline constexpr bool is_floating_point_v = is_floating_point<T>::value;
template <class T> struct is_integral : detail_::is_int<remove_cv_t<T>> {};
template <class T> inline constexpr bool is_integral_v = is_integral<T>::value;
template <class T>
inline constexpr bool is_arithmetic_v = is_integral_v<T> || is_floating_point_v<T>;

template <bool B, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { using type = T; };
template <bool B, class T = void> using enable_if_t = typename enable_if<B, T>::type;
template <bool B, class T, class F> struct conditional { using type = T; };
template <class T, class F> struct conditional<false, T, F> { using type = F; };
template <bool B, class T, class F> using conditional_t = typename conditional<B, T, F>::type;

template <class T> T &&declval() noexcept;

template <class T> constexpr const T &min(const T &a, const T &b) { return b < a ? b : a; }
template <class T> constexpr const T &max(const T &a, const T &b) { return a < b ? b : a; }

template <class T, size_t N> struct array {
  T _M_elems[N];
  constexpr T &operator[](size_t i) noexcept { return _M_elems[i]; }
  constexpr const T &operator[](size_t i) const noexcept { return _M_elems[i]; }
  constexpr T *begin() noexcept { return _M_elems; }
  constexpr T *end() noexcept { return _M_elems + N; }
  constexpr const T *begin() const noexcept { return _M_elems; }
  constexpr const T *end() const noexcept { return _M_elems + N; }
  constexpr T *data() noexcept { return _M_elems; }
  static constexpr size_t size() noexcept { return N; }
};

// std::vector: its iterators are pointers here (as the analyzer models them).
template <class T> class vector {
  T *b_, *e_;

public:
  vector();
  explicit vector(size_t n);
  vector(size_t n, const T &v);
  T *begin();
  T *end();
  const T *begin() const;
  const T *end() const;
  T *data();
  size_t size() const;
  T &operator[](size_t i);
  const T &operator[](size_t i) const;
};

template <class T> class complex {
  T re_, im_;

public:
  constexpr complex(const T &re = T(), const T &im = T()) : re_(re), im_(im) {}
  constexpr T real() const { return re_; }
  constexpr T imag() const { return im_; }
  complex &operator+=(const complex &o);
  complex &operator*=(const complex &o);
  friend complex operator+(const complex &a, const complex &b);
  friend complex operator-(const complex &a, const complex &b);
  friend complex operator*(const complex &a, const complex &b);
};
template <class T> T abs(const complex<T> &z);
template <class T> T norm(const complex<T> &z);

float sqrt(float);
double sqrt(double);
long double sqrt(long double);
float fabs(float);
double fabs(double);
long double fabs(long double);
float exp(float);
double exp(double);
float sin(float);
double sin(double);
float cos(float);
double cos(double);
} // namespace std

// The C library's double functions in the global namespace, as <math.h> gives them.
double sqrt(double);
double fabs(double);
double exp(double);
double sin(double);
double cos(double);
double pow(double, double);
float sqrtf(float);
float fabsf(float);
using std::size_t;
using std::int64_t;
using std::uint64_t;
using std::int32_t;
using std::uint32_t;

namespace sycl {
inline namespace _V1 {
using std::size_t;

enum class aspect {
  cpu, gpu, accelerator, custom, emulated, host_debuggable, fp16, fp64, atomic64, image,
  online_compiler, online_linker, queue_profiling, usm_device_allocations, usm_host_allocations,
  usm_atomic_host_allocations, usm_shared_allocations, usm_atomic_shared_allocations,
  usm_system_allocations, ext_oneapi_atomic16
};

// sycl::half: a distinct 16-bit class type, as on the host side of DPC++.
class half {
  unsigned short bits_;

public:
  half() = default;
  half(float f);
  operator float() const;
  half &operator+=(const half &o);
  half &operator-=(const half &o);
  half &operator*=(const half &o);
  half &operator/=(const half &o);
  half &operator++();
  half operator++(int);
  friend half operator-(const half &a);
  friend half operator+(const half &a, const half &b);
  friend half operator-(const half &a, const half &b);
  friend half operator*(const half &a, const half &b);
  friend half operator/(const half &a, const half &b);
  friend float operator+(const half &a, float b);
  friend float operator-(const half &a, float b);
  friend float operator*(const half &a, float b);
  friend float operator/(const half &a, float b);
  friend float operator+(float a, const half &b);
  friend float operator-(float a, const half &b);
  friend float operator*(float a, const half &b);
  friend float operator/(float a, const half &b);
  friend double operator+(const half &a, double b);
  friend double operator-(const half &a, double b);
  friend double operator*(const half &a, double b);
  friend double operator/(const half &a, double b);
  friend double operator+(double a, const half &b);
  friend double operator-(double a, const half &b);
  friend double operator*(double a, const half &b);
  friend double operator/(double a, const half &b);
  friend half operator+(const half &a, int b);
  friend half operator-(const half &a, int b);
  friend half operator*(const half &a, int b);
  friend half operator/(const half &a, int b);
  friend half operator+(int a, const half &b);
  friend half operator-(int a, const half &b);
  friend half operator*(int a, const half &b);
  friend half operator/(int a, const half &b);
  friend bool operator<(const half &a, const half &b);
  friend bool operator>(const half &a, const half &b);
  friend bool operator<=(const half &a, const half &b);
  friend bool operator>=(const half &a, const half &b);
  friend bool operator==(const half &a, const half &b);
  friend bool operator!=(const half &a, const half &b);
};

template <int Dims = 1> class range {
  size_t v_[Dims];

public:
  template <int D = Dims, typename = std::enable_if_t<D == 1>> range(size_t d0);
  template <int D = Dims, typename = std::enable_if_t<D == 2>> range(size_t d0, size_t d1);
  template <int D = Dims, typename = std::enable_if_t<D == 3>> range(size_t d0, size_t d1, size_t d2);
  size_t get(int d) const;
  size_t size() const;
  size_t &operator[](int d);
  size_t operator[](int d) const;
};
range(size_t) -> range<1>;
range(size_t, size_t) -> range<2>;
range(size_t, size_t, size_t) -> range<3>;

template <int Dims = 1> class id {
  size_t v_[Dims];

public:
  id();
  template <int D = Dims, typename = std::enable_if_t<D == 1>> id(size_t d0);
  template <int D = Dims, typename = std::enable_if_t<D == 2>> id(size_t d0, size_t d1);
  template <int D = Dims, typename = std::enable_if_t<D == 3>> id(size_t d0, size_t d1, size_t d2);
  size_t get(int d) const;
  size_t &operator[](int d);
  size_t operator[](int d) const;
  operator size_t() const; // only meaningful for Dims == 1, as in SYCL
  friend id operator+(const id &a, const id &b);
  friend id operator-(const id &a, const id &b);
};

template <int Dims = 1, bool WithOffset = true> class item {
  id<Dims> id_;
  range<Dims> range_;

public:
  item() = delete;
  id<Dims> get_id() const;
  size_t get_id(int d) const;
  range<Dims> get_range() const;
  size_t get_range(int d) const;
  size_t get_linear_id() const;
  size_t operator[](int d) const;
  operator id<Dims>() const;
  operator size_t() const; // Dims == 1
};

template <int Dims = 1> class group {
  id<Dims> id_;

public:
  id<Dims> get_group_id() const;
  size_t get_group_id(int d) const;
  range<Dims> get_local_range() const;
  size_t get_local_range(int d) const;
  size_t get_group_linear_id() const;
  size_t operator[](int d) const;
};

class sub_group {
public:
  id<1> get_local_id() const;
  size_t get_local_linear_id() const;
  range<1> get_local_range() const;
  size_t get_group_linear_id() const;
};

template <int Dims = 1> class nd_range {
  range<Dims> g_, l_;

public:
  nd_range(range<Dims> global, range<Dims> local);
  range<Dims> get_global_range() const;
  range<Dims> get_local_range() const;
};

template <int Dims = 1> class nd_item {
  id<Dims> g_;

public:
  nd_item() = delete;
  id<Dims> get_global_id() const;
  size_t get_global_id(int d) const;
  size_t get_global_linear_id() const;
  id<Dims> get_local_id() const;
  size_t get_local_id(int d) const;
  size_t get_local_linear_id() const;
  group<Dims> get_group() const;
  size_t get_group(int d) const;
  sub_group get_sub_group() const;
  range<Dims> get_global_range() const;
  range<Dims> get_local_range() const;
  void barrier() const;
};

enum class memory_order { relaxed, acquire, release, acq_rel, seq_cst };
enum class memory_scope { work_item, sub_group, work_group, device, system };

namespace access {
enum class mode { read, write, read_write, discard_write, discard_read_write, atomic };
enum class target { device, global_buffer = device, constant_buffer, local, host_buffer };
enum class address_space { global_space, local_space, constant_space, private_space, generic_space };
enum class decorated { no, yes, legacy };
} // namespace access
using access_mode = access::mode;
using target = access::target;

template <access_mode M> struct mode_tag_t {
  explicit constexpr mode_tag_t() = default;
};
inline constexpr mode_tag_t<access_mode::read> read_only{};
inline constexpr mode_tag_t<access_mode::write> write_only{};
inline constexpr mode_tag_t<access_mode::read_write> read_write{};

template <typename T, access::address_space Space = access::address_space::global_space,
          access::decorated D = access::decorated::legacy>
class multi_ptr {
  T *p_;

public:
  multi_ptr();
  multi_ptr(T *p);
  T *get() const;
  T &operator*() const;
  T &operator[](size_t i) const;
  T *operator->() const;
};
template <typename T, access::decorated D = access::decorated::legacy>
using global_ptr = multi_ptr<T, access::address_space::global_space, D>;
template <typename T, access::decorated D = access::decorated::legacy>
using local_ptr = multi_ptr<T, access::address_space::local_space, D>;

template <typename T, memory_order DefaultOrder = memory_order::relaxed,
          memory_scope DefaultScope = memory_scope::device,
          access::address_space Space = access::address_space::generic_space>
class atomic_ref {
  T *ptr_;

public:
  explicit atomic_ref(T &ref);
  atomic_ref(const atomic_ref &) noexcept;
  T load(memory_order order = DefaultOrder, memory_scope scope = DefaultScope) const;
  void store(T v, memory_order order = DefaultOrder, memory_scope scope = DefaultScope) const;
  T exchange(T v, memory_order order = DefaultOrder, memory_scope scope = DefaultScope) const;
  bool compare_exchange_strong(T &expected, T desired, memory_order order = DefaultOrder,
                               memory_scope scope = DefaultScope) const;
  T fetch_add(T v, memory_order order = DefaultOrder, memory_scope scope = DefaultScope) const;
  T fetch_sub(T v, memory_order order = DefaultOrder, memory_scope scope = DefaultScope) const;
  T fetch_min(T v, memory_order order = DefaultOrder, memory_scope scope = DefaultScope) const;
  T fetch_max(T v, memory_order order = DefaultOrder, memory_scope scope = DefaultScope) const;
  operator T() const;
  T operator=(T v) const;
  T operator+=(T v) const;
  T operator++(int) const;
  T operator++() const;
};
// Pointers: only the operations that make sense for them.
template <typename T, memory_order O, memory_scope S, access::address_space A>
class atomic_ref<T *, O, S, A> {
  T **ptr_;

public:
  explicit atomic_ref(T *&ref);
  T *load(memory_order order = O, memory_scope scope = S) const;
  void store(T *v, memory_order order = O, memory_scope scope = S) const;
  T *exchange(T *v, memory_order order = O, memory_scope scope = S) const;
  T *fetch_add(std::ptrdiff_t d, memory_order order = O, memory_scope scope = S) const;
  operator T *() const;
};

// The deprecated SYCL 1.2.1 atomic.
template <typename T, access::address_space Space = access::address_space::global_space>
class atomic {
  T *ptr_;

public:
  template <access::decorated D> atomic(multi_ptr<T, Space, D> p);
  T load(memory_order order = memory_order::relaxed) const;
  void store(T v, memory_order order = memory_order::relaxed) const;
  T fetch_add(T v, memory_order order = memory_order::relaxed) const;
  T fetch_max(T v, memory_order order = memory_order::relaxed) const;
};

template <typename T, int N> class vec {
  T m_data[N];

public:
  using element_type = T;
  using value_type = T;
  vec() = default;
  explicit vec(const T &arg);
  template <int M = N, typename = std::enable_if_t<M == 2>> vec(const T &a, const T &b);
  template <int M = N, typename = std::enable_if_t<M == 3>>
  vec(const T &a, const T &b, const T &c);
  template <int M = N, typename = std::enable_if_t<M == 4>>
  vec(const T &a, const T &b, const T &c, const T &d);
  static constexpr size_t size() noexcept { return N; }
  T &x();
  T &y();
  T &z();
  T &w();
  const T &x() const;
  const T &y() const;
  const T &z() const;
  const T &w() const;
  T &s0();
  T &s1();
  vec<T, 2> xy() const;
  vec<T, 2> yx() const;
  vec<T, 4> xxyy() const;
  template <int... Idx> vec<T, sizeof...(Idx)> swizzle() const;
  template <typename U> vec<U, N> convert() const;
  template <typename As> As as() const;
  T &operator[](int i);
  const T &operator[](int i) const;
  vec &operator+=(const vec &o);
  vec &operator*=(const vec &o);
  vec &operator+=(const T &o);
  vec &operator*=(const T &o);
  friend vec operator+(const vec &a, const vec &b);
  friend vec operator-(const vec &a, const vec &b);
  friend vec operator*(const vec &a, const vec &b);
  friend vec operator/(const vec &a, const vec &b);
  friend vec operator+(const vec &a, const T &b);
  friend vec operator*(const vec &a, const T &b);
  friend vec operator+(const T &a, const vec &b);
  friend vec operator*(const T &a, const vec &b);
};
using float2 = vec<float, 2>;
using float4 = vec<float, 4>;
using double2 = vec<double, 2>;
using double4 = vec<double, 4>;
using int2 = vec<int, 2>;
using int4 = vec<int, 4>;
using half2 = vec<half, 2>;
using half4 = vec<half, 4>;

template <typename T, size_t N> class marray {
  T MData[N];

public:
  using value_type = T;
  marray() = default;
  explicit marray(const T &arg);
  template <size_t M = N, typename = std::enable_if_t<M == 2>> marray(const T &a, const T &b);
  template <size_t M = N, typename = std::enable_if_t<M == 3>>
  marray(const T &a, const T &b, const T &c);
  template <size_t M = N, typename = std::enable_if_t<M == 4>>
  marray(const T &a, const T &b, const T &c, const T &d);
  static constexpr size_t size() noexcept { return N; }
  T &operator[](size_t i);
  const T &operator[](size_t i) const;
  T *begin();
  T *end();
  const T *begin() const;
  const T *end() const;
  marray &operator+=(const marray &o);
  friend marray operator+(const marray &a, const marray &b);
  friend marray operator*(const marray &a, const marray &b);
  friend marray operator*(const marray &a, const T &b);
};

class handler;
class queue;
class event {
public:
  void wait();
};
class device {
public:
  bool has(aspect a) const;
};

template <typename T, int Dims = 1, access_mode Mode = access_mode::read_write,
          target Tgt = target::device>
class accessor;

template <typename T, int Dims = 1> class buffer {
  T *host_;
  range<Dims> r_;

public:
  buffer(const range<Dims> &r);
  buffer(T *hostData, const range<Dims> &r);
  range<Dims> get_range() const;
  size_t size() const;
  template <access_mode Mode = access_mode::read_write, target Tgt = target::device>
  accessor<T, Dims, Mode, Tgt> get_access(handler &h);
  template <access_mode Mode> accessor<T, Dims, Mode, target::device> get_access(handler &h, mode_tag_t<Mode>);
};

template <typename T, int Dims, access_mode Mode, target Tgt> class accessor {
  T *ptr_;
  range<Dims> r_;

public:
  using value_type = T;
  accessor(buffer<T, Dims> &buf, handler &h);
  template <access_mode M> accessor(buffer<T, Dims> &buf, handler &h, mode_tag_t<M> tag);
  T &operator[](id<Dims> i) const;
  T &operator[](item<Dims> i) const;
  T &operator[](size_t i) const;
  size_t size() const;
  range<Dims> get_range() const;
  global_ptr<T> get_pointer() const;
};
template <typename T, int Dims>
accessor(buffer<T, Dims> &, handler &) -> accessor<T, Dims, access_mode::read_write, target::device>;
template <typename T, int Dims, access_mode M>
accessor(buffer<T, Dims> &, handler &, mode_tag_t<M>) -> accessor<T, Dims, M, target::device>;

template <typename T, int Dims = 1> class local_accessor {
  T *ptr_;
  range<Dims> r_;

public:
  using value_type = T;
  local_accessor(range<Dims> r, handler &h);
  T &operator[](id<Dims> i) const;
  T &operator[](size_t i) const;
  size_t size() const;
  local_ptr<T> get_pointer() const;
};

namespace ext {
namespace oneapi {
namespace experimental {
template <aspect... Aspects> struct device_has_key_value {};
template <aspect... Aspects> inline constexpr device_has_key_value<Aspects...> device_has{};
template <int... Dims> struct work_group_size_key_value {};
template <int... Dims> inline constexpr work_group_size_key_value<Dims...> work_group_size{};
template <typename... Props> class properties {
public:
  constexpr properties(Props... props) {}
};
template <typename... Props> properties(Props...) -> properties<Props...>;
template <typename T> struct is_property_list : std::false_type {};
template <typename... Ps> struct is_property_list<properties<Ps...>> : std::true_type {};
} // namespace experimental
} // namespace oneapi
} // namespace ext

namespace detail {
template <typename T>
inline constexpr bool is_props_v = ext::oneapi::experimental::is_property_list<std::decay_t<T>>::value;
template <int Dims> item<Dims> make_item();
template <int Dims> nd_item<Dims> make_nd_item();
template <int Dims> group<Dims> make_group();
} // namespace detail

// SYCL 2020 function objects (4.17.2).
#define SYCL_MINI_FUNCTOR(NAME, EXPR)                                                               \
  template <typename T = void> struct NAME {                                                        \
    T operator()(const T &a, const T &b) const;                                                     \
  };                                                                                                \
  template <> struct NAME<void> {                                                                   \
    template <typename A, typename B> auto operator()(const A &a, const B &b) const -> decltype(EXPR); \
  };
SYCL_MINI_FUNCTOR(plus, a + b)
SYCL_MINI_FUNCTOR(multiplies, a * b)
SYCL_MINI_FUNCTOR(maximum, a < b ? b : a)
SYCL_MINI_FUNCTOR(minimum, a < b ? a : b)
#undef SYCL_MINI_FUNCTOR

// Reductions (4.9.2): a reducer holds a T by value, so combining into it is a T operation.
template <typename T, typename BinaryOperation> class reducer {
  T value_;

public:
  void combine(const T &partial);
  reducer &operator+=(const T &partial);
  reducer &operator*=(const T &partial);
  reducer &operator++();
};

namespace detail {
template <typename T> struct nodeduce { using type = T; };
template <typename T> using nodeduce_t = typename nodeduce<T>::type;
template <typename T, typename BinaryOperation> struct reduction_impl {
  T *var_;
};
template <typename T> T &lvalue();
// The range an algorithm of a oneDPL device policy launches its callables over: Arity elements
// of type T per call (see oneapi::dpl below).
template <int Arity, typename T> struct algorithm_range {};
} // namespace detail

template <typename T, typename BinaryOperation>
detail::reduction_impl<T, BinaryOperation> reduction(T *var, BinaryOperation combiner);
template <typename T, typename BinaryOperation>
detail::reduction_impl<T, BinaryOperation> reduction(T *var, const detail::nodeduce_t<T> &identity, BinaryOperation combiner);
template <typename T, typename BinaryOperation>
detail::reduction_impl<T, BinaryOperation> reduction(buffer<T, 1> &var, handler &h, BinaryOperation combiner);
template <typename T, typename BinaryOperation>
detail::reduction_impl<T, BinaryOperation> reduction(buffer<T, 1> &var, handler &h, const detail::nodeduce_t<T> &identity,
                                                     BinaryOperation combiner);

// Group algorithms (4.17.4) and sub-group shuffles (4.17.3): the value's (init's) type.
template <typename Group, typename T, typename BinaryOperation> T reduce_over_group(Group g, T x, BinaryOperation op);
template <typename Group, typename V, typename T, typename BinaryOperation>
T reduce_over_group(Group g, V x, T init, BinaryOperation op);
template <typename Group, typename T, typename BinaryOperation> T exclusive_scan_over_group(Group g, T x, BinaryOperation op);
template <typename Group, typename V, typename T, typename BinaryOperation>
T exclusive_scan_over_group(Group g, V x, T init, BinaryOperation op);
template <typename Group, typename T, typename BinaryOperation> T inclusive_scan_over_group(Group g, T x, BinaryOperation op);
template <typename Group, typename V, typename T, typename BinaryOperation>
T inclusive_scan_over_group(Group g, V x, BinaryOperation op, T init);
template <typename Group, typename Ptr, typename BinaryOperation>
auto joint_reduce(Group g, Ptr first, Ptr last, BinaryOperation op) -> std::remove_cvref_t<decltype(*first)>;
template <typename Group, typename Ptr, typename T, typename BinaryOperation>
T joint_reduce(Group g, Ptr first, Ptr last, T init, BinaryOperation op);
template <typename Group, typename T> T group_broadcast(Group g, T x);
template <typename Group, typename T> T group_broadcast(Group g, T x, size_t local_linear_id);
template <typename Group, typename T> T select_from_group(Group g, T x, size_t remote_local_id);
template <typename Group, typename T> T permute_group_by_xor(Group g, T x, size_t mask);
template <typename Group, typename T> T shift_group_left(Group g, T x, size_t delta = 1);
template <typename Group, typename T> T shift_group_right(Group g, T x, size_t delta = 1);

// The kernel launchers: each calls the kernel, which makes clang instantiate it.
class handler {
public:
  template <typename KernelName = void, typename K> void single_task(const K &k) { k(); }
  template <typename KernelName = void, typename Props, typename K,
            typename = std::enable_if_t<detail::is_props_v<Props>>>
  void single_task(Props props, const K &k) { k(); }

  template <typename KernelName = void, int Dims, typename K>
  void parallel_for(range<Dims> r, const K &k) { k(detail::make_item<Dims>()); }
  template <typename KernelName = void, typename K> void parallel_for(size_t n, const K &k) {
    k(detail::make_item<1>());
  }
  template <typename KernelName = void, int Dims, typename Props, typename K,
            typename = std::enable_if_t<detail::is_props_v<Props>>>
  void parallel_for(range<Dims> r, Props props, const K &k) { k(detail::make_item<Dims>()); }
  template <typename KernelName = void, int Dims, typename K>
  void parallel_for(nd_range<Dims> r, const K &k) { k(detail::make_nd_item<Dims>()); }
  template <typename KernelName = void, int Dims, typename Props, typename K,
            typename = std::enable_if_t<detail::is_props_v<Props>>>
  void parallel_for(nd_range<Dims> r, Props props, const K &k) { k(detail::make_nd_item<Dims>()); }
  template <typename KernelName = void, int Dims, typename K>
  void parallel_for_work_group(range<Dims> groups, const K &k) { k(detail::make_group<Dims>()); }
  template <typename KernelName = void, int Dims, typename K>
  void parallel_for_work_group(range<Dims> groups, range<Dims> local, const K &k) {
    k(detail::make_group<Dims>());
  }


  // parallel_for(range, reductions..., kernel): the kernel gets a reducer per reduction.
  template <typename KernelName = void, int Dims, typename T1, typename O1, typename K>
  void parallel_for(range<Dims> r, detail::reduction_impl<T1, O1> r1, const K &k) {
    k(detail::make_item<Dims>(), detail::lvalue<reducer<T1, O1>>());
  }
  template <typename KernelName = void, int Dims, typename T1, typename O1, typename T2, typename O2, typename K>
  void parallel_for(range<Dims> r, detail::reduction_impl<T1, O1> r1, detail::reduction_impl<T2, O2> r2, const K &k) {
    k(detail::make_item<Dims>(), detail::lvalue<reducer<T1, O1>>(), detail::lvalue<reducer<T2, O2>>());
  }
  template <typename KernelName = void, int Dims, typename T1, typename O1, typename K>
  void parallel_for(nd_range<Dims> r, detail::reduction_impl<T1, O1> r1, const K &k) {
    k(detail::make_nd_item<Dims>(), detail::lvalue<reducer<T1, O1>>());
  }

  template <typename T> void fill(T *dst, const T &v, size_t n);
  void memcpy(void *dst, const void *src, size_t bytes);
};

class queue {
public:
  queue();
  template <typename Selector> explicit queue(const Selector &s);
  device get_device() const;
  template <typename CGF> event submit(CGF cgf) {
    handler h;
    cgf(h);
    return event();
  }
  void wait();
  event memcpy(void *dst, const void *src, size_t bytes);
  template <typename T> event fill(T *dst, const T &v, size_t n);

  template <typename KernelName = void, typename K> event single_task(const K &k) {
    k();
    return event();
  }
  template <typename KernelName = void, typename Props, typename K,
            typename = std::enable_if_t<detail::is_props_v<Props>>>
  event single_task(Props props, const K &k) {
    k();
    return event();
  }
  template <typename KernelName = void, int Dims, typename K>
  event parallel_for(range<Dims> r, const K &k) {
    k(detail::make_item<Dims>());
    return event();
  }
  template <typename KernelName = void, typename K> event parallel_for(size_t n, const K &k) {
    k(detail::make_item<1>());
    return event();
  }
  template <typename KernelName = void, int Dims, typename Props, typename K,
            typename = std::enable_if_t<detail::is_props_v<Props>>>
  event parallel_for(range<Dims> r, Props props, const K &k) {
    k(detail::make_item<Dims>());
    return event();
  }
  template <typename KernelName = void, int Dims, typename K>
  event parallel_for(nd_range<Dims> r, const K &k) {
    k(detail::make_nd_item<Dims>());
    return event();
  }
  template <typename KernelName = void, int Dims, typename Props, typename K,
            typename = std::enable_if_t<detail::is_props_v<Props>>>
  event parallel_for(nd_range<Dims> r, Props props, const K &k) {
    k(detail::make_nd_item<Dims>());
    return event();
  }

  // parallel_for(range, reductions..., kernel): the kernel gets a reducer per reduction.
  template <typename KernelName = void, int Dims, typename T1, typename O1, typename K>
  event parallel_for(range<Dims> r, detail::reduction_impl<T1, O1> r1, const K &k) {
    k(detail::make_item<Dims>(), detail::lvalue<reducer<T1, O1>>());
    return event();
  }
  template <typename KernelName = void, int Dims, typename T1, typename O1, typename T2, typename O2, typename K>
  event parallel_for(range<Dims> r, detail::reduction_impl<T1, O1> r1, detail::reduction_impl<T2, O2> r2, const K &k) {
    k(detail::make_item<Dims>(), detail::lvalue<reducer<T1, O1>>(), detail::lvalue<reducer<T2, O2>>());
    return event();
  }
  template <typename KernelName = void, int Dims, typename T1, typename O1, typename K>
  event parallel_for(nd_range<Dims> r, detail::reduction_impl<T1, O1> r1, const K &k) {
    k(detail::make_nd_item<Dims>(), detail::lvalue<reducer<T1, O1>>());
    return event();
  }

  // What a oneDPL algorithm of a device policy launches (not SYCL: see oneapi::dpl below): the
  // callable, called with Arity elements of type T (an lvalue each).
  template <typename KernelName = void, int Arity, typename T, typename K>
  event parallel_for(detail::algorithm_range<Arity, T> r, const K &k) {
    if constexpr (Arity == 0)
      k();
    else if constexpr (Arity == 1)
      k(detail::lvalue<T>());
    else
      k(detail::lvalue<T>(), detail::lvalue<T>());
    return event();
  }
};

struct default_selector_t {};
struct gpu_selector_t {};
inline constexpr default_selector_t default_selector_v{};
inline constexpr gpu_selector_t gpu_selector_v{};

void *malloc_device(size_t bytes, const queue &q);
void *malloc_shared(size_t bytes, const queue &q);
void *malloc_host(size_t bytes, const queue &q);
template <typename T> T *malloc_device(size_t count, const queue &q);
template <typename T> T *malloc_shared(size_t count, const queue &q);
template <typename T> T *malloc_host(size_t count, const queue &q);
void free(void *ptr, const queue &q);

// Math: float, double and half overloads, as the SYCL builtins resolve for scalars.
#define SYCL_MINI_MATH1(NAME)                                                                       \
  float NAME(float x);                                                                              \
  double NAME(double x);                                                                            \
  half NAME(half x);                                                                                \
  template <typename T, int N> vec<T, N> NAME(vec<T, N> x);
#define SYCL_MINI_MATH2(NAME)                                                                       \
  float NAME(float x, float y);                                                                     \
  double NAME(double x, double y);                                                                  \
  half NAME(half x, half y);
SYCL_MINI_MATH1(sqrt)
SYCL_MINI_MATH1(fabs)
SYCL_MINI_MATH1(exp)
SYCL_MINI_MATH1(sin)
SYCL_MINI_MATH1(cos)
SYCL_MINI_MATH1(rsqrt)
SYCL_MINI_MATH2(fmin)
SYCL_MINI_MATH2(fmax)
SYCL_MINI_MATH2(pow)
#undef SYCL_MINI_MATH1
#undef SYCL_MINI_MATH2
float fma(float a, float b, float c);
double fma(double a, double b, double c);
half fma(half a, half b, half c);
int abs(int x);
long abs(long x);
template <typename T> T min(T a, T b);
template <typename T> T max(T a, T b);
template <typename T> T clamp(T x, T lo, T hi);

namespace native {
float sqrt(float x);
float exp(float x);
} // namespace native
} // inline namespace _V1
} // namespace sycl

// oneDPL (and the standard parallel algorithms it extends). An algorithm whose policy is a
// device_policy runs its callables as kernels: its body launches each one through
// queue::parallel_for(detail::algorithm_range<Arity, T>, f), which calls it with Arity lvalues of
// the element type T of the first iterator (a pointer's pointee, an iterator's value_type), so
// clang instantiates generic callables with T and the oracle sees a parallel_for launch. A host
// policy's overload (std::execution::seq/par/par_unseq/unseq, oneapi::dpl::execution::seq/...)
// and the sequential algorithm without a policy never call their callables: no kernel.
namespace std {
namespace execution {
class sequenced_policy {};
class parallel_policy {};
class parallel_unsequenced_policy {};
class unsequenced_policy {};
inline constexpr sequenced_policy seq{};
inline constexpr parallel_policy par{};
inline constexpr parallel_unsequenced_policy par_unseq{};
inline constexpr unsequenced_policy unseq{};
} // namespace execution
} // namespace std

namespace oneapi {
namespace dpl {
namespace execution {
using std::execution::seq;
using std::execution::par;
using std::execution::par_unseq;
using std::execution::unseq;
struct DefaultKernelName;
template <typename KernelName = DefaultKernelName> class device_policy {
  sycl::queue q_;

public:
  device_policy();
  explicit device_policy(sycl::queue q);
  sycl::queue queue() const;
  operator sycl::queue() const;
};
inline device_policy<> dpcpp_default;
template <typename KernelName = DefaultKernelName> device_policy<KernelName> make_device_policy(sycl::queue q);
template <typename KernelName = DefaultKernelName> device_policy<KernelName> make_device_policy(const sycl::device &d);
} // namespace execution

template <typename T> class counting_iterator {
  T v_;

public:
  using value_type = T;
  counting_iterator();
  explicit counting_iterator(T init);
  T operator*() const;
  counting_iterator operator+(std::ptrdiff_t d) const;
  counting_iterator &operator++();
};
namespace detail_ {
template <typename T> class buffer_iterator {
  T *p_;

public:
  using value_type = T;
  buffer_iterator operator+(std::ptrdiff_t d) const;
};
} // namespace detail_
template <typename T> detail_::buffer_iterator<T> begin(sycl::buffer<T, 1> &buf);
template <typename T> detail_::buffer_iterator<T> end(sycl::buffer<T, 1> &buf);

namespace detail_ {
template <class P> struct is_device : std::false_type {};
template <class K> struct is_device<execution::device_policy<K>> : std::true_type {};
template <class P> struct is_host : std::false_type {};
template <> struct is_host<std::execution::sequenced_policy> : std::true_type {};
template <> struct is_host<std::execution::parallel_policy> : std::true_type {};
template <> struct is_host<std::execution::parallel_unsequenced_policy> : std::true_type {};
template <> struct is_host<std::execution::unsequenced_policy> : std::true_type {};
template <class P> using if_device = std::enable_if_t<is_device<std::decay_t<P>>::value, int>;
template <class P> using if_host = std::enable_if_t<is_host<std::decay_t<P>>::value, int>;
template <class It> struct value_of { using type = typename It::value_type; };
template <class T> struct value_of<T *> { using type = T; };
template <class It> using value_t = typename value_of<std::decay_t<It>>::type;
// each callable of a device policy's algorithm is a kernel
template <int Arity, class It, class P, class F> void run(P &pol, const F &f) {
  pol.queue().parallel_for(sycl::detail::algorithm_range<Arity, value_t<It>>{}, f);
}
} // namespace detail_

// (policy, first, ..., callable...) -> the arity of each callable
#define SYCL_MINI_ALGO1(NAME, ARITY, RET, ...)                                                      \
  template <class P, class It, class F, detail_::if_device<P> = 0>                                  \
  RET NAME(P &&pol, It first, __VA_ARGS__, F f) {                                                   \
    detail_::run<ARITY, It>(pol, f);                                                                \
    return RET();                                                                                   \
  }                                                                                                 \
  template <class P, class It, class F, detail_::if_host<P> = 0> RET NAME(P &&pol, It first, __VA_ARGS__, F f) {  \
    return RET();                                                                                   \
  }
SYCL_MINI_ALGO1(for_each, 1, void, It last)
SYCL_MINI_ALGO1(for_each_n, 1, void, std::size_t n)
SYCL_MINI_ALGO1(sort, 2, void, It last)
SYCL_MINI_ALGO1(stable_sort, 2, void, It last)
SYCL_MINI_ALGO1(count_if, 1, std::ptrdiff_t, It last)
SYCL_MINI_ALGO1(all_of, 1, bool, It last)
SYCL_MINI_ALGO1(any_of, 1, bool, It last)
SYCL_MINI_ALGO1(none_of, 1, bool, It last)
SYCL_MINI_ALGO1(find_if, 1, It, It last)
SYCL_MINI_ALGO1(min_element, 2, It, It last)
SYCL_MINI_ALGO1(max_element, 2, It, It last)
SYCL_MINI_ALGO1(generate, 0, void, It last)
#undef SYCL_MINI_ALGO1
// transform (unary and binary), copy_if, inclusive_scan: an output iterator
template <class P, class It, class Out, class F, detail_::if_device<P> = 0>
Out transform(P &&pol, It first, It last, Out out, F f) {
  detail_::run<1, It>(pol, f);
  return out;
}
template <class P, class It, class Out, class F, detail_::if_host<P> = 0>
Out transform(P &&pol, It first, It last, Out out, F f) { return out; }
template <class P, class It, class It2, class Out, class F, detail_::if_device<P> = 0>
Out transform(P &&pol, It first, It last, It2 first2, Out out, F f) {
  detail_::run<2, It>(pol, f);
  return out;
}
template <class P, class It, class It2, class Out, class F, detail_::if_host<P> = 0>
Out transform(P &&pol, It first, It last, It2 first2, Out out, F f) { return out; }
template <class P, class It, class Out, class F, detail_::if_device<P> = 0>
Out copy_if(P &&pol, It first, It last, Out out, F f) {
  detail_::run<1, It>(pol, f);
  return out;
}
template <class P, class It, class Out, class F, detail_::if_host<P> = 0>
Out copy_if(P &&pol, It first, It last, Out out, F f) { return out; }
template <class P, class It, class Out, class F, detail_::if_device<P> = 0>
Out inclusive_scan(P &&pol, It first, It last, Out out, F f) {
  detail_::run<2, It>(pol, f);
  return out;
}
template <class P, class It, class Out, class F, detail_::if_host<P> = 0>
Out inclusive_scan(P &&pol, It first, It last, Out out, F f) { return out; }
// reduce / transform_reduce: the init value's type
template <class P, class It, class T, class F, detail_::if_device<P> = 0>
T reduce(P &&pol, It first, It last, T init, F f) {
  detail_::run<2, It>(pol, f);
  return init;
}
template <class P, class It, class T, class F, detail_::if_host<P> = 0>
T reduce(P &&pol, It first, It last, T init, F f) { return init; }
template <class P, class It, class T, class R, class F, detail_::if_device<P> = 0>
T transform_reduce(P &&pol, It first, It last, T init, R r, F f) {
  detail_::run<2, It>(pol, r);
  detail_::run<1, It>(pol, f);
  return init;
}
template <class P, class It, class T, class R, class F, detail_::if_host<P> = 0>
T transform_reduce(P &&pol, It first, It last, T init, R r, F f) { return init; }
} // namespace dpl
} // namespace oneapi

namespace dpl = oneapi::dpl;

namespace std {
using oneapi::dpl::all_of;
using oneapi::dpl::any_of;
using oneapi::dpl::copy_if;
using oneapi::dpl::count_if;
using oneapi::dpl::find_if;
using oneapi::dpl::for_each;
using oneapi::dpl::for_each_n;
using oneapi::dpl::generate;
using oneapi::dpl::inclusive_scan;
using oneapi::dpl::max_element;
using oneapi::dpl::min_element;
using oneapi::dpl::none_of;
using oneapi::dpl::reduce;
using oneapi::dpl::sort;
using oneapi::dpl::stable_sort;
using oneapi::dpl::transform;
using oneapi::dpl::transform_reduce;
// the sequential algorithm (no policy): host code
template <class It, class F> F for_each(It first, It last, F f) { return f; }
} // namespace std
