#!/usr/bin/env python3
"""Seeded random SYCL program generator for the differential test.

`gen.py --seed S [-o FILE]` writes one small C++17 program that includes "sycl_mini.hpp" and
launches 1-4 kernels. Every construct is drawn from a weighted menu with random.Random(S), so a
seed always gives the same program.

About three programs in four are then split into a .cpp and headers (Gen.files, drawn from a
second random stream, so the program itself is the one-file program of the seed, which
`--one-file` writes): a "dev" header with the prelude (aliases, macros, constants) and the device
helpers, templates, overload sets and launch wrappers, and often a "kernels" header that includes
it, holding functors, class templates and classes that launch kernels and some of run()'s kernel
launches moved into an inline function or a function template (run() passes them its variables).
One of the headers is in a subdirectory, included by relative paths (`../`, `sub/`); each has
`#pragma once` or an include guard; the dev header is often included twice. Some programs declare
the scalar helpers in the dev header and define them in the .cpp; some kernel lambdas have their
body in a `.inc` file included inside the lambda. Kernels in headers carry their expect-oracle
comment there. About a third of the kernels end up in a header (`--stats`).

Each kernel is built for a chosen set of aspects (often none): the generator keeps the C++ type
of every expression it writes and only writes evaluated expressions whose types the chosen set
allows, adds decoys that must not count (unevaluated operands, discarded `if constexpr`
branches, pointers that are only passed on, uncalled overloads and lambdas), and forces at least
one real use of each chosen aspect. Because it knows every type it wrote, it also knows the
answer: it appends `// expect-oracle: ...` to the line of each kernel's location, which
`run.py --check-gen` compares with the oracle (a check of the oracle, not of the analyzer).

Constant expressions of an aspect type (`float f = 2.0;`, `static_cast<float>(0.5)`,
`sycl::half(1.0f)` stored to a float) do appear, but never as a kernel's only use of that aspect:
the oracle's rule counts them, a compiler (and an analyzer that models folding) does not, so the
generator tracks which expressions are constant and adds a real use where needed. Every
generated kernel therefore has the same answer in the oracle's two views (`used`,
`used_folded`); --check-gen verifies both.

It also writes the C++ forms that only a compiler's template machinery resolves (FORM_TEXT and
the kernel forms k_explicit, k_vlaunch, k_launch_ov, k_apply_ov): explicit instantiation
definitions of class templates, of function templates, of a member of a class template and of a
member template (kernels inside them), beside `extern template` declarations of other types
(which instantiate nothing, so their types may use any aspect; a template that only `extern
template` names has no kernel and its line no expect-oracle comment); variadic templates
(recursion over packs of 1-5 values ending in a non-variadic overload, fold expressions,
`sizeof...`, an explicit first template argument with a deduced or empty pack, packs of
non-type values); overload sets (promotion against conversion, a non-template beside a
template, an overloaded launch wrapper, a template and a non-template overload that each launch
a kernel); SFINAE (enable_if in a default template argument, a value parameter's type and the
return type, on is_floating_point / is_integral / is_same / sizeof); class template partial
specialisations guarded by enable_if, with the primary chosen when none matches; default
arguments; data members declared after the member functions that use them; macros in kernel code
(`EPT` as a template argument, function-like macros); non-type template arguments written as
`(8)`, `1 << 3`, `kN + 1`; constexpr and const globals; array parameters. The expectation of
each follows the overload or specialisation C++ picks, which --check-gen verifies with clang.
`gen.py --stats N` prints the share of kernels in which each form is written.

The forms of issue 41 (EXTRA_FORMS, EXTRA_TEXT, the x_* methods) come from a random stream of
their own (Gen.rx), one statement in about 30 % of the kernel bodies, before the forced uses:
T (&)[N] deduction (function templates whose `if constexpr` branch depends on N or sizeof(T),
from local arrays, inside a class template, from members, rows, references and alias-typed or
sycl::half arrays), user-defined operators (whose body or result alone uses double) on a class
holding a double, conversion functions (to float computing in float, to double, computing in
double), and an atomic_ref<double> / atomic_ref<sycl::half> that only stores a constant. None is
left out as a known analyzer gap now. A program in which none is written is the one the
generator wrote before them.

The forms of issue 35 (LIB_FORMS, GROUP_FORMS, the l_* methods and group_form) come from a third
stream (Gen.ry): in about 35 % of the programs one or two launches after run()'s kernels, a
parallel algorithm with a oneDPL device policy (its callables are kernels, generic ones
instantiated with the first iterator's element type) or a host policy (no kernel), or a
parallel_for with sycl::reduction arguments (the kernel combines into each `auto &acc`); and a
group algorithm or sub-group shuffle statement in about half of the nd_range kernel bodies.
All of them are written by default ("group-inclusive-scan-init" was a known gap until the
analyzer read the inclusive scan's init from the last argument).

The forms of issue 50 (X50_FORMS, the z_* methods of Gen50) are each a random stream of its own
(Gen.z50[name], seeded from the seed and the form's name), written in 12 % of the programs each
(--forms-rate) as a block of its own (definitions and a host function that run() calls last):
the detection idiom (void_t partial specialisations on a member or free call expression, valid
or not, driving `if constexpr`), `if constexpr` on a member of a template type parameter, member
types through traits' explicit and partial specialisations, template arguments and bases, tag
dispatch (std::true_type / false_type overloads, user tag hierarchies), function template
instances named without a call (function pointers, braced arrays of them, arguments),
typedef'd float locals initialised by double or float computations, buffer CTAD from a pointer
and an accessor of it (also through `decltype(acc)`), one template called with distinct integer
types of one size (or one type spelled twice), a device_has function template called from host
code and from a kernel (its line says the findings of its device instances), and T (&)[N]
deduced from arrays whose bound is a named constant. `--forms a,b` writes only those. A program
without them is the one written before them; their lines do not count against MAX_LINES.

Things it deliberately never writes (their meaning under the rule is ambiguous, or libclang
cannot show them): captures or functor fields of an aspect type that the kernel does not use in
evaluated code (DPC++ would see them as kernel arguments; the rule does not), default arguments
whose hidden expression would be a kernel's only use of an aspect (a `float t = 0.5` default is
written: a constant a compiler folds, no use under both views, and libclang does not show it),
default member initializers, user-declared destructors, virtual calls, function pointers,
`[*this]`, non-type template arguments or array bounds with floating-point expressions,
explicit instantiation definitions in headers (the oracle probes those of the .cpp only), and a
functor's operator() defined outside its class (the analyzer names such a kernel by the
definition, the oracle by the first declaration). To stay valid C++ it
also avoids what the mini header makes ambiguous: sycl::half mixed with integers other than int
or compared with non-half values, math functions called with mixed argument types, and
arithmetic on sycl::id / sycl::item objects (only their size_t components are computed with).
"""

import argparse
import os
import posixpath
import random
import re
import shutil
import sys

# ----- the type model -------------------------------------------------------------------------
INT_KINDS = ["int", "long", "ull", "uint", "size_t"]
FP_KINDS = ["float", "double", "ldouble", "half"]
SPELL = {
    "int": ["int", "int", "std::int32_t"],
    "long": ["long", "i64", "std::int64_t"],
    "ull": ["unsigned long long", "u64"],
    "uint": ["unsigned", "unsigned int", "std::uint32_t"],
    "size_t": ["size_t", "std::size_t"],
    "float": ["float"],
    "double": ["double", "real_t"],
    "ldouble": ["long double"],
    "half": ["sycl::half", "sycl::half", "half_t"],
}
# spellings usable as a functional cast T(x)
FUNC_CAST_OK = {"int", "long", "i64", "u64", "unsigned", "size_t", "float", "double", "real_t", "sycl::half", "half_t", "std::int64_t", "std::int32_t", "std::uint32_t", "std::size_t"}
LITS = {
    "int": ["0", "1", "2", "3", "7"],
    "long": ["1L", "3L", "8L"],
    "ull": ["1ULL", "5ULL"],
    "uint": ["1u", "4u"],
    "size_t": ["1UL", "2UL"],
    "float": ["1.0f", "2.0f", "0.5f", "3.f", "1.5f", "0.25f"],
    "double": ["0.5", "2.0", "1.0", "1e-3", "3.0"],
    "ldouble": ["2.0L", "0.5L"],
    "half": ["sycl::half(1.0f)", "sycl::half{2.0f}", "sycl::half(0.5f)"],
}
ASP = {"double": {"fp64"}, "ldouble": {"fp64"}, "half": {"fp16"}}
SIZE = {"int": 4, "long": 8, "ull": 8, "uint": 4, "size_t": 8, "float": 4, "double": 8, "ldouble": 16, "half": 2}
BASE_ALLOWED = {"int", "long", "ull", "uint", "size_t", "float"}

# USM pointers of the host function: name -> element kind
POINTERS = {"pf": "float", "pd": "double", "pi": "int", "pl": "long", "pu": "ull", "ph": "half", "pui": "uint"}
# host scalars: name -> (kind, C++ type, initializer)
HOST_SCALARS = {
    "hf": ("float", "float", "1.5f"),
    "hd": ("double", "double", "2.5"),
    "hi": ("int", "int", "3"),
    "hl": ("long", "long", "4L"),
    "hh": ("half", "sycl::half", "sycl::half(1.0f)"),
    "hld": ("ldouble", "long double", "0.5L"),
}
# structs: name -> (fields [(name, kind)], definition, host initializer)
STRUCTS = {
    "P2": ([("x", "double"), ("y", "float")], "struct P2 {\n  double x;\n  float y;\n};", "P2{1.0, 2.0f}"),
    "F2": ([("a", "float"), ("b", "int")], "struct F2 {\n  float a;\n  int b;\n};", "F2{1.0f, 2}"),
    "H2": ([("h", "half"), ("n", "int")], "struct H2 {\n  sycl::half h;\n  int n;\n};", "H2{sycl::half(1.0f), 2}"),
    "Derived1": (
        [("d", "double"), ("i", "int")],
        "struct Base1 {\n  double d;\n};\nstruct Derived1 : Base1 {\n  int i;\n};",
        "Derived1{{1.0}, 2}",
    ),
    "Arr3": ([("v", "float[3]")], "struct Arr3 {\n  float v[3];\n};", "Arr3{{1.0f, 2.0f, 3.0f}}"),
}
STRUCT_HOSTVAR = {"P2": "ps", "F2": "fs", "H2": "hs", "Derived1": "dv", "Arr3": "a3"}


def struct_aspects(name):
    out = set()
    for _, k in STRUCTS[name][0]:
        out |= ASP.get(k.split("[")[0], set())
    return out


def arith_kinds(allowed):
    return [k for k in INT_KINDS + FP_KINDS if k in allowed]


# ----- helpers: (definition text, metadata) ---------------------------------------------------
class Helper:
    def __init__(self, name, text, kinds, aspects, deps=()):
        self.name = name
        self.text = text
        self.kinds = kinds  # kinds T the helper accepts
        self.aspects = aspects  # function kind -> set
        self.deps = deps


def _asp(k):
    return set(ASP.get(k, set()))


TEMPLATE_HELPERS = {
    "twice": Helper(
        "twice",
        "template <class T> T twice(T x) { return x + x; }",
        ["int", "long", "ull", "uint", "float", "double", "half", "ldouble"],
        _asp,
    ),
    "addone": Helper(
        "addone",
        "template <class T> T addone(T x) { return x + T(1); }",
        ["int", "long", "float", "double", "half"],
        _asp,
    ),
    "blend": Helper(
        "blend",
        "template <class T> T blend(T a, T b) {\n"
        "  if constexpr (std::is_same_v<T, double>) {\n    return a * 0.5 + b * 0.5;\n"
        "  } else if constexpr (std::is_floating_point_v<T>) {\n    return a * 0.5f + b * 0.5f;\n"
        "  } else {\n    return (a + b) / 2;\n  }\n}",
        ["int", "long", "float", "double", "half"],
        _asp,
    ),
    "widen": Helper(
        "widen",
        "template <class T> T widen(T x) {\n"
        "  if constexpr (sizeof(T) == 8) {\n    return static_cast<T>(x * 2.0);\n"
        "  } else {\n    return static_cast<T>(x * 2.0f);\n  }\n}",
        ["int", "long", "ull", "uint", "float", "double", "half"],
        lambda k: _asp(k) | ({"fp64"} if SIZE[k] == 8 else set()),
    ),
    "bump": Helper(
        "bump",
        "template <class T> T bump(T x) { return static_cast<T>(x * 1.5); }\n"
        "template <> int bump<int>(int x) { return x + 1; }\n"
        "template <> sycl::half bump<sycl::half>(sycl::half x) { return x + sycl::half(1.0f); }",
        ["int", "half", "float", "long", "double"],
        lambda k: _asp(k) | ({"fp64"} if k not in ("int", "half") else set()),
    ),
    "sq": Helper(
        "sq",
        "template <class T> auto sq(T x) -> decltype(x * x) { return x * x; }",
        ["int", "long", "float", "double", "half"],
        _asp,
    ),
}
# non-template scalar helpers: name -> (text, return kind, [param kinds], aspects)
SCALAR_HELPERS = {
    "scale_f": ("float scale_f(float x) { return x * 0.5f; }", "float", ["float"], set()),
    "scale_d": ("float scale_d(float x) { return x * 0.5; }", "float", ["float"], {"fp64"}),
    "to_d": ("double to_d(float x) { return x; }", "double", ["float"], {"fp64"}),
    "from_d": ("float from_d(double x) { return static_cast<float>(x); }", "float", ["double"], {"fp64"}),
    "half_to_f": ("float half_to_f(sycl::half h) { return h; }", "float", ["half"], {"fp16"}),
    "clampi": ("int clampi(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }", "int", ["int", "int", "int"], set()),
    "chain1": (
        "float chain2(float x) { return x * 0.25; }\nfloat chain1(float x) { return chain2(x) + 1.0f; }",
        "float",
        ["float"],
        {"fp64"},
    ),
    "chainc1": (
        "float chainc2(float x) { return x - 1.0f; }\nfloat chainc1(float x) { return chainc2(x) * 2.0f; }",
        "float",
        ["float"],
        set(),
    ),
    "lmix": ("long lmix(long a, int b) { return a * b + 1L; }", "long", ["long", "int"], set()),
}
# class helpers: name -> (text, aspects of constructing + using it, how to use: see stmt_class_helper)
CLASS_HELPERS = {
    "Pt": ("struct Pt {\n  float x, y;\n  Pt(float a, float b) : x(a), y(b) {}\n  float sum() const { return x + y; }\n};", set()),
    "PtD": ("struct PtD {\n  float x;\n  PtD(float a) : x(a * 0.5) {}\n  float sum() const { return x; }\n};", {"fp64"}),
    "Wrap": ("struct Wrap {\n  float v;\n  operator float() const { return v * 2.0f; }\n};", set()),
    "WrapD": ("struct WrapD {\n  float v;\n  operator float() const { return static_cast<float>(v * 2.0); }\n};", {"fp64"}),
    "Acc2": ("struct Acc2 {\n  float s;\n  void add(float v) { s += v; }\n  float get() const { return s; }\n};", set()),
    "AccD": (
        "struct AccD {\n  double s;\n  void add(float v) { s += v; }\n  float get() const { return static_cast<float>(s); }\n};",
        {"fp64"},
    ),
    "V2": (
        "struct V2 {\n  float x, y;\n};\n"
        "V2 operator+(V2 a, V2 b) { return V2{a.x + b.x, a.y + b.y}; }\n"
        "V2 operator-(V2 a, V2 b) { return V2{static_cast<float>(a.x - b.x * 1.0), a.y - b.y}; }",
        None,  # + is clean, - uses fp64
    ),
}
SCAN_TEXT = (
    "void scan(int *p, size_t k) { p[k] += 1; }\n"
    "void scan(double *p, size_t k) { p[k] += 1.0; }\n"
    "void scan(float *p, size_t k) { p[k] *= 2.0f; }\n"
    "void scan(sycl::half *p, size_t k) { p[k] += sycl::half(1.0f); }"
)
CONSUME_TEXT = (
    "void consume(double *p, int *q) {\n  if (p == nullptr) {\n    q[0] = 1;\n  }\n}\n"
    "void keep(sycl::half *h, float *f) { f[0] = h != nullptr ? 1.0f : 0.0f; }"
)
DECOY_HELPERS = [
    "double unused_helper(double x) { return x * 2.0 + 1.0; }",
    "sycl::half unused_half(sycl::half h) { return h * h; }",
    "template <class T> T never_instantiated(T x) { return x * 0.5; }",
]


# ----- C++ forms the compiler resolves (issue 34): explicit instantiations, packs, overload sets,
# SFINAE, partial specialisations, default arguments, late members, macros, constants ---------
# Each text is written at most once per program, when some kernel calls into it. The comment of
# each says which call picks what; e_form() and s_touch() compute the aspects from that.
FORM_TEXT = {
    # variadic recursion over a pack of 1-5 values, ending in the non-variadic overload
    "vsum": "template <class T> T vsum(T x) { return x; }\n"
            "template <class T, class... R> T vsum(T x, R... r) { return x + vsum(r...); }",
    # fold expressions
    "vfold": "template <class... A> auto vprod(A... a) { return (a * ...); }\n"
             "template <class... A> auto vadd(A... a) { return (... + a); }",
    # sizeof...: of types written as template arguments (no use), of values (their parameters are)
    "cnt": "template <class... A> constexpr int tcount() { return static_cast<int>(sizeof...(A)); }\n"
           "template <class... A> int vcount(A... a) { return static_cast<int>(sizeof...(a)); }",
    # an explicit first template argument, then a deduced or empty pack
    "build": "template <class R, class... A> R build(A... a) { return static_cast<R>((a + ... + 0)); }",
    # a pack of non-type values
    "isum": "template <int... Ns> constexpr int isum() { return (Ns + ... + 0); }",
    # a comma fold over a pack of pointers of mixed element types
    "touch": "template <class... P> void touch_all(size_t k, P *...ps) { ((ps[k] = ps[k] + ps[k]), ...); }",
    # overload sets: promotion beats conversion (char/short -> int; float -> double without a float one)
    "pr": "int pr(int x) { return x + 1; }\ndouble pr(double x) { return x * 2.0; }",
    "pz": "int pz(int x) { return x - 1; }\nfloat pz(float x) { return x * 2.0f; }\ndouble pz(double x) { return x * 0.5; }",
    # a non-template beside a template: the non-template wins a tie (ntm(float) uses double)
    "ntm": "template <class T> T ntm(T x) { return x + x; }\nfloat ntm(float x) { return static_cast<float>(x * 0.5); }",
    # SFINAE in a value parameter's type (sizeof)
    "sz": "template <class T, std::enable_if_t<(sizeof(T) == 8), int> = 0> T sz(T x) { return static_cast<T>(x * 0.5); }\n"
          "template <class T, std::enable_if_t<(sizeof(T) != 8), int> = 0> T sz(T x) { return x * T(2); }",
    # SFINAE in a default template argument (is_integral), beside a non-template double overload
    "halve": "template <class T, class = std::enable_if_t<std::is_integral<T>::value>> T halve(T x) { return x / 2; }\n"
             "double halve(double x) { return x * 0.5; }",
    # SFINAE in a value parameter's type (is_floating_point / is_integral)
    "mag": "template <class T, std::enable_if_t<std::is_floating_point<T>::value, int> = 0> T mag(T x) { return x < T(0) ? -x : x; }\n"
           "template <class T, std::enable_if_t<std::is_integral<T>::value, int> = 0> double mag(T x) { return static_cast<double>(x) * 0.5; }",
    # SFINAE in the return type (sizeof, is_same)
    "wide": "template <class T> std::enable_if_t<(sizeof(T) > 4), double> wide(T x) { return static_cast<double>(x); }\n"
            "template <class T> std::enable_if_t<(sizeof(T) <= 4), float> wide(T x) { return static_cast<float>(x); }",
    "sel": "template <class T> std::enable_if_t<std::is_same<T, float>::value, T> sel(T x) { return x * 2.0f; }\n"
           "template <class T> std::enable_if_t<!std::is_same<T, float>::value, T> sel(T x) { return static_cast<T>(x * 0.5); }",
    # class template partial specialisations guarded by enable_if; the primary when none matches
    "op": "template <class T, class E = void> struct Op {\n  static T apply(T x) { return x + x; }\n};\n"
          "template <class T> struct Op<T, std::enable_if_t<std::is_floating_point<T>::value>> {\n"
          "  static T apply(T x) { return static_cast<T>(x * 0.5); }\n};",
    "cv": "template <class T, class = void> struct Cv {\n  static float get(T x) { return static_cast<float>(x); }\n};\n"
          "template <class T> struct Cv<T, std::enable_if_t<std::is_integral<T>::value && (sizeof(T) == 8)>> {\n"
          "  static float get(T x) { return static_cast<float>(x * 0.5); }\n};",
    # non-type template arguments written as expressions (EPT, (8), 1 << 3, kN + 1)
    "unroll": "template <class T, int N> T unroll(T x) {\n  T s = x;\n  for (int j = 1; j < N; ++j) {\n    s += x;\n  }\n  return s;\n}",
    # default arguments: a folded double constant for a float parameter is no use
    "dscale": "float dscale(float x, float s = 0.5f) { return x * s; }",
    "dhalf": "float dhalf(float x, float t = 0.5) { return x * t; }",
    "dmix": "float dmix(float x, double w = 0.25) { return static_cast<float>(x * w); }",
    "dstep": "int dstep(int v, int k = 2) { return v + k; }",
    "dtw": "template <class T> T dtw(T x, int k = 2) { return x * k; }",
    # array parameters are pointers
    "lutf": "float lutf(const double lut[4][8], float x) { return lut == nullptr ? x : x + 1.0f; }",
    "lutd": "float lutd(const double lut[4][8], int i) { return static_cast<float>(lut[i & 3][0]); }",
    "sum4": "float sum4(const float v[4]) { return v[0] + v[3]; }",
    # data members declared after the member functions that use them
    "latep": "struct LateP {\n  float get(int k) const { return dp[k] > 0 ? 1.0f : 0.0f; }\n  double *dp;\n};",
    "latef": "struct LateF {\n  float get() const { return v * static_cast<float>(k); }\n  float v;\n  int k;\n};",
}
# ----- forms of issue 41 (EXTRA_FORMS): T (&)[N] deduction, user-defined operators and conversion
# functions, atomic_ref of an fp type that only stores a constant. Each text is written at most once
# per program, when some kernel uses it (helpers_used "X:" + key).
EXTRA_TEXT = {
    # T (&)[N] deduction: N picks the branch of apick, sizeof(T) that of awide; alen is N
    "arr": "template <class T, std::size_t N> float apick(const T (&a)[N]) {\n"
           "  if constexpr (N == 4) {\n    return static_cast<float>(static_cast<float>(a[0]) * 0.5);\n"
           "  } else {\n    return static_cast<float>(a[N - 1]) * 0.5f;\n  }\n}\n"
           "template <class T, int N> float awide(T (&a)[N]) {\n"
           "  if constexpr (sizeof(T) == 8) {\n    return static_cast<float>(static_cast<float>(a[0]) * 2.0);\n"
           "  } else {\n    return static_cast<float>(a[N - 1]) * 2.0f;\n  }\n}\n"
           "template <class T, std::size_t N> constexpr int alen(const T (&)[N]) { return static_cast<int>(N); }",
    # a class template whose members deduce T (&)[N] from its array member
    "ring": "template <class T, int N> struct Ring {\n  T buf[N];\n  float top() const { return apick(buf); }\n"
            "  float wide() { return awide(buf); }\n};",
    # structs with array members, passed to apick / awide from outside
    "arrs": "struct AF4 {\n  float v[4];\n};\nstruct AL2 {\n  int k;\n  long w[2];\n};",
    # user-defined operators: on a class holding a double (Dv: fp64 by its type), on a class of
    # floats (Fv): + computes in float, - in double, * returns a Dv
    "uop": "struct Dv {\n  double v;\n  Dv operator+(const Dv &o) const { return Dv{v + o.v}; }\n"
           "  float f() const { return static_cast<float>(v); }\n};\n"
           "Dv operator*(Dv a, float s) { return Dv{a.v * s}; }\n"
           "struct Fv {\n  float v;\n  float get() const { return v; }\n};\n"
           "Fv operator+(Fv a, Fv b) { return Fv{a.v + b.v}; }\n"
           "Fv operator-(Fv a, Fv b) { return Fv{static_cast<float>(a.v - b.v * 0.5)}; }\n"
           "Dv operator*(Fv a, Fv b) { return Dv{static_cast<double>(a.v) * b.v}; }",
    # conversion functions used implicitly: to float computing in float (CvF), to double (CvD),
    # to float computing in double (CvW)
    "cvt": "struct CvF {\n  float v;\n  operator float() const { return v * 2.0f; }\n};\n"
           "struct CvD {\n  float v;\n  operator double() const { return v; }\n};\n"
           "struct CvW {\n  float v;\n  operator float() const { return static_cast<float>(v * 0.5); }\n};",
}
# name -> weight of each EXTRA_FORMS form (x_* methods); the names in KNOWN_ANALYZER_GAPS are not
# written unless enabled (SYCL_DIFF_GAP_FORMS / --gap-forms)
EXTRA_FORMS = {
    "array-ref": 3,  # T (&)[N] deduced from a local array, and from a class template's member inside the class
    "array-ref-alias": 0,  # (no statement of its own: array-ref and array-ref-member spell the element type through an alias or as sycl::half)
    "array-ref-member": 2,  # ... from a member of a struct or class template named from outside, a row of a 2-D array, an auto & to an array
    "user-operator-class": 2,  # Dv + Dv, Dv * float (a class holding a double)
    "user-operator": 2,  # Fv - Fv computing in double, Fv * Fv returning a Dv, Fv + Fv computing in float
    "conversion-operator-clean": 1,  # CvF (operator float computing in float) in float arithmetic and initialisations
    "conversion-operator": 2,  # CvD (operator double) in float arithmetic, CvW (operator float computing in double)
    "atomic-const-store": 2,  # atomic_ref<double> / atomic_ref<sycl::half> that only stores (adds) a constant
}
# Forms of issue 35 (device code that libraries launch), drawn from a random stream of their own
# (Gen.ry): parallel algorithms with a oneDPL device policy (kernels) or a host policy (none),
# parallel_for with sycl::reduction arguments, and group algorithms in nd_range kernels.
LIB_FORMS = {
    "dpl-algorithm": 6,  # std::/oneapi::dpl::/dpl:: algorithm, device policy: its callables are kernels
    "dpl-host-policy": 2,  # the same with a host policy (or none): no kernel
    "reduction": 5,  # parallel_for(range, sycl::reduction(...)..., [](id, auto &acc...) {...})
}
LIB_RATE = 0.35  # the share of programs that get one or two such launches
GROUP_FORMS = ("group-algorithm",)  # a group algorithm / shuffle statement in an nd_range kernel
GROUP_RATE = 0.5  # the share of nd_range kernel bodies that get one
# element kind -> the run() pointer of that element
ELEM_PTR = {"float": "pf", "double": "pd", "int": "pi", "long": "pl", "half": "ph"}
EXTRA_RATE = 0.3  # the share of kernel bodies that get one EXTRA_FORMS statement (when one fits)
MACRO_TEXT = "#define EPT (8)\n#define SQR(x) ((x) * (x))\n#define MADD(a, b, c) ((a) * (b) + (c))\n#define TO_F(x) static_cast<float>(x)\n#define KD 0.25"
CONST_TEXT = "constexpr double kScale = 0.25;\nconst double kEps = 1e-3;\nconstexpr float kF = 0.5;\nconst float kG = 1.0 / 3.0;\nconstexpr int kN = 4;"
NTTP_EXPRS = ["EPT", "(8)", "1 << 3", "kN + 1", "kN", "sizeof(int)", "2 * kN"]
INTK = ("int", "long", "ull", "uint", "size_t")


