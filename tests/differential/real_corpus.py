#!/usr/bin/env python3
"""Real-code differential run: sycl-analyzer against the libclang oracle on real SYCL programs.

Each program directory (HeCBench's `*-sycl`, or any directory given) is copied to a temp dir with
its `#include <sycl/...>` / `<CL/sycl.hpp>` lines replaced, one line for one line, by
`sycl_mini_real.hpp`: the text of `sycl_mini.hpp` (never edited) with its `namespace std` prelude
replaced by the system's real libstdc++ headers (found with `g++ -v`, so unqualified `sqrt(float)`
resolves as under DPC++), with the members of PATCHES added and the API of SYCL_EXTRA appended.
Headers the corpus lacks become empty files. The system headers and the header copy are "the
library" for the oracle.

Every translation unit (a `.cpp` no other file of the program `#include`s) goes through the
oracle. A TU is kept when clang reports no error, or only errors shown to lie in host code that no
kernel's reach depends on (see host_error(); conservative); otherwise it is dropped, and the first
harmful error is reported. The analyzer checks the ORIGINAL directory (`check DIR --targets spir64
--no-cache --format json`). Kernels are matched by (file, line, column) in the files the kept TUs
cover and compared per aspect on the oracle's `used_folded` view. A kernel whose reach calls a
function the TU has no definition of is left out (SYCL_EXTERNAL defined in another TU: the oracle
sees one TU at a time; or a template clang did not instantiate because of an error).

    real_corpus.py [DIR...] [--jobs 2] [--json-report FILE] [--analyzer BIN] [--keep-temp] [--tu GLOB]

Without DIR it runs over /tmp/corpora/hecbench/src/*-sycl.
"""

import argparse, collections, fnmatch, glob, json, multiprocessing, os, re, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
ASPECTS = ["fp64", "fp16", "atomic64"]
EXTERNAL = "calls a function whose definition this TU lacks:"
SRC_EXT = (".sycl", ".cpp", ".cc", ".cxx", ".c++", ".h", ".hpp", ".hh", ".hxx", ".cuh", ".inc", ".ipp", ".tpp", ".inl", ".def")
TU_EXT = (".cpp", ".cc", ".cxx")
# System headers clang cannot read (GCC's omp.h and x86 intrinsics): replaced by empty files.
OVERRIDDEN = ("omp.h immintrin.h x86intrin.h xmmintrin.h emmintrin.h pmmintrin.h tmmintrin.h smmintrin.h nmmintrin.h "
              "wmmintrin.h avxintrin.h avx2intrin.h mm_malloc.h").split()
