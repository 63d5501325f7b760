#!/usr/bin/env python3
"""Real-code differential run: sycl-analyzer against the libclang oracle on real SYCL programs.

Each program directory (HeCBench's `*-sycl`, or any directory given) is copied to a temp dir with
its `#include <sycl/...>` / `<CL/sycl.hpp>` lines replaced, one line for one line, by
`sycl_mini_real.hpp`: the text of `sycl_mini.hpp` (never edited) with its `namespace std` prelude
replaced by the system's real libstdc++ headers, some class members added in place and the extra
SYCL API of `SYCL_EXTRA` appended. The standard headers are the real ones (found with `g++ -v`),
so unqualified `sqrt(float)` resolves exactly as it does under DPC++. The system headers and the
header copy are "the library" for the oracle.

Every translation unit (`.cpp` not `#include`d by another file of the program) goes through the
oracle; a TU with any clang error is dropped (with its first error kept for the report). The
analyzer checks the ORIGINAL directory (`check DIR --targets spir64 --no-cache --format json`).
Kernels are matched by (file, line, column) over the files that some clean TU covers, and
compared per aspect on the oracle's `used_folded` view.

    real_corpus.py [DIR...] [--jobs 2] [--json-report FILE] [--analyzer BIN] [--keep-temp]

Without DIR it runs over /tmp/corpora/hecbench/src/*-sycl.
"""

import argparse, collections, glob, json, multiprocessing, os, re, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
ASPECTS = ["fp64", "fp16", "atomic64"]
SRC_EXT = (".cpp", ".cc", ".cxx", ".c++", ".h", ".hpp", ".hh", ".hxx", ".cuh", ".inc", ".ipp", ".tpp", ".inl", ".def")
TU_EXT = (".cpp", ".cc", ".cxx")
# System headers clang cannot read (GCC's omp.h and x86 intrinsics): replaced by empty files.
OVERRIDDEN = ["omp.h", "immintrin.h", "x86intrin.h", "xmmintrin.h", "emmintrin.h", "pmmintrin.h", "tmmintrin.h",
              "smmintrin.h", "nmmintrin.h", "wmmintrin.h", "avxintrin.h", "avx2intrin.h", "mm_malloc.h"]
SYCL_INCLUDE = re.compile(r'^(\s*#\s*include\s*)[<"](sycl/[^>"]*|CL/sycl\.hpp|CL/sycl/[^>"]*)[>"]')
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
INCLUDE_ANY = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)

# What sycl.hpp brings in besides itself (DPC++'s header pulls in all of these and more).
STD_PRELUDE = """#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>
#include <array>
#include <complex>
#include <functional>
#include <memory>
#include <string>
#include <vector>
#include <exception>
#include <system_error>
#include <iostream>
#include <algorithm>
#include <limits>
#include <tuple>
#include <mutex>
#include <chrono>
"""

# Declarations that must precede the mini header's classes; inserted before `enum class aspect`.
SYCL_EARLY = """class sub_group;
class context;
class platform;
enum class rounding_mode { automatic, rte, rtz, rtp, rtn };
namespace access { enum class fence_space { local_space, global_space, global_and_local }; }
namespace detail {
template <typename T, int D> struct acc_proxy { acc_proxy<T, D - 1> operator[](size_t i) const; };
template <typename T> struct acc_proxy<T, 1> { T &operator[](size_t i) const; };
template <typename T, int D> struct acc_sub { using type = acc_proxy<T, D - 1>; };
template <typename T> struct acc_sub<T, 1> { using type = T &; };
template <typename T> struct acc_sub<T, 0> { using type = T &; };
}
"""