# ----- forms of issue 50 (X50_FORMS): the template idioms of real bug reports ------------------
# Each form is a random stream of its own (Gen.z50[name], seeded from the seed and the form's
# name): it decides whether the program gets the form (X50_RATE) and writes it. A form instance is
# a block of its own (definitions and a host function `zhN(q, n)` that allocates its pointers and
# launches) plus the call `zhN(q, n);` at the end of run(); it never draws from self.r nor takes
# the base program's names, so a program without the form is the one written before it, and the
# base part of a program with it is unchanged. Its lines do not count against MAX_LINES.
X50_FORMS = (
    "detection-idiom",  # void_t partial specialisation + if constexpr (has_run<B>::value): a valid or an invalid expression
    "ifc-member",  # if constexpr on a member of a template type parameter (V::flag, V::value, V::width == 8)
    "member-type",  # typename acc<T>::type (explicit / partial specialisation), D::result_type, a base's member type
    "tag-dispatch",  # overloads on std::true_type / false_type called with std::is_floating_point<T>{} etc.; user tag hierarchies
    "address-taken",  # a function template instance named without a call: function pointers, braced arrays, arguments
    "typedef-narrowing",  # using scalar = float; scalar r = 1. / x; against float r(1. / x) and float arithmetic
    "ctad-pointer",  # sycl::buffer b(ptr, sycl::range(n)), then an accessor in a kernel, decltype(acc) as a template argument
    "equal-size-types",  # unsigned long long * and size_t * instances of one template: two instances
    "host-only-device-has",  # a device_has function template called from host code (no use) and from a kernel
    "named-const-bound",  # T (&)[N] deduced from an array whose bound is a named constant, beside a double overload
)
X50_RATE = 0.12  # the share of programs that get each form (SYCL_DIFF_FORMS_RATE / --forms-rate)
SELECTED_FORMS = None  # None: all of X50_FORMS; else the names chosen (SYCL_DIFF_FORMS / --forms)


def select_forms(names, rate=None):
    """Writes only these forms of X50_FORMS (comma-separated; "all", or "none"), each in the
    share `rate` of the programs. The environment (SYCL_DIFF_FORMS, SYCL_DIFF_FORMS_RATE) does
    the same and reaches run.py's workers."""
    global SELECTED_FORMS, X50_RATE
    if names is not None:
        chosen = {n.strip() for n in names.split(",") if n.strip()}
        unknown = chosen - set(X50_FORMS) - {"all", "none"}
        if unknown:
            raise ValueError("unknown form(s) %s; the forms are: %s" % (", ".join(sorted(unknown)), ", ".join(X50_FORMS)))
        SELECTED_FORMS = None if "all" in chosen else chosen - {"none"}
    if rate is not None:
        X50_RATE = float(rate)


select_forms(os.environ.get("SYCL_DIFF_FORMS") or None, os.environ.get("SYCL_DIFF_FORMS_RATE") or None)
# kind -> spelling of the element types the forms instantiate their templates with
Z_TYPES = {"float": "float", "double": "double", "int": "int", "half": "sycl::half", "long": "long"}


def x50_selected(name):
    """Whether the form is written: named by --forms, or (all by default) not a known gap."""
    if SELECTED_FORMS is not None:
        return name in SELECTED_FORMS
    return form_enabled(name)


class Gen50:
    """The writers of X50_FORMS, mixed into Gen. Each z_* method gets the form's stream and
    returns (definition lines [(line, anchor)], host function body lines [(line, anchor)]); the
    anchors it makes carry the aspects the kernel uses as clang instantiates it (no anchor is a
    kernel nothing instantiates: no expect-oracle comment)."""

    def x50_forms(self):
        """The forms of issue 50, each drawn from its own stream; called at the end of build()."""
        for name in X50_FORMS:
            rz = self.z50[name]
            if rz.random() >= X50_RATE or not x50_selected(name):
                continue
            saved = self.r
            self.r = rz
            try:
                self.zname = name
                defs, host = getattr(self, "z_" + name.replace("-", "_"))()
            finally:
                self.r = saved
            fn = self.zfresh("zh")
            blk = list(defs) + [("void %s(sycl::queue &q, size_t n) {" % fn, None)] + list(host) + [("}", None)]
            self.top50.append(blk)
            self.forms50.append(name)
            self.body.append(("  %s(q, n);" % fn, None))
            self.lines50 += len(blk) + 2

    def zfresh(self, base):
        self.zcounter += 1
        return "%s%d" % (base, self.zcounter)

    def zanchor(self, aspects, kernel=True):
        """A kernel's anchor with its aspects; kernel False: nothing instantiates it."""
        self.zcounter += 1
        aid = "Z%d" % self.zcounter
        self.anchors[aid] = set(aspects)
        self.anchor_forms[aid] = {self.zname}
        if not kernel:
            self.no_kernel.add(aid)
        return aid

    def zptr(self, host, kind):
        """A USM pointer of the host function (a line appended to host); its name."""
        name = self.zfresh("zp")
        sp = Z_TYPES.get(kind, kind)
        host.append(("  %s *%s = sycl::malloc_shared<%s>(n, q);" % (sp, name, sp), None))
        return name

    def zbody(self, fp64):
        """A statement on `p` of element type T: plain arithmetic in T, or with fp64 a double
        operation converted back to T."""
        if fp64:
            return self.pick([["p[0] = static_cast<T>(p[0] * 0.5);"], ["p[0] = static_cast<T>(p[1] / 3.0);"],
                              ["double d = p[0];", "p[0] = static_cast<T>(d + d);"]])
        return self.pick([["p[0] = p[0] + p[1];"], ["p[1] = p[0] * p[0];"], ["T t = p[0];", "p[0] = t + t;"]])

    def zlines(self, ind, lines):
        return [(ind + l, None) for l in lines]

    @staticmethod
    def zasp(kind):
        return set(ASP.get(kind, set()))

    # detection idiom --------------------------------------------------------------------------
    DETECT_PARAMS = [
        ("std::vector<sycl::event> &ev", True),
        ("const std::vector<sycl::event> &ev", True),
        ("std::vector<sycl::event> ev", True),
        ("int ev", False),  # the expression is invalid: no conversion from vector<event>
        ("float *ev", False),
        ("std::vector<int> &ev", False),
    ]

    def z_detection_idiom(self):
        """`has_run<T>` by a partial specialisation on void_t<decltype(EXPR)>, EXPR a member call
        `declval<T &>().run(q, events)` (valid or not by run's parameter type) or a free function
        call `tune(declval<T &>())` (valid for the one class tune takes); a driver template (or a
        member of a class template) takes `b.run(q, events)` when it is valid, else `b.run(q)`.
        Only the member the chosen branch calls is instantiated: its kernel exists, the other's
        not (no comment)."""
        k = self.pick(list(Z_TYPES))
        free = self.chance(0.35)
        if free:
            param, valid = self.DETECT_PARAMS[0][0], self.chance(0.5)
        else:
            param, valid = self.pick(self.DETECT_PARAMS)
        two_fp64, one_fp64 = self.pick([(True, False), (False, True), (False, False)])
        tr, cls, drv = self.zfresh("has_run"), self.zfresh("Bench"), self.zfresh("drive")
        a2 = self.zanchor(self.zasp(k) | ({"fp64"} if two_fp64 else set()), valid)
        a1 = self.zanchor(self.zasp(k) | ({"fp64"} if one_fp64 else set()), not valid)
        cond = self.pick(["%s<B>::value" % tr, "%s<B>{}" % tr, "%s<B>()" % tr, "%s_v<B>" % tr])
        d = [("template <class T> struct %s {" % cls, None),
             ("  T *data;", None),
             ("  void run(sycl::queue &q, %s) {" % param, None),
             ("    T *p = data;", None),
             ("    q.single_task([=]() {", a2)]
        d += self.zlines("      ", self.zbody(two_fp64))
        d += [("    });", None), ("  }", None),
              ("  void run(sycl::queue &q) {", None),
              ("    T *p = data;", None),
              ("    q.single_task([=]() {", a1)]
        d += self.zlines("      ", self.zbody(one_fp64))
        d += [("    });", None), ("  }", None), ("};", None)]
        if free:
            tn = self.zfresh("tune")
            tk = k if valid else self.pick([x for x in Z_TYPES if x != k])
            d.append(("void %s(%s<%s> &b);" % (tn, cls, Z_TYPES[tk]), None))  # declared only: named in unevaluated operands
            expr = "%s(std::declval<T &>())" % tn
        else:
            expr = "std::declval<T &>().run(std::declval<sycl::queue &>(), std::declval<std::vector<sycl::event> &>())"
        d += [("template <class T, class = void> struct %s : std::false_type {};" % tr, None),
              ("template <class T>", None),
              ("struct %s<T, std::void_t<decltype(%s)>> : std::true_type {};" % (tr, expr), None),
              ("template <class T> inline constexpr bool %s_v = %s<T>::value;" % (tr, tr), None)]
        branch = [("    std::vector<sycl::event> events;", None), ("    if constexpr (%s) {" % cond, None),
                  ("      b.run(q, events);", None), ("    } else {", None), ("      b.run(q);", None), ("    }", None)]
        host = []
        p = self.zptr(host, k)
        b = self.zfresh("bench")
        host.append(("  %s<%s> %s{%s};" % (cls, Z_TYPES[k], b, p), None))
        if self.chance(0.5):
            d.append(("template <class B> void %s(sycl::queue &q, B &b) {" % drv, None))
            d += [(l[2:], a) for l, a in branch]
            d.append(("}", None))
            host.append(("  %s(q, %s);" % (drv, b), None))
        else:
            # the driver is a member of a class template, as a benchmark suite's
            d += [("template <class B> struct %s {" % drv, None), ("  B &b;", None), ("  void go(sycl::queue &q) {", None)]
            d += branch
            d += [("  }", None), ("};", None)]
            host.append(("  %s<%s<%s>>{%s}.go(q);" % (drv, cls, Z_TYPES[k], b), None))
        return d, host

    # if constexpr on a member of a template type parameter -------------------------------------
    IFC_VARIANTS = [
        # (member declaration with {v}, the condition on V, spelling of true / false)
        ("static constexpr bool use_fast = {v};", "V::use_fast", "true", "false"),
        ("enum {{ use_fast = {v} }};", "V::use_fast", "1", "0"),
        ("static constexpr int width = {v};", "V::width == 8", "8", "4"),
        ("static constexpr int width = {v};", "(V::width > 4)", "8", "4"),
    ]

    def z_ifc_member(self):
        """`if constexpr (V::flag) { a(q, p); } else { b(q, p); }` in a template over V: only the
        branch the member's value selects is instantiated, and with it the kernel of a or b."""
        member, cond, tv, fv = self.pick(self.IFC_VARIANTS)
        base = self.chance(0.25)  # V derives from std::true_type / false_type: V::value
        if base:
            cond = "V::value"
        k = self.pick(list(Z_TYPES))
        fa, fb = self.pick([(True, False), (False, True), (False, False)])
        pa, pb, st = self.zfresh("path"), self.zfresh("path"), self.zfresh("step")
        values = self.pick([[True], [False], [True, False]])
        empty = self.chance(0.3)  # the true branch is empty, as in `if constexpr (V::x) {} else {...}`
        anc_a = None if empty else self.zanchor(self.zasp(k) | ({"fp64"} if fa else set()), True in values)
        anc_b = self.zanchor(self.zasp(k) | ({"fp64"} if fb else set()), False in values)
        d, vnames = [], {}
        for v in values:
            vn = vnames[v] = self.zfresh("Var")
            if base:
                d.append(("struct %s : std::%s_type {};" % (vn, "true" if v else "false"), None))
            else:
                d += [("struct %s {" % vn, None), ("  " + member.format(v=tv if v else fv), None), ("};", None)]
        for fn, anc, f in ((pa, anc_a, fa), (pb, anc_b, fb)):
            if anc is None:
                continue
            d += [("template <class T> void %s(sycl::queue &q, T *p) {" % fn, None), ("  q.single_task([=]() {", anc)]
            d += self.zlines("    ", self.zbody(f))
            d += [("  });", None), ("}", None)]
        d += [("template <class V, class T> void %s(sycl::queue &q, T *p) {" % st, None), ("  if constexpr (%s) {" % cond, None)]
        if not empty:
            d.append(("    %s(q, p);" % pa, None))
        d += [("  } else {", None), ("    %s(q, p);" % pb, None), ("  }", None), ("}", None)]
        host = []
        p = self.zptr(host, k)
        for v in values:
            host.append(("  %s<%s>(q, %s);" % (st, vnames[v], p), None))
        return d, host

    # member types through template parameters, bases and traits specialisations ---------------
    def z_member_type(self):
        """A kernel local typed by a member type: `typename acc<T>::type` (an explicit
        specialisation makes float's double), `typename wide<T, sizeof(T)>::type` (a partial
        specialisation on 8), `typename D::result_type` (D a template argument), or a return
        type `typename base_type::item_type` found in a base class."""
        how = self.pick(["explicit", "partial", "param", "base"])
        k = self.pick(list(Z_TYPES))
        sp = Z_TYPES[k]
        d, host = [], []
        p = self.zptr(host, k)
        if how == "explicit":
            tr, fn = self.zfresh("accum"), self.zfresh("acc")
            spec = self.pick(["float", "int", "sycl::half"])
            mk = {"float": "double", "int": "long", "sycl::half": "float"}[spec]
            eff = mk if sp == spec else k
            d += [("template <class T> struct %s { using type = T; };" % tr, None),
                  ("template <> struct %s<%s> { using type = %s; };" % (tr, spec, mk), None)]
            aid = self.zanchor(self.zasp(k) | self.zasp(eff))
            d += [("template <class T> void %s(sycl::queue &q, T *p) {" % fn, None), ("  q.single_task([=]() {", aid),
                  ("    typename %s<T>::type s = p[0];" % tr, None), ("    p[1] = static_cast<T>(s);", None),
                  ("  });", None), ("}", None)]
            host.append(("  %s(q, %s);" % (fn, p), None))
        elif how == "partial":
            tr, fn = self.zfresh("wide"), self.zfresh("acc")
            d += [("template <class T, int N> struct %s { using type = T; };" % tr, None),
                  ("template <class T> struct %s<T, 8> { using type = double; };" % tr, None)]
            eff = "double" if SIZE[k] == 8 else k
            aid = self.zanchor(self.zasp(k) | self.zasp(eff))
            d += [("template <class T> void %s(sycl::queue &q, T *p) {" % fn, None), ("  q.single_task([=]() {", aid),
                  ("    using W = typename %s<T, sizeof(T)>::type;" % tr, None), ("    W w = p[0];", None),
                  ("    p[1] = static_cast<T>(w);", None), ("  });", None), ("}", None)]
            host.append(("  %s(q, %s);" % (fn, p), None))
        elif how == "param":
            fn = self.zfresh("gen")
            rk = self.pick(["float", "double", "int"])
            dn = self.zfresh("Dist")
            mem = self.pick(["result_type", "input_t"])
            d.append(("struct %s {" % dn, None))
            d.append(("  using %s = %s;" % (mem, rk), None))
            d.append(("};", None))
            aid = self.zanchor(self.zasp(k) | self.zasp(rk))
            d += [("template <class D, class T> void %s(sycl::queue &q, T *p) {" % fn, None), ("  q.single_task([=]() {", aid),
                  ("    using R = typename D::%s;" % mem, None), ("    R v = static_cast<R>(p[0]);", None),
                  ("    p[0] = static_cast<T>(v);", None), ("  });", None), ("}", None)]
            host.append(("  %s<%s>(q, %s);" % (fn, dn, p), None))
        else:
            bn, hn, fn = self.zfresh("Base"), self.zfresh("Hold"), self.zfresh("use")
            wk = self.pick(["float", "double", "int"])
            d += [("template <class U> struct %s {" % bn, None), ("  using item_type = U;", None), ("};", None),
                  ("template <class U> struct %s : %s<U> {" % (hn, bn), None), ("  using base_type = %s<U>;" % bn, None),
                  ("  typename base_type::item_type get(float x) const { return static_cast<typename base_type::item_type>(x); }", None),
                  ("};", None)]
            aid = self.zanchor(self.zasp(k) | self.zasp(wk))
            d += [("template <class W, class T> void %s(sycl::queue &q, T *p) {" % fn, None), ("  q.single_task([=]() {", aid),
                  ("    %s<W> h;" % hn, None), ("    p[0] = static_cast<T>(h.get(static_cast<float>(p[1])));", None),
                  ("  });", None), ("}", None)]
            host.append(("  %s<%s>(q, %s);" % (fn, wk, p), None))
        return d, host

    # tag dispatch ----------------------------------------------------------------------------
    TAGS = [
        # (the tag argument for T, which kinds make it true)
        ("std::is_floating_point<T>{}", ("float", "double")),
        ("std::is_integral<T>()", ("int", "long")),
        ("typename std::is_same<T, float>::type{}", ("float",)),
        ("std::integral_constant<bool, (sizeof(T) == 8)>{}", ("double", "long")),
        ("std::bool_constant<std::is_floating_point_v<T>>{}", ("float", "double")),
    ]

    def z_tag_dispatch(self):
        """Overloads on std::true_type / std::false_type called with a trait object (picked by
        the derived-to-base conversion, [over.ics.rank]/4.4), or on a user tag hierarchy
        (`tag_x : tag_f : tag_b`: the nearest base wins)."""
        d, host = [], []
        k = self.pick(list(Z_TYPES))
        p = self.zptr(host, k)
        fn, kn = self.zfresh("refine"), self.zfresh("disp")
        hot = self.chance(0.5)  # which overload computes in double: the true one, or the false one
        if self.chance(0.6):
            tag, trues = self.pick(self.TAGS)
            picks_true = k in trues
            d += [("template <class T> T %s(T x, std::true_type) { %s }" % (fn, "return static_cast<T>(x * 0.5);" if hot else "return x + x;"), None),
                  ("template <class T> T %s(T x, std::false_type) { %s }" % (fn, "return x + x;" if hot else "return static_cast<T>(x * 0.5);"), None)]
            fp64 = picks_true == hot
        else:
            tb, tf, tx = self.zfresh("tag_b"), self.zfresh("tag_f"), self.zfresh("tag_x")
            d += [("struct %s {};" % tb, None), ("struct %s : %s {};" % (tf, tb), None), ("struct %s : %s {};" % (tx, tf), None),
                  ("template <class T> T %s(T x, %s) { return x + x; }" % (fn, tb), None),
                  ("template <class T> T %s(T x, %s) { return static_cast<T>(x * 0.5); }" % (fn, tf), None)]
            t = self.pick([tb, tf, tx])
            tag = t + self.pick(["{}", "()"])
            fp64 = t != tb
        aid = self.zanchor(self.zasp(k) | ({"fp64"} if fp64 else set()))
        d += [("template <class T> void %s(sycl::queue &q, T *p) {" % kn, None), ("  q.single_task([=]() {", aid),
              ("    p[0] = %s(p[0], %s);" % (fn, tag), None), ("  });", None), ("}", None)]
        host.append(("  %s(q, %s);" % (kn, p), None))
        return d, host

    # instantiation by address ----------------------------------------------------------------
    def z_address_taken(self):
        """A function template instance named without being called: assigned to a function
        pointer (deduced from its type, or with explicit arguments), stored in an array element,
        passed as an argument, or only taken (`auto f = &g<T>;`): each is compiled, its kernel
        too. Named in an unevaluated operand only (`decltype(&g<U>)`), it is not instantiated."""
        d, host = [], []
        k = self.pick(list(Z_TYPES))
        sp = Z_TYPES[k]
        p = self.zptr(host, k)
        nontype = self.chance(0.4)
        fn = self.zfresh("star")
        if nontype:
            ns = self.r.sample([16, 32, 64], self.r.randint(1, 2))
            fp64 = any(x > 32 for x in ns)
            aid = self.zanchor(self.zasp(k) | ({"fp64"} if fp64 else set()))
            d += [("template <int N, class T> void %s(sycl::queue &q, T *p) {" % fn, None), ("  q.single_task([=]() {", aid),
                  ("    if constexpr (N > 32) {", None), ("      p[0] = static_cast<T>(p[0] * 0.5);", None),
                  ("    } else {", None), ("      p[0] = p[0] + p[1];", None), ("    }", None), ("  });", None), ("}", None)]
            names = ["%s<%d>" % (fn, x) for x in ns]
            full = ["%s<%d, %s>" % (fn, x, sp) for x in ns]
        else:
            f = self.chance(0.5)
            aid = self.zanchor(self.zasp(k) | ({"fp64"} if f else set()))
            d += [("template <class T> void %s(sycl::queue &q, T *p) {" % fn, None), ("  q.single_task([=]() {", aid)]
            d += self.zlines("    ", self.zbody(f))
            d += [("  });", None), ("}", None)]
            names = [self.pick([fn, "%s<%s>" % (fn, sp)])]
            full = ["%s<%s>" % (fn, sp)]
        sig = "void (*%s)(sycl::queue &, " + sp + " *)"
        how = self.pick(["init", "assign", "array", "braces", "table", "arg", "taken"])
        if how == "init":
            for nm in names:
                v = self.zfresh("fp")
                host += [("  %s = %s;" % (sig % v, nm), None), ("  %s(q, %s);" % (v, p), None)]
        elif how == "assign":
            v = self.zfresh("fp")
            host.append(("  %s;" % (sig % v), None))
            for nm in names:
                host += [("  %s = %s;" % (v, nm), None), ("  %s(q, %s);" % (v, p), None)]
        elif how == "array":
            v = self.zfresh("fs")
            host.append(("  %s;" % (sig % ("%s[%d]" % (v, len(names)))), None))
            for j, nm in enumerate(names):
                host.append(("  %s[%d] = %s;" % (v, j, nm), None))
            host.append(("  %s[0](q, %s);" % (v, p), None))
        elif how == "braces":
            v = self.zfresh("fs")
            host += [("  %s = {%s};" % (sig % (v + "[]"), ", ".join(names)), None), ("  %s[0](q, %s);" % (v, p), None)]
        elif how == "table":
            # the array in a function template: the names are resolved in its instance
            tn, v = self.zfresh("table"), self.zfresh("fs")
            tnames = [nm.replace("<%s>" % sp, "<T>") for nm in names]
            d += [("template <class T> void %s(sycl::queue &q, T *p) {" % tn, None),
                  ("  void (*%s[])(sycl::queue &, T *) = {%s};" % (v, ", ".join(tnames)), None),
                  ("  %s[0](q, p);" % v, None), ("}", None)]
            host.append(("  %s(q, %s);" % (tn, p), None))
        elif how == "arg":
            cn = self.zfresh("call_with")
            d.insert(0, ("template <class F, class P> void %s(F f, sycl::queue &q, P p) { f(q, p); }" % cn, None))
            for nm in full:  # a deduced F takes no overload set: every template argument is given
                host.append(("  %s(%s, q, %s);" % (cn, nm, p), None))
        else:
            for nm in full:
                v = self.zfresh("fp")
                host += [("  auto %s = &%s;" % (v, nm), None), ("  (void)%s;" % v, None)]
        if not nontype and self.chance(0.4):
            # a type named in an unevaluated operand: no instance, no kernel for it
            other = self.pick([x for x in Z_TYPES if x != k])
            host.append(("  using %s = decltype(&%s<%s>);" % (self.zfresh("Fp"), fn, Z_TYPES[other]), None))
        return d, host

    # narrowing judged through typedefs --------------------------------------------------------
    NARROW_STMTS = [
        # (statement on x, a float local, and the alias S; fp64)
        ("S r{n} = 1. / x;", True),
        ("S r{n} = x * 0.5;", True),
        ("S r{n}(x * 0.5);", True),
        ("float r{n}(1. / x);", True),
        ("float r{n} = x / 3.0;", True),
        ("S r{n} = x * 0.5f;", False),
        ("S r{n}(1.f / x);", False),
        ("float r{n}{x * 2.0f};", False),
        ("S r{n} = static_cast<S>(x) + 1.0f;", False),
    ]

    def z_typedef_narrowing(self):
        """float locals spelled through `using S = float;` / `typedef float S;`, initialised
        (copy or direct) by a double or a float computation: a typedef is a synonym
        ([dcl.typedef]/2), the double operation is one however the local is spelled."""
        d, host = [], []
        p = self.zptr(host, "float")
        al = self.zfresh("scalar")
        decl = self.pick(["using %s = float;" % al, "typedef float %s;" % al])
        local = self.chance(0.4)
        if not local:
            d.append((decl, None))
        stmts = [self.pick(self.NARROW_STMTS) for _ in range(self.r.randint(1, 3))]
        aid = self.zanchor({"fp64"} if any(f for _, f in stmts) else set())
        host.append(("  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) {", aid))
        if local:
            host.append(("    " + decl, None))
        host.append(("    %s x = %s[i];" % (al, p), None))
        for j, (s, _) in enumerate(stmts):
            host.append(("    " + s.replace("S ", al + " ").replace("<S>", "<%s>" % al).replace("{n}", str(j)), None))
            host.append(("    %s[i] += r%d;" % (p, j), None))
        host.append(("  });", None))
        return d, host

    # class template argument deduction from pointers ------------------------------------------
    def z_ctad_pointer(self):
        """`sycl::buffer b(ptr, sycl::range(n))` (CTAD of buffer and range from a pointer and a
        size), then `sycl::accessor a(b, h)` in a command group and a kernel on a[...]: the
        element type is the pointer's; or `K<decltype(a), F>{a}` as the kernel."""
        d, host = [], []
        k = self.pick(list(Z_TYPES))
        sp = Z_TYPES[k]
        p = self.zptr(host, k)
        b = self.zfresh("bz")
        rng = self.pick(["sycl::range(n)", "sycl::range<1>(n)", "sycl::range{n}", "sycl::range<1>{n}"])
        host.append((self.pick(["  sycl::buffer %s(%s, %s);", "  sycl::buffer %s{%s, %s};"]) % (b, p, rng), None))
        acc = self.pick(["sycl::accessor a(%s, h);", "sycl::accessor a{%s, h};", "auto a = %s.get_access(h);",
                         "sycl::accessor a(%s, h, sycl::read_write);"]) % b
        host += [("  q.submit([&](sycl::handler &h) {", None), ("    " + acc, None)]
        if self.chance(0.4):
            kn = self.zfresh("KernA")
            flag = self.chance(0.5)
            aid = self.zanchor(self.zasp(k) | ({"fp64"} if flag else set()))
            d += [("template <class Acc, bool F> struct %s {" % kn, None), ("  Acc a;", None),
                  ("  void operator()() const {", aid),
                  ("    using V = typename Acc::value_type;", None),
                  ("    if constexpr (F) {", None), ("      a[0] = static_cast<V>(a[0] * 2.0);", None),
                  ("    } else {", None), ("      a[0] = a[0] + a[1];", None), ("    }", None),
                  ("  }", None), ("};", None)]
            host.append(("    h.single_task(%s<decltype(a), %s>{a});" % (kn, "true" if flag else "false"), None))
        else:
            aid = self.zanchor(self.zasp(k))
            host.append(("    h.single_task([=]() { a[0] = a[0] + a[1]; });", aid))
        host.append(("  });", None))
        return d, host

    # distinct types of equal size --------------------------------------------------------------
    EQUAL_PAIRS = [
        # (first, second): distinct types of one size, or the same type spelled twice
        ("unsigned long long", "size_t"),
        ("unsigned long long", "unsigned long"),
        ("long long", "long"),
        ("long long", "std::int64_t"),
        ("long", "std::int64_t"),  # the same type
        ("size_t", "unsigned long"),  # the same type
        ("unsigned", "std::uint32_t"),  # the same type, 4 bytes
        ("int", "std::int32_t"),  # the same type, 4 bytes
    ]
    SAME_TYPE = {("long", "std::int64_t"), ("size_t", "unsigned long"), ("unsigned", "std::uint32_t"), ("int", "std::int32_t")}

    def z_equal_size_types(self):
        """One template called with pointers to two integer types of the same size: distinct
        types are two instances (is_same picks a branch in each, one computing in double, the
        other in half), one type spelled twice is one instance."""
        d, host = [], []
        a, b = self.pick(self.EQUAL_PAIRS)
        same = (a, b) in self.SAME_TYPE
        size = 4 if a in ("unsigned", "int") else 8
        fn = self.zfresh("histo")
        asp = {"fp64"} | ({"atomic64"} if size == 8 else set())
        if not same:
            asp |= {"fp16"}
        aid = self.zanchor(asp)
        d += [("template <class T> void %s(sycl::queue &q, T *keys, T *bins, size_t n) {" % fn, None),
              ("  q.single_task([=]() {", aid),
              ("    sycl::atomic_ref<T, sycl::memory_order::relaxed, sycl::memory_scope::device> c(bins[keys[0] % n]);", None),
              ("    c.fetch_add(1);", None),
              ("    if constexpr (std::is_same_v<T, %s>) {" % a, None),
              ("      double w = static_cast<double>(keys[1]);", None), ("      bins[1] = static_cast<T>(w * 0.5);", None),
              ("    } else {", None),
              ("      sycl::half h = static_cast<float>(keys[1]);", None), ("      bins[1] = static_cast<T>(static_cast<float>(h));", None),
              ("    }", None), ("  });", None), ("}", None)]
        for t in (a, b):
            k1, k2 = self.zptr(host, t), self.zptr(host, t)
            host.append(("  %s(q, %s, %s, n);" % (fn, k1, k2), None))
        return d, host

    # host-only instances of a device_has function template ------------------------------------
    def z_host_only_device_has(self):
        """A function template declared `[[sycl::device_has()]]`, called from host code with
        double (never compiled for the device: no use) and from a kernel with the kernel's
        element type (that instance is device code)."""
        d, host = [], []
        k = self.pick(["float", "int", "half", "double"])
        p = self.zptr(host, k)
        fn = self.zfresh("smooth")
        attr = self.pick(["[[sycl::device_has()]]", "[[sycl::device_has(sycl::aspect::fp16)]]"])
        device = self.chance(0.8)
        # the aspects the device instance uses and the attribute does not list: findings
        findings = (self.zasp(k) if device else set()) - ({"fp16"} if "fp16" in attr else set())
        d.append(("template <class T> %s T %s(T x) { return x * x * (T(3) - T(2) * x); } // expect-oracle-device-has: %s" % (
            attr, fn, ", ".join(a for a in ("fp64", "fp16") if a in findings) or "none"), None))
        hv = self.zfresh("hv")
        hk = self.pick(["double", "long double"])
        host += [("  %s %s = %s<%s>(%s);" % (hk, hv, fn, hk, self.pick(["2.0", "0.5"]) + ("L" if hk == "long double" else "")), None),
                 ("  (void)%s;" % hv, None)]
        if device:
            aid = self.zanchor(self.zasp(k))
            host.append(("  q.single_task([=]() { %s[0] = %s(%s[1]); });" % (p, fn, p), aid))
        return d, host

    # T (&)[N] deduced from an array whose bound is a named constant ----------------------------
    def z_named_const_bound(self):
        """`constexpr int n = 2; T a[n] = {...}; first(a)` beside `double first(double)`: N is
        deduced from the bound (a constant expression however it is named), the template is
        picked and no double is computed; `first(a[0])` picks the double overload."""
        d, host = [], []
        k = self.pick(list(Z_TYPES))
        sp = Z_TYPES[k]
        p = self.zptr(host, k)
        fn = self.zfresh("first")
        ntype = self.pick(["int", "std::size_t"])
        d += [("template <class T, %s N> T %s(%s(&a)[N]) { return a[N - 1]; }" % (ntype, fn, self.pick(["T ", "const T "])), None),
              ("double %s(double x) { return x * 0.5; }" % fn, None)]
        bound = self.pick(["local", "local-const", "global", "enum", "member"])
        pre = []
        if bound == "local":
            nm = "n"
            pre.append("constexpr int n = 2;")
        elif bound == "local-const":
            nm = "n"
            pre.append("const int n = 2;")
        elif bound == "global":
            nm = self.zfresh("kBound")
            d.insert(0, ("constexpr int %s = 2;" % nm, None))
        elif bound == "enum":
            nm = self.zfresh("kB")
            d.insert(0, ("enum { %s = 2 };" % nm, None))
        else:
            cn = self.zfresh("Cfg")
            d[0:0] = [("struct %s {" % cn, None), ("  static constexpr int n = 2;", None), ("};", None)]
            nm = cn + "::n"
        ext = self.pick(["%s", "%s + 1", "2 * %s"]) % nm
        size = eval(ext.replace(nm, "2"))
        scalar = self.chance(0.25)
        aid = self.zanchor(self.zasp(k) | ({"fp64"} if scalar else set()))
        templ = self.chance(0.5)
        elems = ", ".join("p[%d]" % j for j in range(size))
        body = pre + ["%s a[%s] = {%s};" % ("T" if templ else sp, ext, elems),
                      "p[0] = %s;" % ("static_cast<%s>(%s(a[0]))" % ("T" if templ else sp, fn) if scalar else "%s(a)" % fn)]
        if templ:
            kn = self.zfresh("k")
            d += [("template <class T> void %s(sycl::queue &q, T *p) {" % kn, None), ("  q.single_task([=]() {", aid)]
            d += self.zlines("    ", body)
            d += [("  });", None), ("}", None)]
            host.append(("  %s(q, %s);" % (kn, p), None))
        else:
            host.append(("  q.single_task([=]() {", aid))
            host += [("    " + l.replace("p[", p + "["), None) for l in body]
            host.append(("  });", None))
        return d, host