SYCL_INCLUDE = re.compile(r'^(\ufeff?[ \t]*#[ \t]*include[ \t]*)[<"](sycl/[^>"\n]*|CL/sycl\.hpp|CL/sycl/[^>"\n]*)[>"]', re.M)
# sycl_mini.hpp declares std::execution's policies itself (oneDPL's algorithms overload on them):
# libstdc++'s <execution> would declare them a second time.
EXECUTION_INCLUDE = re.compile(r'^(\ufeff?[ \t]*)#[ \t]*include[ \t]*<execution>', re.M)
INCLUDE = re.compile(r'^\ufeff?[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)

# What sycl.hpp brings in besides itself (DPC++'s header pulls in all of these and more).
STD_PRELUDE = "".join("#include <%s>\n" % h for h in (
    "cmath cstddef cstdint cstdlib cstring type_traits utility array complex functional memory string vector "
    "exception system_error iostream algorithm limits tuple mutex chrono").split()) + (
    # sycl_mini.hpp uses C++20's remove_cvref_t; the oracle parses as C++17, DPC++'s default
    "#if __cplusplus <= 201703L\nnamespace std { template <class T> using remove_cvref_t = remove_cv_t<remove_reference_t<T>>; }\n#endif\n")

# Additions to the copy of sycl_mini.hpp. "@@ LINE" inserts the text that follows after that (unique)
# line of sycl_mini.hpp, "@@< LINE" before it, "@@= LINE" replaces it; "\n" in LINE spans lines.
# "SCOPE ... LINE" is the first LINE after the unique SCOPE (a member of one class when several
# classes declare it).
PATCHES = r"""
@@< enum class aspect {
class sub_group; class context; class platform;
enum class rounding_mode { automatic, rte, rtz, rtp, rtn };
namespace access { enum class fence_space { local_space, global_space, global_and_local }; }
namespace detail {  // acc[i][j] for accessors of 2 or 3 dimensions
template <typename T, int D> struct acc_proxy { acc_proxy<T, D - 1> operator[](size_t i) const; };
template <typename T> struct acc_proxy<T, 1> { T &operator[](size_t i) const; };
template <typename T, int D> struct acc_sub { using type = acc_proxy<T, D - 1>; };
template <typename T> struct acc_sub<T, 1> { using type = T &; };
template <typename T> struct acc_sub<T, 0> { using type = T &; };
template <typename T> using rel_t = std::conditional_t<sizeof(T) == 8, long, std::conditional_t<sizeof(T) == 4, int,
                                    std::conditional_t<sizeof(T) == 2, short, signed char>>>;  // vec comparisons
}
@@= template <int Dims> item<Dims> make_item();\ntemplate <int Dims> nd_item<Dims> make_nd_item();\ntemplate <int Dims> group<Dims> make_group();
// DPC++ hands the kernel an lvalue item (`[=](auto &i)` binds): references here
template <int Dims> item<Dims> &make_item();
template <int Dims> nd_item<Dims> &make_nd_item();
template <int Dims> group<Dims> &make_group();
@@   friend bool operator!=(const half &a, const half &b);
  half &operator--(); half operator--(int);  // DPC++'s half takes any arithmetic operand:
#define RC_HI(R) template <typename I> friend std::enable_if_t<std::is_integral_v<I>, R>
#define RC_HO(OP) RC_HI(half) operator OP(const half &a, I b); RC_HI(half) operator OP(I a, const half &b);
#define RC_HC(OP) RC_HI(bool) operator OP(const half &a, I b); RC_HI(bool) operator OP(I a, const half &b); \
  friend bool operator OP(const half &a, float b); friend bool operator OP(float a, const half &b); \
  friend bool operator OP(const half &a, double b); friend bool operator OP(double a, const half &b);
  RC_HO(+) RC_HO(-) RC_HO(*) RC_HO(/) RC_HC(<) RC_HC(>) RC_HC(<=) RC_HC(>=) RC_HC(==) RC_HC(!=)
#undef RC_HI
#undef RC_HO
#undef RC_HC
@@   template <int D = Dims, typename = std::enable_if_t<D == 3>> range(size_t d0, size_t d1, size_t d2);
  friend range operator*(const range &, const range &); friend range operator+(const range &, const range &);
  friend range operator-(const range &, const range &); friend range operator/(const range &, const range &);
  friend range operator*(const range &, size_t); friend range operator*(size_t, const range &);
  friend range operator/(const range &, size_t); friend range operator+(const range &, size_t);
  friend range operator-(const range &, size_t);
@@   friend id operator-(const id &a, const id &b);
  friend id operator+(const id &a, size_t b); friend id operator*(const id &a, size_t b);
  // `100 + idx`: an exact match for any integer, as DPC++ accepts it (a size_t parameter would tie
  // with the built-in + through operator size_t)
  template <typename I> friend std::enable_if_t<std::is_integral_v<I>, id> operator+(I a, const id &b);
  template <typename I> friend std::enable_if_t<std::is_integral_v<I>, id> operator*(I a, const id &b);
@@   operator size_t() const; // Dims == 1
  id<Dims> get_offset() const;
@@ class group { ...   size_t get_group_linear_id() const;
  id<Dims> get_local_id() const; size_t get_local_id(int d) const; size_t get_local_linear_id() const;
  range<Dims> get_group_range() const; size_t get_group_range(int d) const; size_t get_group_linear_range() const;
  size_t get_local_linear_range() const; range<Dims> get_max_local_range() const; bool leader() const;
  template <typename W> void parallel_for_work_item(const W &w) const;
  template <typename W> void parallel_for_work_item(range<Dims> r, const W &w) const;
@@   nd_range(range<Dims> global, range<Dims> local);
  nd_range(range<Dims> global, range<Dims> local, id<Dims> offset);
@@   void barrier() const;
  void barrier(access::fence_space s) const; void mem_fence(access::fence_space s = access::fence_space::global_and_local) const;
  size_t get_global_range(int d) const; size_t get_local_range(int d) const; range<Dims> get_group_range() const;
  size_t get_group_range(int d) const; size_t get_group_linear_id() const;
  nd_range<Dims> get_nd_range() const; id<Dims> get_offset() const;
@@ class sub_group { ...   size_t get_group_linear_id() const;
  range<1> get_max_local_range() const; id<1> get_group_id() const; range<1> get_group_range() const;
  size_t get_local_linear_range() const; size_t get_group_linear_range() const; bool leader() const; void barrier() const;
  template <typename T> T shuffle(T x, id<1> l) const; template <typename T> T shuffle_down(T x, uint32_t d) const;
  template <typename T> T shuffle_up(T x, uint32_t d) const; template <typename T> T shuffle_xor(T x, id<1> m) const;
  template <typename T> T broadcast(T x, id<1> l) const;
@@= template <class It, class F> F for_each(It first, It last, F f) { return f; }
// (the sequential std::for_each is libstdc++'s here)
@@   T operator++() const;
  T operator--(int) const; T operator--() const; T operator-=(T v) const; T operator&=(T v) const;
  T operator|=(T v) const; T operator^=(T v) const;
  T fetch_and(T v, memory_order order = DefaultOrder, memory_scope scope = DefaultScope) const;
  T fetch_or(T v, memory_order order = DefaultOrder, memory_scope scope = DefaultScope) const;
  T fetch_xor(T v, memory_order order = DefaultOrder, memory_scope scope = DefaultScope) const;
  bool compare_exchange_weak(T &e, T d, memory_order order = DefaultOrder, memory_scope scope = DefaultScope) const;
  bool compare_exchange_strong(T &e, T d, memory_order s, memory_order f, memory_scope scope = DefaultScope) const;
  bool compare_exchange_weak(T &e, T d, memory_order s, memory_order f, memory_scope scope = DefaultScope) const;
  static constexpr bool is_always_lock_free = true; bool is_lock_free() const;
@@   T fetch_max(T v, memory_order order = memory_order::relaxed) const;
  T fetch_min(T v, memory_order o = memory_order::relaxed) const; T fetch_sub(T v, memory_order o = memory_order::relaxed) const;
  T fetch_and(T v, memory_order o = memory_order::relaxed) const; T fetch_or(T v, memory_order o = memory_order::relaxed) const;
  T exchange(T v, memory_order o = memory_order::relaxed) const;
  bool compare_exchange_strong(T &e, T d, memory_order s = memory_order::relaxed, memory_order f = memory_order::relaxed) const;
@@   T *operator->() const;
  T *get_raw() const; T *get_decorated() const; operator T *() const;
  template <typename U> explicit operator multi_ptr<U, Space, D>() const;
@@=   template <typename U> vec<U, N> convert() const;
  template <typename U, rounding_mode R = rounding_mode::automatic> vec<U, N> convert() const;
@@   vec<T, 4> xxyy() const;
  vec<T, 2> xz() const; vec<T, 2> yz() const; vec<T, 2> zw() const; vec<T, 3> xyz() const;
  vec<T, N / 2> lo() const; vec<T, N / 2> hi() const; vec<T, N / 2> even() const; vec<T, N / 2> odd() const;
  const T &s0() const; const T &s1() const; T &s2(); T &s3(); T &s4(); T &s5(); T &s6(); T &s7(); const T &s2() const;
  const T &s3() const; const T &s4() const; const T &s5() const; const T &s6() const; const T &s7() const;
  template <typename... A, typename = std::enable_if_t<(sizeof...(A) == N && N > 4)>> vec(const A &...a);
  vec(const vec<T, 2> &a, const vec<T, 2> &b);
  template <access::address_space S, access::decorated D> void load(size_t o, multi_ptr<const T, S, D> p);
  template <access::address_space S, access::decorated D> void store(size_t o, multi_ptr<T, S, D> p) const;
@@   friend vec operator*(const T &a, const vec &b);
#define RC_VO(OP) friend vec operator OP(const vec &a, const vec &b); friend vec operator OP(const vec &a, const T &b); \
  vec &operator OP##=(const vec &o); vec &operator OP##=(const T &o);
  RC_VO(%) RC_VO(&) RC_VO(|) RC_VO(^) RC_VO(>>) RC_VO(<<)
#define RC_VC(OP) friend vec<detail::rel_t<T>, N> operator OP(const vec &a, const vec &b); \
  friend vec<detail::rel_t<T>, N> operator OP(const vec &a, const T &b);
  RC_VC(<) RC_VC(>) RC_VC(<=) RC_VC(>=) RC_VC(==) RC_VC(!=) RC_VC(&&) RC_VC(||)
#undef RC_VO
#undef RC_VC
  vec &operator=(const T &v); vec &operator-=(const vec &o); vec &operator/=(const vec &o); vec &operator-=(const T &o);
  vec &operator/=(const T &o); friend vec operator-(const vec &a); friend vec operator~(const vec &a);
  friend vec operator-(const vec &a, const T &b); friend vec operator/(const vec &a, const T &b);
  friend vec operator-(const T &a, const vec &b); friend vec operator/(const T &a, const vec &b);
@@=   T &operator[](item<Dims> i) const;\n  T &operator[](size_t i) const;
  T &operator[](item<Dims> i) const; typename detail::acc_sub<T, Dims>::type operator[](size_t i) const;
  accessor(range<Dims> r, handler &h); accessor(buffer<T, Dims> &buf);
  accessor(buffer<T, Dims> &buf, handler &h, range<Dims> r, id<Dims> o = id<Dims>());
  template <access_mode M, typename P> accessor(buffer<T, Dims> &buf, handler &h, mode_tag_t<M> tag, P prop);
  template <access::decorated D = access::decorated::legacy>
  multi_ptr<T, access::address_space::global_space, D> get_multi_ptr() const;
@@=   T &operator[](id<Dims> i) const;\n  T &operator[](size_t i) const;\n  size_t size() const;\n  local_ptr<T> get_pointer() const;
  T &operator[](id<Dims> i) const; typename detail::acc_sub<T, Dims>::type operator[](size_t i) const; size_t size() const;
  local_ptr<T> get_pointer() const; range<Dims> get_range() const;
  local_accessor(handler &h); operator T &() const; const local_accessor &operator=(const T &v) const;  // Dims == 0
  template <access::decorated D = access::decorated::legacy>
  multi_ptr<T, access::address_space::local_space, D> get_multi_ptr() const;
@@   buffer(T *hostData, const range<Dims> &r);
  buffer(const T *hostData, const range<Dims> &r); template <typename P> buffer(T *h, const range<Dims> &r, const P &p);
  template <typename It, typename = std::enable_if_t<!std::is_integral_v<It>>> buffer(It first, It last);
  template <typename C, typename = decltype(std::declval<C &>().data())> buffer(C &container);  // contiguous container
  template <access_mode Mode = access_mode::read_write> accessor<T, Dims, Mode, target::host_buffer> get_access();
  accessor<T, Dims, access_mode::read_write, target::host_buffer> get_host_access();
  template <typename M> accessor<T, Dims, access_mode::read_write, target::host_buffer> get_host_access(M m);
  template <typename D> void set_final_data(D d); void set_write_back(bool b = true);
@@ class event {\npublic:
  void wait_and_throw(); static void wait(const std::vector<event> &e);
  template <typename P> typename P::return_type get_profiling_info() const;
@@   bool has(aspect a) const;
  device(); template <typename S> explicit device(const S &s); template <typename P> typename P::return_type get_info() const;
  bool is_gpu() const; bool is_cpu() const; bool is_accelerator() const; platform get_platform() const;
  template <typename I = int> static std::vector<device> get_devices(I t = I());
@@   void memcpy(void *dst, const void *src, size_t bytes);
  void memset(void *dst, int v, size_t bytes); void depends_on(event e); void depends_on(const std::vector<event> &e);
  template <typename S, typename D> void copy(S src, D dst); template <typename T> void copy(const T *s, T *d, size_t n);
  template <typename F> void host_task(F f);
@@   template <typename Selector> explicit queue(const Selector &s);
  template <typename Selector, typename P> queue(const Selector &s, const P &p);
  template <typename C, typename D, typename P> queue(const C &c, const D &d, const P &p);
  event memset(void *dst, int v, size_t bytes); template <typename T> event copy(const T *src, T *dst, size_t n);
  event prefetch(const void *p, size_t bytes); event mem_advise(const void *p, size_t bytes, int advice);
  void wait_and_throw(); context get_context() const; bool is_in_order() const;
  template <typename CGF> event submit(CGF cgf, queue &secondary);
"""

SYCL_EXTRA = r"""
// ---- real_corpus.py: API real programs use beyond sycl_mini.hpp -------------------------------
#define SYCL_EXTERNAL
namespace sycl {
inline namespace _V1 {
class context { public: context(); template <typename D> explicit context(const D &d); };
class platform { public: template <typename P> typename P::return_type get_info() const;
  template <typename I = int> std::vector<device> get_devices(I t = I()) const; static std::vector<platform> get_platforms(); };
class exception : public std::exception { public: const char *what() const noexcept override; std::error_code code() const; };
class exception_list { std::vector<std::exception_ptr> v_; public: using const_iterator = std::vector<std::exception_ptr>::const_iterator;
  const_iterator begin() const; const_iterator end() const; size_t size() const; };
using async_handler = std::function<void(exception_list)>;
class property_list { public: template <typename... P> property_list(P... p); };
namespace property { namespace queue { struct in_order {}; struct enable_profiling {}; }
  namespace buffer { struct use_host_ptr {}; } namespace reduction { struct initialize_to_identity {}; } }
struct no_init_t {}; inline constexpr no_init_t no_init{};
struct cpu_selector_t {}; struct accelerator_selector_t {}; inline constexpr cpu_selector_t cpu_selector_v{};
inline constexpr accelerator_selector_t accelerator_selector_v{};
struct default_selector {}; struct gpu_selector {}; struct cpu_selector {}; struct host_selector {};
namespace info {
enum class device_type { cpu, gpu, accelerator, custom, automatic, host, all };
#define RC_INFO(NAME, T) struct NAME { using return_type = T; };
namespace device { RC_INFO(name, std::string) RC_INFO(vendor, std::string) RC_INFO(version, std::string)
  RC_INFO(driver_version, std::string) RC_INFO(max_compute_units, uint32_t) RC_INFO(max_work_group_size, size_t)
  RC_INFO(global_mem_size, uint64_t) RC_INFO(local_mem_size, uint64_t) RC_INFO(max_clock_frequency, uint32_t)
  RC_INFO(sub_group_sizes, std::vector<size_t>) RC_INFO(max_mem_alloc_size, uint64_t) RC_INFO(device_type, info::device_type)
  RC_INFO(max_work_item_sizes, range<3>) RC_INFO(atomic_memory_scope_capabilities, std::vector<memory_scope>)
  RC_INFO(max_num_sub_groups, uint32_t) RC_INFO(global_mem_cache_size, uint64_t) }
namespace platform { RC_INFO(name, std::string) RC_INFO(vendor, std::string) RC_INFO(version, std::string) }
namespace event_profiling { RC_INFO(command_start, uint64_t) RC_INFO(command_end, uint64_t) RC_INFO(command_submit, uint64_t) }
#undef RC_INFO
}
template <typename T> struct is_device_copyable : std::true_type {};
template <typename To, typename From> To bit_cast(const From &f);
template <access::address_space S, access::decorated D, typename T> multi_ptr<T, S, D> address_space_cast(T *p);
void atomic_fence(memory_order o, memory_scope s);
void *aligned_alloc_device(size_t a, size_t bytes, const queue &q); void *aligned_alloc_shared(size_t a, size_t bytes, const queue &q);
void *aligned_alloc_host(size_t a, size_t bytes, const queue &q); template <typename T> T *aligned_alloc_device(size_t a, size_t n, const queue &q);
template <typename T> T *aligned_alloc_shared(size_t a, size_t n, const queue &q);
template <typename T> T *aligned_alloc_host(size_t a, size_t n, const queue &q);
void *malloc_host(size_t bytes, const context &c); void free(void *ptr, const context &c);
template <typename T, int Dims = 1> class host_accessor { T *p_; public: host_accessor(buffer<T, Dims> &b);
  template <typename M> host_accessor(buffer<T, Dims> &b, M m); typename detail::acc_sub<T, Dims>::type operator[](size_t i) const;
  T &operator[](id<Dims> i) const; T *get_pointer() const; };
template <typename C, typename = decltype(std::declval<C &>().data())> buffer(C &) -> buffer<typename C::value_type, 1>;
template <typename T, int Dims> host_accessor(buffer<T, Dims> &) -> host_accessor<T, Dims>;
template <typename T, int Dims, typename M> host_accessor(buffer<T, Dims> &, M) -> host_accessor<T, Dims>;
template <typename T, int Dims, access_mode M, typename P>
accessor(buffer<T, Dims> &, handler &, mode_tag_t<M>, P) -> accessor<T, Dims, M, target::device>;
enum class stream_manipulator { flush, dec, hex, oct, noshowbase, showbase, noshowpos, showpos, endl, fixed, scientific, hexfloat, defaultfloat };
inline constexpr stream_manipulator endl = stream_manipulator::endl; inline constexpr stream_manipulator flush = stream_manipulator::flush;
class stream { public: stream(size_t total, size_t work_item, handler &h);
  template <typename T> friend const stream &operator<<(const stream &s, const T &v); };

#define RC_FN(NAME, OP) template <typename T = void> struct NAME { T operator()(const T &a, const T &b) const; }; \
  template <> struct NAME<void> { template <typename A, typename B> auto operator()(const A &a, const B &b) const -> decltype(a OP b); };
// (plus, multiplies, maximum, minimum and the group algorithms over values are sycl_mini.hpp's)
RC_FN(bit_or, |) RC_FN(bit_and, &) RC_FN(bit_xor, ^) RC_FN(logical_or, ||) RC_FN(logical_and, &&)
#undef RC_FN
template <typename G, typename T, typename I> T group_broadcast(G g, T x, I l);
template <typename G, typename T> T select_from_group(G g, T x, id<1> l);
template <typename G> bool any_of_group(G g, bool p); template <typename G> bool all_of_group(G g, bool p);
template <typename G> bool none_of_group(G g, bool p); template <typename G> void group_barrier(G g, memory_scope s = memory_scope::work_group);

// Math: the float/double/half/vec overload set sycl_mini.hpp uses.
#define RC_M1(NAME) float NAME(float x); double NAME(double x); half NAME(half x); template <typename T, int N> vec<T, N> NAME(vec<T, N> x);
#define RC_M2(NAME) float NAME(float x, float y); double NAME(double x, double y); half NAME(half x, half y); \
  template <typename T, int N> vec<T, N> NAME(vec<T, N> x, vec<T, N> y);
#define RC_MI(NAME) float NAME(float x, int y); double NAME(double x, int y); half NAME(half x, int y);
#define RC_MB(NAME) bool NAME(float x); bool NAME(double x); bool NAME(half x);
#define RC_MP(NAME) float NAME(float x, float *y); double NAME(double x, double *y); half NAME(half x, half *y); \
  template <typename T, access::address_space S, access::decorated D> T NAME(T x, multi_ptr<T, S, D> y);
#define RC_M3(NAME) float NAME(float a, float b, float c); double NAME(double a, double b, double c); half NAME(half a, half b, half c);
RC_M1(log) RC_M1(log2) RC_M1(log10) RC_M1(log1p) RC_M1(exp2) RC_M1(exp10) RC_M1(expm1) RC_M1(tan) RC_M1(tanh) RC_M1(sinh)
RC_M1(cosh) RC_M1(asin) RC_M1(acos) RC_M1(atan) RC_M1(asinh) RC_M1(acosh) RC_M1(atanh) RC_M1(floor) RC_M1(ceil) RC_M1(trunc)
RC_M1(round) RC_M1(rint) RC_M1(cbrt) RC_M1(erf) RC_M1(erfc) RC_M1(tgamma) RC_M1(lgamma) RC_M1(sinpi) RC_M1(cospi) RC_M1(tanpi)
RC_M1(logb) RC_M1(sign) RC_M1(degrees) RC_M1(radians) RC_M1(recip) RC_M1(normalize) RC_M1(fast_normalize)
RC_M2(atan2) RC_M2(fmod) RC_M2(hypot) RC_M2(copysign) RC_M2(fdim) RC_M2(powr) RC_M2(step) RC_M2(remainder) RC_M2(maxmag)
RC_M2(minmag) RC_M2(nextafter) RC_M2(atan2pi) RC_MI(pown) RC_MI(rootn) RC_MI(ldexp) RC_MB(isnan) RC_MB(isinf) RC_MB(isfinite)
RC_MB(signbit) RC_MB(isnormal) RC_MP(sincos) RC_MP(modf) RC_MP(fract) RC_M3(mad) RC_M3(mix) RC_M3(smoothstep) RC_M3(clamp)
float frexp(float x, int *e); double frexp(double x, int *e); half frexp(half x, int *e);
template <typename T, int N> vec<T, N> fma(vec<T, N> a, vec<T, N> b, vec<T, N> c);
float abs(float x); double abs(double x); half abs(half x); template <typename T> T abs(T x);
template <typename T, typename U> std::common_type_t<T, U> min(T a, U b); template <typename T, typename U> std::common_type_t<T, U> max(T a, U b);
float nan(uint32_t c); double nan(uint64_t c);
float dot(float a, float b); double dot(double a, double b); half dot(half a, half b); template <typename T, int N> T dot(vec<T, N> a, vec<T, N> b);
float length(float a); double length(double a); template <typename T, int N> T length(vec<T, N> a);
float distance(float a, float b); double distance(double a, double b); template <typename T, int N> T distance(vec<T, N> a, vec<T, N> b);
template <typename T, int N> vec<T, N> cross(vec<T, N> a, vec<T, N> b);
template <typename T, int N> bool any(vec<T, N> a); template <typename T, int N> bool all(vec<T, N> a);
#define RC_I1(NAME) template <typename T> T NAME(T x);
#define RC_I2(NAME) template <typename T> T NAME(T x, T y);
RC_I1(popcount) RC_I1(clz) RC_I1(ctz) RC_I2(mul24) RC_I2(mul_hi) RC_I2(rotate) RC_I2(hadd) RC_I2(rhadd) RC_I2(add_sat) RC_I2(sub_sat)
template <typename T> T mad24(T x, T y, T z); template <typename T> T mad_hi(T a, T b, T c);
template <typename T> std::make_unsigned_t<T> abs_diff(T x, T y); template <typename T, typename U> auto upsample(T hi, U lo) -> decltype((long long)hi);
template <typename T> T select(T a, T b, bool c);
#define RC_N1(NAME) float NAME(float x); template <typename T, int N> vec<T, N> NAME(vec<T, N> x);
#define RC_N2(NAME) float NAME(float x, float y); template <typename T, int N> vec<T, N> NAME(vec<T, N> x, vec<T, N> y);
namespace native {  // float only
RC_N1(log) RC_N1(log2) RC_N1(log10) RC_N1(exp2) RC_N1(exp10) RC_N1(sin) RC_N1(cos) RC_N1(tan) RC_N1(rsqrt) RC_N1(recip) RC_N2(divide) RC_N2(powr)
}
namespace half_precision { RC_N1(exp) RC_N1(log) RC_N1(sqrt) RC_N1(recip) RC_N1(rsqrt) RC_N1(sin) RC_N1(cos) RC_N2(divide) }
#undef RC_N1
#undef RC_N2
#undef RC_M1
#undef RC_M2
#undef RC_M3
#undef RC_MI
#undef RC_MB
#undef RC_MP
#undef RC_I1
#undef RC_I2

using uchar = unsigned char; using ushort = unsigned short; using uint = unsigned int; using ulong = unsigned long;
using schar = signed char; using longlong = long long; using ulonglong = unsigned long long;
#define RC_VEC(T, P) using P##2 = vec<T, 2>; using P##3 = vec<T, 3>; using P##4 = vec<T, 4>; using P##8 = vec<T, 8>; using P##16 = vec<T, 16>;
RC_VEC(char, char) RC_VEC(unsigned char, uchar) RC_VEC(signed char, schar) RC_VEC(short, short) RC_VEC(unsigned short, ushort)
RC_VEC(unsigned int, uint) RC_VEC(int64_t, long) RC_VEC(uint64_t, ulong) RC_VEC(bool, bool)
#undef RC_VEC
using int3 = vec<int, 3>; using int8 = vec<int, 8>; using int16 = vec<int, 16>; using float3 = vec<float, 3>; using float8 = vec<float, 8>;
using float16 = vec<float, 16>; using double3 = vec<double, 3>; using double8 = vec<double, 8>; using double16 = vec<double, 16>;
using half3 = vec<half, 3>; using half8 = vec<half, 8>; using half16 = vec<half, 16>;

namespace ext { namespace oneapi {
class bfloat16 { uint16_t v_; public:  // no aspect: a 16-bit class converted to and from float
  bfloat16() = default; bfloat16(float f); operator float() const; bfloat16 &operator+=(const bfloat16 &o);
  bfloat16 &operator-=(const bfloat16 &o); bfloat16 &operator*=(const bfloat16 &o); bfloat16 &operator/=(const bfloat16 &o);
  friend bfloat16 operator-(const bfloat16 &a);
#define RC_BF(OP) friend bfloat16 operator OP(const bfloat16 &a, const bfloat16 &b); \
  friend float operator OP(const bfloat16 &a, float b); friend float operator OP(float a, const bfloat16 &b); \
  friend double operator OP(const bfloat16 &a, double b); friend double operator OP(double a, const bfloat16 &b); \
  friend bfloat16 operator OP(const bfloat16 &a, int b); friend bfloat16 operator OP(int a, const bfloat16 &b);
#define RC_BC(OP) friend bool operator OP(const bfloat16 &a, const bfloat16 &b); \
  friend bool operator OP(const bfloat16 &a, float b); friend bool operator OP(float a, const bfloat16 &b);
  RC_BF(+) RC_BF(-) RC_BF(*) RC_BF(/) RC_BC(<) RC_BC(>) RC_BC(<=) RC_BC(>=) RC_BC(==) RC_BC(!=)
#undef RC_BF
#undef RC_BC
};
using sycl::plus; using sycl::multiplies; using sycl::maximum; using sycl::minimum; using sycl::bit_or; using sycl::bit_and;
using sycl::bit_xor; using sycl::sub_group; using sycl::reduce_over_group;
struct sub_group_mask { uint32_t count() const; bool operator[](id<1> i) const; template <typename T> void extract_bits(T &o, id<1> p = 0) const; };
template <typename G> sub_group_mask group_ballot(G g, bool p = true);
template <typename T, typename G> multi_ptr<T, access::address_space::local_space, access::decorated::legacy> group_local_memory_for_overwrite(G g);
template <typename T, typename G, typename... A>
multi_ptr<T, access::address_space::local_space, access::decorated::legacy> group_local_memory(G g, A &&...a);
namespace experimental { using sycl::reduce_over_group;
template <typename T, typename P = void> class device_global { T v_; public: T &get(); const T &get() const; operator T &(); };
namespace cuda { template <typename T> T ldg(const T *p); }
}
}}
}
}
"""


def system_includes():
    try:
        out = subprocess.run(["g++", "-E", "-x", "c++", "-", "-v"], input="", capture_output=True, text=True).stderr
        lines = out.split("#include <...> search starts here:")[1].split("End of search list.")[0].split("\n")
        return [l.strip() for l in lines if l.strip()]
    except (OSError, IndexError):
        return sorted(glob.glob("/usr/include/c++/*"))[-1:] + ["/usr/include/x86_64-linux-gnu", "/usr/include"]


def find_anchor(text, anchor):
    """(offset, line) of a PATCHES anchor: a line found once, or "SCOPE ... LINE" (see PATCHES)."""
    scope, _, line = anchor.rpartition(" ... ")
    start = 0
    if scope:
        if text.count(scope) != 1:
            raise SystemExit("real_corpus: sycl_mini.hpp changed, scope not found once: %r" % scope)
        start = text.index(scope) + len(scope)
    elif text.count(line) != 1:
        raise SystemExit("real_corpus: sycl_mini.hpp changed, anchor not found once: %r" % line)
    at = text.find(line, start)
    if at < 0:
        raise SystemExit("real_corpus: sycl_mini.hpp changed, anchor not found: %r" % anchor)
    return at, line


def make_header(path):
    """sycl_mini.hpp's text with the real std instead of its prelude, PATCHES applied, SYCL_EXTRA appended."""
    text = open(os.path.join(HERE, "sycl_mini.hpp")).read()
    text = text[: text.index("namespace std {")] + STD_PRELUDE + text[text.index("namespace sycl {") :]
    for block in PATCHES.split("\n@@")[1:]:
        head, body = block.split("\n", 1)
        mode, anchor = head[0] if head[0] in "<=" else "", head[1 if head[0] in "<=" else 0 :][1:].replace("\\n", "\n")
        at, anchor = find_anchor(text, anchor)
        body = body.rstrip("\n")
        text = text[:at] + {"<": body + "\n" + anchor, "=": body}.get(mode, anchor + "\n" + body) + text[at + len(anchor) :]
    with open(path, "w") as f:
        f.write(text + SYCL_EXTRA)


def check_header(header, sysinc):
    """Stops when the header copy alone does not compile: an error there would drop every TU (a
    declaration sycl_mini.hpp gained that PATCHES or SYCL_EXTRA declares again, say)."""
    import clang.cindex as ci

    probe = os.path.join(os.path.dirname(header), "_probe_.cpp")
    with open(probe, "w") as f:
        f.write('#include "%s"\n' % os.path.basename(header))
    args = ["-x", "c++", "-std=c++17", "-nostdinc", "-nostdinc++", "-I", os.path.dirname(header)]
    for d in sysinc:
        args += ["-isystem", d]
    tu = ci.Index.create().parse(probe, args=args)  # kept alive while its diagnostics are read
    errs = ["  line %d: %s\n" % (d.location.line, d.spelling) for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    os.remove(probe)
    if errs:
        raise SystemExit("real_corpus: the header copy does not compile (%s):\n" % header + "".join(errs[:20]))


def read(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def copy_program(src, dst, header):
    """Copies the program's source files, SYCL includes replaced line for line (lines and columns kept)."""
    for root, _, files in os.walk(src):
        for fn in files:
            s = os.path.join(root, fn)
            if fn.lower().endswith(SRC_EXT) and os.path.isfile(s):
                d = os.path.join(dst, os.path.relpath(s, src))
                os.makedirs(os.path.dirname(d), exist_ok=True)
                with open(d, "w", encoding="utf-8", errors="surrogateescape") as f:
                    text = SYCL_INCLUDE.sub(r'\1"%s"' % header, read(s))
                    f.write(EXECUTION_INCLUDE.sub(r"\1// <execution>: sycl_mini_real.hpp's", text))


def translation_units(copy):
    """The .cpp files of a program that no other of its files #includes."""
    srcs, included = [], set()
    for root, _, files in os.walk(copy):
        for fn in files:
            p = os.path.join(root, fn)
            srcs += [p] if fn.lower().endswith(TU_EXT) else []
            for q, inc in INCLUDE.findall(read(p)):
                included.update([os.path.normpath(os.path.join(root, inc)), os.path.basename(inc)] if q == '"' else [])
    return sorted(p for p in srcs if p not in included and os.path.basename(p) not in included)


def stub_missing(copy, sysinc, tmp, header=None):
    """Stand-ins for included headers that exist nowhere (HeCBench's SYCL programs share
    reference.h & co. with their CUDA twin, absent here; oneDPL, oneMKL, MPI). Clang stops at a
    missing header; with a stand-in it goes on, and the names it lacks become errors where they
    are used, which host_error() judges. A stand-in includes the SYCL header copy when given:
    such headers (oneAPI-samples' dpc_common.hpp) are often how a program gets <sycl/sycl.hpp>."""
    stubs, made = os.path.join(copy, "_missing_"), set()
    for root, _, files in os.walk(copy):
        for fn in files:
            for q, name in INCLUDE.findall(read(os.path.join(root, fn))):
                dirs = ([root, copy] if q == '"' else [copy]) + sysinc + [stubs]
                if os.path.isabs(name) or any(os.path.exists(os.path.join(d, name)) for d in dirs):
                    continue
                t = os.path.normpath(os.path.join(root if ".." in name else stubs, name))
                if t.startswith(tmp + os.sep):
                    os.makedirs(os.path.dirname(t), exist_ok=True)
                    with open(t, "w") as f:
                        f.write('#include "%s"\n' % header if header else "")
                    made.add(name)
    return sorted(made)


class RecordingIndex:
    """Wraps the oracle's clang Index: keeps the last TU and hides its diagnostics from the oracle,
    which then finds kernels in a TU with errors too; host_error() judges the errors."""

    class TU:
        def __init__(self, tu):
            self.tu, self.diagnostics = tu, []

        def __getattr__(self, name):
            return getattr(self.tu, name)

    def __init__(self, index):
        self.index, self.last = index, None

    def parse(self, *a, **k):
        self.last = self.index.parse(*a, **k)
        return RecordingIndex.TU(self.last)


_W = {}  # per worker process: options, the oracle, what the current TU's kernels reach


def _init(opts):
    import clang.cindex as ci
    import oracle

    _W.update(opts)
    o = _W["oracle"] = oracle.Oracle(lib_dirs=opts["lib_dirs"])
    o.index, collect = RecordingIndex(o.index), o.collect_function

    def record(fn, acc, callees, notes):  # called for every function of every kernel's reach
        _W["reach"].append(fn)
        collect(fn, acc, callees, notes)
        for ref in callees:  # defined in another TU (SYCL_EXTERNAL), or left uninstantiated after an error: reach incomplete
            if (ref.kind in (ci.CursorKind.FUNCTION_DECL, ci.CursorKind.CXX_METHOD) and ref.spelling != "operator="
                    and not ref.spelling.startswith("__builtin") and not o.is_library(ref) and ref.get_definition() is None):
                notes += [] if "%s %s" % (EXTERNAL, ref.spelling) in notes else ["%s %s" % (EXTERNAL, ref.spelling)]
        if any(x.kind.is_expression() and x.type.kind == ci.TypeKind.DEPENDENT for x in fn.walk_preorder()):
            _W["recovery"].append(o.where(fn))  # clang's error recovery: an expression it could not type

    o.collect_function = record


def host_error(tu, d, copy, reach, words):
    """Why an error may change what the oracle says of a kernel, or None when it lies in host code
    no kernel depends on. Conservative: what is not shown harmless is harmful."""
    import clang.cindex as ci

    K = ci.CursorKind
    f = d.location.file
    if d.severity >= ci.Diagnostic.Fatal:
        return "fatal error"
    if "is used but not defined in this translation unit" in d.spelling:
        return None  # a library function declared, never defined, instantiated with a local lambda's type: linkage only
    if f is None or not os.path.realpath(f.name).startswith(os.path.realpath(copy) + os.sep):
        return "error outside the program's files"
    name, off = os.path.realpath(f.name), d.location.offset
    if any(rf == name and s <= off <= e for rf, s, e in reach):
        return "error inside a kernel's reach"
    chain, cur = [], tu.cursor  # the program's cursors enclosing the error, outermost first
    while cur is not None:
        cur = next((c for c in cur.get_children() if c.extent.start.file is not None and c.extent.start.file.name == f.name
                    and c.extent.start.offset <= off <= c.extent.end.offset), None)
        chain += [cur] if cur is not None else []
    funcs = [c for c in chain if c.kind in (K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.DESTRUCTOR,
                                               K.CONVERSION_FUNCTION, K.FUNCTION_TEMPLATE, K.LAMBDA_EXPR)]
    if not funcs:
        return "error outside any function"
    if "auto" in funcs[0].result_type.spelling:
        return "error in a function with a deduced return type"
    for c in chain:
        if c.kind == K.CALL_EXPR and c.spelling in ("submit", "parallel_for", "single_task", "parallel_for_work_group"):
            return "error inside a kernel launch"
        if c.kind == K.VAR_DECL and c.spelling in words:
            return "error in the declaration of '%s', a name a kernel's reach uses" % c.spelling
    return None


def run_program(src):
    try:
        return _run_program(src)
    except Exception as e:  # one broken program must not stop the run
        return {"dir": src, "tus": [], "stubs": [], "analyzer": [], "analyzer_error": "run_program: %r" % e}


def _run_program(src):
    """Oracle over the copy's TUs, analyzer over the original; all paths are the original's."""
    import clang.cindex as ci

    o, tmp = _W["oracle"], _W["tmp"]
    copy = os.path.join(tmp, "work", os.path.basename(src.rstrip("/")))
    shutil.rmtree(copy, ignore_errors=True)
    copy_program(src, copy, _W["header"])
    res = {"dir": src, "tus": [], "stubs": stub_missing(copy, _W["sysinc"], tmp, _W["header"]), "analyzer_error": None, "analyzer": []}
    rcopy = os.path.realpath(copy)
    orig = lambda p: os.path.join(src, os.path.relpath(os.path.realpath(p), rcopy))
    args = ["-x", "c++", "-std=c++17", "-nostdinc", "-nostdinc++", "-Wno-everything", "-ferror-limit=0",
            "-DSYCL_LANGUAGE_VERSION=202012", "-I", os.path.join(copy, "_missing_"), "-I", os.path.dirname(_W["header"])]
    for d in _W["sysinc"]:
        args += ["-isystem", d]
    for tu_path in [t for t in translation_units(copy) if not _W["tu_globs"] or any(
            fnmatch.fnmatch(os.path.relpath(t, copy), g) for g in _W["tu_globs"])]:
        t0, _W["reach"], _W["recovery"] = time.time(), [], []
        try:
            r = o.analyze(tu_path, include_dirs=[copy], args=args)
            tu = o.index.last
            errs = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
            reach, words = [], set()
            for fn in _W["reach"]:
                e = fn.extent
                if e.start.file is not None:
                    data = o.files.get(e.start.file.name)
                    start = data.rfind(b"\n", 0, e.start.offset) + 1  # from its line's start: a lambda's [
                    reach.append((os.path.realpath(e.start.file.name), start, e.end.offset))
                    words.update(re.findall(r"[A-Za-z_]\w*", data[start : e.end.offset].decode("utf-8", "replace")))
            harm = [(h, d) for d in errs for h in [host_error(tu, d, copy, reach, words)] if h]
            if errs and _W["recovery"] and not harm:  # no message there, but the consequence of an error
                harm = [("an expression clang could not type in %s, a kernel's reach" % _W["recovery"][0].replace(copy, src), errs[0])]
            covered = sorted({orig(i.include.name) for i in tu.get_includes() if os.path.realpath(i.include.name).startswith(rcopy + os.sep)})
            fmt = lambda d: "%s:%d:%d: %s" % (orig(d.location.file.name) if d.location.file else "?", d.location.line,
                                              d.location.column, d.spelling)
            errors = [h + ": " + fmt(d) for h, d in harm] + [fmt(d) for d in errs if all(d is not x for _, x in harm)]
            status = "dropped" if harm else "host-errors" if errs else "clean"
            first = harm[0] if harm else (None, errs[0]) if errs else None
            reason = first and (first[0] + " | " if first[0] else "") + first[1].spelling
        except Exception as e:  # an oracle crash drops the file, it does not stop the run
            r, status, covered = {"kernels": []}, "dropped", []
            errors = [reason] = ["oracle exception: %s: %s" % (type(e).__name__, e)]
        for k in r["kernels"]:
            k["file"] = orig(k["file"])
            for w in ("why", "why_folded"):
                k[w] = {a: v.replace(copy, src) for a, v in k[w].items()}
        res["tus"].append({"file": orig(tu_path), "status": status, "reason": reason, "errors": errors[:5], "nerrors": len(errors),
                           "kernels": r["kernels"] if status != "dropped" else [], "covered": [orig(tu_path)] + covered,
                           "seconds": round(time.time() - t0, 2)})
        o.index.last = None
    shutil.rmtree(copy, ignore_errors=True)
    try:
        p = subprocess.run([_W["analyzer"], "check", os.path.abspath(src), "--targets", "spir64", "--no-cache", "--format", "json"],
                           capture_output=True, text=True, timeout=600)
        if p.returncode not in (0, 1):
            raise ValueError("exit status %d: %s" % (p.returncode, p.stderr[-300:]))
        res["analyzer"] = json.loads(p.stdout)["kernels"]
    except (ValueError, KeyError, OSError, subprocess.TimeoutExpired) as e:
        res["analyzer_error"] = str(e)
    return res


def source_line(path, line):
    try:
        return read(path).split("\n")[line - 1].strip()
    except (OSError, IndexError):
        return "?"


def confusion(keys, oracle_k, analyzer_k):
    table = {}
    for a in ASPECTS:
        c = collections.Counter(("TP" if a in analyzer_k[k] else "FN") if a in oracle_k[k]["used_folded"] else
                                ("FP" if a in analyzer_k[k] else "TN") for k in keys)
        tp, fp, fn = c["TP"], c["FP"], c["FN"]
        table[a] = {"TP": tp, "FP": fp, "FN": fn, "TN": c["TN"], "recall": round(tp / (tp + fn), 3) if tp + fn else None,
                    "false_finding_rate": round(fp / (fp + tp), 3) if fp + tp else None}
    return table


def compare(results):
    """Merges kernels by location (template instances: union) and builds the report."""
    covered, clean_cov, tus, oracle_k, analyzer_k = set(), set(), [], {}, {}
    for res in results:
        for tu in res["tus"]:
            tus.append(tu)
            if tu["status"] != "dropped":
                covered.update(os.path.realpath(f) for f in tu["covered"])
                clean_cov.update(os.path.realpath(f) for f in tu["covered"] if tu["status"] == "clean")
            for k in tu["kernels"]:
                m = oracle_k.setdefault((os.path.realpath(k["file"]), k["line"], k["column"]), {
                    "used_folded": set(), "used": set(), "why": {}, "why_folded": {}, "clean": False, "external": set()})
                m["used_folded"].update(k["used_folded"])
                m["used"].update(k["used"])
                m["clean"] |= tu["status"] == "clean"
                m["external"].update(n.split(":", 1)[1].strip() for n in k["notes"] if n.startswith(EXTERNAL))
                for w in ("why", "why_folded"):
                    for a, v in k[w].items():
                        m[w].setdefault(a, v)
        for k in res["analyzer"]:
            analyzer_k.setdefault((os.path.realpath(k["file"]), k["line"], k["column"]), set()).update(set(k["used"]) & set(ASPECTS))
    in_scope = {k: v for k, v in analyzer_k.items() if k[0] in covered}
    both = sorted(set(oracle_k) & set(in_scope))
    matched = [k for k in both if not oracle_k[k]["external"]]
    loc = lambda k: {"file": k[0], "line": k[1], "column": k[2]}
    mismatches = []
    for k in matched:
        o, s, ok = oracle_k[k]["used_folded"] & set(ASPECTS), in_scope[k], oracle_k[k]
        if o != s:
            mismatches.append(dict(loc(k), oracle=sorted(o), analyzer=sorted(s), clean_tu=ok["clean"], fn=sorted(o - s), fp=sorted(s - o),
                                   oracle_why={a: ok["why_folded"][a] for a in sorted(o - s)},
                                   oracle_unfolded_why={a: ok["why"][a] for a in sorted(s - o) if a in ok["why"]},
                                   source=source_line(k[0], k[1])))
    only = lambda ks, used: [dict(loc(k), used=sorted(set(used(k)) & set(ASPECTS)), clean_tu=k[0] in clean_cov,
                                  source=source_line(k[0], k[1])) for k in sorted(ks)]
    count = lambda st: sum(1 for t in tus if t["status"] == st)
    reasons = lambda st: collections.Counter(re.sub(r"(?<=[ (])\d+\b", "N", t["reason"]) for t in tus if t["status"] == st).most_common()
    return {
        "directories": len(results), "files": len(tus), "clean": count("clean"), "host_errors": count("host-errors"),
        "dropped": count("dropped"), "drop_reasons": reasons("dropped"), "host_error_reasons": reasons("host-errors"),
        "stubbed_headers": collections.Counter(h for r in results for h in r["stubs"]).most_common(),
        "tus": [{k: t[k] for k in ("file", "status", "reason", "errors", "nerrors", "seconds")} for t in tus],
        "analyzer_errors": [{"dir": r["dir"], "error": r["analyzer_error"]} for r in results if r["analyzer_error"]],
        "oracle_kernels": len(oracle_k), "analyzer_kernels": len(analyzer_k), "analyzer_kernels_in_typed_files": len(in_scope),
        "matched": len(matched), "matched_clean": sum(1 for k in matched if oracle_k[k]["clean"]),
        "per_aspect": confusion(matched, oracle_k, in_scope),
        "per_aspect_clean": confusion([k for k in matched if oracle_k[k]["clean"]], oracle_k, in_scope),
        "mismatches": mismatches, "incomplete": [dict(loc(k), oracle=sorted(oracle_k[k]["used_folded"] & set(ASPECTS)), analyzer=sorted(
            in_scope[k]), external=sorted(oracle_k[k]["external"])) for k in both if oracle_k[k]["external"]],
        "only_oracle": only(set(oracle_k) - set(in_scope), lambda k: oracle_k[k]["used_folded"]),
        "only_analyzer": only(set(in_scope) - set(oracle_k), lambda k: in_scope[k]),
    }


def print_report(rep, out, top):
    w, fmt, st = out.write, lambda x: "-" if x is None else "%.3f" % x, lambda s: ", ".join(s)
    w("\n== %d directories, %d translation units: %d clean, %d with errors only in host code (kept), %d dropped\n"
      % (rep["directories"], rep["files"], rep["clean"], rep["host_errors"], rep["dropped"]))
    for title, key in (("dropped TUs, first harmful error", "drop_reasons"), ("kept TUs with host errors, first error", "host_error_reasons")):
        w("   %s (top %d):\n" % (title, top) + "".join("   %5d  %s\n" % (n, m[:160]) for m, n in rep[key][:top]))
    w("   headers absent from the corpus, stubbed empty: %s\n" % st("%s (%d)" % x for x in rep["stubbed_headers"][:top]))
    w("".join("   ERROR %s: %s\n" % (e["dir"], e["error"][:200]) for e in rep["analyzer_errors"]))
    w("== kernels: oracle %d, analyzer %d (%d in files a kept TU covers), matched %d (%d from clean TUs), left out %d, oracle-only %d, "
      "analyzer-only %d\n" % (rep["oracle_kernels"], rep["analyzer_kernels"], rep["analyzer_kernels_in_typed_files"], rep["matched"],
                              rep["matched_clean"], len(rep["incomplete"]), len(rep["only_oracle"]), len(rep["only_analyzer"])))
    for title, key in (("all matched kernels", "per_aspect"), ("kernels from clean TUs", "per_aspect_clean")):
        w("\n%-9s %6s %6s %6s %6s %8s %8s   (%s)\n" % ("aspect", "TP", "FP", "FN", "TN", "recall", "FFR", title))
        for a, t in rep[key].items():
            w("%-9s %6d %6d %6d %6d %8s %8s\n" % (a, t["TP"], t["FP"], t["FN"], t["TN"], fmt(t["recall"]), fmt(t["false_finding_rate"])))
    w("\n== %d mismatches (oracle's folded view vs analyzer)\n" % len(rep["mismatches"]))
    for m in rep["mismatches"]:
        w("%s:%d:%d: oracle {%s}, analyzer {%s}%s\n    | %s\n" % (m["file"], m["line"], m["column"], st(m["oracle"]), st(m["analyzer"]),
                                                            "" if m["clean_tu"] else " [TU with host errors]", m["source"][:160]))
        w("".join("    FN %s: oracle's first use: %s\n" % a_why for a_why in m["oracle_why"].items()))
        w("".join("    FP %s: oracle: %s\n" % (a, "constant only, " + m["oracle_unfolded_why"][a] if a in m["oracle_unfolded_why"]
                                                 else "no use") for a in m["fp"]))
    w("\n== %d kernels left out: their reach calls a function the TU has no definition of (SYCL_EXTERNAL in another TU, or a "
      "template clang left uninstantiated after an error)\n" % len(rep["incomplete"]))
    w("".join("%s:%d:%d: oracle {%s} (incomplete), analyzer {%s}; calls %s\n" % (k["file"], k["line"], k["column"], st(k["oracle"]),
                                                                               st(k["analyzer"]), st(k["external"])) for k in rep["incomplete"]))
    for title, ks in (("oracle", rep["only_oracle"]), ("analyzer", rep["only_analyzer"])):
        w("\n== %d kernels only the %s reports\n" % (len(ks), title))
        w("".join("%s:%d:%d {%s}%s | %s\n" % (k["file"], k["line"], k["column"], st(k["used"]), "" if k["clean_tu"] else
                                              " [TU with host errors]", k["source"][:120]) for k in ks))


def main(argv):
    ap = argparse.ArgumentParser(description="sycl-analyzer vs the libclang oracle on real SYCL programs")
    ap.add_argument("dirs", nargs="*", help="program directories (default: HeCBench's *-sycl)")
    ap.add_argument("--analyzer", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "target", "release", "sycl-analyzer"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json-report", default="real_corpus_report.json")
    ap.add_argument("--top", type=int, default=15, help="how many drop reasons to print")
    ap.add_argument("--keep-temp", action="store_true", help="keep the temp dir (with the header copy)")
    ap.add_argument("--tu", action="append", default=[], help="only the TUs matching this glob (relative to the program dir)")
    ns = ap.parse_args(argv)
    dirs, t0 = ns.dirs or sorted(glob.glob("/tmp/corpora/hecbench/src/*-sycl")), time.time()
    tmp = tempfile.mkdtemp(prefix="real_corpus_")
    lib = os.path.join(tmp, "lib")
    os.makedirs(lib)
    make_header(os.path.join(lib, "sycl_mini_real.hpp"))
    for h in OVERRIDDEN:
        open(os.path.join(lib, h), "w").close()
    sysinc = system_includes()
    check_header(os.path.join(lib, "sycl_mini_real.hpp"), sysinc)
    opts = {"tmp": tmp, "header": os.path.join(lib, "sycl_mini_real.hpp"), "sysinc": sysinc, "lib_dirs": [lib] + sysinc,
            "analyzer": ns.analyzer, "tu_globs": ns.tu}
    results = []
    with multiprocessing.Pool(ns.jobs, _init, (opts,)) as pool:
        for i, res in enumerate(pool.imap_unordered(run_program, dirs), 1):
            results.append(res)
            sys.stderr.write("[%d/%d] %s: %s\n" % (i, len(dirs), os.path.basename(res["dir"]),
                                                   dict(collections.Counter(t["status"] for t in res["tus"]))))
    rep = compare(sorted(results, key=lambda r: r["dir"]))
    rep.update(seconds=round(time.time() - t0, 1), temp_dir=tmp if ns.keep_temp else None)
    print_report(rep, sys.stdout, ns.top)
    with open(ns.json_report, "w") as f:
        json.dump(rep, f, indent=1)
    sys.stdout.write("\nreport: %s; %.0f s\n" % (ns.json_report, rep["seconds"]))
    if not ns.keep_temp:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
