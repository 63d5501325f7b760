#!/usr/bin/env python3
"""Seeded random SYCL program generator for the differential test.

`gen.py --seed S [-o FILE]` writes one small C++17 program that includes "sycl_mini.hpp" and
launches 1-4 kernels. Every construct is drawn from a weighted menu with random.Random(S), so a
seed always gives the same program.

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

Things it deliberately never writes (their meaning under the rule is ambiguous, or libclang
cannot show them): captures or functor fields of an aspect type that the kernel does not use in
evaluated code (DPC++ would see them as kernel arguments; the rule does not), default arguments
and default member initializers of user functions and classes, user-declared destructors,
virtual calls, function pointers, macros in kernel code, `[*this]`, non-type template arguments
or array bounds with floating-point expressions, and kernels in headers. To stay valid C++ it
also avoids what the mini header makes ambiguous: sycl::half mixed with integers other than int
or compared with non-half values, math functions called with mixed argument types, and
arithmetic on sycl::id / sycl::item objects (only their size_t components are computed with).
"""

import argparse
import random
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

    def child(self):
        c = Ctx(self.g, self.allowed, self.vars, self.index, self.unrestricted)
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


class Gen:
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

    def emit_kernel(self, out, ind):
        """Appends one kernel launch (a list of (line, anchor)) to out."""
        target = self.choose_target()
        form = self.pick(
            ["pf", "pf_n", "single", "submit", "nd", "props", "functor", "tfunctor", "wrapper", "host_template", "generic_cgf", "named", "wg", "stored"],
            [12, 4, 8, 10, 5, 3, 6, 5, 5, 5, 2, 3, 1, 3],
        )
        getattr(self, "k_" + form)(out, ind, target)

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
    def k_functor(self, out, ind, target):
        name = self.fresh("Kf")
        form = self.pick(["id", "item", "none", "templ"])
        aid = self.new_anchor()
        # fields: pointers and scalars
        fields = [Var(p, "ptr", k, "member") for p, k in self.r.sample(sorted(POINTERS.items()), 3)]
        allowed = self.allowed_for(target)
        sk = [k for k in ("float", "double", "int", "half") if k in allowed]
        scal = [Var(self.fresh("m"), "scalar", self.pick(sk), "member") for _ in range(self.r.randint(0, 2))]
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
        lines = ["struct %s {" % name]
        for f in used_fields:
            if f.cat == "ptr":
                lines.append("  %s *%s;" % (self.spell(f.elem), f.name))
            else:
                lines.append("  %s %s;" % (self.spell(f.elem), f.name))
        self.finish_kernel(aid, ctx)
        top_lines = [(l, None) for l in lines] + [("  " + head, aid)] + [(b, None) for b in body] + [("  }", None), ("};", None)]
        self.top.append(top_lines)
        inits = []
        for f in used_fields:
            if f.cat == "ptr":
                inits.append(f.name)
                self.host_used.add(f.name)
            else:
                inits.append(self.pick(LITS[f.elem]))
        obj = "%s{%s}" % (name, ", ".join(inits))
        if form == "none":
            out.append(("%sq.single_task(%s);" % (ind, obj), None))
        else:
            out.append(("%sq.parallel_for(sycl::range<1>{n}, %s);" % (ind, obj), None))

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
        lines = [
            ("class %s {" % cname, None),
            ("public:", None),
            ("  float *data;", None),
            ("  int *ints;", None),
            ("  double *dbl;", None),
            ("  u64 *cnt;", None),
            ("  double wd;", None),
            ("  float wf;", None),
            ("  void go(sycl::queue &q, size_t n) {", None),
            ("    q.parallel_for(sycl::range<1>{n}, %s(%s) {" % (cap, param), aid),
        ]
        lines += [(b, None) for b in body]
        lines += [("    });", None), ("  }", None), ("};", None)]
        self.top.append(lines)
        return cname

    # ----- the program ----------------------------------------------------------------------
    def program(self):
        nk = self.r.choices([1, 2, 3, 4], weights=[2, 4, 3, 2], k=1)[0]
        body = []
        classes = []
        for _ in range(nk):
            if self.chance(0.08):
                classes.append(self.class_kernel())
            else:
                self.emit_kernel(body, "  ")
        if self.chance(0.2):
            self.helpers_used.add(self.pick(["decoy0", "decoy1", "decoy2"]))
        if self.chance(0.15):
            self.helpers_used.add("scan")

        out = []
        out.append(("// generated by gen.py --seed %d" % self.seed, None))
        out.append(('#include "sycl_mini.hpp"', None))
        out.append(("", None))
        out.append(("using i64 = std::int64_t;", None))
        out.append(("typedef unsigned long long u64;", None))
        out.append(("using real_t = double;", None))
        out.append(("using half_t = sycl::half;", None))
        out.append(("template <class T>", None))
        out.append(("using aref = sycl::atomic_ref<T, sycl::memory_order::relaxed, sycl::memory_scope::device>;", None))
        if self.need_syclex:
            out.append(("namespace syclex = sycl::ext::oneapi::experimental;", None))
        out.append(("", None))
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
        if "launch_pf" in self.helpers_used:
            out.append(("template <class K> void launch_pf(sycl::queue &q, size_t n, K k) { q.parallel_for(sycl::range<1>{n}, k); }", None))
        if "launch_st" in self.helpers_used:
            out.append(("template <class K> void launch_st(sycl::queue &q, const K &k) { q.single_task(k); }", None))
        if "launch_cg" in self.helpers_used:
            out.append(("template <class K> void launch_cg(sycl::queue &q, size_t n, K k) {", None))
            out.append(("  q.submit([&](sycl::handler &h) { h.parallel_for(sycl::range<1>{n}, k); });", None))
            out.append(("}", None))
        for block in self.top:
            out.append(("", None))
            out += block
        out.append(("", None))
        out.append(("void run(sycl::queue &q, size_t n) {", None))
        for p, k in POINTERS.items():
            if p in self.host_used:
                alloc = self.pick(["malloc_device", "malloc_shared"])
                sp = self.spell(k)
                out.append(("  %s *%s = sycl::%s<%s>(n, q);" % (sp, p, alloc, sp), None))
        if "ppi" in self.host_used:
            out.append(("  int **ppi = sycl::malloc_shared<int *>(n, q);", None))
        for h, (k, ty, init) in HOST_SCALARS.items():
            if h in self.host_used or h in self.host_uneval:
                out.append(("  %s %s = %s;" % (ty, h, init), None))
        for s, hv in STRUCT_HOSTVAR.items():
            if hv in self.host_used:
                out.append(("  %s %s = %s;" % (s, hv, STRUCTS[s][2]), None))
        for k, (bname, decl) in self.buffers.items():
            out.append(("  " + decl, None))
        out += body
        for c in classes:
            out.append(("  %s{}.go(q, n);" % c, None))
        for p in POINTERS:
            if p in self.host_used:
                out.append(("  sycl::free(%s, q);" % p, None))
        out.append(("}", None))
        out.append(("", None))
        out.append(("int main() {", None))
        out.append(("  sycl::queue q{sycl::default_selector_v};", None))
        out.append(("  run(q, 1024);", None))
        out.append(("  return 0;", None))
        out.append(("}", None))

        text = []
        for line, anchor in out:
            if anchor is not None:
                asp = self.anchors[anchor]
                order = ["fp64", "fp16", "atomic64", "ext_oneapi_atomic16"]
                s = ", ".join(a for a in order if a in asp) or "none"
                line = "%s // expect-oracle: %s" % (line, s)
            text.append(line)
        return "\n".join(text) + "\n"


MIN_LINES, MAX_LINES = 20, 120


def generate(seed):
    """The program of a seed: the first of its attempts whose length is in range."""
    for attempt in range(20):
        text = Gen(seed, attempt).program()
        if MIN_LINES <= text.count("\n") <= MAX_LINES:
            return text
    return text


def main(argv):
    ap = argparse.ArgumentParser(description="Seeded random SYCL program generator")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("-o", "--output", help="file to write (default: stdout)")
    ns = ap.parse_args(argv)
    text = generate(ns.seed)
    if ns.output:
        with open(ns.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