# ----- the generation context -----------------------------------------------------------------
class E(str):
    """Expression text that knows whether it is a constant expression."""

    def __new__(cls, text, const):
        o = str.__new__(cls, text)
        o.const = const
        return o


def is_const(*es):
    return all(getattr(e, "const", False) for e in es)


class Var:
    """A named value a kernel body can use. kind: 'scalar', 'ptr', 'acc', 'lacc', 'vec', 'marray',
    'struct', 'array', 'complex'. elem: scalar kind (or struct name). host: captured from the host
    (True) or a member (for functors and `this`)."""

    def __init__(self, name, cat, elem, origin="local", n=0):
        self.name = name
        self.cat = cat
        self.elem = elem
        self.origin = origin  # 'local', 'host', 'member', 'initcap'
        self.n = n

    def aspects(self):
        if self.cat in ("ptr", "acc", "lacc"):
            return set()
        if self.cat == "struct":
            return struct_aspects(self.elem)
        return set(ASP.get(self.elem, set()))


class Ctx:
    def __init__(self, g, allowed, vars_, index, unrestricted=False):
        self.g = g
        self.allowed = set(allowed)
        self.vars = list(vars_)
        self.index = index  # dict: obj (subscript objects for accessors+pointers), safe (for local accessors), size
        self.used = set()  # aspects of every expression and declaration (the oracle's rule)
        self.solid = set()  # the same without constant expressions (what a compiler folds)
        self.refs = set()  # names referenced in evaluated code
        self.unrestricted = unrestricted
        self.depth = 0
        self.lambda_kernel = False  # a lambda: host scalars may be named in unevaluated operands
        self.host_ok = False  # the host function's variables (ppi, pu) are in scope
        self.atomic64 = False
        self.forms = set()  # the forms of FORM_TEXT etc. written in this kernel (for --stats)

    def child(self):
        c = Ctx(self.g, self.allowed, self.vars, self.index, self.unrestricted)
        c.forms = self.forms
        c.used = self.used
        c.solid = self.solid
        c.refs = self.refs
        c.lambda_kernel = self.lambda_kernel
        c.host_ok = self.host_ok
        c.atomic64 = self.atomic64
        c.depth = self.depth
        return c

    def merge_pointer_refs(self, other):
        """Names that code outside the evaluated kernel (discarded branches, unevaluated
        operands) refers to: pointers only, which carry nothing but must be in scope."""
        for v in other.vars:
            if v.cat == "ptr" and v.name in other.refs:
                self.refs.add(v.name)

    def use(self, kind):
        self.mark(ASP.get(kind, set()))

    def use_const(self, kind):
        """A constant expression of this kind: a use under the oracle's rule, folded away by a
        compiler (and by an analyzer that models folding)."""
        self.used |= ASP.get(kind, set())

    def mark(self, aspects):
        self.used |= aspects
        self.solid |= aspects

    def ref(self, v):
        self.refs.add(v.name)
        self.mark(v.aspects())