# (text of sycl_mini.hpp, replacement): members the real API has; each anchor must occur once.
PATCHES = [
    ("enum class aspect {", SYCL_EARLY + "enum class aspect {"),
    ("  friend bool operator!=(const half &a, const half &b);\n};",  # DPC++'s half takes any arithmetic operand
     "  friend bool operator!=(const half &a, const half &b);\n  half &operator--();\n  half operator--(int);\n"
     "#define RC_HI(R) template <typename I> friend std::enable_if_t<std::is_integral_v<I>, R>\n"
     "#define RC_HO(OP) RC_HI(half) operator OP(const half &a, I b); RC_HI(half) operator OP(I a, const half &b);\n"
     "#define RC_HC(OP) RC_HI(bool) operator OP(const half &a, I b); RC_HI(bool) operator OP(I a, const half &b); \\\n"
     "  friend bool operator OP(const half &a, float b); friend bool operator OP(float a, const half &b); \\\n"
     "  friend bool operator OP(const half &a, double b); friend bool operator OP(double a, const half &b);\n"
     "  RC_HO(+) RC_HO(-) RC_HO(*) RC_HO(/) RC_HC(<) RC_HC(>) RC_HC(<=) RC_HC(>=) RC_HC(==) RC_HC(!=)\n"
     "#undef RC_HI\n#undef RC_HO\n#undef RC_HC\n};"),
    ("  size_t operator[](int d) const;\n};\nrange(size_t) -> range<1>;",
     "  size_t operator[](int d) const;\n"
     "  friend range operator*(const range &, const range &);\n  friend range operator+(const range &, const range &);\n"
     "  friend range operator-(const range &, const range &);\n  friend range operator/(const range &, const range &);\n"
     "  friend range operator*(const range &, size_t);\n  friend range operator*(size_t, const range &);\n"
     "  friend range operator/(const range &, size_t);\n  friend range operator+(const range &, size_t);\n"
     "  friend range operator-(const range &, size_t);\n};\nrange(size_t) -> range<1>;"),
    ("  friend id operator-(const id &a, const id &b);\n};",
     "  friend id operator-(const id &a, const id &b);\n  friend id operator+(const id &a, size_t b);\n"
     "  friend id operator*(const id &a, size_t b);\n};"),
    ("  operator size_t() const; // Dims == 1\n};", "  operator size_t() const; // Dims == 1\n  id<Dims> get_offset() const;\n};"),
    ("  size_t get_group_linear_id() const;\n  size_t operator[](int d) const;\n};",
     "  size_t get_group_linear_id() const;\n  size_t operator[](int d) const;\n"
     "  id<Dims> get_local_id() const;\n  size_t get_local_id(int d) const;\n  size_t get_local_linear_id() const;\n"
     "  range<Dims> get_group_range() const;\n  size_t get_group_range(int d) const;\n"
     "  size_t get_group_linear_range() const;\n  size_t get_local_linear_range() const;\n"
     "  range<Dims> get_max_local_range() const;\n  bool leader() const;\n"
     "  template <typename W> void parallel_for_work_item(const W &w) const;\n"
     "  template <typename W> void parallel_for_work_item(range<Dims> r, const W &w) const;\n};"),
    ("  nd_range(range<Dims> global, range<Dims> local);",
     "  nd_range(range<Dims> global, range<Dims> local);\n  nd_range(range<Dims> global, range<Dims> local, id<Dims> offset);"),
    ("  void barrier() const;\n};",
     "  void barrier() const;\n  void barrier(access::fence_space s) const;\n"
     "  void mem_fence(access::fence_space s = access::fence_space::global_and_local) const;\n"
     "  size_t get_global_range(int d) const;\n  size_t get_local_range(int d) const;\n"
     "  range<Dims> get_group_range() const;\n  size_t get_group_range(int d) const;\n"
     "  size_t get_group_linear_id() const;\n  sub_group get_sub_group() const;\n"
     "  nd_range<Dims> get_nd_range() const;\n  id<Dims> get_offset() const;\n};"),
    ("  T operator++() const;\n};\n// Pointers",
     "  T operator++() const;\n  T operator--(int) const;\n  T operator--() const;\n"
     "  T operator-=(T v) const;\n  T operator&=(T v) const;\n  T operator|=(T v) const;\n  T operator^=(T v) const;\n"
     "  T fetch_and(T v, memory_order order = DefaultOrder, memory_scope scope = DefaultScope) const;\n"
     "  T fetch_or(T v, memory_order order = DefaultOrder, memory_scope scope = DefaultScope) const;\n"
     "  T fetch_xor(T v, memory_order order = DefaultOrder, memory_scope scope = DefaultScope) const;\n"
     "  bool compare_exchange_weak(T &expected, T desired, memory_order order = DefaultOrder,\n"
     "                             memory_scope scope = DefaultScope) const;\n"
     "  bool compare_exchange_strong(T &expected, T desired, memory_order s, memory_order f,\n"
     "                               memory_scope scope = DefaultScope) const;\n"
     "  bool compare_exchange_weak(T &expected, T desired, memory_order s, memory_order f,\n"
     "                             memory_scope scope = DefaultScope) const;\n"
     "  static constexpr bool is_always_lock_free = true;\n  bool is_lock_free() const;\n};\n// Pointers"),
    ("  T fetch_max(T v, memory_order order = memory_order::relaxed) const;\n};",
     "  T fetch_max(T v, memory_order order = memory_order::relaxed) const;\n"
     "  T fetch_min(T v, memory_order order = memory_order::relaxed) const;\n"
     "  T fetch_sub(T v, memory_order order = memory_order::relaxed) const;\n"
     "  T fetch_and(T v, memory_order order = memory_order::relaxed) const;\n"
     "  T fetch_or(T v, memory_order order = memory_order::relaxed) const;\n"
     "  T exchange(T v, memory_order order = memory_order::relaxed) const;\n"
     "  bool compare_exchange_strong(T &e, T d, memory_order s = memory_order::relaxed,\n"
     "                               memory_order f = memory_order::relaxed) const;\n};"),
    ("  T *operator->() const;\n};",
     "  T *operator->() const;\n  T *get_raw() const;\n  T *get_decorated() const;\n  operator T *() const;\n"
     "  template <typename U> explicit operator multi_ptr<U, Space, D>() const;\n};"),
    ("  template <typename U> vec<U, N> convert() const;",
     "  template <typename U, rounding_mode R = rounding_mode::automatic> vec<U, N> convert() const;"),
    ("  friend vec operator*(const T &a, const vec &b);\n};",
     "  friend vec operator*(const T &a, const vec &b);\n"
     "  template <typename... A, typename = std::enable_if_t<(sizeof...(A) == N && N > 4)>> vec(const A &...a);\n"
     "  vec(const vec<T, 2> &a, const vec<T, 2> &b);\n"
     "  const T &s0() const;\n  const T &s1() const;\n  T &s2();\n  T &s3();\n  T &s4();\n  T &s5();\n  T &s6();\n  T &s7();\n"
     "  const T &s2() const;\n  const T &s3() const;\n  const T &s4() const;\n  const T &s5() const;\n  const T &s6() const;\n"
     "  const T &s7() const;\n  vec<T, N / 2> lo() const;\n  vec<T, N / 2> hi() const;\n"
     "  vec<T, N / 2> even() const;\n  vec<T, N / 2> odd() const;\n  vec<T, 3> xyz() const;\n  vec<T, 2> zw() const;\n"
     "  template <access::address_space S, access::decorated D> void load(size_t o, multi_ptr<const T, S, D> p);\n"
     "  template <access::address_space S, access::decorated D> void store(size_t o, multi_ptr<T, S, D> p) const;\n"
     "  vec &operator=(const T &v);\n  vec &operator-=(const vec &o);\n  vec &operator/=(const vec &o);\n"
     "  vec &operator-=(const T &o);\n  vec &operator/=(const T &o);\n"
     "  vec &operator&=(const vec &o);\n  vec &operator|=(const vec &o);\n  vec &operator^=(const vec &o);\n"
     "  vec &operator&=(const T &o);\n  vec &operator|=(const T &o);\n  vec &operator^=(const T &o);\n"
     "  vec &operator>>=(const T &o);\n  vec &operator<<=(const T &o);\n"
     "  friend vec operator-(const vec &a);\n  friend vec operator~(const vec &a);\n"
     "  friend vec operator-(const vec &a, const T &b);\n  friend vec operator/(const vec &a, const T &b);\n"
     "  friend vec operator-(const T &a, const vec &b);\n  friend vec operator/(const T &a, const vec &b);\n"
     "  friend vec operator%(const vec &a, const vec &b);\n  friend vec operator%(const vec &a, const T &b);\n"
     "  friend vec operator&(const vec &a, const vec &b);\n  friend vec operator&(const vec &a, const T &b);\n"
     "  friend vec operator|(const vec &a, const vec &b);\n  friend vec operator|(const vec &a, const T &b);\n"
     "  friend vec operator^(const vec &a, const vec &b);\n  friend vec operator^(const vec &a, const T &b);\n"
     "  friend vec operator>>(const vec &a, const T &b);\n  friend vec operator<<(const vec &a, const T &b);\n};"),
    ("  vec<T, 4> xxyy() const;", "  vec<T, 4> xxyy() const;\n  vec<T, 2> xz() const;\n  vec<T, 2> yz() const;"),
    ("  T &operator[](item<Dims> i) const;\n  T &operator[](size_t i) const;",
     "  T &operator[](item<Dims> i) const;\n  typename detail::acc_sub<T, Dims>::type operator[](size_t i) const;\n"
     "  accessor(range<Dims> r, handler &h);\n  accessor(buffer<T, Dims> &buf, handler &h, range<Dims> r, id<Dims> o = id<Dims>());\n"
     "  template <access_mode M, typename P> accessor(buffer<T, Dims> &buf, handler &h, mode_tag_t<M> tag, P prop);\n"
     "  accessor(buffer<T, Dims> &buf);\n"
     "  template <access::decorated D = access::decorated::legacy> multi_ptr<T, access::address_space::global_space, D> get_multi_ptr() const;"),
    ("  T &operator[](id<Dims> i) const;\n  T &operator[](size_t i) const;\n  size_t size() const;\n  local_ptr<T> get_pointer() const;",
     "  T &operator[](id<Dims> i) const;\n  typename detail::acc_sub<T, Dims>::type operator[](size_t i) const;\n  size_t size() const;\n"
     "  local_ptr<T> get_pointer() const;\n  range<Dims> get_range() const;\n"
     "  local_accessor(handler &h);\n  operator T &() const;\n  const local_accessor &operator=(const T &v) const;\n"
     "  template <access::decorated D = access::decorated::legacy> multi_ptr<T, access::address_space::local_space, D> get_multi_ptr() const;"),
    ("  buffer(T *hostData, const range<Dims> &r);",
     "  buffer(T *hostData, const range<Dims> &r);\n  buffer(const T *hostData, const range<Dims> &r);\n"
     "  template <typename P> buffer(T *hostData, const range<Dims> &r, const P &props);\n"
     "  template <typename It, typename = std::enable_if_t<!std::is_integral_v<It>>> buffer(It first, It last);\n"
     "  template <access_mode Mode = access_mode::read_write> accessor<T, Dims, Mode, target::host_buffer> get_access();\n"
     "  accessor<T, Dims, access_mode::read_write, target::host_buffer> get_host_access();\n"
     "  template <typename M> accessor<T, Dims, access_mode::read_write, target::host_buffer> get_host_access(M m);\n"
     "  template <typename D> void set_final_data(D d);\n  void set_write_back(bool b = true);"),
    ("class event {\npublic:\n  void wait();",
     "class event {\npublic:\n  void wait();\n  void wait_and_throw();\n  static void wait(const std::vector<event> &e);\n"
     "  template <typename P> typename P::return_type get_profiling_info() const;"),
    ("  bool has(aspect a) const;\n};",
     "  bool has(aspect a) const;\n  device();\n  template <typename S> explicit device(const S &s);\n"
     "  template <typename P> typename P::return_type get_info() const;\n  bool is_gpu() const;\n  bool is_cpu() const;\n"
     "  bool is_accelerator() const;\n  platform get_platform() const;\n  template <typename I = int> static std::vector<device> get_devices(I t = I());\n};"),
    ("  void memcpy(void *dst, const void *src, size_t bytes);\n};",
     "  void memcpy(void *dst, const void *src, size_t bytes);\n  void memset(void *dst, int v, size_t bytes);\n"
     "  void depends_on(event e);\n  void depends_on(const std::vector<event> &e);\n"
     "  template <typename S, typename D> void copy(S src, D dst);\n  template <typename T> void copy(const T *src, T *dst, size_t n);\n"
     "  template <typename F> void host_task(F f);\n};"),
    ("  template <typename Selector> explicit queue(const Selector &s);",
     "  template <typename Selector> explicit queue(const Selector &s);\n"
     "  template <typename Selector, typename P> queue(const Selector &s, const P &p);\n"
     "  template <typename C, typename D, typename P> queue(const C &c, const D &d, const P &p);\n"
     "  event memset(void *dst, int v, size_t bytes);\n  template <typename T> event copy(const T *src, T *dst, size_t n);\n"
     "  event prefetch(const void *p, size_t bytes);\n  event mem_advise(const void *p, size_t bytes, int advice);\n"
     "  void wait_and_throw();\n  context get_context() const;\n  bool is_in_order() const;\n"
     "  template <typename CGF> event submit(CGF cgf, queue &secondary);"),
]

