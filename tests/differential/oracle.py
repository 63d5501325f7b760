#!/usr/bin/env python3
"""The differential test's oracle: which optional aspects each SYCL kernel of a C++ file uses.

It parses the file with libclang (the `libclang` PyPI wheel, module `clang.cindex`) and applies
DPC++'s aspect propagation to clang's own typing:

* Kernels are the callables passed as the LAST argument of `parallel_for`, `single_task` or
  `parallel_for_work_group`, members of `sycl::handler` or `sycl::queue`. Launch calls are found
  in every function reachable from the non-template function definitions of the file and of the
  headers it includes (outside the library), template instantiations included (so a
  `template <class K> void launch(queue&, K)` wrapper is seen through). The kernel function is
  the `operator()` that the launcher's instantiated body calls: for a generic lambda or a
  templated `operator()` that is the instantiated specialization.
* A kernel's identity is (file, line, column) of the lambda introducer `[`, or of the `operator`
  token of a functor's `operator()` (its first declaration), in whichever file (the .cpp or a
  header) that token is; the file is named as clang found it (`dir/sub/../x.hpp`: run.py compares
  real paths). Columns are 1-based and counted in characters. Instantiations that share an
  identity are merged (union of aspects). `includes` lists the headers the file includes outside
  the library (real paths).
* Explicit instantiation definitions in the main file (`template struct S<double>;`,
  `template void f<int>(int *);`; not those in headers) are roots too: every non-template member
  function of the class template specialization (of the template it was instantiated from,
  overloaded names excepted), or the one function. libclang
  shows neither the instantiated members nor function explicit instantiations, so the oracle
  re-parses the file with a probe after each one's `;`, an unevaluated `sizeof(&S<double>::go)`
  or `sizeof(static_cast<SIGNATURE>(&f<int>))`, and follows the definitions clang made.
  `extern template` declarations instantiate nothing and are not probed.
* A function named without a call in the code searched for launches (`fp = run<32>;`, an
  argument, `&f<int>`) is odr-used, so clang defines its instance: it is searched too. An
  element of a braced initializer list (`void (*fs[])(queue &, T *) = {run<32>, run<64>};`),
  which libclang shows unresolved, is resolved by a probe after the declaration,
  `(void)sizeof(static_cast<decltype(+fs[0])>(run<32>));` (unevaluated: it instantiates nothing).
* Functions declaring `[[sycl::device_has(...)]]` (read from the source: clang drops the unknown
  attribute) are reported with the aspects their device instances (those the kernels reach) use
  and do not declare: DPC++'s aspect-mismatch findings. Host-only instances are no device code.
* The reach is the kernel function and every function it calls (call expressions, constructors,
  conversion functions and operators included) whose definition lies outside the library,
  transitively. The library is sycl_mini.hpp (and any --lib-dir): its functions are never entered.
* In every function of the reach, in evaluated context only, the oracle collects the type of
  every expression, of every local variable, every parameter and the return type, and maps them:
  double / long double -> fp64; sycl::half -> fp16; a class, array, vec or marray held by value
  that contains one of those (fields and bases, recursively) -> the same; sycl::atomic_ref<T> (or
  sycl::atomic<T>) with sizeof(T) == 8 -> atomic64, with T = sycl::half ->
  ext_oneapi_atomic16. Pointers and reference members carry nothing; a reference-typed
  expression or variable counts as its referee. An array parameter (`double lut[4][8]`) is a
  pointer; since libclang shows decayed types as written, expressions of array type carry
  nothing themselves (an array variable counts at its declaration and in its element accesses).
* Not evaluated: operands of sizeof / alignof / noexcept / typeid, anything written inside a type
  (decltype, template arguments, array bounds), static_assert, alias declarations, local class
  definitions, the discarded branch of `if constexpr` (its condition is evaluated with
  clang_Cursor_Evaluate; in template instantiations clang has already replaced the discarded
  branch by an empty statement), and the bodies of lambdas defined in the reach that are never
  called.

Two views are reported per kernel. `used` is the rule above. `used_folded` leaves out what a
compiler folds: constant expressions (literals, sizeof, constexpr variables, and casts,
conversions and operators over constants, e.g. `float f = 2.0;`, `static_cast<float>(0.5)`,
`sycl::half(1.0f)` converted to float) and constexpr initializers; the right operand of a
compound assignment (`f += 0.5`) stays a use, since the arithmetic runs in its type.

Usable as a module (`Oracle().analyze(path)`) or as a script: `oracle.py FILE...` prints JSON.
"""

import ctypes
import json
import os
import re
import sys

import clang.cindex as ci

K = ci.CursorKind
T = ci.TypeKind

LAUNCHERS = {"parallel_for", "single_task", "parallel_for_work_group"}
LAUNCH_CLASSES = {"handler", "queue"}
FUNCTION_KINDS = {
    K.FUNCTION_DECL,
    K.CXX_METHOD,
    K.CONSTRUCTOR,
    K.DESTRUCTOR,
    K.CONVERSION_FUNCTION,
}
# Declarations whose children are types or constant expressions only.
SKIP_KINDS = {
    K.STATIC_ASSERT,
    K.TYPE_ALIAS_DECL,
    K.TYPEDEF_DECL,
    K.TYPE_ALIAS_TEMPLATE_DECL,
    K.CLASS_DECL,
    K.STRUCT_DECL,
    K.UNION_DECL,
    K.ENUM_DECL,
    K.CLASS_TEMPLATE,
    K.FUNCTION_TEMPLATE,
    K.USING_DECLARATION,
    K.USING_DIRECTIVE,
    K.NAMESPACE_ALIAS,
    K.TYPE_REF,
    K.TEMPLATE_REF,
    K.NAMESPACE_REF,
    K.MEMBER_REF,
    K.OVERLOADED_DECL_REF,
    K.VARIABLE_REF,
    K.LABEL_REF,
    K.CXX_TYPEID_EXPR,
    K.CXX_UNARY_EXPR,  # sizeof, alignof, noexcept: unevaluated operands
}
ASPECT_ORDER = ["fp64", "fp16", "atomic64", "ext_oneapi_atomic16"]
DEFAULT_ARGS = ["-x", "c++", "-std=c++17", "-nostdinc", "-nostdinc++"]