class Gen(Gen50):
    def __init__(self, seed, attempt=0):
        self.seed = seed
        self.r = random.Random(seed if attempt == 0 else "%d:%d" % (seed, attempt))
        self.counter = 0
        self.helpers_used = set()  # keys into TEMPLATE_HELPERS/SCALAR_HELPERS/CLASS_HELPERS or 'scan','consume'
        self.structs_used = set()
        self.host_used = set()  # host scalar / struct / pointer names
        self.buffers = {}  # kind -> (name, decl)
        self.anchors = {}  # anchor id -> set of aspects
        self.top = []  # top-level code blocks (after prelude)
        self.host_lines = []  # lines of run()
        self.need_syclex = False
        self.host_uneval = set()  # host scalars named only in unevaluated operands
        self.need_macros = False  # MACRO_TEXT
        self.need_consts = False  # CONST_TEXT
        self.anchor_forms = {}  # anchor id -> forms written in that kernel (for --stats)
        self.no_kernel = set()  # anchors of kernels nothing instantiates: no expect-oracle comment
        self.top_stay = set()  # indices of self.top blocks that stay in the .cpp (explicit instantiations)
        # EXTRA_FORMS draw from a stream of their own, so that a program without them is the one
        # the generator wrote before they existed
        self.rx = random.Random("%d:%d:x41" % (seed, attempt))
        self.xcounter = 0
        # the forms of issue 35 (LIB_FORMS, GROUP_FORMS): a stream of their own too
        self.ry = random.Random("%d:%d:x35" % (seed, attempt))
        self.host_extra = []  # run() lines before the kernels (vectors of the algorithms)
        # the forms of issue 50 (X50_FORMS): a stream per form, blocks and names of their own
        self.z50 = {name: random.Random("%d:%d:x50:%s" % (seed, attempt, name)) for name in X50_FORMS}
        self.top50 = []  # their blocks (definitions and a host function), after self.top
        self.lines50 = 0  # their lines, which do not count against MAX_LINES
        self.zcounter = 0
        self.zname = None
        self.forms50 = []  # the names written (for --stats)

    # small utilities
    def fresh(self, base):
        self.counter += 1
        return "%s%d" % (base, self.counter)

    def pick(self, items, weights=None):
        if weights is None:
            return self.r.choice(items)
        return self.r.choices(items, weights=weights, k=1)[0]

    def chance(self, p):
        return self.r.random() < p

    def spell(self, kind):
        return self.r.choice(SPELL[kind])

    def new_anchor(self):
        self.counter += 1
        aid = "A%d" % self.counter
        self.anchors[aid] = set()
        return aid

    # ----- expressions --------------------------------------------------------------------
    def scalar_vars(self, ctx, kind):
        return [v for v in ctx.vars if v.cat == "scalar" and v.elem == kind]

    def elem_sources(self, ctx, kind):
        return [v for v in ctx.vars if v.cat in ("ptr", "acc", "lacc") and v.elem == kind]

    def subscript(self, ctx, v):
        """`v[IDX]` for a pointer or accessor."""
        if v.cat == "lacc":
            idx = self.pick(ctx.index["safe"] + ctx.index["size"])
        elif v.cat == "acc":
            idx = self.pick(ctx.index["obj"] + ctx.index["size"])
        else:
            idx = self.pick(ctx.index["obj"] + ctx.index["size"])
        return "%s[%s]" % (v.name, idx)

    def expr(self, ctx, kind, depth=0):
        """An expression of exactly type `kind`; every subexpression's type is allowed by ctx.
        Returns an E: the text, and whether it is a constant expression (literals, and casts
        and operators over constants), which a compiler folds."""
        assert kind in ctx.allowed or kind == "bool", (kind, ctx.allowed)
        opts = []
        sv = self.scalar_vars(ctx, kind)
        es = self.elem_sources(ctx, kind)
        if sv:
            opts.append(("var", 6))
        if es:
            opts.append(("elem", 6))
        opts.append(("lit", 4))
        if kind == "size_t" and ctx.index["size"]:
            opts.append(("index", 4))
        if depth < 3:
            opts += [("arith", 5), ("cast", 3), ("cond", 1)]
            if kind in ("float", "double", "half", "ldouble") or kind in ("int", "long"):
                opts.append(("math", 3))
            if kind in ("int", "long", "uint") and ctx.index["size"]:
                opts.append(("from_index", 2))
            if kind != "size_t" and kind != "bool":
                opts.append(("helper", 2))
            if kind != "bool":
                opts.append(("form", 3))
            if kind != "bool" and [v for v in ctx.vars if v.cat in ("vec", "marray", "array", "complex") and v.elem == kind]:
                opts.append(("agg", 3))
            if [v for v in ctx.vars if v.cat == "struct" and any(fk == kind for _, fk in STRUCTS[v.elem][0])]:
                opts.append(("field", 3))
            if kind in ("int", "long", "float", "double", "half", "ldouble"):
                opts.append(("neg", 1))
        what = self.pick([o for o, _ in opts], [w for _, w in opts])
        e = getattr(self, "e_" + what)(ctx, kind, depth)
        if not isinstance(e, E):
            e = E(e, False)
        if e.const:
            ctx.use_const(kind)
        else:
            ctx.use(kind)
        return e

    def e_var(self, ctx, kind, depth):
        v = self.pick(self.scalar_vars(ctx, kind))
        ctx.ref(v)
        if v.origin == "member" and self.chance(0.3):
            return "this->" + v.name
        return v.name

    def e_elem(self, ctx, kind, depth):
        v = self.pick(self.elem_sources(ctx, kind))
        ctx.ref(v)
        return self.subscript(ctx, v)

    def e_lit(self, ctx, kind, depth):
        if kind in ("int", "double", "float") and self.chance(0.12):
            # a macro or a global constant: constexpr ones and macros are constant expressions;
            # `const float kG = 1.0 / 3.0` is not one for the oracle (nor, being a float, a use)
            name = self.pick({"int": ["EPT", "kN"], "double": ["KD", "kScale", "kEps"], "float": ["kF", "kG"]}[kind])
            if name in ("EPT", "KD"):
                self.need_macros = True
                ctx.forms.add("macro")
            else:
                self.need_consts = True
                ctx.forms.add("const-global")
            return E(name, name != "kG")
        return E(self.pick(LITS[kind]), True)

    def e_index(self, ctx, kind, depth):
        xs = [x for x in ctx.index["size"] if not x.isdigit()]
        if not xs:
            return self.e_lit(ctx, kind, depth)
        return E(self.pick(xs), False)

    def e_from_index(self, ctx, kind, depth):
        x = self.pick(ctx.index["size"])
        return E("static_cast<%s>(%s)" % (self.spell(kind), x), x.isdigit())

    def e_neg(self, ctx, kind, depth):
        a = self.expr(ctx, kind, depth + 1)
        return E("-(%s)" % a, is_const(a))

    def e_arith(self, ctx, kind, depth):
        d = depth + 1
        forms = [("same", 6)]
        if kind in INT_KINDS and kind != "int":
            forms.append(("with_int", 2))
        if kind == "float":
            forms.append(("float_int", 2))
            if "half" in ctx.allowed:
                forms.append(("half_float", 2))
        if kind == "double":
            forms.append(("double_float", 3))
            forms.append(("double_int", 1))
            if "half" in ctx.allowed:
                forms.append(("half_double", 1))
        if kind == "ldouble":
            forms.append(("ld_double", 2))
        if kind == "half":
            forms.append(("half_int", 2))
        f = self.pick([x for x, _ in forms], [w for _, w in forms])
        if kind == "half":
            ops = ["+", "-", "*", "/"]
        elif kind in ("float", "double", "ldouble"):
            ops = ["+", "-", "*", "/"]
        else:
            ops = ["+", "-", "*"]
        op = self.pick(ops)
        if f == "same":
            a, b = self.expr(ctx, kind, d), self.expr(ctx, kind, d)
        elif f == "with_int":
            a, b = self.expr(ctx, kind, d), self.expr(ctx, "int", d)
        elif f == "float_int":
            ik = self.pick(["int", "long", "uint"])
            a, b = self.expr(ctx, "float", d), self.expr(ctx, ik, d)
        elif f == "half_float":
            a, b = self.expr(ctx, "half", d), self.expr(ctx, "float", d)
        elif f == "double_float":
            a, b = self.expr(ctx, "double", d), self.expr(ctx, "float", d)
        elif f == "double_int":
            a, b = self.expr(ctx, "double", d), self.expr(ctx, "int", d)
        elif f == "half_double":
            a, b = self.expr(ctx, "half", d), self.expr(ctx, "double", d)
        elif f == "ld_double":
            a, b = self.expr(ctx, "ldouble", d), self.expr(ctx, "double", d)
        elif f == "half_int":
            a, b = self.expr(ctx, "half", d), self.expr(ctx, "int", d)
        if f != "same" and self.chance(0.5):
            a, b = b, a
        return E("(%s %s %s)" % (a, op, b), is_const(a, b))

    def e_cast(self, ctx, kind, depth):
        srcs = [k for k in arith_kinds(ctx.allowed) if k != kind]
        src = self.pick(srcs)
        e = self.expr(ctx, src, depth + 1)
        sp = self.spell(kind)
        form = self.pick(["static", "c", "func"], [4, 2, 2])
        if form == "func" and sp in FUNC_CAST_OK:
            return E("%s(%s)" % (sp, e), is_const(e))
        if form == "c":
            return E("(%s)(%s)" % (sp, e), is_const(e))
        return E("static_cast<%s>(%s)" % (sp, e), is_const(e))

    def cond(self, ctx, depth):
        ks = [k for k in arith_kinds(ctx.allowed)]
        k = self.pick(ks)
        op = self.pick(["<", ">", "<=", "!=", "=="])
        a, b = self.expr(ctx, k, depth + 1), self.expr(ctx, k, depth + 1)
        return E("(%s %s %s)" % (a, op, b), is_const(a, b))

    def e_cond(self, ctx, kind, depth):
        c, a, b = self.cond(ctx, depth), self.expr(ctx, kind, depth + 1), self.expr(ctx, kind, depth + 1)
        return E("(%s ? %s : %s)" % (c, a, b), is_const(c, a, b))

    def e_math(self, ctx, kind, depth):
        d = depth + 1
        if kind in ("int", "long"):
            f = self.pick(["sycl::min", "sycl::max", "std::min", "std::max", "sycl::abs"])
            if f == "sycl::abs":
                return "sycl::abs(%s)" % self.expr(ctx, kind, d)
            return "%s(%s, %s)" % (f, self.expr(ctx, kind, d), self.expr(ctx, kind, d))
        if kind == "ldouble":
            f = self.pick(["std::sqrt", "std::fabs"])
            return "%s(%s)" % (f, self.expr(ctx, kind, d))
        one = ["sycl::sqrt", "sycl::fabs", "sycl::exp", "sycl::sin", "sycl::cos", "sycl::rsqrt"]
        two = ["sycl::fmin", "sycl::fmax", "sycl::pow", "sycl::min", "sycl::max"]
        if kind == "float":
            one += ["std::sqrt", "std::fabs", "sqrtf", "fabsf", "sycl::native::sqrt", "std::exp"]
        if kind == "double":
            one += ["std::sqrt", "sqrt", "fabs", "exp", "std::cos"]
            two += ["pow"]
            if self.chance(0.25):
                # the float-to-double trap: ::sqrt(double) called with a float
                return "sqrt(%s)" % self.expr(ctx, "float", d)
        if kind == "half" and self.chance(0.2):
            # unqualified: ADL finds sycl::sqrt(half)
            return "sqrt(%s)" % self.expr(ctx, "half", d)
        r = self.r.random()
        if r < 0.6:
            return "%s(%s)" % (self.pick(one), self.expr(ctx, kind, d))
        if r < 0.9:
            return "%s(%s, %s)" % (self.pick(two), self.expr(ctx, kind, d), self.expr(ctx, kind, d))
        return "sycl::fma(%s, %s, %s)" % (self.expr(ctx, kind, d), self.expr(ctx, kind, d), self.expr(ctx, kind, d))

    def e_helper(self, ctx, kind, depth):
        d = depth + 1
        cands = []
        target = self.target_aspects(ctx)
        for name, h in TEMPLATE_HELPERS.items():
            if kind in h.kinds and h.aspects(kind) <= target:
                cands.append(("t", name))
        for name, (text, ret, params, asp) in SCALAR_HELPERS.items():
            if ret == kind and asp <= target and all(p in ctx.allowed for p in params):
                cands.append(("s", name))
        if kind == "float":
            for name in ("Wrap", "WrapD", "Pt", "PtD"):
                if CLASS_HELPERS[name][1] <= target:
                    cands.append(("c", name))
        if not cands:
            return self.e_lit(ctx, kind, depth)
        t, name = self.pick(cands)
        self.helpers_used.add(name)
        if t == "t":
            h = TEMPLATE_HELPERS[name]
            ctx.mark(h.aspects(kind))
            nargs = 2 if name == "blend" else 1
            args = ", ".join(self.expr(ctx, kind, d) for _ in range(nargs))
            if self.chance(0.35):
                return "%s<%s>(%s)" % (name, self.spell(kind), args)
            return "%s(%s)" % (name, args)
        if t == "s":
            text, ret, params, asp = SCALAR_HELPERS[name]
            ctx.mark(asp)
            return "%s(%s)" % (name, ", ".join(self.expr(ctx, p, d) for p in params))
        # class helpers returning float
        ctx.mark(CLASS_HELPERS[name][1])
        if name in ("Wrap", "WrapD"):
            return "static_cast<float>(%s{%s})" % (name, self.expr(ctx, "float", d))
        if name == "Pt":
            return "Pt(%s, %s).sum()" % (self.expr(ctx, "float", d), self.expr(ctx, "float", d))
        return "PtD(%s).sum()" % self.expr(ctx, "float", d)

    def use_form(self, ctx, key, tag):
        self.helpers_used.add("F:" + key)
        ctx.forms.add(tag)

    def ptr_vars(self, ctx, elem):
        return [v for v in ctx.vars if v.cat == "ptr" and v.elem == elem]

    def e_form(self, ctx, kind, depth):
        """A call into one of FORM_TEXT's overload sets, packs, SFINAE guards, partial
        specialisations, default arguments, array parameters or late members, a macro, or a
        global constant: an expression of type `kind`, its aspects marked from the overload or
        specialisation C++ picks."""
        d = depth + 1
        al = ctx.allowed
        target = self.target_aspects(ctx)
        ex = lambda k: self.expr(ctx, k, d)
        cands = []

        def add(w, fn):
            cands.append((w, fn))

        def mark(asp):
            ctx.mark(asp)

        # --- variadic templates
        def f_vsum():
            self.use_form(ctx, "vsum", "variadic-recursion")
            mark(_asp(kind))
            n = self.r.randint(1, 5 if depth == 0 else 3)
            head = "vsum<%s>" % self.spell(kind) if self.chance(0.25) else "vsum"
            return "%s(%s)" % (head, ", ".join(ex(kind) for _ in range(n)))
        add(3, f_vsum)

        def f_fold():
            self.use_form(ctx, "vfold", "fold")
            mark(_asp(kind))
            n = self.r.randint(1, 4 if depth == 0 else 2)
            return "%s(%s)" % (self.pick(["vprod", "vadd"]), ", ".join(ex(kind) for _ in range(n)))
        add(2, f_fold)

        def f_build():
            self.use_form(ctx, "build", "explicit-arg+pack")
            mark(_asp(kind))
            iks = [k for k in ("int", "long", "uint") if k in al]
            args = [ex(self.pick(iks)) for _ in range(self.r.choice([0, 0, 1, 2, 3]))]
            return "build<%s>(%s)" % (self.spell(kind), ", ".join(args))
        add(2, f_build)

        if kind == "int":
            def f_cnt():
                self.use_form(ctx, "cnt", "sizeof...")
                if self.chance(0.5):
                    types = [self.pick(["double", "sycl::half", "long double", "float", "int", "real_t"]) for _ in range(self.r.randint(0, 3))]
                    return "tcount<%s>()" % ", ".join(types)
                ks = [self.pick(arith_kinds(al)) for _ in range(self.r.randint(1, 3))]
                for k in ks:
                    mark(_asp(k))  # vcount's parameters have these types
                return "vcount(%s)" % ", ".join(ex(k) for k in ks)
            add(3, f_cnt)

            def f_isum():
                self.use_form(ctx, "isum", "nontype-pack")
                vals = [self.pick(["1", "2", "3", "(4)", "EPT", "kN", "1 << 2"]) for _ in range(self.r.randint(0, 3))]
                if any("EPT" in v for v in vals):
                    self.need_macros = True
                if any("kN" in v for v in vals):
                    self.need_consts = True
                return "isum<%s>()" % ", ".join(vals)
            add(2, f_isum)

        # --- overload sets
        if kind == "int":
            def f_pr_int():
                key = self.pick(["pr", "pz"])
                self.use_form(ctx, key, "promotion")
                a = self.pick(["'c'", "static_cast<short>(%s)", "static_cast<char>(%s)", "%s", "true"])
                if "%s" in a:
                    a = a % ex("int")
                return "%s(%s)" % (key, a)
            add(3, f_pr_int)
        if kind == "double":
            def f_pr_double():
                # pr(float): no float overload, float -> double is a promotion, float -> int a conversion
                key = self.pick(["pr", "pz"])
                self.use_form(ctx, key, "promotion")
                mark({"fp64"})
                if key == "pr" and self.chance(0.6):
                    return "pr(%s)" % ex("float")
                return "%s(%s)" % (key, ex("double"))
            add(3, f_pr_double)
        if kind == "float":
            def f_pz_float():
                self.use_form(ctx, "pz", "promotion")
                return "pz(%s)" % ex("float")
            add(2, f_pz_float)
        if kind == "float" and "fp64" in target:
            def f_ntm_nontemplate():
                self.use_form(ctx, "ntm", "template-vs-nontemplate")
                mark({"fp64"})
                return "ntm(%s)" % ex("float")
            add(1, f_ntm_nontemplate)
        if kind in ("int", "long", "uint", "ull", "half", "double", "float"):
            def f_ntm_template():
                self.use_form(ctx, "ntm", "template-vs-nontemplate")
                mark(_asp(kind))
                if kind == "float":
                    return "ntm<float>(%s)" % ex("float")  # explicit arguments: only the template
                return "ntm(%s)" % ex(kind)
            add(1, f_ntm_template)

        # --- SFINAE
        sz_asp = _asp(kind) | ({"fp64"} if SIZE[kind] == 8 else set())
        if sz_asp <= target:
            def f_sz():
                self.use_form(ctx, "sz", "sfinae")
                mark(sz_asp)
                return "sz(%s)" % ex(kind)
            add(2, f_sz)
        if kind in INTK:
            def f_halve_int():
                self.use_form(ctx, "halve", "sfinae")
                return "halve(%s)" % ex(kind)
            add(1, f_halve_int)
        if kind == "double":
            def f_halve_fp():
                self.use_form(ctx, "halve", "sfinae")
                src = self.pick([k for k in ("float", "double", "half", "ldouble") if k in al])
                mark({"fp64"} | _asp(src))
                return "halve(%s)" % ex(src)
            add(1, f_halve_fp)

            def f_mag_int():
                self.use_form(ctx, "mag", "sfinae")
                src = self.pick([k for k in INTK if k in al] + ["double"])
                mark({"fp64"})
                return "mag(%s)" % ex(src)
            add(1, f_mag_int)
        if kind in ("float", "ldouble"):
            def f_mag_fp():
                self.use_form(ctx, "mag", "sfinae")
                mark(_asp(kind))
                return "mag(%s)" % ex(kind)
            add(1, f_mag_fp)
        if kind == "double":
            def f_wide_d():
                self.use_form(ctx, "wide", "sfinae")
                src = self.pick([k for k in ("long", "ull", "size_t", "double", "ldouble") if k in al])
                mark({"fp64"} | _asp(src))
                return "wide(%s)" % ex(src)
            add(1, f_wide_d)
        if kind == "float":
            def f_wide_f():
                self.use_form(ctx, "wide", "sfinae")
                src = self.pick([k for k in ("int", "uint", "float", "half") if k in al])
                mark(_asp(src))
                return "wide(%s)" % ex(src)
            add(1, f_wide_f)
        sel_asp = _asp(kind) | (set() if kind == "float" else {"fp64"})
        if sel_asp <= target:
            def f_sel():
                self.use_form(ctx, "sel", "sfinae")
                mark(sel_asp)
                return "sel(%s)" % ex(kind)
            add(1, f_sel)

        # --- partial specialisations
        op_asp = _asp(kind) | ({"fp64"} if kind in ("float", "double", "ldouble") else set())
        if op_asp <= target:
            def f_op():
                self.use_form(ctx, "op", "partial-spec")
                mark(op_asp)
                return "Op<%s>::apply(%s)" % (self.spell(kind) + (", void" if self.chance(0.15) else ""), ex(kind))
            add(2, f_op)
        if kind == "int":
            def f_op_short():
                self.use_form(ctx, "op", "partial-spec")
                return "static_cast<int>(Op<short>::apply(static_cast<short>(%s)))" % ex("int")
            add(1, f_op_short)
        if kind == "float":
            srcs = [k for k in arith_kinds(al) if (_asp(k) | ({"fp64"} if k in ("long", "ull", "size_t") else set())) <= target]
            if srcs:
                def f_cv():
                    self.use_form(ctx, "cv", "partial-spec")
                    src = self.pick(srcs)
                    mark(_asp(src) | ({"fp64"} if src in ("long", "ull", "size_t") else set()))
                    return "Cv<%s>::get(%s)" % (self.spell(src), ex(src))
                add(2, f_cv)

        # --- non-type template arguments as expressions, macros
        def f_unroll():
            self.use_form(ctx, "unroll", "nttp-expr")
            mark(_asp(kind))
            n = self.pick(NTTP_EXPRS)
            if "EPT" in n:
                self.need_macros = True
                ctx.forms.add("macro")
            if "kN" in n:
                self.need_consts = True
            return "unroll<%s, %s>(%s)" % (self.spell(kind), n, ex(kind))
        add(2, f_unroll)

        def f_macro():
            self.need_macros = True
            ctx.forms.add("macro")
            if kind == "float" and self.chance(0.4):
                src = self.pick(arith_kinds(al))
                a = ex(src)
                return E("TO_F((%s))" % a, is_const(a))
            if self.chance(0.6):
                a = ex(kind)
                return E("SQR((%s))" % a, is_const(a))
            a, b, c = ex(kind), ex(kind), ex(kind)
            return E("MADD((%s), (%s), (%s))" % (a, b, c), is_const(a, b, c))
        add(2, f_macro)

        # --- constants: constexpr double used as a float (folded) or with a float (a use)
        if kind == "double":
            def f_kmul():
                self.need_consts = True
                ctx.forms.add("const-global")
                a = ex("float")
                return E("(%s * %s)" % (a, self.pick(["kScale", "kEps"])), is_const(a))
            add(1, f_kmul)
        if kind == "float":
            def f_kf():
                self.need_consts = True
                ctx.forms.add("const-global")
                r = self.r.random()
                if r < 0.4 and "double" in al:
                    ctx.use_const("double")  # kScale: a double constant, converted at compile time
                    return E("static_cast<float>(%s)" % self.pick(["kScale", "kEps"]), True)
                a = ex("float")
                if r < 0.7:
                    return E("(%s * kG)" % a, False)
                return E("(kF * %s)" % a, is_const(a))
            add(1, f_kf)

        # --- default arguments
        if kind == "float":
            def f_dflt():
                key = self.pick(["dscale", "dhalf", "dmix"] if "fp64" in target else ["dscale", "dhalf"])
                self.use_form(ctx, key, "default-arg")
                if key == "dmix":
                    mark({"fp64"})
                    if self.chance(0.5):
                        return "dmix(%s, %s)" % (ex("float"), ex("double"))
                    return "dmix(%s)" % ex("float")
                if self.chance(0.5):
                    return "%s(%s, %s)" % (key, ex("float"), ex("float"))
                return "%s(%s)" % (key, ex("float"))
            add(2, f_dflt)
        if kind == "int":
            def f_dstep():
                self.use_form(ctx, "dstep", "default-arg")
                if self.chance(0.5):
                    return "dstep(%s, %s)" % (ex("int"), ex("int"))
                return "dstep(%s)" % ex("int")
            add(1, f_dstep)

        def f_dtw():
            self.use_form(ctx, "dtw", "default-arg")
            mark(_asp(kind))
            if self.chance(0.4):
                return "dtw(%s, %s)" % (ex(kind), ex("int"))
            return "dtw(%s)" % ex(kind)
        add(1, f_dtw)

        # --- array parameters, late members (need pointer variables)
        if kind == "float":
            pds = self.ptr_vars(ctx, "double")
            pfs = self.ptr_vars(ctx, "float")
            if pds:
                def f_lut():
                    v = self.pick(pds)
                    ctx.ref(v)
                    arg = "reinterpret_cast<const double (*)[8]>(%s)" % v.name
                    if "fp64" in target and self.chance(0.5):
                        self.use_form(ctx, "lutd", "array-param")
                        mark({"fp64"})
                        return "lutd(%s, %s)" % (arg, ex("int"))
                    self.use_form(ctx, "lutf", "array-param")
                    return "lutf(%s, %s)" % (arg, ex("float"))
                add(3, f_lut)
            if pfs:
                def f_sum4():
                    v = self.pick(pfs)
                    ctx.ref(v)
                    ctx.use("float")
                    self.use_form(ctx, "sum4", "array-param")
                    return "sum4(%s)" % v.name
                add(2, f_sum4)
            if pds and "fp64" in target:
                def f_latep():
                    v = self.pick(pds)
                    ctx.ref(v)
                    self.use_form(ctx, "latep", "late-member")
                    mark({"fp64"})
                    return "LateP{%s}.get(%s)" % (v.name, ex("int"))
                add(1, f_latep)

            def f_latef():
                self.use_form(ctx, "latef", "late-member")
                return "LateF{%s, %s}.get()" % (ex("float"), ex("int"))
            add(1, f_latef)

        w = [c[0] for c in cands]
        fn = self.pick([c[1] for c in cands], w)
        e = fn()
        return e if isinstance(e, E) else E(e, False)

    def e_agg(self, ctx, kind, depth):
        vs = [v for v in ctx.vars if v.cat in ("vec", "marray", "array", "complex") and v.elem == kind]
        v = self.pick(vs)
        ctx.ref(v)
        if v.cat == "vec":
            acc = ["x()", "y()", "[0]", "[1]"]
            if v.n >= 4:
                acc += ["z()", "w()", "s0()"]
            a = self.pick(acc)
            return v.name + ("." + a if not a.startswith("[") else a)
        if v.cat == "complex":
            return "%s.%s()" % (v.name, self.pick(["real", "imag"]))
        return "%s[%d]" % (v.name, self.r.randrange(v.n))

    def e_field(self, ctx, kind, depth):
        vs = [v for v in ctx.vars if v.cat == "struct" and any(fk == kind for _, fk in STRUCTS[v.elem][0])]
        v = self.pick(vs)
        ctx.ref(v)
        f = self.pick([fn for fn, fk in STRUCTS[v.elem][0] if fk == kind])
        return "%s.%s" % (v.name, f)

    def target_aspects(self, ctx):
        out = set()
        if "double" in ctx.allowed:
            out.add("fp64")
        if "half" in ctx.allowed:
            out.add("fp16")
        if getattr(ctx, "atomic64", False):
            out.add("atomic64")
        return out

    # ----- statements -----------------------------------------------------------------------
    def store_targets(self, ctx):
        return [v for v in ctx.vars if v.cat in ("ptr", "acc", "lacc") and v.elem in ctx.allowed]

    def stmts(self, ctx, n, ind):
        out = []
        for _ in range(n):
            out += self.stmt(ctx, ind)
        return out

    def stmt(self, ctx, ind):
        opts = [("store", 10), ("local", 6), ("decoy", 4)]
        if ctx.depth < 2:
            opts += [("if", 2), ("for", 1), ("rangefor", 2)]
        opts += [("atomic", 2), ("vec", 2), ("marray", 1), ("struct", 3), ("call", 2), ("lambda", 2), ("classh", 1), ("complex", 1)]
        opts += [("touch", 1)]
        what = self.pick([o for o, _ in opts], [w for _, w in opts])
        res = getattr(self, "s_" + what)(ctx, ind)
        if res is None:
            res = self.s_store(ctx, ind)
        return res

    def s_store(self, ctx, ind):
        ts = self.store_targets(ctx)
        if not ts:
            return self.s_local(ctx, ind)
        v = self.pick(ts)
        ctx.ref(v)
        ctx.use(v.elem)
        lhs = self.subscript(ctx, v)
        op = self.pick(["=", "=", "+=", "-=", "*="])
        if self.chance(0.75):
            k = v.elem
        else:
            k = self.pick(arith_kinds(ctx.allowed))
        if v.elem == "half" and op != "=" and k not in ("half", "float", "int", "double"):
            k = "half"
        if op != "=" and k == "half" and v.elem != "half":
            k = v.elem
        rhs = self.expr(ctx, k)
        if op != "=":
            ctx.use(k)  # compound assignment computes with the right-hand side at run time
        return ["%s%s %s %s;" % (ind, lhs, op, rhs)]

    def s_local(self, ctx, ind):
        k = self.pick(arith_kinds(ctx.allowed))
        name = self.fresh("v")
        sp = self.spell(k)
        form = self.pick(["plain", "auto", "cref", "brace", "decltype", "const"], [5, 3, 2, 2, 2, 1])
        if form == "decltype":
            dec = self.unevaluated_expr(ctx, k)
            line = "%sstd::decay_t<decltype(%s)> %s = %s;" % (ind, dec, name, self.expr(ctx, k))
        elif form == "auto":
            line = "%sauto %s = %s;" % (ind, name, self.expr(ctx, k))
        elif form == "cref":
            line = "%sconst auto &%s = %s;" % (ind, name, self.expr(ctx, k))
        elif form == "brace":
            line = "%s%s %s{%s};" % (ind, sp, name, self.expr(ctx, k))
        elif form == "const":
            line = "%sconst %s %s = %s;" % (ind, sp, name, self.expr(ctx, k))
        else:
            line = "%s%s %s = %s;" % (ind, sp, name, self.expr(ctx, k))
        ctx.use(k)
        ctx.vars.append(Var(name, "scalar", k))
        return [line]

    def unevaluated_expr(self, ctx, kind):
        """An expression of type `kind` inside an unevaluated operand: any types may appear.
        Host scalars may appear in lambdas (naming them there captures nothing)."""
        vs = [v for v in ctx.vars if v.cat == "ptr"]
        if ctx.lambda_kernel and ctx.host_ok:
            vs += [Var(h, "scalar", k, "host") for h, (k, _, _) in HOST_SCALARS.items()]
        u = Ctx(self, set(INT_KINDS + FP_KINDS), vs, ctx.index, True)
        u.forms = ctx.forms
        u.lambda_kernel = ctx.lambda_kernel
        u.atomic64 = True
        e = self.expr(u, self.pick(["double", "half", "float", "ldouble"]), 1)
        ctx.merge_pointer_refs(u)
        for h in HOST_SCALARS:
            if h in u.refs:
                self.host_uneval.add(h)
        return "static_cast<%s>(%s)" % (self.spell(kind), e)

    def forbidden_ctx(self, ctx):
        """A context for code that is never evaluated as part of the kernel (discarded branches,
        uncalled lambdas): pointers and literals only, so that nothing new gets captured."""
        u = Ctx(self, set(INT_KINDS + FP_KINDS), [v for v in ctx.vars if v.cat == "ptr"], ctx.index, True)
        u.forms = ctx.forms
        u.lambda_kernel = ctx.lambda_kernel
        u.atomic64 = True
        u.depth = 5
        return u

    def s_decoy(self, ctx, ind):
        forms = ["static_assert", "sizeof", "alias", "ifc_false", "ifc_true_else", "ptr_only", "unused_lambda", "is_same", "sizeof_struct"]
        f = self.pick(forms)
        ints = [v for v in ctx.vars if v.cat in ("ptr", "acc") and v.elem == "int"]
        if f == "static_assert":
            t = self.pick(["double", "sycl::half", "long double", "P2"] if "P2" in self.structs_used else ["double", "sycl::half", "long double"])
            return ["%sstatic_assert(sizeof(%s) >= 2, \"size\");" % (ind, t)]
        if f == "sizeof":
            e = self.unevaluated_expr(ctx, "double")
            if ints and self.chance(0.6):
                v = self.pick(ints)
                ctx.ref(v)
                ctx.use("int")
                return ["%s%s = sizeof(%s) + alignof(double);" % (ind, self.subscript(ctx, v), e)]
            return ["%s(void)sizeof(%s);" % (ind, e)]
        if f == "alias":
            return ["%susing %s = decltype(%s);" % (ind, self.fresh("Alias"), self.unevaluated_expr(ctx, "double"))]
        if f == "is_same":
            e = self.unevaluated_expr(ctx, self.pick(["double", "float", "half"]))
            name = self.fresh("same")
            return ["%sconstexpr bool %s = std::is_same_v<decltype(%s), double>;" % (ind, name, e), "%s(void)%s;" % (ind, name)]
        if f == "sizeof_struct":
            self.structs_used.add("P2")
            if ints:
                v = self.pick(ints)
                ctx.ref(v)
                ctx.use("int")
                return ["%s%s = static_cast<int>(sizeof(P2));" % (ind, self.subscript(ctx, v))]
            return ["%s(void)sizeof(P2);" % ind]
        if f in ("ifc_false", "ifc_true_else"):
            fc = self.forbidden_ctx(ctx)
            bad = self.stmts(fc, self.r.randint(1, 2), ind + "  ")
            ctx.merge_pointer_refs(fc)
            # the condition is a constant: false on the usual 64-bit Linux target
            cfalse = self.pick(["sizeof(long) == 4", "false", "std::is_same_v<float, double>", "sizeof(double) < 8"])
            if f == "ifc_false":
                return ["%sif constexpr (%s) {" % (ind, cfalse)] + bad + ["%s}" % ind]
            ctrue = self.pick(["sizeof(long) == 8", "true", "std::is_same_v<float, float>", "sizeof(double) == 8"])
            sub = ctx.child()
            sub.depth = ctx.depth + 1
            sub.vars = list(ctx.vars)
            good = self.stmts(sub, 1, ind + "  ")
            return ["%sif constexpr (%s) {" % (ind, ctrue)] + good + ["%s} else {" % ind] + bad + ["%s}" % ind]
        if f == "ptr_only":
            pd = [v for v in ctx.vars if v.cat == "ptr" and v.elem in ("double", "half")]
            if not pd:
                return None
            v = self.pick(pd)
            ctx.ref(v)
            if v.elem == "double" and [x for x in ctx.vars if x.cat == "ptr" and x.elem == "int"]:
                pi = self.pick([x for x in ctx.vars if x.cat == "ptr" and x.elem == "int"])
                ctx.ref(pi)
                self.helpers_used.add("consume")
                return ["%sif (%s != nullptr) {" % (ind, v.name), "%s  consume(%s, %s);" % (ind, v.name, pi.name), "%s}" % ind]
            if v.elem == "half" and [x for x in ctx.vars if x.cat == "ptr" and x.elem == "float"]:
                pf = self.pick([x for x in ctx.vars if x.cat == "ptr" and x.elem == "float"])
                ctx.ref(pf)
                self.helpers_used.add("consume")
                return ["%skeep(%s, %s);" % (ind, v.name, pf.name)]
            name = self.fresh("q")
            return ["%sauto %s = %s + 1;" % (ind, name, v.name), "%s(void)%s;" % (ind, name)]
        if f == "unused_lambda":
            k = self.pick(["double", "half", "ldouble"])
            sp = self.spell(k)
            name = self.fresh("unused")
            return ["%sauto %s = [](%s v) { return v * %s; };" % (ind, name, sp, self.pick(LITS[k])), "%s(void)%s;" % (ind, name)]
        return None

    def s_if(self, ctx, ind):
        c = self.cond(ctx, 1)
        sub = ctx.child()
        sub.depth = ctx.depth + 1
        sub.vars = list(ctx.vars)
        body = self.stmts(sub, self.r.randint(1, 2), ind + "  ")
        out = ["%sif %s {" % (ind, c)] + body
        if self.chance(0.4):
            sub2 = ctx.child()
            sub2.depth = ctx.depth + 1
            sub2.vars = list(ctx.vars)
            out += ["%s} else {" % ind] + self.stmts(sub2, 1, ind + "  ")
        return out + ["%s}" % ind]

    def s_for(self, ctx, ind):
        j = self.fresh("j")
        sub = ctx.child()
        sub.depth = ctx.depth + 1
        sub.vars = list(ctx.vars) + [Var(j, "scalar", "int")]
        ctx.use("int")
        body = self.stmts(sub, self.r.randint(1, 2), ind + "  ")
        return ["%sfor (int %s = 0; %s < 4; ++%s) {" % (ind, j, j, j)] + body + ["%s}" % ind]

    def s_rangefor(self, ctx, ind):
        k = self.pick(arith_kinds(ctx.allowed))
        sp = self.spell(k)
        arr = self.fresh("arr")
        elems = ", ".join(self.expr(ctx, k) for _ in range(3))
        ctx.use(k)
        if self.chance(0.5):
            decl = "%s%s %s[3] = {%s};" % (ind, sp, arr, elems)
        else:
            decl = "%sstd::array<%s, 3> %s{%s};" % (ind, sp, arr, elems)
        ctx.vars.append(Var(arr, "array", k, n=3))
        v = self.fresh("e")
        loopvar = self.pick(["%s %s" % (sp, v), "auto %s" % v, "const auto &%s" % v])
        sub = ctx.child()
        sub.depth = ctx.depth + 1
        sub.vars = list(ctx.vars) + [Var(v, "scalar", k)]
        body = self.stmts(sub, 1, ind + "  ")
        return [decl, "%sfor (%s : %s) {" % (ind, loopvar, arr)] + body + ["%s}" % ind]

    def s_atomic(self, ctx, ind):
        kinds = ["int", "uint", "float"]
        if getattr(ctx, "atomic64", False):
            kinds += ["long", "ull", "ptr"]
            if "double" in ctx.allowed:
                kinds += ["double"]
        if "half" in ctx.allowed and self.chance(0.3):
            kinds += ["half"]
        k = self.pick(kinds)
        if k == "ptr":
            if ctx.unrestricted or not ctx.host_ok:
                return None
            ctx.ref(Var("ppi", "ptr", "int*", "host"))
            self.host_used.add("ppi")
            name = self.fresh("ap")
            lines = ["%saref<int *> %s(ppi[0]);" % (ind, name)]
            ints = [v for v in ctx.vars if v.cat in ("ptr", "acc") and v.elem == "int"]
            ctx.mark({"atomic64"})
            if ints:
                v = self.pick(ints)
                ctx.ref(v)
                lines.append("%s%s = %s.load() != nullptr;" % (ind, self.subscript(ctx, v), name))
            else:
                lines.append("%s(void)%s.load();" % (ind, name))
            return lines
        srcs = [v for v in ctx.vars if v.cat in ("ptr", "acc") and v.elem == k]
        if not srcs:
            return None
        v = self.pick(srcs)
        ctx.ref(v)
        ctx.use(k)
        if SIZE[k] == 8:
            ctx.mark({"atomic64"})
        if k == "half":
            ctx.mark({"ext_oneapi_atomic16"})
        name = self.fresh("a")
        sp = self.spell(k)
        form = self.pick(["alias", "full", "old"], [5, 2, 2])
        if form == "old" and k in ("int", "long") and v.cat == "ptr":
            out = ["%ssycl::atomic<%s> %s{sycl::global_ptr<%s>{%s}};" % (ind, sp, name, sp, v.name)]
            out.append("%s%s.fetch_add(%s);" % (ind, name, self.expr(ctx, k)))
            return out
        if form == "full":
            decl = "%ssycl::atomic_ref<%s, sycl::memory_order::relaxed, sycl::memory_scope::device, sycl::access::address_space::global_space> %s(%s);" % (
                ind, sp, name, self.subscript(ctx, v))
        else:
            decl = "%saref<%s> %s(%s);" % (ind, sp, name, self.subscript(ctx, v))
        op = self.pick(["fetch_add", "store", "fetch_max", "exchange", "load", "inc"])
        if op == "inc" and k in ("int", "uint", "long", "ull"):
            use = "%s%s++;" % (ind, name)
        elif op == "load":
            use = "%s(void)%s.load();" % (ind, name)
        elif op == "inc":
            use = "%s%s += %s;" % (ind, name, self.expr(ctx, k))
        else:
            use = "%s%s.%s(%s);" % (ind, name, op, self.expr(ctx, k))
        return [decl, use]

    def s_vec(self, ctx, ind):
        k = self.pick([x for x in ("float", "int", "double", "half") if x in ctx.allowed])
        n = self.pick([2, 4])
        name = self.fresh("vv")
        alias = {("float", 2): "sycl::float2", ("float", 4): "sycl::float4", ("double", 2): "sycl::double2",
                 ("int", 4): "sycl::int4", ("half", 2): "sycl::half2"}.get((k, n))
        ty = alias if alias and self.chance(0.4) else "sycl::vec<%s, %d>" % (self.spell(k), n)
        ctx.use(k)
        if n == 2 and self.chance(0.5):
            init = "%s((%s), (%s))" % (name, self.expr(ctx, k), self.expr(ctx, k))
        else:
            init = "%s((%s))" % (name, self.expr(ctx, k))
        out = ["%s%s %s;" % (ind, ty, init)]
        if self.chance(0.4):
            out.append("%s%s *= %s;" % (ind, name, self.expr(ctx, k)))
        if k == "float" and self.chance(0.3):
            out.append("%s%s = sycl::sqrt(%s);" % (ind, name, name))
        ctx.vars.append(Var(name, "vec", k, n=n))
        return out

    def s_marray(self, ctx, ind):
        k = self.pick([x for x in ("float", "int", "double", "half") if x in ctx.allowed])
        name = self.fresh("ma")
        ctx.use(k)
        out = ["%ssycl::marray<%s, 4> %s((%s));" % (ind, self.spell(k), name, self.expr(ctx, k))]
        ctx.vars.append(Var(name, "marray", k, n=4))
        if self.chance(0.4):
            e = self.fresh("me")
            sub = ctx.child()
            sub.depth = ctx.depth + 1
            sub.vars = list(ctx.vars) + [Var(e, "scalar", k)]
            out += ["%sfor (auto %s : %s) {" % (ind, e, name)] + self.stmts(sub, 1, ind + "  ") + ["%s}" % ind]
        return out

    def s_complex(self, ctx, ind):
        k = self.pick([x for x in ("float", "double") if x in ctx.allowed])
        name = self.fresh("cx")
        ctx.use(k)
        line = "%sstd::complex<%s> %s((%s), (%s));" % (ind, self.spell(k), name, self.expr(ctx, k), self.expr(ctx, k))
        ctx.vars.append(Var(name, "complex", k))
        return [line]

    def s_struct(self, ctx, ind):
        # a struct value: a captured host one (lambdas) or a local one; or a structured binding
        ok = [s for s in STRUCTS if struct_aspects(s) <= self.target_aspects(ctx) and all(
            fk.split("[")[0] in ctx.allowed for _, fk in STRUCTS[s][0])]
        if not ok:
            return None
        s = self.pick(ok)
        self.structs_used.add(s)
        have = [v for v in ctx.vars if v.cat == "struct" and v.elem == s]
        if have and self.chance(0.7) and len(STRUCTS[s][0]) == 2 and "[" not in STRUCTS[s][0][0][1] and s != "Derived1":
            v = self.pick(have)
            ctx.ref(v)
            a, b = self.fresh("sb"), self.fresh("sb")
            ctx.vars.append(Var(a, "scalar", STRUCTS[s][0][0][1]))
            ctx.vars.append(Var(b, "scalar", STRUCTS[s][0][1][1]))
            return ["%s%s [%s, %s] = %s;" % (ind, self.pick(["auto", "const auto &", "auto &"] if v.origin == "local" else ["auto", "const auto &"]), a, b, v.name)]
        name = self.fresh("st")
        fields = STRUCTS[s][0]
        if s == "Derived1":
            init = "{{%s}, %s}" % (self.expr(ctx, "double"), self.expr(ctx, "int"))
        elif s == "Arr3":
            init = "{{%s, %s, %s}}" % tuple(self.expr(ctx, "float") for _ in range(3))
        else:
            init = "{%s}" % ", ".join(self.expr(ctx, fk) for _, fk in fields)
        ctx.mark(struct_aspects(s))
        v = Var(name, "struct", s)
        ctx.vars.append(v)
        out = ["%s%s %s%s;" % (ind, s, name, init)]
        if s == "Arr3":
            ctx.vars.append(Var(name + ".v", "array", "float", n=3))
        elif s != "Derived1" and self.chance(0.4):
            a, b = self.fresh("sb"), self.fresh("sb")
            out.append("%s%s [%s, %s] = %s;" % (ind, self.pick(["auto", "const auto &", "auto &"]), a, b, name))
            ctx.vars.append(Var(a, "scalar", fields[0][1]))
            ctx.vars.append(Var(b, "scalar", fields[1][1]))
        return out

    def s_call(self, ctx, ind):
        ptrs = [v for v in ctx.vars if v.cat == "ptr" and v.elem in ("int", "double", "float", "half") and v.elem in ctx.allowed]
        if not ptrs or not ctx.index["size"]:
            return None
        v = self.pick(ptrs)
        ctx.ref(v)
        ctx.use(v.elem)
        self.helpers_used.add("scan")
        return ["%sscan(%s, %s);" % (ind, v.name, self.pick(ctx.index["size"]))]

    def s_touch(self, ctx, ind):
        """`touch_all(k, p1, p2, ...)`: a comma fold over pointers of mixed element types; each
        element type is computed with."""
        ptrs = [v for v in ctx.vars if v.cat == "ptr" and v.elem in ctx.allowed]
        if not ptrs or not ctx.index["size"]:
            return None
        chosen = [self.pick(ptrs) for _ in range(self.r.randint(1, 4))]
        for v in chosen:
            ctx.ref(v)
            ctx.use(v.elem)
        self.use_form(ctx, "touch", "fold")
        return ["%stouch_all(%s, %s);" % (ind, self.pick(ctx.index["size"]), ", ".join(v.name for v in chosen))]

    def s_lambda(self, ctx, ind):
        k = self.pick(arith_kinds(ctx.allowed))
        name = self.fresh("fn")
        sp = self.spell(k)
        generic = self.chance(0.4)
        param = "auto v" if generic else "%s v" % sp
        op = self.pick(["v + v", "v * v", "v - v"])
        ts = self.store_targets(ctx)
        ctx.use(k)
        out = ["%sauto %s = [](%s) { return %s; };" % (ind, name, param, op)]
        if ts:
            t = self.pick(ts)
            if t.elem == "half" and k not in ("half", "float", "int", "double"):
                out.append("%s(void)%s(%s);" % (ind, name, self.expr(ctx, k)))
            else:
                ctx.ref(t)
                ctx.use(t.elem)
                out.append("%s%s = %s(%s);" % (ind, self.subscript(ctx, t), name, self.expr(ctx, k)))
        else:
            out.append("%s(void)%s(%s);" % (ind, name, self.expr(ctx, k)))
        return out

    def s_classh(self, ctx, ind):
        target = self.target_aspects(ctx)
        cands = ["Acc2", "V2"] + (["AccD"] if "fp64" in target else [])
        n = self.pick(cands)
        self.helpers_used.add(n)
        fts = [v for v in self.store_targets(ctx) if v.elem == "float"]
        name = self.fresh("obj")
        if n in ("Acc2", "AccD"):
            if n == "AccD":
                ctx.mark({"fp64"})
                init = "%s{%s}" % (n, self.expr(ctx, "double"))
            else:
                init = "%s{%s}" % (n, self.expr(ctx, "float"))
            out = ["%sauto %s = %s;" % (ind, name, init), "%s%s.add(%s);" % (ind, name, self.expr(ctx, "float"))]
            res = "%s.get()" % name
        else:
            a = "V2{%s, %s}" % (self.expr(ctx, "float"), self.expr(ctx, "float"))
            b = "V2{%s, %s}" % (self.expr(ctx, "float"), self.expr(ctx, "float"))
            op = "-" if "fp64" in target and self.chance(0.5) else "+"
            if op == "-":
                ctx.mark({"fp64"})
            out = ["%sV2 %s = %s %s %s;" % (ind, name, a, op, b)]
            res = "%s.x" % name
        if fts:
            t = self.pick(fts)
            ctx.ref(t)
            out.append("%s%s = %s;" % (ind, self.subscript(ctx, t), res))
        else:
            out.append("%s(void)%s;" % (ind, res))
        return out

    # ----- EXTRA_FORMS (issue 41) ---------------------------------------------------------------
    def xfresh(self, base):
        self.xcounter += 1
        return "%sx%d" % (base, self.xcounter)

    def extra_form(self, ctx, ind):
        """At most one statement of EXTRA_FORMS, before the forced uses (so that it may be the
        kernel's only use of an aspect). Drawn from self.rx: the gate is drawn for every kernel
        body, and self.r is left alone unless a form is written (the forced uses it makes
        unnecessary are then not drawn)."""
        rx = self.rx
        if rx.random() >= EXTRA_RATE:
            return []
        names = [n for n in EXTRA_FORMS if EXTRA_FORMS[n] and form_enabled(n)]
        if not names:
            return []
        name = rx.choices(names, weights=[EXTRA_FORMS[n] for n in names], k=1)[0]
        saved = self.r
        self.r = rx
        try:
            return getattr(self, "x_" + name.replace("-", "_"))(ctx, ind) or []
        finally:
            self.r = saved

    def x_result(self, ctx, ind, text):
        """A float result: stored to a float pointer or accessor element, or discarded."""
        fts = [v for v in self.store_targets(ctx) if v.elem == "float"]
        if fts:
            t = self.pick(fts)
            ctx.ref(t)
            ctx.use("float")
            return "%s%s %s %s;" % (ind, self.subscript(ctx, t), self.pick(["=", "=", "+="]), text)
        return "%s(void)(%s);" % (ind, text)

    def x_arrays(self, ctx, alias_ok):
        """(element kind, N, function, aspects) whose aspects the kernel may use: apick uses fp64
        when N == 4, awide when sizeof(T) == 8; both use what T uses. Without alias_ok only the
        kinds with a keyword spelling (no sycl::half)."""
        target = self.target_aspects(ctx)
        out = []
        for k in ("float", "int", "long", "uint", "ull", "double", "half"):
            if k not in ctx.allowed or (k == "half" and not alias_ok):
                continue
            for n in (2, 3, 4):
                for fn in ("apick", "awide"):
                    asp = _asp(k) | ({"fp64"} if (n == 4 if fn == "apick" else SIZE[k] == 8) else set())
                    if asp <= target:
                        out.append((k, n, fn, asp))
        return out

    def x_elem_spell(self, k, alias_ok):
        """The element type of an array: any spelling, or with alias_ok false the keyword one
        (`std::int32_t`, `i64`, `real_t`, `sycl::half` are "array-ref-alias")."""
        return self.spell(k) if alias_ok else SPELL[k][0]

    def x_array_init(self, ctx, k, n):
        """n elements of kind k (one may start with a functional cast by a type keyword,
        `Ring<unsigned, 3> r{{unsigned(x), ...}}`)."""
        return ", ".join(self.expr(ctx, k) for _ in range(n))

    def x_array_ref(self, ctx, ind):
        """T (&)[N] deduced from a local array, or inside a class template from its member; the
        element type spelled by a keyword, or (form "array-ref-alias") also through an alias or
        as sycl::half."""
        alias_ok = form_enabled("array-ref-alias") and self.chance(0.5)
        k, n, fn, asp = self.pick(self.x_arrays(ctx, alias_ok))
        self.helpers_used.add("X:arr")
        sp = self.x_elem_spell(k, alias_ok)
        ctx.forms.add("array-ref-alias" if sp not in ("float", "int", "long", "unsigned", "unsigned long long", "double") else "array-ref")
        ctx.use(k)
        if self.chance(0.3):
            self.helpers_used.add("X:ring")
            name = self.xfresh("rg")
            # top() passes a const T[N] to apick; wide() a T[N] to awide
            call = "%s.%s()" % (name, "top" if fn == "apick" else "wide")
            out = ["%sRing<%s, %d> %s{{%s}};" % (ind, sp, n, name, self.x_array_init(ctx, k, n))]
        else:
            name = self.xfresh("ar")
            out = ["%s%s %s[%d] = {%s};" % (ind, sp, name, n, self.x_array_init(ctx, k, n))]
            call = "%s(%s)" % (fn, name)
            if self.chance(0.3):
                call = "(%s + static_cast<float>(alen(%s)))" % (call, name)
        ctx.mark(asp)
        out.append(self.x_result(ctx, ind, call))
        return out

    def x_array_ref_member(self, ctx, ind):
        """T (&)[N] deduced from a member of a struct or of a class template named from outside,
        from a row of a 2-D array, or through an `auto &` to a local array."""
        alias_ok = form_enabled("array-ref-alias")
        cands = self.x_arrays(ctx, alias_ok)
        how = self.pick(["struct", "ring", "row", "ref"])
        if how == "struct":
            cands = [c for c in cands if (c[0], c[1]) in (("float", 4), ("long", 2))]
            if not cands:
                how = "ring"
                cands = self.x_arrays(ctx, alias_ok)
        k, n, fn, asp = self.pick(cands)
        self.helpers_used.add("X:arr")
        ctx.forms.add("array-ref-member")
        sp = self.x_elem_spell(k, alias_ok)
        ctx.use(k)
        if how == "struct":
            self.helpers_used.add("X:arrs")
            name = self.xfresh("sa")
            if k == "float":
                out = ["%sAF4 %s{{%s}};" % (ind, name, self.x_array_init(ctx, k, n))]
                arg = name + ".v"
            else:
                ctx.use("int")
                out = ["%sAL2 %s{%s, {%s}};" % (ind, name, self.expr(ctx, "int"), self.x_array_init(ctx, k, n))]
                arg = name + ".w"
        elif how == "ring":
            self.helpers_used.add("X:ring")
            name = self.xfresh("rg")
            out = ["%sRing<%s, %d> %s{{%s}};" % (ind, sp, n, name, self.x_array_init(ctx, k, n))]
            arg = name + ".buf"
        elif how == "row":
            name = self.xfresh("mt")
            out = ["%s%s %s[2][%d] = {{%s}, {%s}};" % (ind, sp, name, n, self.x_array_init(ctx, k, n), self.x_array_init(ctx, k, n))]
            arg = "%s[%d]" % (name, self.r.randrange(2))
        else:
            name = self.xfresh("ar")
            ref = self.xfresh("rf")
            out = ["%s%s %s[%d] = {%s};" % (ind, sp, name, n, self.x_array_init(ctx, k, n)),
                   "%sauto &%s = %s;" % (ind, ref, name)]
            arg = ref
        ctx.mark(asp)
        out.append(self.x_result(ctx, ind, "%s(%s)" % (fn, arg)))
        return out

    def x_user_operator_class(self, ctx, ind):
        """Dv + Dv and Dv * float (Dv holds a double: fp64 by its type)."""
        if "fp64" not in self.target_aspects(ctx):
            return None
        self.helpers_used.add("X:uop")
        ctx.forms.add("user-operator-class")
        ef = lambda: self.expr(ctx, "float")
        ctx.mark({"fp64"})
        if self.chance(0.5):
            a = "Dv{%s}" % (ef() if self.chance(0.6) else self.expr(ctx, "double"))
            return [self.x_result(ctx, ind, "(%s + Dv{%s}).f()" % (a, ef()))]
        name = self.xfresh("dv")
        return ["%sauto %s = Dv{%s} * %s;" % (ind, name, ef(), ef()), self.x_result(ctx, ind, "%s.f()" % name)]

    def x_user_operator(self, ctx, ind):
        """Fv - Fv (computes in double), Fv * Fv (returns a Dv): fp64 only through the operator;
        Fv + Fv (computes in float; its result's get() must not be taken for another class's)."""
        self.helpers_used.add("X:uop")
        ctx.forms.add("user-operator")
        ef = lambda: self.expr(ctx, "float")
        if "fp64" not in self.target_aspects(ctx) or self.chance(0.25):
            ctx.use("float")
            return [self.x_result(ctx, ind, "(Fv{%s} + Fv{%s}).get()" % (ef(), ef()))]
        ctx.mark({"fp64"})
        r = self.r.random()
        if r < 0.4:
            return [self.x_result(ctx, ind, "(Fv{%s} - Fv{%s}).get()" % (ef(), ef()))]
        if r < 0.7:
            if self.chance(0.5):
                return [self.x_result(ctx, ind, "static_cast<float>((Fv{%s} * Fv{%s}).v)" % (ef(), ef()))]
            return [self.x_result(ctx, ind, "(Fv{%s} * Fv{%s}).f()" % (ef(), ef()))]
        name = self.xfresh("pr")
        use = self.pick(["%s.f()", "static_cast<float>(%s.v)"]) % name
        return ["%sauto %s = Fv{%s} * Fv{%s};" % (ind, name, ef(), ef()), self.x_result(ctx, ind, use)]

    def x_conversion_operator_clean(self, ctx, ind):
        """CvF's operator float (computes in float) called implicitly."""
        self.helpers_used.add("X:cvt")
        ctx.forms.add("conversion-operator-clean")
        ctx.use("float")
        ef = lambda: self.expr(ctx, "float")
        if self.chance(0.5):
            return [self.x_result(ctx, ind, "(%s %s CvF{%s})" % (ef(), self.pick(["+", "*", "-"]), ef()))]
        name = self.xfresh("cf")
        return ["%sfloat %s = CvF{%s};" % (ind, name, ef()), self.x_result(ctx, ind, name)]

    def x_conversion_operator(self, ctx, ind):
        """CvD's operator double in float arithmetic (the built-in operator is float x double),
        or converting to a float; CvW's operator float, which computes in double."""
        if "fp64" not in self.target_aspects(ctx):
            return None
        self.helpers_used.add("X:cvt")
        ctx.forms.add("conversion-operator")
        ctx.use("float")
        ctx.mark({"fp64"})
        ef = lambda: self.expr(ctx, "float")
        cls = self.pick(["CvD", "CvW"])
        if self.chance(0.5):
            e = "(%s %s %s{%s})" % (ef(), self.pick(["+", "*", "-"]), cls, ef())
            if cls == "CvD" and self.chance(0.5):
                e = "static_cast<float>%s" % e
            return [self.x_result(ctx, ind, e)]
        name = self.xfresh("cv")
        return ["%sfloat %s = %s{%s};" % (ind, name, cls, ef()), self.x_result(ctx, ind, name)]

    def x_atomic_const_store(self, ctx, ind):
        """atomic_ref<double> (atomic64, fp64) or atomic_ref<sycl::half> (fp16) that only stores
        or adds a constant: the aspect's use is the referenced element (an lvalue of the type)."""
        target = self.target_aspects(ctx)
        kinds = []
        if {"fp64", "atomic64"} <= target:
            kinds.append("double")
        if "fp16" in target:
            kinds.append("half")
        srcs = [v for v in ctx.vars if v.cat in ("ptr", "acc") and v.elem in kinds]
        if not srcs:
            return None
        v = self.pick(srcs)
        k = v.elem
        ctx.forms.add("atomic-const-store")
        ctx.ref(v)
        ctx.use(k)
        ctx.mark({"atomic64"} if k == "double" else {"ext_oneapi_atomic16"})
        name = self.xfresh("ac")
        sp = self.spell(k)
        if self.chance(0.3):
            decl = "%ssycl::atomic_ref<%s, sycl::memory_order::relaxed, sycl::memory_scope::device, sycl::access::address_space::global_space> %s(%s);" % (
                ind, sp, name, self.subscript(ctx, v))
        else:
            decl = "%saref<%s> %s(%s);" % (ind, sp, name, self.subscript(ctx, v))
        lit = self.pick(LITS[k])
        if self.chance(0.7):
            use = "%s%s.store(%s);" % (ind, name, lit)
        else:
            use = "%s%s += %s;" % (ind, name, lit)
        return [decl, use]

    # ----- LIB_FORMS, GROUP_FORMS (issue 35) ----------------------------------------------------
    def with_ry(self, fn, *args):
        saved = self.r
        self.r = self.ry
        try:
            return fn(*args)
        finally:
            self.r = saved

    def library_launches(self, body):
        """Zero, one or two launches of LIB_FORMS at the end of run()'s kernels, drawn from
        self.ry (self.r is left alone: without them the program is the one before them)."""
        ry = self.ry
        if ry.random() >= LIB_RATE:
            return
        names = [n for n in LIB_FORMS if LIB_FORMS[n] and form_enabled(n)]
        if not names:
            return
        for _ in range(ry.choice([1, 1, 1, 2])):
            name = ry.choices(names, weights=[LIB_FORMS[n] for n in names], k=1)[0]
            self.with_ry(getattr(self, "l_" + name.replace("-", "_")), body, "  ")

    def policy(self, out, ind, device):
        if not device:
            return self.pick(["std::execution::par", "std::execution::seq", "std::execution::par_unseq", "std::execution::unseq",
                              "oneapi::dpl::execution::par_unseq", "oneapi::dpl::execution::seq", "oneapi::dpl::execution::par"])
        f = self.pick(["inline", "local", "named", "default", "typed"], [4, 4, 2, 2, 1])
        if f == "inline":
            return "oneapi::dpl::execution::make_device_policy(q)"
        if f == "named":
            return "oneapi::dpl::execution::make_device_policy<class %s>(q)" % self.fresh("Pol")
        if f == "default":
            return "oneapi::dpl::execution::dpcpp_default"
        name = self.fresh("pol")
        if f == "local":
            out.append(("%sauto %s = oneapi::dpl::execution::make_device_policy(q);" % (ind, name), None))
        else:
            out.append(("%soneapi::dpl::execution::device_policy<> %s{q};" % (ind, name), None))
        return name

    # algorithm -> (arity of the callable, what it returns: "void" (stores to its element),
    # "bool", "elem"; the call's shape)
    ALGOS = {
        "for_each": (1, "void", "{b}, {e}, {f}"),
        "for_each_n": (1, "void", "{b}, n, {f}"),
        "transform": (1, "elem", "{b}, {e}, {o}, {f}"),
        "sort": (2, "bool", "{b}, {e}, {f}"),
        "stable_sort": (2, "bool", "{b}, {e}, {f}"),
        "min_element": (2, "bool", "{b}, {e}, {f}"),
        "count_if": (1, "bool", "{b}, {e}, {f}"),
        "any_of": (1, "bool", "{b}, {e}, {f}"),
        "none_of": (1, "bool", "{b}, {e}, {f}"),
        "find_if": (1, "bool", "{b}, {e}, {f}"),
        "copy_if": (1, "bool", "{b}, {e}, {o}, {f}"),
        "reduce": (2, "elem", "{b}, {e}, {i}, {f}"),
        "inclusive_scan": (2, "elem", "{b}, {e}, {o}, {f}"),
        "generate": (0, "elem", "{b}, {e}, {f}"),
        "transform_reduce": (2, "elem", "{b}, {e}, {i}, {f}, {f2}"),
    }

    def l_dpl_host_policy(self, out, ind):
        self.l_dpl_algorithm(out, ind, device=False)

    def l_dpl_algorithm(self, out, ind, device=True):
        """A parallel algorithm whose callables (a lambda, a local lambda, a functor object or a
        local functor) are kernels with a device policy, instantiated with the element type of
        the first iterator (a USM pointer, a std::vector's begin(), oneapi::dpl::begin(buffer),
        a counting_iterator); with a host policy (or none, std::for_each) they are no kernel."""
        target = self.choose_target()
        allowed = self.allowed_for(target)
        algo = self.pick(list(self.ALGOS))
        arity, ret, shape = self.ALGOS[algo]
        src = self.pick(["usm", "vector", "buffer", "counting"], [5, 3, 2, 2 if algo == "for_each_n" else 0])
        if src == "counting":
            elem = self.pick(["int", "long"])
            cname = "oneapi::dpl::counting_iterator<%s>" % self.spell(elem)
            b = "%s(0)" % cname
            e = "%s(0) + n" % cname
        else:
            elem = self.pick([k for k in ("float", "int", "long", "double", "half") if k in allowed], None)
            sp = self.spell(elem)
            if src == "usm":
                p = ELEM_PTR[elem]
                self.host_used.add(p)
                b, e = p, "%s + n" % p
            elif src == "vector":
                vn = self.fresh("vec")
                self.host_extra.append("std::vector<%s> %s(n);" % (sp, vn))
                b, e = "%s.begin()" % vn, "%s.end()" % vn
            else:
                bn = self.buffer_for(elem)
                b, e = "oneapi::dpl::begin(%s)" % bn, "oneapi::dpl::end(%s)" % bn
        ns = self.pick(["std::", "oneapi::dpl::", "dpl::"], [4, 3, 1])
        no_policy = not device and algo == "for_each" and self.chance(0.3)
        if no_policy:
            ns = "std::"  # the sequential algorithm
        pol = None if no_policy else self.policy(out, ind, device)
        # the callables: the main one, and transform_reduce's transform
        calls = [(arity, ret)] + ([(1, "elem")] if algo == "transform_reduce" else [])
        cform = self.pick(["lambda", "local", "functor", "local-functor"], [6, 2, 2, 1]) if len(calls) == 1 else "lambda"
        texts = []
        for ar, rt in calls:
            texts.append(self.algo_callable(out, ind, device, target, elem, src, ar, rt, cform))
        o = ELEM_PTR[elem] if elem in ELEM_PTR else "pf"
        if "{o}" in shape:
            self.host_used.add(o)
        init = self.pick(LITS[elem])
        args = shape.format(b=b, e=e, o=o, i=init, f="@F0@", f2="@F1@")
        head = "%s%s(" % (ns, algo) + ("%s, " % pol if pol else "")
        lead = "%s%s" % (ind, "(void)" if ret != "void" and algo not in ("generate", "sort", "stable_sort") and self.chance(0.5) else "")
        # the call: callables written inline take lines of their own
        pieces = args.split("@")
        first = True
        cur = lead + head
        for piece in pieces:
            if piece in ("F0", "F1"):
                kind, lines, aid = texts[int(piece[1])]
                if kind == "inline":
                    out.append((cur + lines[0], aid))
                    out.extend((l, None) for l in lines[1:-1])
                    cur = lines[-1]
                else:
                    cur += lines
            else:
                cur += piece
        out.append((cur + ");", None))

    def algo_callable(self, out, ind, device, target, elem, src, arity, ret, cform):
        """One callable of an algorithm: ("inline", lines, anchor) of a lambda written in the call,
        or ("name", text, None) of one defined before it (its anchor on its own line)."""
        aid = self.new_anchor()
        if not device:
            self.no_kernel.add(aid)
        sp = self.spell(elem) if src != "counting" else self.spell(elem)
        names = ["x", "a", "b"][:max(arity, 0)] if arity != 1 else [self.pick(["x", "v", "e"])]
        if arity == 2:
            names = ["a", "b"]
        generic = self.chance(0.6)
        if ret == "void":
            pdecl = ("auto &%s" if generic else sp + " &%s")
        else:
            pdecl = self.pick(["auto %s", "const auto &%s"]) if generic else self.pick([sp + " %s", "const " + sp + " &%s"])
        if src == "counting":
            pdecl = "auto %s" if generic else sp + " %s"
        params = ", ".join(pdecl % nm for nm in names)
        pvars = [Var(nm, "scalar", elem, "local") for nm in names]
        index = {"obj": ["0", "1"], "safe": ["0"], "size": ["0", "1"]}
        if src == "counting":
            index = {"obj": [names[0]], "safe": ["0"], "size": [names[0]]}
        functor = cform in ("functor", "local-functor")
        if functor:
            fields = [Var(p, "ptr", k, "member") for p, k in self.r.sample(sorted(POINTERS.items()), 3)]
            body, ctx = self.kernel_body(target, fields + pvars, index, "    ", lambda_kernel=False)
        else:
            body, ctx = self.kernel_body(target, self.host_vars_for_lambda(target) + pvars, index, ind + "  ", lambda_kernel=True, host_ok=True)
        ctx.mark(ASP.get(elem, set()) if arity else set())  # the parameters' type
        bi = "    " if functor else ind + "  "
        if ret == "void":
            if self.chance(0.6):
                ctx.use(elem)
                body.append("%s%s = %s;" % (bi, names[0], self.expr(ctx, elem)))
        elif ret == "bool":
            k = elem if self.chance(0.7) or arity == 0 else self.pick(arith_kinds(ctx.allowed))
            if arity == 2 and self.chance(0.6):
                body.append("%sreturn %s < %s;" % (bi, names[0], names[1]))
            else:
                a, c = self.expr(ctx, k), self.expr(ctx, k)
                body.append("%sreturn %s %s %s;" % (bi, a, self.pick(["<", ">", "!="]), c))
        else:
            r = self.expr(ctx, elem)
            if arity == 2 and self.chance(0.5) and elem != "half":
                body.append("%sreturn %s + %s;" % (bi, names[0], names[1]))
            else:
                body.append("%sreturn %s;" % (bi, r))
            ctx.use(elem)
        ctx.forms.add("dpl-algorithm" if device else "dpl-host-policy")
        self.finish_kernel(aid, ctx)
        rtype = {"void": "void", "bool": "bool", "elem": sp}[ret]
        if functor:
            name = self.fresh("Op")
            used_fields = []
            for f in ctx.vars:
                if f.origin == "member" and f.name in ctx.refs and f.name not in [u.name for u in used_fields]:
                    used_fields.append(f)
            tmpl = generic and arity > 0
            if tmpl:
                tparams = "template <class T> "
                ps = ", ".join((pdecl.replace("auto", "T")) % nm for nm in names)
                head = "  %s%s operator()(%s) const {" % (tparams, "auto" if ret == "elem" else rtype, ps)
            else:
                head = "  %s operator()(%s) const {" % (rtype, params)
            top = [("struct %s {" % name, None)]
            top += [("  %s *%s;" % (self.spell(f.elem), f.name), None) for f in used_fields]
            top += [(head, aid)] + [(l, None) for l in body] + [("  }", None), ("};", None)]
            self.top.append(top)
            inits = []
            for f in used_fields:
                inits.append(f.name)
                self.host_used.add(f.name)
            obj = "%s{%s}" % (name, ", ".join(inits))
            if cform == "local-functor":
                on = self.fresh("op")
                out.append(("%s%s %s{%s};" % (ind, name, on, ", ".join(inits)), None))
                return ("name", on, None)
            return ("name", obj, None)
        cap = self.capture_list(ctx, [])
        if cform == "local":
            fn = self.fresh("fn")
            out.append(("%sauto %s = %s(%s) {" % (ind, fn, cap, params), aid))
            out.extend((l, None) for l in body)
            out.append(("%s};" % ind, None))
            return ("name", fn, None)
        lines = ["%s(%s) {" % (cap, params)] + body + ["%s}" % ind]
        return ("inline", lines, aid)

    REDUCTION_OPS = ["sycl::plus<>()", "sycl::plus<{t}>()", "sycl::maximum<>()", "sycl::minimum<{t}>()", "sycl::multiplies<>()", "sycl::plus<{t}>{{}}"]

    def l_reduction(self, out, ind):
        """parallel_for(range, reduction..., kernel): the kernel's reducer parameters (`auto &acc`)
        hold the reduction's type; `acc += x` and `acc.combine(x)` compute in it. A reduction of
        a pointer (with or without an identity) or, in a command group, of a buffer; stored in a
        variable first or written in the call; over int or long (no aspect) or float, double,
        sycl::half."""
        target = self.choose_target()
        allowed = self.allowed_for(target)
        in_cg = self.chance(0.45)
        nd = self.chance(0.2)
        nred = 1 if nd else self.pick([1, 1, 1, 2])
        kinds = [k for k in ("int", "long", "float", "double", "half") if k in allowed]
        rk = [self.pick(kinds, [3 if k in ("int", "long") else 2 for k in kinds]) for _ in range(nred)]
        cur = ind
        if in_cg:
            out.append(("%sq.submit([&](sycl::handler &h) {" % ind, None))
            cur = ind + "  "
        reds = []
        for k in rk:
            sp = self.spell(k)
            op = self.pick(self.REDUCTION_OPS).format(t=sp)
            if in_cg and self.chance(0.5):
                var = "%s, h" % self.buffer_for(k)
            else:
                var = ELEM_PTR[k]
                self.host_used.add(var)
            if self.chance(0.3):
                var += ", " + self.pick(LITS[k])
            r = "sycl::reduction(%s, %s)" % (var, op)
            if self.chance(0.3):
                rn = self.fresh("red")
                out.append(("%sauto %s = %s;" % (cur, rn, r), None))
                r = rn
            reds.append(r)
        aid = self.new_anchor()
        form = "nd" if nd else self.pick(["id", "item", "auto"])
        param, index = self.index_for(form)
        accs = ["acc"] if nred == 1 else ["acc", "acc2"]
        body, ctx = self.kernel_body(target, self.host_vars_for_lambda(target), index, cur + "  ", lambda_kernel=True, host_ok=True)
        for a, k in zip(accs, rk):
            ctx.mark(ASP.get(k, set()))  # reducer<T, Op>& parameter
            ek = k if k == "half" or self.chance(0.6) else self.pick([x for x in arith_kinds(ctx.allowed) if x != "half"])
            x = self.expr(ctx, ek)
            ctx.use(ek)
            if self.chance(0.5):
                body.append("%s  %s += %s;" % (cur, a, x))
            else:
                body.append("%s  %s.combine(%s);" % (cur, a, x))
        ctx.forms.add("reduction")
        self.finish_kernel(aid, ctx)
        cap = self.capture_list(ctx, [])
        rng = "sycl::nd_range<1>{sycl::range<1>{n}, sycl::range<1>{16}}" if nd else "sycl::range<1>{n}"
        launcher = "h.parallel_for(" if in_cg else "q.parallel_for("
        params = ", ".join([param] + ["auto &%s" % a for a in accs])
        out.append(("%s%s%s, %s, %s(%s) {" % (cur, launcher, rng, ", ".join(reds), cap, params), aid))
        out.extend((b, None) for b in body)
        out.append(("%s});" % cur, None))
        if in_cg:
            out.append(("%s});" % ind, None))

    def group_form(self, ctx, ind):
        """In an nd_range kernel (nd_item index), maybe one group algorithm or sub-group shuffle
        statement, drawn from self.ry: its result has the value's type, or the init value's."""
        obj = ctx.index.get("obj", [""])[0]
        if not obj.endswith(".get_global_id()") or not form_enabled("group-algorithm"):
            return []
        if self.ry.random() >= GROUP_RATE:
            return []
        return self.with_ry(self.group_stmt, ctx, ind, obj.split(".")[0])

    def group_stmt(self, ctx, ind, it):
        out = []
        kinds = [k for k in ("float", "int", "long", "double", "half") if k in ctx.allowed]
        k = self.pick(kinds)
        f = self.pick(["reduce", "reduce-init", "scan", "scan-init", "joint", "joint-init", "broadcast", "shuffle"])
        if f in ("shuffle",):
            g = "%s.get_sub_group()" % it
        else:
            g = "%s.get_group()" % it
        if self.chance(0.4):
            gn = self.xfresh("g")
            out.append("%sauto %s = %s;" % (ind, gn, g))
            g = gn
        op = self.pick(["sycl::plus<>()", "sycl::maximum<>()", "sycl::minimum<%s>()" % self.spell(k)])
        rk = k
        if f == "reduce":
            call = "sycl::reduce_over_group(%s, %s, %s)" % (g, self.expr(ctx, k), op)
        elif f in ("reduce-init", "scan-init"):
            rk = self.pick([x for x in kinds if x != "half"] or [k])
            if op.startswith("sycl::minimum"):
                op = "sycl::plus<>()"
            v = self.expr(ctx, k)
            init = self.pick(LITS[rk])
            ctx.use_const(rk)
            if f == "reduce-init":
                call = "sycl::reduce_over_group(%s, %s, %s, %s)" % (g, v, init, op)
            elif self.chance(0.5):
                call = "sycl::exclusive_scan_over_group(%s, %s, %s, %s)" % (g, v, init, op)
            else:
                if not form_enabled("group-inclusive-scan-init"):
                    call = "sycl::exclusive_scan_over_group(%s, %s, %s, %s)" % (g, v, init, op)
                else:
                    call = "sycl::inclusive_scan_over_group(%s, %s, %s, %s)" % (g, v, op, init)
        elif f == "scan":
            call = "sycl::%s_scan_over_group(%s, %s, %s)" % (self.pick(["exclusive", "inclusive"]), g, self.expr(ctx, k), op)
        elif f in ("joint", "joint-init"):
            srcs = [v for v in ctx.vars if v.cat == "ptr" and v.elem == k]
            if not srcs:
                return []
            p = self.pick(srcs)
            ctx.ref(p)
            if f == "joint-init":
                # an init of the element's type, or double over float / int elements
                rk = self.pick([k] + (["double"] if "double" in kinds and k in ("float", "int") else []))
                if op.startswith("sycl::minimum"):
                    op = "sycl::plus<>()"
                ctx.use_const(rk)
                call = "sycl::joint_reduce(%s, %s, %s + %d, %s, %s)" % (g, p.name, p.name, self.r.randint(2, 8), self.pick(LITS[rk]), op)
            else:
                call = "sycl::joint_reduce(%s, %s, %s + %d, %s)" % (g, p.name, p.name, self.r.randint(2, 8), op)
        elif f == "broadcast":
            extra = self.pick(["", ", 0", ", 1"])
            call = "sycl::group_broadcast(%s, %s%s)" % (g, self.expr(ctx, k), extra)
        else:
            fn = self.pick(["select_from_group", "permute_group_by_xor", "shift_group_left", "shift_group_right"])
            extra = self.pick(["", ", 1", ", 2"]) if fn.startswith("shift") else self.pick([", 1", ", 3"])
            call = "sycl::%s(%s, %s%s)" % (fn, g, self.expr(ctx, k), extra)
        ctx.use(rk)  # the call's result: not a constant
        ctx.forms.add("group-algorithm")
        name = self.xfresh("gr")
        out.append("%s%s %s = %s;" % (ind, self.pick(["auto", self.spell(rk)]), name, call))
        ctx.vars.append(Var(name, "scalar", rk))
        fts = [v for v in self.store_targets(ctx) if v.elem == rk]
        if fts and self.chance(0.7):
            t = self.pick(fts)
            ctx.ref(t)
            out.append("%s%s = %s;" % (ind, self.subscript(ctx, t), name))
        return out

    # forced uses: one real use of each aspect of the kernel's target set
    def positive(self, ctx, aspect, ind):
        if aspect == "atomic64":
            srcs = [v for v in ctx.vars if v.cat in ("ptr", "acc") and v.elem in ("long", "ull")]
            if not srcs:
                # a functor: add a pointer field (lambdas always have pu in scope)
                nv = Var("pu", "ptr", "ull", "member")
                ctx.vars.append(nv)
                srcs = [nv]
            v = self.pick(srcs)
            ctx.ref(v)
            ctx.use(v.elem)
            ctx.mark({"atomic64"})
            name = self.fresh("a")
            return ["%saref<%s> %s(%s);" % (ind, self.spell(v.elem), name, self.subscript(ctx, v)),
                    "%s%s.fetch_add(%s);" % (ind, name, self.pick(LITS[v.elem]))]
        k = "double" if aspect == "fp64" else "half"
        forms = ["store", "local", "mix"]
        f = self.pick(forms)
        ts = [v for v in self.store_targets(ctx) if v.elem in ("float", "int")]
        if f == "mix" and k == "double" and ts:
            t = self.pick([v for v in ts])
            ctx.ref(t)
            ctx.use(t.elem)
            ctx.mark({"fp64"})
            lhs = self.subscript(ctx, t)
            return ["%s%s = %s * %s;" % (ind, lhs, lhs, self.pick(["0.5", "2.0", "1.5"]))]
        if f == "store":
            tk = [v for v in self.store_targets(ctx) if v.elem == k]
            if tk:
                t = self.pick(tk)
                ctx.ref(t)
                ctx.use(k)
                return ["%s%s = %s;" % (ind, self.subscript(ctx, t), self.expr(ctx, k))]
        name = self.fresh("x")
        ctx.use(k)
        line = "%s%s %s = %s;" % (ind, self.spell(k), name, self.expr(ctx, k))
        ctx.vars.append(Var(name, "scalar", k))
        return [line]

    # ----- kernels --------------------------------------------------------------------------
    def choose_target(self):
        sets = [(), ("fp64",), ("fp16",), ("atomic64",), ("fp64", "fp16"), ("fp64", "atomic64"), ("fp16", "atomic64"), ("fp64", "fp16", "atomic64")]
        w = [45, 22, 10, 8, 5, 5, 3, 2]
        return set(self.pick(sets, w))

    def allowed_for(self, target):
        a = set(BASE_ALLOWED)
        if "fp64" in target:
            a |= {"double", "ldouble"}
        if "fp16" in target:
            a.add("half")
        return a

    INDEX = {
        "id": ("sycl::id<1> {v}", {"obj": ["{v}"], "safe": ["{v}"], "size": ["{v}[0]"]}),
        "item": ("sycl::item<1> {v}", {"obj": ["{v}"], "safe": ["{v}.get_id()"], "size": ["{v}.get_id(0)", "{v}[0]", "{v}.get_linear_id()"]}),
        "auto": ("auto {v}", {"obj": ["{v}"], "safe": ["{v}.get_id()"], "size": ["{v}.get_id(0)", "{v}[0]"]}),
        "nd": ("sycl::nd_item<1> {v}", {"obj": ["{v}.get_global_id()"], "safe": ["{v}.get_global_id()", "{v}.get_local_id()"],
                                        "size": ["{v}.get_global_id(0)", "{v}.get_local_id(0)", "{v}.get_global_linear_id()"]}),
        "group": ("sycl::group<1> {v}", {"obj": ["{v}.get_group_id()"], "safe": ["{v}.get_group_id()"], "size": ["{v}.get_group_id(0)", "{v}[0]"]}),
        "none": ("", {"obj": ["0", "1"], "safe": ["0"], "size": ["0", "1"]}),
    }

    def index_for(self, form):
        v = self.pick(["i", "it", "idx"]) if form != "none" else ""
        p, d = self.INDEX[form]
        return p.format(v=v), {k: [x.format(v=v) for x in xs] for k, xs in d.items()}

    def kernel_body(self, target, vars_, index, ind, lambda_kernel=True, min_stmts=1, max_stmts=4, host_ok=False):
        """Statements of a kernel body; returns (lines, ctx)."""
        ctx = Ctx(self, self.allowed_for(target), vars_, index)
        ctx.atomic64 = "atomic64" in target
        ctx.lambda_kernel = lambda_kernel
        ctx.host_ok = host_ok
        lines = []
        if index["size"] and index["size"][0] not in ("0", "1") and self.chance(0.35):
            kname = self.fresh("k")
            lines.append("%s%s %s = %s;" % (ind, self.pick(["size_t", "const size_t", "const auto"]), kname, self.pick(index["size"])))
            index = dict(index)
            index["size"] = index["size"] + [kname]
            ctx.index = index
        lines += self.stmts(ctx, self.r.randint(min_stmts, max_stmts), ind)
        lines += self.extra_form(ctx, ind)
        lines += self.group_form(ctx, ind)
        for a in sorted(target):
            # a use that only a constant expression makes is not enough: the oracle counts it,
            # a compiler folds it; a real use makes the kernel's answer the same under both
            if a not in ctx.solid:
                lines += self.positive(ctx, a, ind)
        assert ctx.used <= target | {"ext_oneapi_atomic16"}, (ctx.used, target)
        assert ctx.used == ctx.solid, (ctx.used, ctx.solid)
        return lines, ctx

    def host_vars_for_lambda(self, target):
        vs = [Var(p, "ptr", k, "host") for p, k in POINTERS.items()]
        allowed = self.allowed_for(target)
        for h, (k, _, _) in HOST_SCALARS.items():
            if k in allowed and self.chance(0.5):
                vs.append(Var(h, "scalar", k, "host"))
        for s, hv in STRUCT_HOSTVAR.items():
            if struct_aspects(s) <= target and self.chance(0.3):
                vs.append(Var(hv, "struct", s, "host"))
        return vs

    def capture_list(self, ctx, initcaps, in_class=False):
        refs = sorted(n for n in ctx.refs if n in self.host_names_all())
        for n in refs:
            self.host_used.add(n)
        ics = [ic for ic in initcaps if ic[0] in ctx.refs]
        ic_text = ["%s = %s" % (n, e) for n, e in ics]
        for n, e in ics:
            for h in self.host_names_all():
                if h in e:
                    self.host_used.add(h)
        if in_class:
            form = self.pick(["=", "this", "&"])
            items = [form] + ic_text
            return "[%s]" % ", ".join(items)
        form = self.pick(["=", "&", "list", "reflist"], [5, 1, 2, 1])
        if form in ("=", "&"):
            return "[%s]" % ", ".join([form] + ic_text)
        items = []
        for n in refs:
            if form == "reflist" and n in POINTERS and self.chance(0.5):
                items.append("&" + n)
            else:
                items.append(n)
        return "[%s]" % ", ".join(items + ic_text)

    def host_names_all(self):
        return set(POINTERS) | set(HOST_SCALARS) | set(STRUCT_HOSTVAR.values()) | {"ppi"}

    def lambda_kernel(self, target, index_form, ind, extra_vars=(), in_class=False, member_vars=None):
        """(capture, param, body lines, ctx) of a kernel lambda."""
        param, index = self.index_for(index_form)
        if member_vars is not None:
            vars_ = list(member_vars)
        else:
            vars_ = self.host_vars_for_lambda(target) + list(extra_vars)
        initcaps = []
        if member_vars is None and self.chance(0.25):
            k = self.pick([k for k in ("float", "double", "int", "half") if k in self.allowed_for(target)])
            n = self.fresh("ic")
            init = self.pick({
                "float": ["static_cast<float>(hd * 0.5)", "hf * 2.0f", "1.0f"],
                "double": ["hf * 0.5", "hd", "2.0"],
                "int": ["hi + 1", "static_cast<int>(hd)", "3"],
                "half": ["sycl::half(hf)", "hh"],
            }[k])
            initcaps.append((n, init))
            vars_.append(Var(n, "scalar", k, "initcap"))
        body, ctx = self.kernel_body(target, vars_, index, ind + "  ", lambda_kernel=True, host_ok=member_vars is None)
        cap = self.capture_list(ctx, initcaps, in_class=in_class)
        return cap, param, body, ctx

    def finish_kernel(self, aid, ctx):
        self.anchors[aid] |= ctx.used
        self.anchor_forms.setdefault(aid, set()).update(ctx.forms)

    def emit_kernel(self, out, ind):
        """Appends one kernel launch (a list of (line, anchor)) to out."""
        target = self.choose_target()
        form = self.pick(
            ["pf", "pf_n", "single", "submit", "nd", "props", "functor", "tfunctor", "wrapper", "host_template", "generic_cgf", "named", "wg", "stored",
             "explicit", "vlaunch", "launch_ov", "apply_ov"],
            [12, 4, 8, 10, 5, 3, 6, 5, 5, 5, 2, 3, 1, 3,
             8, 4, 3, 2],
        )
        getattr(self, "k_" + form)(out, ind, target)
        return form

    def lambda_lines(self, out, ind, head, cap, param, body, tail, aid):
        out.append(("%s%s%s(%s) {" % (ind, head, cap, param), aid))
        out += [(b, None) for b in body]
        out.append(("%s})%s;" % (ind, tail), None))

    def k_pf(self, out, ind, target, head=None, form=None):
        form = form or self.pick(["id", "item", "auto"])
        aid = self.new_anchor()
        cap, param, body, ctx = self.lambda_kernel(target, form, ind)
        self.finish_kernel(aid, ctx)
        if head is None:
            head = "q.parallel_for(sycl::range<1>{n}, "
        self.lambda_lines(out, ind, head, cap, param, body, "", aid)

    def k_stored(self, out, ind, target):
        """A kernel lambda kept in a variable, then launched (maybe twice)."""
        single = self.chance(0.3)
        aid = self.new_anchor()
        cap, param, body, ctx = self.lambda_kernel(target, "none" if single else self.pick(["id", "item", "auto"]), ind)
        self.finish_kernel(aid, ctx)
        name = self.fresh("kern")
        self.lambda_lines(out, ind, "auto %s = " % name, cap, param, body, "", aid)
        out[-1] = ("%s};" % ind, None)
        for _ in range(self.r.randint(1, 2)):
            if single:
                out.append(("%sq.single_task(%s);" % (ind, name), None))
            else:
                out.append(("%sq.parallel_for(sycl::range<1>{n}, %s);" % (ind, name), None))

    def k_pf_n(self, out, ind, target):
        self.k_pf(out, ind, target, head="q.parallel_for(n, ")

    def k_named(self, out, ind, target):
        self.k_pf(out, ind, target, head="q.parallel_for<class %s>(sycl::range<1>{n}, " % self.fresh("Kern"))

    def k_single(self, out, ind, target):
        aid = self.new_anchor()
        cap, param, body, ctx = self.lambda_kernel(target, "none", ind)
        self.finish_kernel(aid, ctx)
        head = self.pick(["q.single_task(", "q.single_task<class %s>(" % self.fresh("Task")])
        self.lambda_lines(out, ind, head, cap, param, body, "", aid)

    def k_props(self, out, ind, target):
        self.need_syclex = True
        pname = self.fresh("props")
        asp = self.pick(["fp64", "fp16", "atomic64"])
        out.append(("%ssyclex::properties %s{syclex::device_has<sycl::aspect::%s>};" % (ind, pname, asp), None))
        if self.chance(0.5):
            self.k_pf(out, ind, target, head="q.parallel_for(sycl::range<1>{n}, %s, " % pname, form=self.pick(["id", "item"]))
        else:
            aid = self.new_anchor()
            cap, param, body, ctx = self.lambda_kernel(target, "none", ind)
            self.finish_kernel(aid, ctx)
            self.lambda_lines(out, ind, "q.single_task(%s, " % pname, cap, param, body, "", aid)

    def accessors(self, out, ind, n_acc, local=False):
        """Declares buffers (host) and accessors (in the command group); returns Vars."""
        vs = []
        kinds = self.r.sample(["float", "double", "int", "half", "long"], n_acc)
        for k in kinds:
            bname = self.buffer_for(k)
            an = self.fresh("acc")
            sp = self.spell(k)
            form = self.pick(["ctad", "ctad_tag", "get_access", "get_access_t", "explicit"])
            if form == "ctad":
                line = "sycl::accessor %s{%s, h};" % (an, bname)
            elif form == "ctad_tag":
                line = "sycl::accessor %s{%s, h, sycl::%s};" % (an, bname, self.pick(["read_write", "read_only", "write_only"]))
            elif form == "get_access":
                line = "auto %s = %s.get_access(h);" % (an, bname)
            elif form == "get_access_t":
                line = "auto %s = %s.get_access<sycl::access::mode::read_write>(h);" % (an, bname)
            else:
                line = "sycl::accessor<%s, 1, sycl::access::mode::read_write> %s(%s, h);" % (sp, an, bname)
            out.append((ind + line, None))
            vs.append(Var(an, "acc", k, "cg"))
        if local:
            k = self.pick(["float", "double", "int", "half"])
            ln = self.fresh("tile")
            out.append(("%ssycl::local_accessor<%s, 1> %s(sycl::range<1>{16}, h);" % (ind, self.spell(k), ln), None))
            vs.append(Var(ln, "lacc", k, "cg"))
        return vs

    def buffer_for(self, k):
        if k not in self.buffers:
            bname = "buf_" + k
            p = {v: n for n, v in POINTERS.items()}[k]
            if self.chance(0.5):
                decl = "sycl::buffer %s{%s, sycl::range<1>{n}};" % (bname, p)
            else:
                decl = "sycl::buffer<%s, 1> %s(%s, sycl::range<1>{n});" % (self.spell(k), bname, p)
            self.buffers[k] = (bname, decl)
            self.host_used.add(p)
        return self.buffers[k][0]

    def cg_kernel(self, out, ind, target, acc_vars, launcher, index_form):
        aid = self.new_anchor()
        cap, param, body, ctx = self.lambda_kernel(target, index_form, ind, extra_vars=acc_vars)
        # unused accessors: sometimes touch them in a way that is no use
        for v in acc_vars:
            if v.name not in ctx.refs and self.chance(0.5):
                ctx.refs.add(v.name)
                body.append("%s  (void)%s;" % (ind, v.name) if self.chance(0.5) else "%s  (void)%s.size();" % (ind, v.name))
        # captures of accessors: lists must name them
        if cap not in ("[=]", "[&]") and not cap.startswith("[=,") and not cap.startswith("[&,"):
            names = [v.name for v in acc_vars if v.name in ctx.refs]
            inner = cap[1:-1]
            cap = "[%s]" % ", ".join([x for x in [inner] + names if x])
        self.finish_kernel(aid, ctx)
        self.lambda_lines(out, ind, launcher, cap, param, body, "", aid)

    def k_submit(self, out, ind, target):
        out.append(("%sq.submit([&](sycl::handler &h) {" % ind, None))
        acc = self.accessors(out, ind + "  ", self.r.randint(0, 2))
        if self.chance(0.4):
            self.cg_kernel(out, ind + "  ", target, acc, "h.single_task(", "none")
        else:
            f = self.pick(["id", "item", "auto"])
            self.cg_kernel(out, ind + "  ", target, acc, self.pick(["h.parallel_for(sycl::range<1>{n}, ", "h.parallel_for<class %s>(sycl::range<1>{n}, " % self.fresh("Cg")]), f)
        out.append(("%s});" % ind, None))

    def k_generic_cgf(self, out, ind, target):
        out.append(("%sq.submit([&](auto &h) {" % ind, None))
        acc = self.accessors(out, ind + "  ", self.r.randint(0, 1))
        self.cg_kernel(out, ind + "  ", target, acc, "h.parallel_for(sycl::range<1>{n}, ", self.pick(["id", "item"]))
        out.append(("%s});" % ind, None))

    def k_nd(self, out, ind, target):
        out.append(("%sq.submit([&](sycl::handler &h) {" % ind, None))
        acc = self.accessors(out, ind + "  ", self.r.randint(0, 1), local=self.chance(0.6))
        self.cg_kernel(out, ind + "  ", target, acc, "h.parallel_for(sycl::nd_range<1>{sycl::range<1>{n}, sycl::range<1>{16}}, ", "nd")
        out.append(("%s});" % ind, None))

    def k_wg(self, out, ind, target):
        out.append(("%sq.submit([&](sycl::handler &h) {" % ind, None))
        self.cg_kernel(out, ind + "  ", target, [], "h.parallel_for_work_group(sycl::range<1>{n / 16}, ", "group")
        out.append(("%s});" % ind, None))

    def k_wrapper(self, out, ind, target):
        w = self.pick(["launch_pf", "launch_st", "launch_cg"])
        self.helpers_used.add(w)
        aid = self.new_anchor()
        if w == "launch_st":
            cap, param, body, ctx = self.lambda_kernel(target, "none", ind)
            head = "launch_st(q, "
        else:
            cap, param, body, ctx = self.lambda_kernel(target, self.pick(["id", "item", "auto"]), ind)
            head = "%s(q, n, " % w
        self.finish_kernel(aid, ctx)
        self.lambda_lines(out, ind, head, cap, param, body, "", aid)

    # functors: a generated non-template one, or a fixed template one
    def k_functor(self, out, ind, target, launcher=None):
        """A generated functor kernel. launcher "vlaunch": launched through a variadic wrapper
        with the functor type as explicit first template argument and its field values as the
        (possibly empty) pack."""
        name = self.fresh("Kf")
        form = self.pick(["id", "item", "none", "templ"])
        aid = self.new_anchor()
        # fields: pointers and scalars
        fields = [Var(p, "ptr", k, "member") for p, k in self.r.sample(sorted(POINTERS.items()), 3)]
        allowed = self.allowed_for(target)
        sk = [k for k in ("float", "double", "int", "half") if k in allowed]
        scal = [Var(self.fresh("m"), "scalar", self.pick(sk), "member") for _ in range(self.r.randint(0, 2))]
        if launcher == "vlaunch" and self.chance(0.3):
            fields, scal = [], []  # an empty pack
        if form == "templ":
            pdecl, index = self.index_for("item")
            var = pdecl.split()[-1]
            pdecl = "I " + var
            index = {"obj": [var], "safe": [var + ".get_id()"], "size": [var + ".get_id(0)", var + "[0]"]}
            head = "template <class I> void operator()(%s) const {" % pdecl
        else:
            pdecl, index = self.index_for(form)
            head = "void operator()(%s) const {" % pdecl
        body, ctx = self.kernel_body(target, fields + scal, index, "    ", lambda_kernel=False)
        used_fields = []
        for f in ctx.vars:
            if f.origin == "member" and f.name in ctx.refs and f.name not in [u.name for u in used_fields]:
                used_fields.append(f)
        # every field must be used: drop unused ones
        flines = []
        for f in used_fields:
            if f.cat == "ptr":
                flines.append("  %s *%s;" % (self.spell(f.elem), f.name))
            else:
                flines.append("  %s %s;" % (self.spell(f.elem), f.name))
        late = bool(flines) and self.chance(0.35)
        if late:
            ctx.forms.add("late-member")  # the fields are declared after operator(), which uses them
        if launcher == "vlaunch":
            ctx.forms.add("explicit-arg+pack")
        self.finish_kernel(aid, ctx)
        top_lines = [("struct %s {" % name, None)]
        if not late:
            top_lines += [(l, None) for l in flines]
        top_lines += [("  " + head, aid)] + [(b, None) for b in body] + [("  }", None)]
        if late:
            top_lines += [(l, None) for l in flines]
        top_lines += [("};", None)]
        self.top.append(top_lines)
        inits = []
        for f in used_fields:
            if f.cat == "ptr":
                inits.append(f.name)
                self.host_used.add(f.name)
            else:
                inits.append(self.pick(LITS[f.elem]))
        obj = "%s{%s}" % (name, ", ".join(inits))
        if launcher == "vlaunch":
            self.helpers_used.add("vlaunch")
            if form == "none":
                out.append(("%svsingle<%s>(%s);" % (ind, name, ", ".join(["q"] + inits)), None))
            else:
                out.append(("%svlaunch<%s>(%s);" % (ind, name, ", ".join(["q", "n"] + inits)), None))
            return
        if form == "none":
            out.append(("%sq.single_task(%s);" % (ind, obj), None))
        else:
            out.append(("%sq.parallel_for(sycl::range<1>{n}, %s);" % (ind, obj), None))

    def k_vlaunch(self, out, ind, target):
        self.k_functor(out, ind, target, launcher="vlaunch")

    def k_launch_ov(self, out, ind, target):
        """A kernel lambda passed to an overloaded launch wrapper: `launch_ov(range<D>, ...)` beside
        `launch_ov(std::int64_t, ...)`; the argument picks one (a size_t cannot deduce D)."""
        self.helpers_used.add("launch_ov")
        aid = self.new_anchor()
        cap, param, body, ctx = self.lambda_kernel(target, self.pick(["id", "item", "auto"]), ind)
        ctx.forms.add("overloaded-wrapper")
        self.finish_kernel(aid, ctx)
        head = self.pick(["launch_ov(sycl::range<1>{n}, q, ", "launch_ov(n, q, ", "launch_ov(static_cast<std::int64_t>(n), q, "])
        self.lambda_lines(out, ind, head, cap, param, body, "", aid)

    APPLY_OV = [
        ("template <class T> void apply_ov(sycl::queue &q, T *p, size_t n) {", None),
        ("  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { p[i] = static_cast<T>(p[i] * 2.0); });", "apply_ov_t"),
        ("}", None),
        ("void apply_ov(sycl::queue &q, float *p, size_t n) {", None),
        ("  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) { p[i] = p[i] * 2.0f; });", "apply_ov_n"),
        ("}", None),
    ]

    def k_apply_ov(self, out, ind, target):
        """A template and a non-template overload, each launching its own kernel. The non-template
        one is compiled whether called or not; the template's kernel exists only for the types
        some call instantiates it with (apply_ov(q, pf, n) picks the non-template)."""
        if "apply_ov_n" not in self.anchors:
            self.anchors["apply_ov_n"] = set()
            self.anchors["apply_ov_t"] = set()
            self.anchor_forms["apply_ov_n"] = {"template-vs-nontemplate", "overloaded-wrapper"}
            self.anchor_forms["apply_ov_t"] = {"template-vs-nontemplate", "overloaded-wrapper"}
            self.no_kernel.add("apply_ov_t")
            self.top.append(list(self.APPLY_OV))
        calls = [("apply_ov(q, pf, n);", None)]
        if "fp64" in target:
            calls += [("apply_ov(q, pd, n);", "double"), ("apply_ov(q, pi, n);", "int"), ("apply_ov<float>(q, pf, n);", "float")]
            if "fp16" in target:
                calls.append(("apply_ov(q, ph, n);", "half"))
        for text, k in self.r.sample(calls, self.r.randint(1, min(2, len(calls)))):
            self.host_used.add({"pf": "pf", "pd": "pd", "pi": "pi", "ph": "ph"}[text.split(", ")[1]])
            if k is not None:
                self.anchors["apply_ov_t"] |= {"fp64"} | _asp(k)
                self.no_kernel.discard("apply_ov_t")
            out.append((ind + text, None))

    def k_explicit(self, out, ind, target):
        """A kernel in a template that explicit instantiation definitions instantiate
        (`template struct XR<double>;`, `template void run_x<int>(...);`, a member of a class
        template, a member template of a class), maybe beside implicit instantiations, and
        `extern template` declarations of other types, which instantiate nothing (their types
        may use any aspect). Sometimes nothing instantiates it: then there is no kernel."""
        allowed = self.allowed_for(target)
        body, deps, asp = self.pick(self.HOST_TEMPLATES)
        pool = ["float", "int", "double", "half", "long"]
        if "twice" in deps or "blend" in deps:
            pool = [k for k in pool if k in TEMPLATE_HELPERS[deps[0]].kinds]
        ok = [k for k in pool if k in allowed and asp(k) <= target]
        form = self.pick(["class", "func", "member", "mtemplate"], [4, 4, 2, 2])
        inst = [] if (not ok or self.chance(0.1)) else self.r.sample(ok, self.r.randint(1, min(2, len(ok))))
        rest = [k for k in ok if k not in inst]
        implicit = [self.pick(rest)] if rest and self.chance(0.3) else []
        others = [k for k in pool if k not in inst and k not in implicit]
        ext = self.r.sample(others, self.r.randint(1 if not inst and not implicit else 0, min(2, len(others))))
        for d in deps:
            self.helpers_used.add(d)
        n = self.fresh("")
        aid = "X" + n
        self.anchors[aid] = set()
        forms = {"explicit-inst"} | ({"extern-template"} if ext else set())
        self.anchor_forms[aid] = forms
        for k in inst + implicit:
            self.anchors[aid] |= asp(k)
        if not inst and not implicit:
            self.no_kernel.add(aid)
        blines = [("      " + l.lstrip() if j == 0 else "  " + l, None) for j, l in enumerate(body.split("\n"))]
        launch = [("    q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) {", aid)] + blines + [("    });", None)]
        ptr = {v: n_ for n_, v in POINTERS.items()}
        sig = lambda k: "(sycl::queue &, %s *, size_t)" % self.spell(k)
        text = []
        if form in ("class", "member"):
            cname = "XR" + n
            kw = self.pick(["struct", "class"])
            text += [("template <class T> %s %s {" % (kw, cname), None)]
            if kw == "class":
                text += [("public:", None)]
            text += [("  void go(sycl::queue &q, T *p, size_t n) {", None)] + launch + [("  }", None), ("};", None)]
            for k in inst:
                if form == "class":
                    text.append(("template %s %s<%s>;" % (self.pick([kw, kw, "struct" if kw == "class" else "class"]), cname, self.spell(k)), None))
                else:
                    text.append(("template void %s<%s>::go%s;" % (cname, self.spell(k), sig(k)), None))
            for k in ext:
                if form == "class" or self.chance(0.5):
                    text.append(("extern template %s %s<%s>;" % (kw, cname, self.spell(k)), None))
                else:
                    text.append(("extern template void %s<%s>::go%s;" % (cname, self.spell(k), sig(k)), None))
            calls = ["%s<%s>{}.go(q, %s, n);" % (cname, self.spell(k), ptr[k]) for k in implicit]
        elif form == "mtemplate":
            cname = "XM" + n
            text += [("struct %s {" % cname, None), ("  template <class T> void go(sycl::queue &q, T *p, size_t n) const {", None)]
            text += launch + [("  }", None), ("};", None)]
            for k in inst:
                targ = "<%s>" % self.spell(k) if self.chance(0.6) else ""
                text.append(("template void %s::go%s%s const;" % (cname, targ, sig(k)), None))
            for k in ext:
                text.append(("extern template void %s::go<%s>%s const;" % (cname, self.spell(k), sig(k)), None))
            calls = ["%s{}.go(q, %s, n);" % (cname, ptr[k]) for k in implicit]
        else:
            fname = "run_x" + n
            text += [("template <class T> void %s(sycl::queue &q, T *p, size_t n) {" % fname, None)]
            text += [(l[2:], a) for l, a in launch] + [("}", None)]
            for k in inst:
                targ = "<%s>" % self.spell(k) if self.chance(0.6) else ""
                text.append(("template void %s%s%s;" % (fname, targ, sig(k)), None))
            for k in ext:
                text.append(("extern template void %s<%s>%s;" % (fname, self.spell(k), sig(k)), None))
            calls = ["%s(q, %s, n);" % (fname, ptr[k]) for k in implicit]
        self.top_stay.add(len(self.top))  # the oracle probes explicit instantiations of the .cpp only
        self.top.append(text)
        for k in implicit:
            self.host_used.add(ptr[k])
        for c in calls:
            out.append((ind + c, None))

    TFUNCTORS = {
        "Saxpy": ("template <class T> struct Saxpy {\n  T a;\n  T *x;\n  T *y;\n  void operator()(sycl::id<1> i) const { y[i] = a * x[i] + y[i]; }\n};", "pf"),
        "Accum": ("template <class T> struct Accum {\n  T *p;\n  void operator()() const {\n    if constexpr (std::is_same_v<T, double>) {\n      p[0] += 1.0;\n    } else {\n      p[0] += T(1);\n    }\n  }\n};", "st"),
        "GenF": ("struct GenF {\n  float *p;\n  template <class I> void operator()(I i) const { p[i] = 1.0f; }\n};", "pf"),
        "GenD": ("struct GenD {\n  double *p;\n  template <class I> void operator()(I i) const { p[i] = 1.0; }\n};", "pf"),
    }

    def k_tfunctor(self, out, ind, target):
        allowed = self.allowed_for(target)
        name = self.pick(["Saxpy", "Accum", "GenF", "GenD"])
        if name == "GenD" and "fp64" not in target:
            name = "GenF"
        key = "tf_" + name
        if key not in self.anchors:
            self.anchors[key] = set()
            text, _ = self.TFUNCTORS[name]
            lines = text.split("\n")
            opline = [i for i, l in enumerate(lines) if "operator()" in l][0]
            self.top.append([(l, key if i == opline else None) for i, l in enumerate(lines)])
        ptr = {v: n for n, v in POINTERS.items()}
        if name in ("GenF", "GenD"):
            p = "pf" if name == "GenF" else "pd"
            self.host_used.add(p)
            if name == "GenD":
                self.anchors[key].add("fp64")
            out.append(("%sq.parallel_for(sycl::range<1>{n}, %s{%s});" % (ind, name, p), None))
            return
        kinds = [k for k in ("float", "int", "double", "half") if k in allowed]
        k = self.pick(kinds)
        self.anchors[key] |= ASP.get(k, set())
        p = ptr[k]
        self.host_used.add(p)
        sp = self.spell(k)
        if name == "Saxpy":
            out.append(("%sq.parallel_for(sycl::range<1>{n}, Saxpy<%s>{%s, %s, %s});" % (ind, sp, self.pick(LITS[k]), p, p), None))
        else:
            out.append(("%sq.single_task(Accum<%s>{%s});" % (ind, sp, p), None))

    HOST_TEMPLATES = [
        ("p[i] = twice(p[i]);", ["twice"], lambda k: _asp(k)),
        ("p[i] = p[i] * T(2);", [], lambda k: _asp(k)),
        ("p[i] = blend(p[i], p[i]);", ["blend"], lambda k: _asp(k)),
        ("if constexpr (std::is_same_v<T, double>) {\n      p[i] = p[i] * 0.5;\n    } else {\n      p[i] = p[i] + p[i];\n    }", [], lambda k: _asp(k)),
        ("if constexpr (sizeof(T) == 8) {\n      p[i] = static_cast<T>(p[i] * 2.0);\n    } else {\n      p[i] = p[i] + p[i];\n    }", [], lambda k: _asp(k) | ({"fp64"} if SIZE[k] == 8 else set())),
        ("using U = std::conditional_t<sizeof(T) == 8, double, float>;\n    p[i] = static_cast<T>(static_cast<U>(p[i]));", [], lambda k: _asp(k) | ({"fp64"} if SIZE[k] == 8 else set())),
    ]

    def k_host_template(self, out, ind, target):
        allowed = self.allowed_for(target)
        name = self.fresh("run_t")
        body, deps, asp = self.pick(self.HOST_TEMPLATES)
        # instantiate with kinds whose aspects the target allows
        kinds = [k for k in ("float", "int", "double", "half", "long") if k in allowed and asp(k) <= target]
        if "twice" in deps or "blend" in deps:
            kinds = [k for k in kinds if k in TEMPLATE_HELPERS[deps[0]].kinds]
        if not kinds:
            return self.k_pf(out, ind, target)
        inst = self.r.sample(kinds, self.r.randint(1, min(3, len(kinds))))
        for d in deps:
            self.helpers_used.add(d)
        aid = name
        self.anchors[aid] = set()
        for k in inst:
            self.anchors[aid] |= asp(k)
        text = [("template <class T> void %s(sycl::queue &q, T *p, size_t n) {" % name, None),
                ("  q.parallel_for(sycl::range<1>{n}, [=](sycl::id<1> i) {", aid)]
        text += [("    " + l.lstrip() if j == 0 else l, None) for j, l in enumerate(body.split("\n"))]
        text += [("  });", None), ("}", None)]
        self.top.append(text)
        ptr = {v: n for n, v in POINTERS.items()}
        for k in inst:
            self.host_used.add(ptr[k])
            if self.chance(0.5):
                out.append(("%s%s(q, %s, n);" % (ind, name, ptr[k]), None))
            else:
                out.append(("%s%s<%s>(q, %s, n);" % (ind, name, self.spell(k), ptr[k]), None))

    def class_kernel(self):
        """A class whose member function launches a kernel that captures `this`."""
        target = self.choose_target()
        cname = self.fresh("Runner")
        allowed = self.allowed_for(target)
        members = [Var("data", "ptr", "float", "member"), Var("ints", "ptr", "int", "member"), Var("dbl", "ptr", "double", "member"),
                   Var("cnt", "ptr", "ull", "member")]
        # a double member the kernel need not use: `this` is a pointer, so it is no use unless used
        members.append(Var("wd", "scalar", "double", "member") if "double" in allowed else Var("wf", "scalar", "float", "member"))
        aid = self.new_anchor()
        param, index = self.index_for(self.pick(["id", "item"]))
        body, ctx = self.kernel_body(target, members, index, "      ", lambda_kernel=True)
        cap = self.pick(["[=]", "[this]", "[&]"])
        self.finish_kernel(aid, ctx)
        fields = [("  float *data;", None), ("  int *ints;", None), ("  double *dbl;", None), ("  u64 *cnt;", None),
                  ("  double wd;", None), ("  float wf;", None)]
        late = self.chance(0.35)  # members declared after go(), which uses them
        if late:
            self.anchor_forms.setdefault(aid, set()).add("late-member")
        lines = [("class %s {" % cname, None), ("public:", None)] + ([] if late else fields)
        lines += [
            ("  void go(sycl::queue &q, size_t n) {", None),
            ("    q.parallel_for(sycl::range<1>{n}, %s(%s) {" % (cap, param), aid),
        ]
        lines += [(b, None) for b in body]
        lines += [("    });", None), ("  }", None)] + (fields if late else []) + [("};", None)]
        self.top.append(lines)
        return cname

    # ----- the program ----------------------------------------------------------------------
    def build(self):
        """Generates the program into sections (self.sec_*, self.top, the kernel blocks of run()),
        kept apart so that files() can put some of them in headers. It draws from self.r exactly
        as the one-file generator always did: a seed's one-file program does not depend on
        whether or how it is split into headers."""
        nk = self.r.choices([1, 2, 3, 4], weights=[2, 4, 3, 2], k=1)[0]
        body = []
        classes = []
        blocks = []  # (start, end, form) of each kernel launch written in run()
        for _ in range(nk):
            if self.chance(0.08):
                classes.append(self.class_kernel())
            else:
                start = len(body)
                form = self.emit_kernel(body, "  ")
                blocks.append((start, len(body), form))
        self.library_launches(body)
        if self.chance(0.2):
            self.helpers_used.add(self.pick(["decoy0", "decoy1", "decoy2"]))
        if self.chance(0.15):
            self.helpers_used.add("scan")

        self.sec_head = [("// generated by gen.py --seed %d" % self.seed, None), ('#include "sycl_mini.hpp"', None)]
        out = []
        out.append(("using i64 = std::int64_t;", None))
        out.append(("typedef unsigned long long u64;", None))
        out.append(("using real_t = double;", None))
        out.append(("using half_t = sycl::half;", None))
        out.append(("template <class T>", None))
        out.append(("using aref = sycl::atomic_ref<T, sycl::memory_order::relaxed, sycl::memory_scope::device>;", None))
        if self.need_syclex:
            out.append(("namespace syclex = sycl::ext::oneapi::experimental;", None))
        if self.need_macros:
            out += [(l, None) for l in MACRO_TEXT.split("\n")]
        if self.need_consts:
            out += [(l, None) for l in CONST_TEXT.split("\n")]
        self.sec_prelude = out
        out = []
        for s in ["P2", "F2", "H2", "Derived1", "Arr3"]:
            if s in self.structs_used or STRUCT_HOSTVAR[s] in self.host_used:
                for l in STRUCTS[s][1].split("\n"):
                    out.append((l, None))
        # helpers, in dependency-safe order
        for name, h in TEMPLATE_HELPERS.items():
            if name in self.helpers_used:
                out += [(l, None) for l in h.text.split("\n")]
        for name, (text, _, _, _) in SCALAR_HELPERS.items():
            if name in self.helpers_used:
                out += [(l, None) for l in text.split("\n")]
        for name, (text, _) in CLASS_HELPERS.items():
            if name in self.helpers_used:
                out += [(l, None) for l in text.split("\n")]
        if "scan" in self.helpers_used:
            out += [(l, None) for l in SCAN_TEXT.split("\n")]
        if "consume" in self.helpers_used:
            out += [(l, None) for l in CONSUME_TEXT.split("\n")]
        for i in range(3):
            if "decoy%d" % i in self.helpers_used:
                out.append((DECOY_HELPERS[i], None))
        for name, text in FORM_TEXT.items():
            if "F:" + name in self.helpers_used:
                out += [(l, None) for l in text.split("\n")]
        for name, text in EXTRA_TEXT.items():
            if "X:" + name in self.helpers_used:
                out += [(l, None) for l in text.split("\n")]
        if "vlaunch" in self.helpers_used:
            out.append(("template <class B, class... A> void vlaunch(sycl::queue &q, size_t n, A... a) { q.parallel_for(sycl::range<1>{n}, B{a...}); }", None))
            out.append(("template <class B, class... A> void vsingle(sycl::queue &q, A... a) { q.single_task(B{a...}); }", None))
        if "launch_ov" in self.helpers_used:
            out.append(("template <int D, class K> void launch_ov(sycl::range<D> r, sycl::queue &q, const K &k) { q.parallel_for(r, k); }", None))
            out.append(("template <class K> void launch_ov(std::int64_t n, sycl::queue &q, const K &k) {", None))
            out.append(("  q.parallel_for(sycl::range<1>{static_cast<size_t>(n)}, k);", None))
            out.append(("}", None))
        if "launch_pf" in self.helpers_used:
            out.append(("template <class K> void launch_pf(sycl::queue &q, size_t n, K k) { q.parallel_for(sycl::range<1>{n}, k); }", None))
        if "launch_st" in self.helpers_used:
            out.append(("template <class K> void launch_st(sycl::queue &q, const K &k) { q.single_task(k); }", None))
        if "launch_cg" in self.helpers_used:
            out.append(("template <class K> void launch_cg(sycl::queue &q, size_t n, K k) {", None))
            out.append(("  q.submit([&](sycl::handler &h) { h.parallel_for(sycl::range<1>{n}, k); });", None))
            out.append(("}", None))
        self.sec_defs = out

        # run(): the host variables it declares, with their types (for run()'s kernels moved
        # into a function of a header, which takes them as parameters)
        self.host_decl = {}  # name -> (type, by reference, may be a template parameter)
        out = [("void run(sycl::queue &q, size_t n) {", None)]
        for p, k in POINTERS.items():
            if p in self.host_used:
                alloc = self.pick(["malloc_device", "malloc_shared"])
                sp = self.spell(k)
                out.append(("  %s *%s = sycl::%s<%s>(n, q);" % (sp, p, alloc, sp), None))
                self.host_decl[p] = (sp + " *", False, True)
        if "ppi" in self.host_used:
            out.append(("  int **ppi = sycl::malloc_shared<int *>(n, q);", None))
            self.host_decl["ppi"] = ("int **", False, True)
        for h, (k, ty, init) in HOST_SCALARS.items():
            if h in self.host_used or h in self.host_uneval:
                out.append(("  %s %s = %s;" % (ty, h, init), None))
                self.host_decl[h] = (ty + " ", False, True)
        for s, hv in STRUCT_HOSTVAR.items():
            if hv in self.host_used:
                out.append(("  %s %s = %s;" % (s, hv, STRUCTS[s][2]), None))
                self.host_decl[hv] = (s + " ", False, True)
        for line in self.host_extra:
            out.append(("  " + line, None))
        for k, (bname, decl) in self.buffers.items():
            out.append(("  " + decl, None))
            # a dependent buffer type would need `buf.template get_access<...>`: never a template parameter
            self.host_decl[bname] = ("sycl::buffer<%s, 1> &" % SPELL[k][0], True, False)
        self.sec_run_head = out
        self.body = body
        self.blocks = blocks
        out = []
        for c in classes:
            out.append(("  %s{}.go(q, n);" % c, None))
        for p in POINTERS:
            if p in self.host_used:
                out.append(("  sycl::free(%s, q);" % p, None))
        out.append(("}", None))
        self.sec_run_tail = out
        self.sec_main = [
            ("int main() {", None),
            ("  sycl::queue q{sycl::default_selector_v};", None),
            ("  run(q, 1024);", None),
            ("  return 0;", None),
            ("}", None),
        ]
        self.x50_forms()

    def render(self, lines):
        """The text of (line, anchor) pairs, each kernel's line with its expect-oracle comment."""
        text = []
        for line, anchor in lines:
            if anchor is not None and anchor not in self.no_kernel:
                asp = self.anchors[anchor]
                order = ["fp64", "fp16", "atomic64", "ext_oneapi_atomic16"]
                s = ", ".join(a for a in order if a in asp) or "none"
                line = "%s // expect-oracle: %s" % (line, s)
            text.append(line)
        return "\n".join(text) + "\n"

    def one_file_lines(self):
        out = self.sec_head + [("", None)] + self.sec_prelude + [("", None)] + self.sec_defs
        for block in self.top + self.top50:
            out.append(("", None))
            out += block
        out.append(("", None))
        out += self.sec_run_head + self.body + self.sec_run_tail
        out.append(("", None))
        out += self.sec_main
        return out

    def program(self):
        """The program as one file."""
        self.build()
        return self.render(self.one_file_lines())

    def hoist(self, blk, name, templ, scan=None):
        """A kernel launch of run() as a function of a header: (definition lines, call line).
        The host variables it names become parameters of the same name and type (template type
        parameters in a template, buffers excepted). scan: the lines to look for them in (the
        block before its kernel body moved into a .inc), by default blk."""
        names = set(re.findall(r"[A-Za-z_]\w*", "\n".join(l for l, _ in (scan or blk))))
        params = [nm for nm in self.host_decl if nm in names]
        ps, tps = [], []
        for nm in params:
            ty, ref, templatable = self.host_decl[nm]
            if templ and templatable:
                tps.append("class T%d" % (len(tps) + 1))
                ps.append("T%d %s" % (len(tps), nm))
            else:
                ps.append(ty + nm)
        sig = ", ".join(["sycl::queue &q", "size_t n"] + ps)
        if templ:
            lines = [("template <%s>" % (", ".join(tps) or "int D = 1"), None), ("void %s(%s) {" % (name, sig), None)]
        else:
            lines = [("inline void %s(%s) {" % (name, sig), None)]
        lines += list(blk) + [("}", None)]
        return lines, ("  %s(%s);" % (name, ", ".join(["q", "n"] + params)), None)

    def body_include(self, blk, inc_name):
        """Moves the body of the kernel lambda of a launch block into a file included inside the
        lambda (`#include "NAME"` in its body): (new block lines, the included file's lines)."""
        a = [i for i, (_, anc) in enumerate(blk) if anc is not None]
        if len(a) != 1:
            return blk, None
        a = a[0]
        ind = len(blk[a][0]) - len(blk[a][0].lstrip())
        j = a + 1
        while j < len(blk) and not blk[j][0].startswith(" " * ind + "}"):
            j += 1
        if j == a + 1 or j == len(blk):
            return blk, None
        inner = blk[a + 1][0]
        inc = [(" " * (len(inner) - len(inner.lstrip())) + '#include "%s"' % inc_name, None)]
        return blk[: a + 1] + inc + blk[j:], [("// generated by gen.py --seed %d: a kernel body" % self.seed, None)] + blk[a + 1 : j]

    def files(self, base, hr=None):
        """The program as files: ({relative path: text}, {anchor: header path} for the kernels
        written in a header). The split is drawn from its own random stream (hr, by default
        seeded from the seed), so the one-file program stays that of self.r.

        Most programs put the prelude (aliases, macros, constants) and the device helpers,
        structs, overload sets and launch wrappers in a "dev" header, and most of them a
        "kernels" header too (which includes the dev one) holding class templates, functors and
        classes that launch kernels, and some of run()'s kernel launches, each moved into an
        inline function or a function template that run() calls. One of the two is in a
        subdirectory (sometimes two levels down), included by relative paths (`../`, `sub/`);
        each has `#pragma once` or an include guard, and the dev header is often included twice
        (by the .cpp and by the kernels header, or twice by the .cpp). Some programs declare the
        scalar helpers in the dev header and define them in the .cpp (after the includes); some
        kernel lambdas of run() (moved or not) have their body in a `.inc` file under the
        subdirectory, included inside the lambda. Explicit instantiation definitions stay in the
        .cpp (the oracle probes them in the main file only)."""
        if hr is None:
            hr = random.Random("headers:%d" % self.seed)
        cpp = base + ".cpp"
        modes = [m for m, _ in HEADER_MODES]
        mode = hr.choices(modes, weights=[w for _, w in HEADER_MODES], k=1)[0]
        info = self.split_info = {"mode": mode}
        if mode == "one-file":
            return {cpp: self.render(self.one_file_lines())}, {}
        dev_p, kern_p = [p.format(b=base) for p in hr.choice(HEADER_LAYOUTS)]
        if mode == "dev":
            kern_p = None
        info["subdir"] = "/" in dev_p or bool(kern_p and "/" in kern_p)
        moved, stay = [], []
        for i, blk in enumerate(self.top):
            if kern_p and i not in self.top_stay and form_enabled("header-class") and hr.random() < 0.7:
                moved.append(blk)
            else:
                stay.append(blk)
        # the blocks of X50_FORMS: placed by a stream of their own (the others' split stays)
        hz = random.Random("headers50:%d" % self.seed)
        for blk in self.top50:
            (moved if kern_p and form_enabled("header-class") and hz.random() < 0.7 else stay).append(blk)
        info["moved"] = len(moved)
        hoisted, body, pos, inc_files = [], [], 0, {}
        info["hoisted-inline"] = info["hoisted-template"] = 0
        for s, e, form in self.blocks:
            body += self.body[pos:s]
            blk = orig = self.body[s:e]
            pos = e
            templ = hr.random() < 0.5
            gap = "header-launch-template" if templ else "header-launch-inline"
            hoist = bool(kern_p) and form in HOIST_FORMS and form_enabled(gap) and hr.random() < 0.65
            if form in HOIST_FORMS and form_enabled("body-include") and hr.random() < 0.15:
                inc_p = "%s_inc/body%d.inc" % (base, len(inc_files) + 1)
                blk, inc = self.body_include(blk, rel_include(kern_p if hoist else cpp, inc_p))
                if inc:
                    inc_files[inc_p] = inc
            if hoist:
                info["hoisted-template" if templ else "hoisted-inline"] += 1
                fn, call = self.hoist(blk, "hk%d" % (len(hoisted) + 1), templ, scan=orig)
                hoisted.append(fn)
                body.append(call)
            else:
                body += blk
        body += self.body[pos:]
        info["body-include"] = len(inc_files)
        # scalar helpers declared in the dev header, defined in the .cpp
        defs, cpp_defs = self.sec_defs, []
        if form_enabled("header-prototype") and hr.random() < 0.35:
            defs = []
            for l, a in self.sec_defs:
                if l in SCALAR_HELPER_LINES:
                    defs.append((l[: l.index(") {") + 1] + ";", a))
                    cpp_defs.append((l, a))
                else:
                    defs.append((l, a))
        info["prototypes"] = len(cpp_defs)

        def header(path, lines, includes):
            g = re.sub(r"[^A-Za-z0-9]", "_", path).upper()
            once = hr.random() < 0.5
            out = [("// generated by gen.py --seed %d: a header" % self.seed, None)]
            out += [("#pragma once", None)] if once else [("#ifndef %s" % g, None), ("#define %s" % g, None)]
            if hr.random() < 0.6:
                out.append(('#include "%s"' % rel_include(path, "sycl_mini.hpp"), None))
            out += [('#include "%s"' % rel_include(path, x), None) for x in includes]
            out.append(("", None))
            inline = hr.random() < 0.6
            for l, a in lines:
                out.append(("inline " + l if inline and FUNC_DEF_RE.match(l) and not l.endswith(";") else l, a))
            if not once:
                out.append(("#endif  // %s" % g, None))
            return out

        files = {}
        dev = header(dev_p, self.sec_prelude + [("", None)] + defs, [])
        files[dev_p] = dev
        if kern_p:
            lines = []
            for blk in moved + hoisted:
                if lines:
                    lines.append(("", None))
                lines += blk
            files[kern_p] = header(kern_p, lines, [dev_p])
            r = hr.random()
            incs = [kern_p] if r < 0.35 else [dev_p, kern_p] if r < 0.7 else [kern_p, dev_p]
        else:
            incs = [dev_p, dev_p] if hr.random() < 0.3 else [dev_p]
        info["dev-twice"] = incs.count(dev_p) > 1 or bool(kern_p and dev_p in incs)
        out = self.sec_head + [('#include "%s"' % x, None) for x in incs]
        if cpp_defs:
            out += [("", None)] + cpp_defs
        for blk in stay:
            out.append(("", None))
            out += blk
        out.append(("", None))
        out += self.sec_run_head + body + self.sec_run_tail
        out.append(("", None))
        out += self.sec_main
        files[cpp] = out
        files.update(inc_files)
        in_header = {}
        for p, lines in files.items():
            if p != cpp:
                for _, a in lines:
                    if a is not None and a not in self.no_kernel:
                        in_header[a] = p
        return {p: self.render(lines) for p, lines in files.items()}, in_header