SYCL_EXTRA = r"""
// ---- real_corpus.py: API real programs use beyond sycl_mini.hpp -------------------------------
#define SYCL_EXTERNAL
namespace sycl {
inline namespace _V1 {
class context { public: context(); template <typename D> explicit context(const D &d); };
class platform { public: template <typename P> typename P::return_type get_info() const;
  template <typename I = int> std::vector<device> get_devices(I t = I()) const; static std::vector<platform> get_platforms(); };
class exception : public std::exception { public: const char *what() const noexcept override; std::error_code code() const; };
class exception_list { std::vector<std::exception_ptr> v_; public:
  using const_iterator = std::vector<std::exception_ptr>::const_iterator;
  const_iterator begin() const; const_iterator end() const; size_t size() const; };
using async_handler = std::function<void(exception_list)>;
class property_list { public: template <typename... P> property_list(P... p); };
namespace property { namespace queue { struct in_order {}; struct enable_profiling {}; }
  namespace buffer { struct use_host_ptr {}; } namespace reduction { struct initialize_to_identity {}; } }
struct no_init_t {}; inline constexpr no_init_t no_init{};
struct cpu_selector_t {}; struct accelerator_selector_t {};
inline constexpr cpu_selector_t cpu_selector_v{}; inline constexpr accelerator_selector_t accelerator_selector_v{};
struct default_selector {}; struct gpu_selector {}; struct cpu_selector {}; struct host_selector {};
int aspect_selector(aspect a);
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
void *aligned_alloc_device(size_t a, size_t bytes, const queue &q);
void *aligned_alloc_shared(size_t a, size_t bytes, const queue &q);
void *aligned_alloc_host(size_t a, size_t bytes, const queue &q);
template <typename T> T *aligned_alloc_device(size_t a, size_t n, const queue &q);
template <typename T> T *aligned_alloc_shared(size_t a, size_t n, const queue &q);
template <typename T> T *aligned_alloc_host(size_t a, size_t n, const queue &q);
void *malloc_host(size_t bytes, const context &c);
void free(void *ptr, const context &c);

template <typename T, int Dims = 1> class host_accessor {
  T *p_; public: host_accessor(buffer<T, Dims> &b); template <typename M> host_accessor(buffer<T, Dims> &b, M m);
  typename detail::acc_sub<T, Dims>::type operator[](size_t i) const; T &operator[](id<Dims> i) const; T *get_pointer() const; };
template <typename T, int Dims> host_accessor(buffer<T, Dims> &) -> host_accessor<T, Dims>;
template <typename T, int Dims, typename M> host_accessor(buffer<T, Dims> &, M) -> host_accessor<T, Dims>;
template <typename T, int Dims, access_mode M, typename P>
accessor(buffer<T, Dims> &, handler &, mode_tag_t<M>, P) -> accessor<T, Dims, M, target::device>;

enum class stream_manipulator { flush, dec, hex, oct, noshowbase, showbase, noshowpos, showpos, endl, fixed, scientific, hexfloat, defaultfloat };
inline constexpr stream_manipulator endl = stream_manipulator::endl;
inline constexpr stream_manipulator flush = stream_manipulator::flush;
class stream { public: stream(size_t total, size_t work_item, handler &h);
  template <typename T> friend const stream &operator<<(const stream &s, const T &v); };
inline constexpr mode_tag_t<access_mode::read> read_only_host_task{};

class sub_group {
public:
  id<1> get_local_id() const; size_t get_local_linear_id() const; range<1> get_local_range() const;
  range<1> get_max_local_range() const; id<1> get_group_id() const; size_t get_group_linear_id() const;
  range<1> get_group_range() const; size_t get_local_linear_range() const; size_t get_group_linear_range() const;
  bool leader() const; void barrier() const;
  template <typename T> T shuffle(T x, id<1> l) const;
  template <typename T> T shuffle_down(T x, uint32_t d) const;
  template <typename T> T shuffle_up(T x, uint32_t d) const;
  template <typename T> T shuffle_xor(T x, id<1> m) const;
  template <typename T> T broadcast(T x, id<1> l) const;
};

#define RC_FN(NAME, OP) template <typename T = void> struct NAME { T operator()(const T &a, const T &b) const; }; \
  template <> struct NAME<void> { template <typename A, typename B> auto operator()(const A &a, const B &b) const -> decltype(a OP b); };
RC_FN(plus, +) RC_FN(multiplies, *) RC_FN(maximum, +) RC_FN(minimum, +) RC_FN(bit_or, |) RC_FN(bit_and, &) RC_FN(bit_xor, ^)
RC_FN(logical_or, ||) RC_FN(logical_and, &&)
#undef RC_FN
template <typename G, typename T, typename Op> T reduce_over_group(G g, T x, Op op);
template <typename G, typename V, typename T, typename Op> T reduce_over_group(G g, V x, T init, Op op);
template <typename G, typename T, typename Op> T exclusive_scan_over_group(G g, T x, Op op);
template <typename G, typename V, typename T, typename Op> T exclusive_scan_over_group(G g, V x, T init, Op op);
template <typename G, typename T, typename Op> T inclusive_scan_over_group(G g, T x, Op op);
template <typename G, typename V, typename Op, typename T> T inclusive_scan_over_group(G g, V x, Op op, T init);
template <typename G, typename T> T group_broadcast(G g, T x);
template <typename G, typename T, typename I> T group_broadcast(G g, T x, I local_id);
template <typename G, typename T> T select_from_group(G g, T x, id<1> l);
template <typename G, typename T> T shift_group_left(G g, T x, size_t d = 1);
template <typename G, typename T> T shift_group_right(G g, T x, size_t d = 1);
template <typename G, typename T> T permute_group_by_xor(G g, T x, size_t m);
template <typename G> bool any_of_group(G g, bool p);
template <typename G> bool all_of_group(G g, bool p);
template <typename G> bool none_of_group(G g, bool p);
template <typename G> void group_barrier(G g, memory_scope s = memory_scope::work_group);

// Math: the same float/double/half/vec overload set sycl_mini.hpp uses.
#define RC_M1(NAME) float NAME(float x); double NAME(double x); half NAME(half x); \
  template <typename T, int N> vec<T, N> NAME(vec<T, N> x);
#define RC_M2(NAME) float NAME(float x, float y); double NAME(double x, double y); half NAME(half x, half y); \
  template <typename T, int N> vec<T, N> NAME(vec<T, N> x, vec<T, N> y);
#define RC_MI(NAME) float NAME(float x, int y); double NAME(double x, int y); half NAME(half x, int y);
#define RC_MB(NAME) bool NAME(float x); bool NAME(double x); bool NAME(half x);
#define RC_MP(NAME, P) float NAME(float x, P##float *y); double NAME(double x, P##double *y); half NAME(half x, P##half *y); \
  template <typename T, access::address_space S, access::decorated D> T NAME(T x, multi_ptr<T, S, D> y);
RC_M1(log) RC_M1(log2) RC_M1(log10) RC_M1(log1p) RC_M1(exp2) RC_M1(exp10) RC_M1(expm1) RC_M1(tan) RC_M1(tanh)
RC_M1(sinh) RC_M1(cosh) RC_M1(asin) RC_M1(acos) RC_M1(atan) RC_M1(asinh) RC_M1(acosh) RC_M1(atanh) RC_M1(floor)
RC_M1(ceil) RC_M1(trunc) RC_M1(round) RC_M1(rint) RC_M1(cbrt) RC_M1(erf) RC_M1(erfc) RC_M1(tgamma) RC_M1(lgamma)
RC_M1(sinpi) RC_M1(cospi) RC_M1(tanpi) RC_M1(logb) RC_M1(sign) RC_M1(degrees) RC_M1(radians) RC_M1(recip)
RC_M1(normalize) RC_M1(fast_normalize)
RC_M2(atan2) RC_M2(fmod) RC_M2(hypot) RC_M2(copysign) RC_M2(fdim) RC_M2(powr) RC_M2(step) RC_M2(remainder)
RC_M2(maxmag) RC_M2(minmag) RC_M2(nextafter) RC_M2(atan2pi)
RC_MI(pown) RC_MI(rootn) RC_MI(ldexp)
RC_MB(isnan) RC_MB(isinf) RC_MB(isfinite) RC_MB(signbit) RC_MB(isnormal)
RC_MP(sincos, ) RC_MP(modf, ) RC_MP(fract, )
float frexp(float x, int *e); double frexp(double x, int *e); half frexp(half x, int *e);
template <typename T, int N> vec<T, N> fma(vec<T, N> a, vec<T, N> b, vec<T, N> c);
float mad(float a, float b, float c); double mad(double a, double b, double c); half mad(half a, half b, half c);
float mix(float a, float b, float c); double mix(double a, double b, double c); half mix(half a, half b, half c);
float smoothstep(float a, float b, float c); double smoothstep(double a, double b, double c);
float clamp(float x, float lo, float hi); double clamp(double x, double lo, double hi); half clamp(half x, half lo, half hi);
float abs(float x); double abs(double x); half abs(half x);
template <typename T> T abs(T x);
template <typename T, typename U> std::common_type_t<T, U> min(T a, U b);
template <typename T, typename U> std::common_type_t<T, U> max(T a, U b);
float nan(uint32_t c); double nan(uint64_t c);
float dot(float a, float b); double dot(double a, double b); half dot(half a, half b);
template <typename T, int N> T dot(vec<T, N> a, vec<T, N> b);
float length(float a); double length(double a); template <typename T, int N> T length(vec<T, N> a);
float distance(float a, float b); double distance(double a, double b); template <typename T, int N> T distance(vec<T, N> a, vec<T, N> b);
template <typename T, int N> vec<T, N> cross(vec<T, N> a, vec<T, N> b);
template <typename T, int N> bool any(vec<T, N> a); template <typename T, int N> bool all(vec<T, N> a);
template <typename T> T popcount(T x); template <typename T> T clz(T x); template <typename T> T ctz(T x);
template <typename T> T mul24(T x, T y); template <typename T> T mad24(T x, T y, T z); template <typename T> T mul_hi(T x, T y);
template <typename T> T mad_hi(T a, T b, T c); template <typename T> T rotate(T x, T y); template <typename T> T hadd(T x, T y);
template <typename T> T rhadd(T x, T y); template <typename T> T add_sat(T x, T y); template <typename T> T sub_sat(T x, T y);
template <typename T> std::make_unsigned_t<T> abs_diff(T x, T y);
template <typename T, typename U> auto upsample(T hi, U lo) -> decltype((long long)hi);
template <typename T> T select(T a, T b, bool c);
namespace native {
#define RC_N1(NAME) float NAME(float x); template <typename T, int N> vec<T, N> NAME(vec<T, N> x);
RC_N1(log) RC_N1(log2) RC_N1(log10) RC_N1(exp2) RC_N1(exp10) RC_N1(sin) RC_N1(cos) RC_N1(tan) RC_N1(rsqrt) RC_N1(recip)
#undef RC_N1
float divide(float x, float y); float powr(float x, float y);
template <typename T, int N> vec<T, N> divide(vec<T, N> x, vec<T, N> y);
}
namespace half_precision { float exp(float x); float log(float x); float sqrt(float x); float divide(float x, float y);
  float recip(float x); float rsqrt(float x); float sin(float x); float cos(float x); }
#undef RC_M1
#undef RC_M2
#undef RC_MI
#undef RC_MB
#undef RC_MP

#define RC_VEC(T, P) using P##2 = vec<T, 2>; using P##3 = vec<T, 3>; using P##4 = vec<T, 4>; using P##8 = vec<T, 8>; \
  using P##16 = vec<T, 16>;
using uchar = unsigned char; using ushort = unsigned short; using uint = unsigned int; using ulong = unsigned long;
using schar = signed char; using longlong = long long; using ulonglong = unsigned long long;
RC_VEC(char, char) RC_VEC(unsigned char, uchar) RC_VEC(signed char, schar) RC_VEC(short, short)
RC_VEC(unsigned short, ushort) RC_VEC(unsigned int, uint) RC_VEC(int64_t, long) RC_VEC(uint64_t, ulong)
RC_VEC(bool, bool) using int3 = vec<int, 3>; using int8 = vec<int, 8>; using int16 = vec<int, 16>;
using float3 = vec<float, 3>; using float8 = vec<float, 8>; using float16 = vec<float, 16>;
using double3 = vec<double, 3>; using double8 = vec<double, 8>; using double16 = vec<double, 16>;
using half3 = vec<half, 3>; using half8 = vec<half, 8>; using half16 = vec<half, 16>;
#undef RC_VEC

namespace ext { namespace oneapi {
class bfloat16 {
  uint16_t v_;
public:
  bfloat16() = default; bfloat16(float f); operator float() const;
  bfloat16 &operator+=(const bfloat16 &o); bfloat16 &operator-=(const bfloat16 &o);
  bfloat16 &operator*=(const bfloat16 &o); bfloat16 &operator/=(const bfloat16 &o);
  friend bfloat16 operator-(const bfloat16 &a);
#define RC_BF(OP) friend bfloat16 operator OP(const bfloat16 &a, const bfloat16 &b); \
  friend float operator OP(const bfloat16 &a, float b); friend float operator OP(float a, const bfloat16 &b); \
  friend double operator OP(const bfloat16 &a, double b); friend double operator OP(double a, const bfloat16 &b); \
  friend bfloat16 operator OP(const bfloat16 &a, int b); friend bfloat16 operator OP(int a, const bfloat16 &b);
  RC_BF(+) RC_BF(-) RC_BF(*) RC_BF(/)
#undef RC_BF
#define RC_BC(OP) friend bool operator OP(const bfloat16 &a, const bfloat16 &b); \
  friend bool operator OP(const bfloat16 &a, float b); friend bool operator OP(float a, const bfloat16 &b);
  RC_BC(<) RC_BC(>) RC_BC(<=) RC_BC(>=) RC_BC(==) RC_BC(!=)
#undef RC_BC
};
using sycl::plus; using sycl::multiplies; using sycl::maximum; using sycl::minimum; using sycl::bit_or;
using sycl::bit_and; using sycl::bit_xor; using sycl::sub_group; using sycl::reduce_over_group;
struct sub_group_mask { uint32_t count() const; bool operator[](id<1> i) const; template <typename T> void extract_bits(T &out, id<1> pos = 0) const; };
template <typename G> sub_group_mask group_ballot(G g, bool p = true);
template <typename T, typename G> multi_ptr<T, access::address_space::local_space, access::decorated::legacy> group_local_memory_for_overwrite(G g);
template <typename T, typename G, typename... A> multi_ptr<T, access::address_space::local_space, access::decorated::legacy> group_local_memory(G g, A &&...a);
namespace experimental {
using sycl::reduce_over_group;
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


def make_header(path):
    text = open(os.path.join(HERE, "sycl_mini.hpp")).read()
    start, end = text.index("namespace std {"), text.index("namespace sycl {")
    text = text[:start] + STD_PRELUDE + text[end:]  # the real std instead of the mini prelude
    for old, new in PATCHES:
        if text.count(old) != 1:
            raise SystemExit("real_corpus: sycl_mini.hpp changed; anchor not found once: %r" % old[:60])
        text = text.replace(old, new)
    with open(path, "w") as f:
        f.write(text + SYCL_EXTRA)


def copy_program(src, dst, header):
    """Copies the program's source files with SYCL includes replaced line for line."""
    for root, _, files in os.walk(src):
        for fn in files:
            s = os.path.join(root, fn)
            if not fn.lower().endswith(SRC_EXT) or not os.path.isfile(s):
                continue
            d = os.path.join(dst, os.path.relpath(s, src))
            os.makedirs(os.path.dirname(d), exist_ok=True)
            with open(s, encoding="utf-8", errors="surrogateescape") as f:
                lines = f.read().split("\n")
            lines = [SYCL_INCLUDE.sub(r'\1"%s"' % header, l) if SYCL_INCLUDE.match(l) else l for l in lines]
            with open(d, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write("\n".join(lines))


def translation_units(copy):
    """The .cpp files of a program that no other of its files #includes."""
    srcs, included = [], set()
    for root, _, files in os.walk(copy):
        for fn in files:
            p = os.path.join(root, fn)
            if fn.lower().endswith(TU_EXT):
                srcs.append(p)
            with open(p, encoding="utf-8", errors="replace") as f:
                for inc in INCLUDE.findall(f.read()):
                    included.add(os.path.normpath(os.path.join(root, inc)))
                    included.add(os.path.basename(inc))
    return sorted(p for p in srcs if p not in included and os.path.basename(p) not in included)


def stub_missing(copy, sysinc, tmp):
    """Empty files for included headers that exist nowhere (HeCBench's SYCL programs share
    reference.h & co. with their CUDA twin, absent here; oneDPL, oneMKL, MPI). Clang stops at a
    missing header; with an empty one it goes on and the names it lacks become errors where they
    are used, which host_error() judges."""
    stubs, made = os.path.join(copy, "_missing_"), []
    for root, _, files in os.walk(copy):
        for fn in files:
            with open(os.path.join(root, fn), encoding="utf-8", errors="replace") as f:
                incs = INCLUDE_ANY.findall(f.read())
            for q, name in incs:
                dirs = ([root, copy] if q == '"' else [copy]) + sysinc + [stubs]
                if os.path.isabs(name) or any(os.path.exists(os.path.join(d, name)) for d in dirs):
                    continue
                t = os.path.normpath(os.path.join(root if ".." in name else stubs, name))
                if t.startswith(tmp + os.sep):
                    os.makedirs(os.path.dirname(t), exist_ok=True)
                    open(t, "w").close()
                    made.append(name)
    return sorted(set(made))


class RecordingIndex:
    """Wraps the oracle's clang Index: keeps the last translation unit and hides its diagnostics
    from the oracle, so that it finds kernels in a TU with errors too; host_error() then decides
    whether the errors can touch a kernel."""

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


_W = {}


def _init(opts):
    import oracle

    _W.update(opts)
    o = _W["oracle"] = oracle.Oracle(lib_dirs=opts["lib_dirs"])
    o.index = RecordingIndex(o.index)
    collect = o.collect_function

    def record(fn, *a):  # every function of every kernel's reach
        _W["reach"].append(fn)
        return collect(fn, *a)

    o.collect_function = record


def chain_at(tu, fname, offset):
    """The cursors of the main file or program headers that enclose a location, outermost first."""
    out, cur = [], tu.cursor
    while True:
        for ch in cur.get_children():
            e = ch.extent
            if e.start.file is not None and e.start.file.name == fname and e.start.offset <= offset <= e.end.offset:
                out.append(ch)
                cur = ch
                break
        else:
            return out


def host_error(tu, d, copy, reach, words):
    """Why an error may change what the oracle says about a kernel, or None when it lies in host
    code no kernel depends on. Conservative: anything not shown harmless is harmful."""
    import clang.cindex as ci

    K = ci.CursorKind
    if d.severity >= ci.Diagnostic.Fatal:
        return "fatal error"
    f = d.location.file
    if f is None or not os.path.realpath(f.name).startswith(os.path.realpath(copy) + os.sep):
        return "error outside the program's files"
    name, off = os.path.realpath(f.name), d.location.offset
    if any(rf == name and s <= off <= e for rf, s, e in reach):
        return "error inside a kernel's reach"
    chain = chain_at(tu, f.name, off)
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
    """Oracle over the copy's TUs, analyzer over the original; paths are the original's."""
    import clang.cindex as ci

    o, tmp = _W["oracle"], _W["tmp"]
    copy = os.path.join(tmp, "work", os.path.basename(src.rstrip("/")))
    shutil.rmtree(copy, ignore_errors=True)
    copy_program(src, copy, _W["header"])
    stubs = stub_missing(copy, _W["sysinc"], tmp)
    rcopy = os.path.realpath(copy)
    orig = lambda p: os.path.join(src, os.path.relpath(os.path.realpath(p), rcopy))
    args = ["-x", "c++", "-std=c++17", "-nostdinc", "-nostdinc++", "-Wno-everything", "-ferror-limit=0",
            "-DSYCL_LANGUAGE_VERSION=202012", "-I", os.path.join(copy, "_missing_"), "-I", os.path.dirname(_W["header"])]
    for d in _W["sysinc"]:
        args += ["-isystem", d]
    res = {"dir": src, "tus": [], "stubs": stubs, "analyzer_error": None, "analyzer": []}
    for tu_path in translation_units(copy):
        t0, _W["reach"] = time.time(), []
        try:
            r = o.analyze(tu_path, include_dirs=[copy], args=args)
            tu = o.index.last
            errs = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
            reach, words = [], set()
            for fn in _W["reach"]:
                e = fn.extent
                if e.start.file is not None:
                    fname = os.path.realpath(e.start.file.name)
                    data = o.files.get(e.start.file.name)
                    start = data.rfind(b"\n", 0, e.start.offset) + 1  # from its line's start: a lambda's [
                    reach.append((fname, start, e.end.offset))
                    words.update(re.findall(r"[A-Za-z_]\w*", data[start : e.end.offset].decode("utf-8", "replace")))
            harm = [(h, d) for d in errs for h in [host_error(tu, d, copy, reach, words)] if h]
            covered = sorted({orig(i.include.name) for i in tu.get_includes()
                              if os.path.realpath(i.include.name).startswith(rcopy + os.sep)})
            fmt = lambda d: "%s:%d:%d: %s" % (orig(d.location.file.name) if d.location.file else "?",
                                              d.location.line, d.location.column, d.spelling)
            errors = [(h + ": " if h else "") + fmt(d) for h, d in harm + [(None, d) for d in errs if d not in [x for _, x in harm]]]
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
                           "kernels": r["kernels"] if status != "dropped" else [],
                           "covered": [orig(tu_path)] + covered, "seconds": round(time.time() - t0, 2)})
        o.index.last = None
    shutil.rmtree(copy, ignore_errors=True)
    try:
        p = subprocess.run([_W["analyzer"], "check", os.path.abspath(src), "--targets", "spir64", "--no-cache",
                            "--format", "json"], capture_output=True, text=True, timeout=600)
        if p.returncode not in (0, 1):
            raise ValueError("exit status %d: %s" % (p.returncode, p.stderr[-300:]))
        res["analyzer"] = json.loads(p.stdout)["kernels"]
    except (ValueError, KeyError, OSError, subprocess.TimeoutExpired) as e:
        res["analyzer_error"] = str(e)
    return res