_lib = ci.conf.lib
_lib.clang_Cursor_Evaluate.argtypes = [ci.Cursor]
_lib.clang_Cursor_Evaluate.restype = ctypes.c_void_p
_lib.clang_EvalResult_getKind.argtypes = [ctypes.c_void_p]
_lib.clang_EvalResult_getKind.restype = ctypes.c_int
_lib.clang_EvalResult_getAsLongLong.argtypes = [ctypes.c_void_p]
_lib.clang_EvalResult_getAsLongLong.restype = ctypes.c_longlong
_lib.clang_EvalResult_dispose.argtypes = [ctypes.c_void_p]
_lib.clang_Cursor_isInlineNamespace.argtypes = [ci.Cursor]
_lib.clang_Cursor_isInlineNamespace.restype = ctypes.c_uint
_lib.clang_getSpecializedCursorTemplate.argtypes = [ci.Cursor]
_lib.clang_getSpecializedCursorTemplate.restype = ci.Cursor
CXEval_Int = 1


def evaluate_int(cursor):
    """The integer value of a constant expression, or None."""
    res = _lib.clang_Cursor_Evaluate(cursor)
    if not res:
        return None
    try:
        if _lib.clang_EvalResult_getKind(res) != CXEval_Int:
            return None
        return _lib.clang_EvalResult_getAsLongLong(res)
    finally:
        _lib.clang_EvalResult_dispose(res)


def cursor_key(c):
    """A hashable identity for a declaration cursor (libclang's Cursor is not hashable)."""
    loc = c.location
    return (
        c.hash,
        c.kind.value,
        c.displayname,
        loc.file.name if loc.file else "",
        loc.line,
        loc.column,
        c.type.spelling,
    )


def namespaces(decl):
    """The enclosing namespaces and classes of a declaration, outermost first, without inline
    namespaces (sycl::_V1 is sycl)."""
    out = []
    p = decl.semantic_parent
    while p is not None and p.kind != K.TRANSLATION_UNIT:
        if not (p.kind == K.NAMESPACE and _lib.clang_Cursor_isInlineNamespace(p)):
            out.append(p.spelling)
        p = p.semantic_parent
    out.reverse()
    return out


def is_sycl_class(decl, names):
    """A class of namespace sycl with one of these names (DPC++ itself declares half in
    sycl::detail::half_impl, hence any namespace under sycl)."""
    if decl is None or decl.spelling not in names:
        return False
    ns = namespaces(decl)
    return bool(ns) and ns[0] == "sycl"


FP64_KINDS = {T.DOUBLE.value, T.LONGDOUBLE.value}
FP16_KINDS = {T.HALF.value, 32}  # __fp16, _Float16
ARRAY_KINDS = {T.CONSTANTARRAY.value, T.INCOMPLETEARRAY.value, T.VARIABLEARRAY.value, T.DEPENDENTSIZEDARRAY.value}
REF_KINDS = {T.LVALUEREFERENCE.value, T.RVALUEREFERENCE.value}


def strip_type(t):
    t = t.get_canonical()
    while t._kind_id in REF_KINDS:
        t = t.get_pointee().get_canonical()
    return t


CONST_LEAVES = {
    K.FLOATING_LITERAL,
    K.INTEGER_LITERAL,
    K.CHARACTER_LITERAL,
    K.CXX_BOOL_LITERAL_EXPR,
    K.CXX_NULL_PTR_LITERAL_EXPR,
    K.CXX_UNARY_EXPR,
}
CONST_WRAPPERS = {
    K.PAREN_EXPR,
    K.UNEXPOSED_EXPR,
    K.UNARY_OPERATOR,
    K.CSTYLE_CAST_EXPR,
    K.CXX_STATIC_CAST_EXPR,
    K.CXX_FUNCTIONAL_CAST_EXPR,
}


class Uses:
    """The aspects a kernel's reach uses, under the rule (`used`) and with constant expressions
    folded away (`folded`), each with the first place that made it."""

    def __init__(self):
        self.used, self.why = set(), {}
        self.folded, self.why_folded = set(), {}

    def note(self, aspects, where, const):
        for a in aspects:
            if a not in self.used:
                self.used.add(a)
                self.why[a] = where
            if not const and a not in self.folded:
                self.folded.add(a)
                self.why_folded[a] = where


class FileCache:
    def __init__(self):
        self.data = {}

    def get(self, name):
        if name not in self.data:
            try:
                with open(name, "rb") as f:
                    self.data[name] = f.read()
            except OSError:
                self.data[name] = b""
        return self.data[name]

    def char_column(self, name, line, byte_col):
        """libclang columns count bytes; convert to characters."""
        data = self.get(name)
        lines = data.split(b"\n")
        if 1 <= line <= len(lines):
            prefix = lines[line - 1][: byte_col - 1]
            return len(prefix.decode("utf-8", errors="replace")) + 1
        return byte_col