# How run.py and gen.py split a program into files (Gen.files): one file, a dev header only, or a
# dev header and a kernels header; and where the two headers are ({b}: the .cpp's base name).
HEADER_MODES = (("one-file", 25), ("dev", 15), ("dev+kern", 60))
HEADER_LAYOUTS = (
    ("{b}_dev.hpp", "{b}_inc/kernels.hpp"),  # the kernels header includes "../{b}_dev.hpp"
    ("{b}_inc/dev.hpp", "{b}_inc/kernels.hpp"),  # "dev.hpp"
    ("{b}_inc/dev.hpp", "{b}_kernels.hpp"),  # "{b}_inc/dev.hpp"
    ("{b}_inc/detail/dev.hpp", "{b}_inc/kernels.hpp"),  # "detail/dev.hpp"
)
# the launch forms of run() whose kernels may move into a header function (they name only the
# host variables, the prelude and the helpers; the others name classes of self.top)
HOIST_FORMS = {"pf", "pf_n", "single", "submit", "nd", "props", "wrapper", "generic_cgf", "named", "wg", "stored", "launch_ov"}
# Forms the analyzer is known to get wrong (see README, "Known analyzer gaps"): the generator does
# not write them, so that CI stays green until the analyzer is fixed; removing a name, or naming it
# in the environment variable SYCL_DIFF_GAP_FORMS (comma-separated, or "all"; gen.py --gap-forms),
# brings it back. Header forms: "header-launch-inline" (a run() kernel moved into an inline
# function of the kernels header), "header-launch-template" (into a function template),
# "header-class" (self.top's functors, class templates and classes in the kernels header),
# "body-include" (a kernel lambda's body in a .inc file included inside it), "header-prototype"
# (scalar helpers declared in the dev header, defined in the .cpp). Kernel forms of EXTRA_FORMS:
# "array-ref-alias", "array-ref-member", "user-operator", "conversion-operator", "atomic-const-store".
# Forms of issue 35: "group-inclusive-scan-init", `inclusive_scan_over_group(g, x, op, init)`
# (SYCL 2020 puts the init last; the analyzer once took the third argument, the operator, for
# the init); written by default since the fix, else an exclusive_scan_over_group(g, x, init, op)
# takes its place. Forms of issue 50: any name of X50_FORMS (none listed; README has main's
# figures per stream); `--forms NAME` writes a listed one all the same.
KNOWN_ANALYZER_GAPS = ()
ENABLED_GAPS = {n.strip() for n in os.environ.get("SYCL_DIFF_GAP_FORMS", "").split(",") if n.strip()}