def error_reason(msg):
    """An error message for grouping: file names and numbers out."""
    m = re.sub(r"'[^']*' file not found", "'<header>' file not found", msg)
    return re.sub(r"(?<=[ (])\d+\b", "N", m)


def source_line(path, line):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().split("\n")[line - 1].strip()
    except (OSError, IndexError):
        return "?"


def confusion(keys, oracle_k, analyzer_k):
    table = {}
    for a in ASPECTS:
        c = collections.Counter()
        for key in keys:
            o, s = a in oracle_k[key]["used_folded"], a in analyzer_k[key]
            c[("TP" if s else "FN") if o else ("FP" if s else "TN")] += 1
        tp, fp, fn = c["TP"], c["FP"], c["FN"]
        table[a] = {"TP": tp, "FP": fp, "FN": fn, "TN": c["TN"],
                    "recall": round(tp / (tp + fn), 3) if tp + fn else None,
                    "false_finding_rate": round(fp / (fp + tp), 3) if fp + tp else None}
    return table


def compare(results):
    """Merges kernels by location (template instances: union) and builds the report."""
    covered, clean_cov, tus, oracle_k, analyzer_k, analyzer_errors = set(), set(), [], {}, {}, []
    for res in results:
        for tu in res["tus"]:
            tus.append(tu)
            if tu["status"] == "dropped":
                continue
            covered.update(os.path.realpath(f) for f in tu["covered"])
            if tu["status"] == "clean":
                clean_cov.update(os.path.realpath(f) for f in tu["covered"])
            for k in tu["kernels"]:
                key = (os.path.realpath(k["file"]), k["line"], k["column"])
                m = oracle_k.setdefault(key, {"used_folded": set(), "used": set(), "why": {}, "why_folded": {}, "clean": False})
                m["used_folded"].update(k["used_folded"])
                m["used"].update(k["used"])
                m["clean"] |= tu["status"] == "clean"
                for w in ("why", "why_folded"):
                    for a, v in k[w].items():
                        m[w].setdefault(a, v)
        if res["analyzer_error"]:
            analyzer_errors.append({"dir": res["dir"], "error": res["analyzer_error"]})
        for k in res["analyzer"]:
            key = (os.path.realpath(k["file"]), k["line"], k["column"])
            analyzer_k.setdefault(key, set()).update(a for a in k["used"] if a in ASPECTS)
    in_scope = {k: v for k, v in analyzer_k.items() if k[0] in covered}
    matched = sorted(set(oracle_k) & set(in_scope))
    mismatches = []
    for key in matched:
        o, s, ok = set(oracle_k[key]["used_folded"]) & set(ASPECTS), in_scope[key], oracle_k[key]
        if o != s:
            mismatches.append({"file": key[0], "line": key[1], "column": key[2], "oracle": sorted(o), "analyzer": sorted(s),
                               "clean_tu": ok["clean"], "fn": sorted(o - s), "fp": sorted(s - o),
                               "oracle_why": {a: ok["why_folded"][a] for a in sorted(o - s)},
                               "oracle_unfolded_why": {a: ok["why"][a] for a in sorted(s - o) if a in ok["why"]},
                               "source": source_line(key[0], key[1])})
    only = lambda ks, used: [{"file": k[0], "line": k[1], "column": k[2], "used": sorted(set(used(k)) & set(ASPECTS)),
                              "clean_tu": k[0] in clean_cov, "source": source_line(k[0], k[1])} for k in sorted(ks)]
    count = lambda st: sum(1 for t in tus if t["status"] == st)
    reasons = lambda st: collections.Counter(error_reason(t["reason"]) for t in tus if t["status"] == st).most_common()
    return {
        "directories": len(results), "files": len(tus), "clean": count("clean"), "host_errors": count("host-errors"),
        "dropped": count("dropped"), "drop_reasons": reasons("dropped"), "host_error_reasons": reasons("host-errors"),
        "stubbed_headers": collections.Counter(h for r in results for h in r["stubs"]).most_common(),
        "tus": [{k: t[k] for k in ("file", "status", "reason", "errors", "nerrors", "seconds")} for t in tus],
        "analyzer_errors": analyzer_errors, "oracle_kernels": len(oracle_k), "analyzer_kernels": len(analyzer_k),
        "analyzer_kernels_in_typed_files": len(in_scope), "matched": len(matched),
        "per_aspect": confusion(matched, oracle_k, in_scope),
        "per_aspect_clean": confusion([k for k in matched if oracle_k[k]["clean"]], oracle_k, in_scope),
        "matched_clean": sum(1 for k in matched if oracle_k[k]["clean"]), "mismatches": mismatches,
        "only_oracle": only(set(oracle_k) - set(in_scope), lambda k: oracle_k[k]["used_folded"]),
        "only_analyzer": only(set(in_scope) - set(oracle_k), lambda k: in_scope[k]),
    }