class Oracle:
    def __init__(self, lib_dirs=(), lib_names=("sycl_mini.hpp",), extra_args=()):
        self.index = ci.Index.create()
        self.lib_dirs = [os.path.realpath(d) + os.sep for d in lib_dirs]
        self.lib_names = set(lib_names)
        self.extra_args = list(extra_args)

    # ----- helpers -----------------------------------------------------------------------
    def is_library(self, cursor):
        f = cursor.location.file
        if f is None:
            return True
        return self.is_library_file(f.name)

    def is_library_file(self, name):
        if os.path.basename(name) in self.lib_names:
            return True
        if self.lib_dirs:
            real = os.path.realpath(name)
            return any(real.startswith(d) for d in self.lib_dirs)
        return False

    def type_aspects(self, t):
        """(aspects, reason) of a type per the rule; reason names the type that carries them."""
        t = strip_type(t)
        k = t._kind_id  # not t.kind: the bindings do not name every kind (_Float16 is 32)
        if k in FP64_KINDS:
            return frozenset({"fp64"})
        if k in FP16_KINDS:
            return frozenset({"fp16"})
        if k in ARRAY_KINDS:
            return self.type_aspects(t.element_type)
        if k != T.RECORD.value:
            return frozenset()
        decl = t.get_declaration()
        key = (cursor_key(decl), t.spelling.replace("const ", "").replace("volatile ", ""))
        hit = self.record_cache.get(key)
        if hit is not None:
            return hit
        self.record_cache[key] = frozenset()  # cycle guard
        out = set()
        if is_sycl_class(decl, {"half"}):
            out.add("fp16")
        else:
            if is_sycl_class(decl, {"atomic_ref", "atomic"}) and t.get_num_template_arguments() > 0:
                arg = t.get_template_argument_type(0).get_canonical()
                if arg._kind_id == T.RECORD.value and is_sycl_class(arg.get_declaration(), {"half"}):
                    out.add("ext_oneapi_atomic16")
                elif arg.get_size() == 8:
                    out.add("atomic64")
            for f in t.get_fields():
                ft = f.type.get_canonical()
                if ft._kind_id in REF_KINDS:
                    continue  # a reference member is not held by value
                out |= self.type_aspects(ft)
            for ch in decl.get_children():
                if ch.kind == K.CXX_BASE_SPECIFIER:
                    out |= self.type_aspects(ch.type)
        res = frozenset(out)
        self.record_cache[key] = res
        return res

    def where(self, c):
        loc = c.location
        if loc.file is None:
            return "?"
        return "%s:%d:%d" % (self.short_name(loc.file.name), loc.line, loc.column)

    def short_name(self, name):
        """A file's name in messages: relative to the analysed file's directory when it is under
        it (`sub/kernels.hpp`), else its base name."""
        root = getattr(self, "root", None)
        if root:
            rel = os.path.relpath(os.path.realpath(name), root)
            if not rel.startswith(".."):
                return rel
        return os.path.basename(name)

    # ----- the kernel reach ----------------------------------------------------------------
    def bracket_end(self, fname, off, open_ch, close_ch):
        """The offset just after the bracket closing the one at `off` (skipping parenthesized
        text), or None."""
        data = self.files.get(fname)
        if data[off : off + 1] != open_ch:
            return None
        depth = 0
        j = off
        while j < len(data):
            ch = data[j : j + 1]
            if ch == b"(" and open_ch != b"(":
                inner = self.bracket_end(fname, j, b"(", b")")
                if inner is None:
                    return None
                j = inner
                continue
            if open_ch == b"<" and data[j : j + 2] == b"<<":
                j += 2  # a shift inside a template argument list (`N<1 << 3>`)
                continue
            if open_ch == b"<" and data[j : j + 2] == b">>" and depth >= 2:
                depth -= 2  # `A<B<int>>`
                if depth == 0:
                    return j + 2
                j += 2
                continue
            if ch == open_ch:
                depth += 1
            elif ch == close_ch:
                depth -= 1
                if depth == 0:
                    return j + 1
            elif ch in (b";", b"{", b"}"):
                return None
            j += 1
        return None

    def skip_space(self, fname, off):
        data = self.files.get(fname)
        while off < len(data) and data[off : off + 1] in (b" ", b"\t", b"\n", b"\r"):
            off += 1
        return off

    def template_arg_ranges(self, children):
        """Source ranges of the `<...>` template argument lists written after the TEMPLATE_REFs
        among these children: expressions there are template arguments, not evaluated."""
        out = []
        for x in children:
            if x.kind == K.TEMPLATE_REF and x.extent.end.file is not None:
                fname = x.extent.end.file.name
                start = self.skip_space(fname, x.extent.end.offset)
                end = self.bracket_end(fname, start, b"<", b">")
                if end is not None:
                    out.append((fname, start, end))
        return out

    def drop_in_ranges(self, children, ranges):
        if not ranges:
            return children
        keep = []
        for x in children:
            st = x.extent.start
            f = st.file.name if st.file is not None else None
            if any(f == rf and a <= st.offset < b for rf, a, b in ranges):
                continue
            keep.append(x)
        return keep

    def closing_paren(self, c):
        """Offset just after the ')' closing an `if (...)` condition, from the source text."""
        f = c.extent.start.file
        if f is None:
            return None
        data = self.files.get(f.name)
        i = c.extent.start.offset
        j = data.find(b"(", i)
        if j < 0:
            return None
        depth = 0
        while j < len(data):
            ch = data[j : j + 1]
            if ch == b"(":
                depth += 1
            elif ch == b")":
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return None

    def is_constexpr_if(self, c):
        f = c.extent.start.file
        if f is None:
            return False
        data = self.files.get(f.name)
        i = c.extent.start.offset
        if data[i : i + 2] != b"if":
            return False
        rest = data[i + 2 : i + 40].lstrip()
        return rest.startswith(b"constexpr")

    def collect_function(self, fn, acc, callees, notes):
        """Collects the aspects of one function's signature and body; appends its callees."""
        if fn.kind != K.CONSTRUCTOR and fn.kind != K.DESTRUCTOR:
            rt = fn.result_type
            self.note_type(acc, rt, fn, "return type")
        for ch in fn.get_children():
            if ch.kind == K.PARM_DECL:
                if ch.type.get_canonical()._kind_id in ARRAY_KINDS:
                    continue  # `double lut[4][8]` as a parameter is a pointer (libclang shows it as written)
                self.note_type(acc, ch.type, ch, "parameter '%s'" % ch.spelling)
            elif ch.kind == K.COMPOUND_STMT or ch.kind == K.CXX_TRY_STMT:
                self.visit(ch, acc, callees, notes)
            elif fn.kind == K.CONSTRUCTOR and ch.kind.is_expression():
                self.visit(ch, acc, callees, notes)  # member and base initializers

    def note_type(self, acc, t, cursor, what, const=False):
        aspects = self.type_aspects(t)
        if aspects:
            acc.note(aspects, "%s %s (%s)" % (self.where(cursor), what, strip_type(t).spelling), const)

    # ----- constant expressions (for the folded view) ---------------------------------------
    def is_constexpr_var(self, d):
        if d is None or d.kind != K.VAR_DECL or d.location.file is None:
            return False
        data = self.files.get(d.location.file.name)
        head = data[d.extent.start.offset : d.location.offset]
        return b"constexpr" in head

    def is_constant(self, c, depth=0):
        """A constant expression in the syntactic sense a compiler folds: literals, sizeof,
        constexpr variables, and casts, conversions (constructors and conversion functions
        included) and operators over constants."""
        if depth > 40:
            return False
        k = c.kind
        if k in CONST_LEAVES:
            return True
        if k == K.DECL_REF_EXPR:
            return self.is_constexpr_var(c.referenced)
        kids = [x for x in c.get_children() if x.kind.is_expression()]
        if k in CONST_WRAPPERS:
            return len(kids) == 1 and self.is_constant(kids[0], depth + 1)
        if k == K.BINARY_OPERATOR:
            return len(kids) == 2 and all(self.is_constant(x, depth + 1) for x in kids)
        if k == K.CONDITIONAL_OPERATOR:
            return len(kids) == 3 and all(self.is_constant(x, depth + 1) for x in kids)
        if k == K.CALL_EXPR:
            ref = c.referenced
            if ref is None:
                return False
            args = list(c.get_arguments())
            if ref.kind == K.CONSTRUCTOR:
                return len(args) == 1 and self.is_constant(args[0], depth + 1)
            if ref.kind == K.CONVERSION_FUNCTION:
                mem = [x for x in c.get_children() if x.kind == K.MEMBER_REF_EXPR]
                base = [y for y in mem[0].get_children() if y.kind.is_expression()] if mem else []
                return len(base) == 1 and self.is_constant(base[0], depth + 1)
            if ref.spelling.startswith("operator") and ref.spelling != "operator()" and args:
                return all(self.is_constant(a, depth + 1) for a in args)
        return False

    def visit(self, root, acc, callees, notes):
        stack = [(root, False)]
        while stack:
            c, in_const = stack.pop()
            k = c.kind
            if k in SKIP_KINDS:
                continue
            if k.is_expression():
                if not in_const and self.is_constant(c):
                    in_const = True
                # An expression of array type is an array variable (counted where it is declared,
                # and in the element accesses) or, as libclang shows a decayed type as written,
                # an array parameter, which is a pointer: the expression itself carries nothing.
                if c.type.get_canonical()._kind_id not in ARRAY_KINDS:
                    self.note_type(acc, c.type, c, "constant expression" if in_const else "expression", in_const)
            children = None
            if k == K.COMPOUND_ASSIGNMENT_OPERATOR:
                # `f += 0.5`: the arithmetic runs in the common type of both sides, a node clang
                # does not expose; the right-hand side's value is used at run time even when it
                # is a constant.
                kids = [x for x in c.get_children() if x.kind.is_expression()]
                if kids:
                    self.note_type(acc, kids[-1].type, kids[-1], "compound assignment operand")
            if k == K.CALL_EXPR:
                ref = c.referenced
                if ref is not None and ref.kind in FUNCTION_KINDS:
                    callees.append(ref)
            elif k == K.DECL_REF_EXPR:
                continue  # its children are qualifiers and explicit template arguments
            elif k == K.MEMBER_REF_EXPR:
                name_off = c.location.offset if c.location.file is not None else None
                kids = list(c.get_children())
                if name_off is not None and c.location.line > 0:
                    kids = [x for x in kids if x.extent.start.offset < name_off]
                children = kids
            elif k == K.VAR_DECL:
                self.note_type(acc, c.type, c, "variable '%s'" % c.spelling)
                if self.is_constexpr_var(c):
                    in_const = True  # a constexpr initializer is folded
                name_off = c.location.offset
                children = [
                    x for x in c.get_children() if x.extent.start.offset >= name_off and x.kind.is_expression()
                ]
                # array bounds written after the name are constant expressions, not evaluated
                if c.location.file is not None and children:
                    fname = c.location.file.name
                    after = self.skip_space(fname, name_off + len(c.spelling.encode()))
                    ranges = []
                    while True:
                        end = self.bracket_end(fname, after, b"[", b"]")
                        if end is None:
                            break
                        ranges.append((fname, after, end))
                        after = self.skip_space(fname, end)
                    children = self.drop_in_ranges(children, ranges)
            elif k == K.UNEXPOSED_DECL:
                if c.spelling.startswith("["):  # a structured binding declaration
                    self.note_type(acc, c.type, c, "structured binding")
                    children = []
                    for x in c.get_children():
                        if x.kind == K.UNEXPOSED_DECL:
                            self.note_type(acc, x.type, x, "binding '%s'" % x.spelling)
                        elif x.kind.is_expression():
                            children.append(x)
                else:
                    continue
            elif k == K.LAMBDA_EXPR:
                # A lambda defined here: its closure object is a value of this function, its
                # capture initializers are evaluated here; its body is a function of its own,
                # part of the reach only if it is called.
                children = []
                for x in c.get_children():
                    if x.kind in (K.PARM_DECL, K.COMPOUND_STMT):
                        break
                    if x.kind.is_expression():
                        children.append(x)
            elif k == K.IF_STMT and self.is_constexpr_if(c):
                kids = list(c.get_children())
                close = self.closing_paren(c)
                if close is None:
                    notes.append("if constexpr at %s: condition not found; both branches walked" % self.where(c))
                    children = kids
                else:
                    head = [x for x in kids if x.extent.start.offset < close]
                    branches = [x for x in kids if x.extent.start.offset >= close]
                    value = evaluate_int(head[-1]) if head else None
                    children = head[:-1]  # an init-statement, if any, is evaluated
                    if value is None:
                        notes.append(
                            "if constexpr at %s: condition not evaluated; both branches walked" % self.where(c)
                        )
                        children += branches
                    elif value:
                        children += branches[:1]
                    else:
                        children += branches[1:2]
            if children is None:
                children = list(c.get_children())
                if any(x.kind == K.TEMPLATE_REF for x in children):
                    children = self.drop_in_ranges(children, self.template_arg_ranges(children))
            stack.extend((x, in_const) for x in reversed(children))

    def kernel_aspects(self, kfn, visited=None):
        acc, notes = Uses(), []
        seen = set()
        work = [kfn]
        while work:
            fn = work.pop()
            key = cursor_key(fn)
            if key in seen:
                continue
            seen.add(key)
            if visited is not None:
                visited.append(fn)
            callees = []
            self.collect_function(fn, acc, callees, notes)
            for ref in callees:
                if self.is_library(ref):
                    continue
                d = ref.get_definition()
                if d is None or d.kind not in FUNCTION_KINDS or self.is_library(d):
                    continue
                if cursor_key(d) not in seen:
                    work.append(d)
        return acc, notes, len(seen)

    # ----- finding kernels -------------------------------------------------------------------
    def is_launcher(self, ref):
        if ref is None or ref.kind != K.CXX_METHOD or ref.spelling not in LAUNCHERS:
            return False
        return is_sycl_class(ref.semantic_parent, LAUNCH_CLASSES)

    def host_roots(self, cursor, out):
        for c in cursor.get_children():
            if c.location.file is None or self.is_library(c):
                continue
            k = c.kind
            if k in (K.NAMESPACE, K.LINKAGE_SPEC, K.CLASS_DECL, K.STRUCT_DECL, K.UNION_DECL):
                self.host_roots(c, out)
            elif k in FUNCTION_KINDS and c.is_definition():
                out.append(c)
            elif k == K.VAR_DECL:
                out.append(c)

    def find_kernel_function(self, launcher_def, kclass):
        """The operator() of kclass that the launcher's instantiated body calls."""
        seen = set()
        work = [launcher_def]
        while work:
            fn = work.pop()
            key = cursor_key(fn)
            if key in seen or len(seen) > 50:
                continue
            seen.add(key)
            for x in fn.walk_preorder():
                if x.kind != K.CALL_EXPR:
                    continue
                ref = x.referenced
                if ref is None:
                    continue
                if ref.spelling == "operator()" and ref.semantic_parent == kclass:
                    return ref
                if ref.kind in FUNCTION_KINDS and self.is_library(ref):
                    d = ref.get_definition()
                    if d is not None:
                        work.append(d)
        return None

    def find_launches(self, tu, extra_roots=()):
        roots = []
        self.host_roots(tu.cursor, roots)
        roots += list(extra_roots)
        seen = set()
        launches = []
        work = list(reversed(roots))
        while work:
            fn = work.pop()
            key = cursor_key(fn)
            if key in seen:
                continue
            seen.add(key)
            for x in fn.walk_preorder():
                if x.kind not in (K.CALL_EXPR, K.DECL_REF_EXPR):
                    continue
                ref = x.referenced
                if ref is None or ref.kind not in FUNCTION_KINDS:
                    continue
                if x.kind == K.CALL_EXPR and self.is_launcher(ref):
                    launches.append((x, ref))
                    continue
                # A function named without being called (`fp = run<32>;`, `{f<1>, f<2>}`, an
                # argument) is odr-used: clang defines the instance ([temp.inst]/4), and the
                # kernels it launches are compiled. Named only in an unevaluated operand, it has
                # no definition, so it is not followed.
                d = ref.get_definition()
                if d is not None and d.kind in FUNCTION_KINDS and cursor_key(d) not in seen:
                    work.append(d)
        return launches


    # ----- explicit instantiation definitions --------------------------------------------------
    # libclang shows neither the functions an explicit instantiation definition instantiates nor,
    # for function templates, the declaration itself. The oracle finds `template DECL;` (not
    # `extern template`) in the file's tokens and writes, right after its `;` on the same line, a
    # probe `static_assert(sizeof(&S<double>::go) > 0, "")` naming each function it instantiates
    # (for a class: every non-template member function of the template the specialization was
    # instantiated from; for a function: a cast to the declared signature, which selects the
    # specialization as clang does). The operand is unevaluated: the probe instantiates nothing
    # itself, and the function is a root only if clang defined it (get_definition()).
    PROBE_MSG = '"sycl-analyzer differential oracle probe"'

    def tokens_of(self, tu, path):
        out = []
        skip_line = None
        data = self.files.get(path)
        lines = data.split(b"\n")
        prev_line = 0
        for t in tu.get_tokens(extent=tu.cursor.extent):
            loc = t.location
            if loc.file is None or os.path.realpath(loc.file.name) != os.path.realpath(path):
                continue
            line = loc.line
            if skip_line is not None and line <= skip_line:
                continue
            if t.spelling == "#" and line != prev_line:
                # a preprocessor directive, with its continuation lines
                end = line
                while end - 1 < len(lines) and lines[end - 1].rstrip().endswith(b"\\"):
                    end += 1
                skip_line = end
                continue
            prev_line = line
            if t.kind == ci.TokenKind.COMMENT:
                continue
            out.append((t.spelling, t.extent.start.offset, t.extent.end.offset))
        return out

    def class_names(self, cursor, out):
        for c in cursor.get_children():
            if c.kind in (K.NAMESPACE, K.LINKAGE_SPEC):
                self.class_names(c, out)
            elif c.kind in (K.CLASS_DECL, K.STRUCT_DECL, K.UNION_DECL, K.CLASS_TEMPLATE):
                out.add(c.spelling)
                self.class_names(c, out)
        return out

    def explicit_instantiations(self, tu, path):
        """[(offset after the `;`, probe text or None, description)] of the explicit
        instantiation definitions in the file."""
        toks = self.tokens_of(tu, path)
        data = self.files.get(path)
        text = lambda a, b: data[toks[a][1] : toks[b][2]].decode("utf-8", "replace") if a <= b else ""
        sp = [t[0] for t in toks]
        classes = None
        out = []
        for i, t in enumerate(sp):
            if t != "template" or i + 1 >= len(sp) or sp[i + 1] == "<":
                continue
            if i > 0 and sp[i - 1] in (".", "->", "::", "extern"):
                continue  # the `template` disambiguator, or an explicit instantiation declaration
            j, depth = i + 1, 0
            while j < len(sp) and not (sp[j] == ";" and depth == 0):
                if sp[j] in ("(", "[", "{"):
                    depth += 1
                elif sp[j] in (")", "]", "}"):
                    depth -= 1
                j += 1
            if j >= len(sp):
                continue
            decl = text(i, j)
            end_off = toks[j][2]
            if sp[i + 1] in ("class", "struct", "union"):
                cls_text = text(i + 2, j - 1)
                spec = ci.Cursor.from_location(tu, tu.get_location(path, toks[i + 2][1]))
                if spec is None or spec.kind not in (K.CLASS_DECL, K.STRUCT_DECL, K.UNION_DECL):
                    out.append((end_off, None, "%s: the specialization was not found" % decl))
                    continue
                tmpl = _lib.clang_getSpecializedCursorTemplate(spec)
                if tmpl is None or tmpl.kind not in (K.CLASS_TEMPLATE, K.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION):
                    out.append((end_off, None, "%s: no template behind the specialization" % decl))
                    continue
                names = [c.spelling for c in tmpl.get_children()
                         if c.kind in (K.CXX_METHOD, K.CONVERSION_FUNCTION)]
                uniq = [n for n in dict.fromkeys(names) if names.count(n) == 1]
                skipped = [n for n in dict.fromkeys(names) if names.count(n) > 1]
                desc = decl + (" (overloaded members not probed: %s)" % ", ".join(skipped) if skipped else "")
                if uniq:
                    probe = " && ".join("sizeof(&%s::%s) > 0" % (cls_text, n) for n in uniq)
                    out.append((end_off, "static_assert(%s, %s);" % (probe, self.PROBE_MSG), desc))
                continue
            # a function: RET NAME[<ARGS>](PARAMS) TRAIL
            k, angle = i + 1, 0
            params = None
            while k < j:
                x = sp[k]
                if x == "<":
                    angle += 1
                elif x == ">":
                    angle -= 1
                elif x == ">>":
                    angle -= 2
                elif x == "(" and angle <= 0 and sp[k - 1] != "operator":
                    params = k
                    break
                k += 1
            if params is None:
                out.append((end_off, None, "%s: no parameter list found" % decl))
                continue
            d, close = 0, None
            for m in range(params, j):
                if sp[m] == "(":
                    d += 1
                elif sp[m] == ")":
                    d -= 1
                    if d == 0:
                        close = m
                        break
            trail = sp[close + 1 : j] if close is not None else ["?"]
            if close is None or any(x not in ("const", "volatile", "&", "&&", "noexcept") for x in trail):
                out.append((end_off, None, "%s: declarator not understood" % decl))
                continue
            # the qualified name, read backwards from the parameter list
            def back_template_args(e):
                """index of the `<` matching the `>` at e"""
                d2 = 0
                for m in range(e, i, -1):
                    if sp[m] == ">":
                        d2 += 1
                    elif sp[m] == ">>":
                        d2 += 2
                    elif sp[m] == "<":
                        d2 -= 1
                        if d2 == 0:
                            return m
                return None

            e = params - 1
            args_text = ""
            if sp[e] in (">", ">>"):
                lt = back_template_args(e)
                if lt is None:
                    out.append((end_off, None, "%s: template arguments not understood" % decl))
                    continue
                args_text = text(lt, e)
                e = lt - 1
            name_end = e
            if sp[e] == ")" and sp[e - 1] == "(" and sp[e - 2] == "operator":
                e -= 2
            elif e - 1 > i and sp[e - 1] == "operator":
                e -= 1
            name_start = e
            while name_start - 1 > i and sp[name_start - 1] == "::":
                q = name_start - 2
                if sp[q] in (">", ">>"):
                    lt = back_template_args(q)
                    if lt is None:
                        break
                    q = lt - 1
                name_start = q
            qual_name = text(name_start, name_end)
            ret = text(i + 1, name_start - 1)
            ps = text(params, close)
            tr = " ".join(trail)
            member = None
            if "::" in sp[name_start:name_end]:
                last = max(m for m in range(name_start, name_end) if sp[m] == "::")
                qual = text(name_start, last - 1)
                if sp[last - 1] in (">", ">>"):
                    member = qual
                else:
                    if classes is None:
                        classes = self.class_names(tu.cursor, set())
                    if sp[last - 1] in classes:
                        member = qual
            if member:
                ptr = "%s (%s::*)%s %s" % (ret, member, ps, tr)
            else:
                ptr = "%s (*)%s %s" % (ret, ps, tr)
            probe = "static_assert(sizeof(static_cast<%s>(&%s%s)) > 0, %s);" % (ptr.strip(), qual_name, args_text, self.PROBE_MSG)
            out.append((end_off, probe, decl))
        return out

    def probe_roots(self, cursor, out):
        """Definitions named by the oracle's probes (found anywhere at namespace scope)."""
        for c in cursor.get_children():
            if c.kind in (K.NAMESPACE, K.LINKAGE_SPEC):
                self.probe_roots(c, out)
            elif c.kind == K.STATIC_ASSERT:
                lits = [x for x in c.get_children() if x.kind == K.STRING_LITERAL]
                if not lits or lits[-1].spelling != self.PROBE_MSG:
                    continue
                for x in c.walk_preorder():
                    if x.kind == K.DECL_REF_EXPR:
                        r = x.referenced
                        d = r.get_definition() if r is not None else None
                        if d is not None and d.kind in FUNCTION_KINDS:
                            out.append(d)
        return out

    def parse_with_probes(self, path, cargs, tu, notes):
        """Re-parses the file with probes for its explicit instantiation definitions; returns
        (tu, extra roots)."""
        found = self.explicit_instantiations(tu, path)
        if not found:
            return tu, []
        for _, probe, desc in found:
            if probe is None:
                notes.append("explicit instantiation not followed: " + desc)
        probes = [(off, p, desc) for off, p, desc in found if p is not None]
        original = self.files.get(path)
        for _attempt in range(3):
            if not probes:
                return tu, []
            pieces, last, ranges, shift = [], 0, [], 0
            for off, p, desc in sorted(probes):
                pieces.append(original[last:off])
                ins = (" " + p).encode()
                ranges.append((off + shift, off + shift + len(ins), (off, p, desc)))
                pieces.append(ins)
                shift += len(ins)
                last = off
            pieces.append(original[last:])
            text = b"".join(pieces)
            others = [(f, t) for f, t in self.unsaved if os.path.realpath(f) != os.path.realpath(path)]
            tu2 = self.index.parse(path, args=cargs, unsaved_files=[(path, text.decode("utf-8", "replace"))] + others)
            bad = set()
            other = False
            for dg in tu2.diagnostics:
                if dg.severity < ci.Diagnostic.Error:
                    continue
                f = dg.location.file
                hit = [r for r in ranges if f is not None and os.path.realpath(f.name) == os.path.realpath(path)
                       and r[0] <= dg.location.offset < r[1]]
                if hit:
                    bad.add(hit[0][2])
                else:
                    other = True
            if not bad and not other:
                self.files.data[path] = text
                roots = self.probe_roots(tu2.cursor, [])
                return tu2, roots
            if other and not bad:
                notes.append("the probes for explicit instantiations broke the parse; not followed")
                return tu, []
            for b in bad:
                notes.append("explicit instantiation not followed (its probe does not compile): " + b[2])
            probes = [x for x in probes if x not in bad]
        return tu, []

    # ----- functions named in a braced initializer list ---------------------------------------
    # `void (*fs[])(sycl::queue &, T *) = {run<32>, run<64>};` odr-uses run<32, T> and run<64, T>
    # (clang defines them), but libclang shows an initializer list in its syntactic form, where
    # each element is still the unresolved overload set. The oracle re-parses with a probe at the
    # end of the declaration's line, `(void)sizeof(static_cast<decltype(+fs[0])>(run<32>));`, per
    # element: an unevaluated operand that resolves the name to the instance and instantiates
    # nothing itself; find_launches follows it if clang defined it.
    ADDRESS_PROBE = " (void)sizeof(static_cast<decltype(+%s[0])>(%s));"

    def address_probes(self, tu):
        """{file name: [(offset of the end of the line, probe text)]} for the braced function
        pointer arrays of the user's files."""
        out = {}
        for c in tu.cursor.walk_preorder():
            if c.kind != K.DECL_STMT or c.location.file is None or self.is_library(c):
                continue
            for v in c.get_children():
                t = v.type.get_canonical() if v.kind == K.VAR_DECL else None
                if t is None or t._kind_id not in ARRAY_KINDS:
                    continue
                el = t.element_type
                if el.kind != T.POINTER or el.get_pointee().kind not in (T.FUNCTIONPROTO, T.FUNCTIONNOPROTO):
                    continue
                lists = [x for x in v.get_children() if x.kind == K.INIT_LIST_EXPR]
                if not lists:
                    continue
                fname = c.extent.end.file.name
                data = self.files.get(fname)
                eol = data.find(b"\n", c.extent.end.offset)
                eol = len(data) if eol < 0 else eol
                for e in lists[0].get_children():
                    if not any(x.kind == K.OVERLOADED_DECL_REF for x in e.walk_preorder()):
                        continue
                    text = data[e.extent.start.offset : e.extent.end.offset].decode("utf-8", "replace")
                    out.setdefault(fname, []).append((eol, self.ADDRESS_PROBE % (v.spelling, text)))
        return out

    def parse_with_address_probes(self, path, cargs, tu, notes):
        """Re-parses with the probes of address_probes (if any): the new tu, or tu when they do
        not compile."""
        probes = self.address_probes(tu)
        if not probes:
            return tu
        texts = {}
        for fname, ps in probes.items():
            data = self.files.get(fname)
            pieces, last = [], 0
            for off, p in sorted(ps):
                pieces += [data[last:off], p.encode()]
                last = off
            pieces.append(data[last:])
            texts[fname] = b"".join(pieces)
        unsaved = [(f, t.decode("utf-8", "replace")) for f, t in texts.items()]
        tu2 = self.index.parse(path, args=cargs, unsaved_files=unsaved)
        if any(d.severity >= ci.Diagnostic.Error for d in tu2.diagnostics):
            notes.append("functions named in braced initializer lists not followed (their probes do not compile)")
            return tu
        for f, t in texts.items():
            real = os.path.realpath(f)
            for name in [f] + [n for n in list(self.files.data) if os.path.realpath(n) == real]:
                self.files.data[name] = t
        self.unsaved = unsaved
        return tu2

    # ----- functions declaring device_has ------------------------------------------------------
    # clang ignores `[[sycl::device_has(...)]]` (an unknown attribute): it is read from the source
    # between a function's (or function template's) start and its name. Device code is what the
    # kernels reach: an instance of a decorated template that only host code calls is never
    # compiled for a device, so it is checked against nothing (DPC++ warns in the device compile).
    DEVICE_HAS_RE = re.compile(rb"device_has\s*\(([^)]*)\)")

    def decorated_functions(self, tu):
        """{(real path, line, column) of a decorated function's name: entry} of the user's files."""
        out = {}
        for c in tu.cursor.walk_preorder():
            if c.kind not in (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE, K.CXX_METHOD) or c.location.file is None:
                continue
            if self.is_library(c) or not c.is_definition():
                continue
            fname = c.location.file.name
            head = self.files.get(fname)[c.extent.start.offset : c.location.offset]
            m = self.DEVICE_HAS_RE.search(head)
            if m is None:
                continue
            line = c.location.line
            col = self.files.char_column(fname, line, c.location.column)
            declared = set(x.decode() for x in re.findall(rb"aspect::(\w+)", m.group(1)))
            out[(os.path.realpath(fname), line, col)] = {
                "file": fname, "line": line, "column": col, "name": c.spelling,
                "declared": declared, "used": set(), "used_folded": set(), "instances": [],
            }
        return out

    def note_decorated(self, decorated, visited, memo):
        """Adds the aspects of every decorated function among a kernel's reach (its own reach)."""
        for fn in visited:
            loc = fn.location
            if loc.file is None:
                continue
            key = (os.path.realpath(loc.file.name), loc.line, self.files.char_column(loc.file.name, loc.line, loc.column))
            if key not in decorated:
                continue
            ck = cursor_key(fn)
            if ck not in memo:
                memo[ck] = self.kernel_aspects(fn)[0]
            d = decorated[key]
            d["used"] |= memo[ck].used
            d["used_folded"] |= memo[ck].folded
            if fn.displayname not in d["instances"]:
                d["instances"].append(fn.displayname)

    # ----- entry point ---------------------------------------------------------------------
    def analyze(self, path, include_dirs=(), args=None):
        self.files = FileCache()
        self.root = os.path.dirname(os.path.realpath(path))
        self.record_cache = {}
        cargs = list(DEFAULT_ARGS if args is None else args) + self.extra_args
        for d in include_dirs:
            cargs += ["-I", d]
        tu = self.index.parse(path, args=cargs)
        errors = [
            "%s:%d:%d: %s" % (d.location.file.name if d.location.file else "?", d.location.line, d.location.column, d.spelling)
            for d in tu.diagnostics
            if d.severity >= ci.Diagnostic.Error
        ]
        # the headers the file includes, directly or not, outside the library (kernels may be there)
        includes = sorted({os.path.realpath(i.include.name) for i in tu.get_includes()
                           if i.include is not None and not self.is_library_file(i.include.name)})
        result = {"file": path, "errors": errors, "includes": includes, "kernels": []}
        if errors:
            return result
        file_notes = []
        self.unsaved = []
        tu = self.parse_with_address_probes(path, cargs, tu, file_notes)
        tu, extra_roots = self.parse_with_probes(path, cargs, tu, file_notes)
        if file_notes:
            result["notes"] = file_notes
        kernels = {}
        decorated, memo = self.decorated_functions(tu), {}
        for call, launcher in self.find_launches(tu, extra_roots):
            notes = []
            args_ = list(call.get_arguments())
            if not args_:
                continue
            ktype = strip_type(args_[-1].type)
            kclass = ktype.get_declaration()
            if kclass is None or kclass.kind not in (K.CLASS_DECL, K.STRUCT_DECL, K.UNION_DECL):
                notes.append("kernel argument of %s is not a class (%s)" % (self.where(call), ktype.spelling))
                continue
            ldef = launcher.get_definition() or launcher
            kfn = self.find_kernel_function(ldef, kclass)
            if kfn is None:
                # The launcher does not call the kernel in this parse (real SYCL headers call it
                # in device compilation only): take the class's operator() if there is one.
                ops = [x for x in kclass.get_children() if x.spelling == "operator()"]
                if len(ops) == 1 and ops[0].kind == K.CXX_METHOD:
                    kfn = ops[0]
                    notes.append("the launcher at %s does not call the kernel; its operator() was taken from the class" % self.where(call))
                else:
                    sys.stderr.write("oracle: no operator() call found for the kernel at %s (a generic or overloaded "
                                     "operator() that the launcher does not instantiate is not analysed)\n" % self.where(call))
                    continue
            kdef = kfn.get_definition() or kfn
            kname = ktype.spelling
            for q in ("const ", "volatile "):
                if kname.startswith(q):
                    kname = kname[len(q):]
            is_lambda = kclass.spelling.startswith("(lambda at ")
            anchor = kclass if is_lambda else kfn.canonical
            loc = anchor.location
            fname = loc.file.name if loc.file else path
            line = loc.line
            col = self.files.char_column(fname, line, loc.column)
            key = (os.path.realpath(fname), line, col)
            visited = []
            acc, knotes, nfuncs = self.kernel_aspects(kdef, visited)
            if decorated:
                self.note_decorated(decorated, visited, memo)
            if is_lambda:
                encl = kclass.semantic_parent
                name = "lambda in %s [%s]" % (
                    encl.spelling if encl is not None else "?",
                    encl.type.spelling if encl is not None else "",
                )
                name += " operator()%s" % kfn.type.spelling.split(" ", 1)[-1]
            else:
                name = "%s::operator()%s" % (kname, kfn.type.spelling.split(" ", 1)[-1])
            k = kernels.setdefault(
                key,
                {
                    "file": fname,
                    "line": line,
                    "column": col,
                    "kind": "lambda" if is_lambda else "functor",
                    "names": [],
                    "used": set(),
                    "used_folded": set(),
                    "why": {},
                    "why_folded": {},
                    "launched_at": [],
                    "notes": [],
                    "functions": 0,
                },
            )
            if name not in k["names"]:
                k["names"].append(name)
            for a in acc.used:
                if a not in k["used"]:
                    k["used"].add(a)
                    k["why"][a] = acc.why[a]
            for a in acc.folded:
                if a not in k["used_folded"]:
                    k["used_folded"].add(a)
                    k["why_folded"][a] = acc.why_folded[a]
            w = self.where(call)
            if w not in k["launched_at"]:
                k["launched_at"].append(w)
            k["notes"] += [n for n in notes + knotes if n not in k["notes"]]
            k["functions"] = max(k["functions"], nfuncs)
        out = []
        for key in sorted(kernels):
            k = kernels[key]
            k["used"] = [a for a in ASPECT_ORDER if a in k["used"]]
            k["used_folded"] = [a for a in ASPECT_ORDER if a in k["used_folded"]]
            out.append(k)
        result["kernels"] = out
        # per decorated function: the aspects its device instances use that it does not declare
        result["device_has"] = []
        for key in sorted(decorated):
            d = decorated[key]
            d["findings"] = [a for a in ASPECT_ORDER if a in d["used"] and a not in d["declared"]]
            d["findings_folded"] = [a for a in ASPECT_ORDER if a in d["used_folded"] and a not in d["declared"]]
            for k in ("declared", "used", "used_folded"):
                d[k] = [a for a in ASPECT_ORDER if a in d[k]] + sorted(a for a in d[k] if a not in ASPECT_ORDER)
            result["device_has"].append(d)
        return result


def main(argv):
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("-I", dest="includes", action="append", default=[], help="include directory")
    ap.add_argument("--lib-dir", action="append", default=[], help="a directory whose functions are library")
    ap.add_argument("--clang-arg", action="append", default=[], help="an extra argument for clang")
    ns = ap.parse_args(argv)
    here = os.path.dirname(os.path.abspath(__file__))
    o = Oracle(lib_dirs=ns.lib_dir, extra_args=ns.clang_arg)
    results = [o.analyze(f, include_dirs=ns.includes + [here]) for f in ns.files]
    json.dump(results if len(results) > 1 else results[0], sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 1 if any(r["errors"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