def form_enabled(name):
    """Whether the generator writes a form that KNOWN_ANALYZER_GAPS may name."""
    return name not in KNOWN_ANALYZER_GAPS or name in ENABLED_GAPS or "all" in ENABLED_GAPS
SCALAR_HELPER_LINES = {l for text, _, _, _ in SCALAR_HELPERS.values() for l in text.split("\n")}
# a non-template function definition at the start of a line: `inline` may go before it in a header
FUNC_DEF_RE = re.compile(r"^(?!(?:template|struct|class|union|using|typedef|namespace|constexpr|const|static_assert|inline|return|static)\b)"
                         r"[A-Za-z_][\w:]*(?:<[^()]*>)?\s*[*&]?\s+[*&]?(?:operator\s*[^\s(]+|\w+)\s*\(")


def rel_include(src, dst):
    """The quoted include name by which the file src (a path relative to the program's
    directory) includes dst: relative to src's own directory."""
    return posixpath.relpath(dst, posixpath.dirname(src) or ".")


MIN_LINES, MAX_LINES = 20, 120


def generate_gen(seed):
    """(Gen, program text) of a seed: the first of its attempts whose length is in range."""
    for attempt in range(20):
        g = Gen(seed, attempt)
        text = g.program()
        if MIN_LINES <= text.count("\n") - g.lines50 <= MAX_LINES:
            return g, text
    return g, text