def print_report(rep, out, top):
    w = out.write
    w("\n== %d directories, %d translation units: %d clean, %d with errors only in host code (kept), %d dropped\n"
      % (rep["directories"], rep["files"], rep["clean"], rep["host_errors"], rep["dropped"]))
    for title, key in (("dropped TUs, first harmful error", "drop_reasons"), ("kept TUs with host errors, first error", "host_error_reasons")):
        w("   %s (top %d):\n" % (title, top))
        for msg, n in rep[key][:top]:
            w("   %5d  %s\n" % (n, msg[:160]))
    w("   headers absent from the corpus, stubbed empty: %s\n" % ", ".join("%s (%d)" % x for x in rep["stubbed_headers"][:top]))
    for e in rep["analyzer_errors"]:
        w("   ERROR %s: %s\n" % (e["dir"], e["error"][:200]))
    w("== kernels: oracle %d, analyzer %d (%d in files a kept TU covers), matched %d (%d from clean TUs), "
      "oracle-only %d, analyzer-only %d\n" % (rep["oracle_kernels"], rep["analyzer_kernels"], rep["analyzer_kernels_in_typed_files"],
                                             rep["matched"], rep["matched_clean"], len(rep["only_oracle"]), len(rep["only_analyzer"])))
    fmt = lambda x: "-" if x is None else "%.3f" % x
    for title, key in (("all matched kernels", "per_aspect"), ("kernels from clean TUs", "per_aspect_clean")):
        w("\n%-9s %6s %6s %6s %6s %8s %8s   (%s)\n" % ("aspect", "TP", "FP", "FN", "TN", "recall", "FFR", title))
        for a, t in rep[key].items():
            w("%-9s %6d %6d %6d %6d %8s %8s\n" % (a, t["TP"], t["FP"], t["FN"], t["TN"], fmt(t["recall"]), fmt(t["false_finding_rate"])))
    w("\n== %d mismatches (oracle's folded view vs analyzer)\n" % len(rep["mismatches"]))
    for m in rep["mismatches"]:
        w("%s:%d:%d: oracle {%s}, analyzer {%s}%s\n" % (m["file"], m["line"], m["column"], ", ".join(m["oracle"]),
                                                       ", ".join(m["analyzer"]), "" if m["clean_tu"] else " [TU with host errors]"))
        w("    | %s\n" % m["source"][:160])
        for a, why in m["oracle_why"].items():
            w("    FN %s: oracle's first use: %s\n" % (a, why))
        for a in m["fp"]:
            u = m["oracle_unfolded_why"].get(a)
            w("    FP %s: %s\n" % (a, "oracle: constant only, %s" % u if u else "oracle: no use"))
    for title, ks in (("oracle", rep["only_oracle"]), ("analyzer", rep["only_analyzer"])):
        w("\n== %d kernels only the %s reports\n" % (len(ks), title))
        for k in ks:
            w("%s:%d:%d {%s}%s | %s\n" % (k["file"], k["line"], k["column"], ", ".join(k["used"]),
                                          "" if k["clean_tu"] else " [TU with host errors]", k["source"][:120]))