def generate(seed):
    """The program of a seed as one file (no headers)."""
    return generate_gen(seed)[1]


def generate_files(seed, base=None):
    """The program of a seed as files: ({path relative to the .cpp's directory: text}, {anchor:
    header path} of the kernels written in a header). The .cpp is BASE.cpp (default
    seed_S.cpp); the headers' names start with BASE too (see Gen.files)."""
    g, _ = generate_gen(seed)
    return g.files(base or "seed_%d" % seed)


def main_file(files):
    return [p for p in files if p.endswith(".cpp")][0]


def stats(seed_start, count):
    """The share of generated kernels (and programs) in which each form of FORM_TEXT & co. is
    written, and the share of kernels nothing instantiates (no kernel, by design)."""
    forms, kernels, programs, no_kernel, prog_forms = {}, 0, 0, 0, {}
    x50 = {n: [0, 0, 0, 0] for n in X50_FORMS}  # programs, kernels, templates nothing instantiates, device_has functions
    any_kernels = 0
    hdr_kernels, hdr_programs, kern_programs = 0, 0, 0
    split = {}
    for seed in range(seed_start, seed_start + count):
        g, _ = generate_gen(seed)
        files, in_header = g.files("seed_%d" % seed)
        for k, v in g.split_info.items():
            n, p = split.get(v if k == "mode" else k, (0, 0))
            split[v if k == "mode" else k] = (n + int(v is not False) if k == "mode" or isinstance(v, bool) else n + v, p + bool(v))
        programs += 1
        hdr_programs += len(files) > 1
        kern_programs += bool(in_header)
        for n in g.forms50:
            x50[n][0] += 1
        for n in g.forms50:
            x50[n][3] += sum(t.count("expect-oracle-device-has") for t in files.values()) if n == "host-only-device-has" else 0
        for aid, fs in g.anchor_forms.items():
            for n in fs & set(X50_FORMS):
                x50[n][2 if aid in g.no_kernel else 1] += 1
        seen = set()
        for aid in g.anchors:
            if aid in g.no_kernel:
                no_kernel += 1
                continue
            kernels += 1
            hdr_kernels += aid in in_header
            fs = g.anchor_forms.get(aid, set())
            if fs:
                any_kernels += 1
            for f in fs:
                forms[f] = forms.get(f, 0) + 1
                seen.add(f)
        for f in seen:
            prog_forms[f] = prog_forms.get(f, 0) + 1
    print("seeds %d..%d: %d programs, %d kernels, %d templates that nothing instantiates (no kernel)" % (
        seed_start, seed_start + count - 1, programs, kernels, no_kernel))
    print("kernels with at least one of the forms: %d (%.1f%%)" % (any_kernels, 100.0 * any_kernels / max(kernels, 1)))
    print("programs with headers: %d (%.1f%%), with a kernel in a header: %d (%.1f%%); kernels in a header: %d (%.1f%%)%s" % (
        hdr_programs, 100.0 * hdr_programs / max(programs, 1), kern_programs, 100.0 * kern_programs / max(programs, 1),
        hdr_kernels, 100.0 * hdr_kernels / max(kernels, 1),
        "; known analyzer gaps left out: " + ", ".join(n for n in KNOWN_ANALYZER_GAPS if not form_enabled(n))
        if any(not form_enabled(n) for n in KNOWN_ANALYZER_GAPS) else ""))
    print("programs: one file %d, a dev header only %d, dev and kernels headers %d; a header in a subdirectory %d, "
          "the dev header included twice %d" % tuple(split.get(k, (0, 0))[1] for k in ("one-file", "dev", "dev+kern", "subdir", "dev-twice")))
    for k, what in (("hoisted-inline", "run() launches moved into an inline function of the kernels header"),
                    ("hoisted-template", "run() launches moved into a function template of the kernels header"),
                    ("moved", "functors, class templates, classes moved into the kernels header"),
                    ("body-include", "kernel bodies in a .inc included inside the lambda"),
                    ("prototypes", "helpers declared in the dev header, defined in the .cpp")):
        n, p = split.get(k, (0, 0))
        print("  %-70s %5d in %5d programs" % (what, n, p))
    print("forms of issue 50 (a stream each, rate %.2f%s):" % (
        X50_RATE, "" if SELECTED_FORMS is None else "; only " + (", ".join(sorted(SELECTED_FORMS)) or "none")))
    print("  %-24s %8s %9s %8s %17s" % ("form", "programs", "share", "kernels", "not instantiated"))
    for n in X50_FORMS:
        p, k, nk, dh = x50[n]
        print("  %-24s %8d %8.1f%% %8d %17d%s" % (n, p, 100.0 * p / max(programs, 1), k, nk,
                                                 " (device_has functions %d)" % dh if dh else ""))
    print("%-26s %8s %8s %10s" % ("form", "kernels", "share", "programs"))
    for f in sorted(forms, key=lambda x: -forms[x]):
        print("%-26s %8d %7.1f%% %9.1f%%" % (f, forms[f], 100.0 * forms[f] / max(kernels, 1), 100.0 * prog_forms[f] / programs))


def main(argv):
    ap = argparse.ArgumentParser(description="Seeded random SYCL program generator")
    ap.add_argument("--seed", type=int)
    ap.add_argument("-o", "--output", help="the .cpp to write; its headers go next to it, with sycl_mini.hpp (default: stdout)")
    ap.add_argument("--one-file", action="store_true", help="write the program as one file, without headers")
    ap.add_argument("--stats", type=int, metavar="N", help="print the share of kernels using each form over N seeds from --seed (default 1)")
    ap.add_argument("--gap-forms", metavar="NAMES",
                    help="also write these forms of KNOWN_ANALYZER_GAPS (comma-separated, or 'all'); "
                         "the environment variable SYCL_DIFF_GAP_FORMS does the same (and reaches run.py's workers)")
    ap.add_argument("--forms", metavar="NAMES",
                    help="write only these forms of issue 50 (comma-separated, 'all' (default) or 'none'): " + ", ".join(X50_FORMS))
    ap.add_argument("--forms-rate", type=float, metavar="R",
                    help="the share of programs that get each of those forms (default %.2f)" % X50_RATE)
    ns = ap.parse_args(argv)
    try:
        select_forms(ns.forms, ns.forms_rate)
    except ValueError as e:
        ap.error(str(e))
    if ns.gap_forms:
        ENABLED_GAPS.update(n.strip() for n in ns.gap_forms.split(",") if n.strip())
    if ns.stats:
        stats(ns.seed if ns.seed is not None else 1, ns.stats)
        return 0
    if ns.seed is None:
        ap.error("--seed is required")
    base = None
    if ns.output:
        base = os.path.basename(ns.output)
        base = base[:-4] if base.endswith(".cpp") else base
    if ns.one_file:
        files = {(base or "seed_%d" % ns.seed) + ".cpp": generate(ns.seed)}
    else:
        files = generate_files(ns.seed, base)[0]
    if not ns.output:
        for p, text in files.items():
            if len(files) > 1:
                sys.stdout.write("// ===== %s =====\n" % p)
            sys.stdout.write(text)
        return 0
    d = os.path.dirname(os.path.abspath(ns.output))
    for p, text in files.items():
        dst = os.path.abspath(ns.output) if p.endswith(".cpp") else os.path.join(d, p)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "w") as f:
            f.write(text)
    mini = os.path.join(d, "sycl_mini.hpp")
    if len(files) > 1 and not os.path.exists(mini):
        # headers in a subdirectory include it by a relative path
        shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sycl_mini.hpp"), mini)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