def main(argv):
    ap = argparse.ArgumentParser(description="sycl-analyzer vs the libclang oracle on real SYCL programs")
    ap.add_argument("dirs", nargs="*", help="program directories (default: HeCBench's *-sycl)")
    ap.add_argument("--analyzer", default="/tmp/sa-bin/sycl-analyzer")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json-report", default="real_corpus_report.json")
    ap.add_argument("--top", type=int, default=15, help="how many drop reasons to print")
    ap.add_argument("--keep-temp", action="store_true", help="keep the temp dir (header copy)")
    ns = ap.parse_args(argv)
    dirs = ns.dirs or sorted(glob.glob("/tmp/corpora/hecbench/src/*-sycl"))
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="real_corpus_")
    lib = os.path.join(tmp, "lib")
    os.makedirs(lib)
    header = os.path.join(lib, "sycl_mini_real.hpp")
    make_header(header)
    for h in OVERRIDDEN:
        open(os.path.join(lib, h), "w").close()
    sysinc = system_includes()
    opts = {"tmp": tmp, "header": header, "sysinc": sysinc, "lib_dirs": [lib] + sysinc, "analyzer": ns.analyzer}
    results = []
    with multiprocessing.Pool(ns.jobs, _init, (opts,)) as pool:
        for i, res in enumerate(pool.imap_unordered(run_program, dirs), 1):
            results.append(res)
            st = collections.Counter(t["status"] for t in res["tus"])
            sys.stderr.write("[%d/%d] %s: %s\n" % (i, len(dirs), os.path.basename(res["dir"]), dict(st)))
    results.sort(key=lambda r: r["dir"])
    rep = compare(results)
    rep["seconds"] = round(time.time() - t0, 1)
    rep["header"] = header if ns.keep_temp else None
    print_report(rep, sys.stdout, ns.top)
    with open(ns.json_report, "w") as f:
        json.dump(rep, f, indent=1)
    sys.stdout.write("\nreport: %s; %.0f s\n" % (ns.json_report, rep["seconds"]))
    if not ns.keep_temp:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
