#!/usr/bin/env python3
"""SYCL-CTS `tests/optional_kernel_features` against the libclang oracle, kernel by kernel (issue 50,
"What to build" 4).

The analyzer checks the CTS's own sources as its CMake build compiles them with its defaults
(every `add_cts_option` at its default value as `-DNAME=0|1`, so SYCL_CTS_ENABLE_DOUBLE_TESTS=1
and SYCL_CTS_ENABLE_HALF_TESTS=1; `-DSYCL_CTS_COMPILING_WITH_DPCPP`; the test folder, the CTS root
and tests/ and Catch2's src/ on the include path), for a target without fp64, fp16 and atomic64
(`-fsycl-targets=intel_gpu_acm_g10`... any such target: only the kernels' used aspects are
compared). The oracle parses a copy of the folder (lines and columns kept) in which <sycl/sycl.hpp>
is real_corpus.py's header copy (sycl_mini.hpp plus what real programs use), the CTS's
SYCL-heavy utility headers that the folder includes (tests/common/common.h,
util/sycl_exceptions.h) are replaced by STANDIN (the few host-side names the folder uses: the
test queue, the exception matcher), and Catch2 and the CTS's macro headers are the real ones.
Kernels are matched by (file, line, column) in the folder's files; per aspect, the share of
kernels on which both agree is the figure (target: 95 % per aspect).

    cts_kernel_features.py [--cts DIR] [--catch2 DIR] [--analyzer BIN] [--json-report FILE] [--keep-temp]

Catch2 v3's src/ with a catch_user_config.hpp (CMake generates it; an empty configuration is
enough) is needed by both sides: `--catch2` names it (a `git archive v3.7.1 src` of
catchorg/Catch2 with `catch_user_config.hpp` written from its `.in` minus the `#cmakedefine`s).
"""

import argparse, collections, glob, json, os, re, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import real_corpus  # noqa: E402  (the header copy, the system include path)

ASPECTS = ["fp64", "fp16", "atomic64"]
FOLDER = "tests/optional_kernel_features"
REAL = ["tests/common/disabled_for_test_case.h", "tests/common/macro_utils.h"]  # macros only, kept
STANDIN_FOR = ["tests/common/common.h", "util/sycl_exceptions.h"]

# What the folder uses of the CTS's utility headers: host code only (no kernel reaches it).
STANDIN = r"""#ifndef CTS_KERNEL_FEATURES_STANDIN
#define CTS_KERNEL_FEATURES_STANDIN
// cts_kernel_features.py: stand-in for the SYCL CTS utility headers (host-side names only)
#include SYCL_HEADER
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_templated.hpp>
#include <catch2/catch_template_test_macros.hpp>
#include <algorithm>
#include <cinttypes>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>
// Catch2 registers a template test case's instances through a static object's template
// constructor, which no non-template function calls: the oracle, which starts from those, would
// see none. Here each instance list becomes a function calling every instance, declared before
// the test's body (clang instantiates the body at the end of the TU).
#undef TEMPLATE_TEST_CASE_SIG
#define TEMPLATE_TEST_CASE_SIG(NAME, TAGS, SIG, ...) CTS_TTCS(CTS_CAT(cts_ttcs_, __COUNTER__), SIG, __VA_ARGS__)
#define CTS_CAT(a, b) CTS_CAT_(a, b)
#define CTS_CAT_(a, b) a##b
#define CTS_STRIP(...) __VA_ARGS__
#define CTS_SIG_PARAMS(P, ...) CTS_STRIP P
#define CTS_PARAMS(SIG) CTS_SIG_PARAMS SIG
#define CTS_TTCS(FN, SIG, ...)                                              \
  template <CTS_PARAMS(SIG)> void FN();                                     \
  inline void CTS_CAT(FN, _instances)() { CTS_EACH(FN, __VA_ARGS__) }       \
  template <CTS_PARAMS(SIG)> void FN()
#define CTS_ONE(FN, I) FN<CTS_UNPAREN(I)>();  // an instance is (T, A) or a bare value
#define CTS_UNPAREN(x) CTS_PASTE_NO(CTS_DEPAREN x)
#define CTS_DEPAREN(...) CTS_DEPAREN __VA_ARGS__
#define CTS_PASTE_NO(...) CTS_PASTE_NO_(__VA_ARGS__)
#define CTS_PASTE_NO_(...) CTS_NO_##__VA_ARGS__
#define CTS_NO_CTS_DEPAREN
#define CTS_EACH(FN, ...) CTS_GET(__VA_ARGS__, CTS_E8, CTS_E7, CTS_E6, CTS_E5, CTS_E4, CTS_E3, CTS_E2, CTS_E1)(FN, __VA_ARGS__)
#define CTS_GET(_1, _2, _3, _4, _5, _6, _7, _8, N, ...) N
#define CTS_E1(FN, a) CTS_ONE(FN, a)
#define CTS_E2(FN, a, ...) CTS_ONE(FN, a) CTS_E1(FN, __VA_ARGS__)
#define CTS_E3(FN, a, ...) CTS_ONE(FN, a) CTS_E2(FN, __VA_ARGS__)
#define CTS_E4(FN, a, ...) CTS_ONE(FN, a) CTS_E3(FN, __VA_ARGS__)
#define CTS_E5(FN, a, ...) CTS_ONE(FN, a) CTS_E4(FN, __VA_ARGS__)
#define CTS_E6(FN, a, ...) CTS_ONE(FN, a) CTS_E5(FN, __VA_ARGS__)
#define CTS_E7(FN, a, ...) CTS_ONE(FN, a) CTS_E6(FN, __VA_ARGS__)
#define CTS_E8(FN, a, ...) CTS_ONE(FN, a) CTS_E7(FN, __VA_ARGS__)
namespace sycl { inline namespace _V1 {
enum class errc { success, runtime, kernel, accessor, nd_range, event, kernel_argument, build, invalid,
                  memory_allocation, platform, profiling, feature_not_supported, kernel_not_supported, backend_mismatch };
std::error_code make_error_code(errc e) noexcept;
} }
namespace std { template <> struct is_error_code_enum<sycl::errc> : true_type {}; }
namespace sycl_cts { namespace util {
struct get_cts_object {
  static sycl::queue queue();
  template <int D> struct range { static sycl::range<D> get(size_t r0, size_t r1, size_t r2); };
};
struct equals_exception : Catch::Matchers::MatcherGenericBase {
  explicit equals_exception(sycl::errc e);
  bool match(const sycl::exception &e) const;
  std::string describe() const override;
};
} }
#endif
"""

# Members the folder calls that sycl_mini.hpp and real_corpus.py's additions lack.
EXTRA = r"""
namespace sycl { inline namespace _V1 {
namespace info { namespace device { template <int D> struct max_work_item_sizes { using return_type = range<D>; }; } }
} }
"""


def name_lambdas_by_their_bracket():
    """libclang names a lambda written in a macro argument (all of a Catch2 test body) by the
    outermost macro invocation, so every kernel of a test case would share one location; the
    analyzer names it by its `[`. Lambda classes here get the location of their `[` when the file
    has it there (clang's file location of a macro argument), else the invocation's (a lambda
    written in a macro's body), as the analyzer does."""
    import ctypes
    import clang.cindex as ci

    spelling = ci.conf.lib.clang_getSpellingLocation
    spelling.argtypes = [ci.SourceLocation, ctypes.POINTER(ci.c_object_p)] + [ctypes.POINTER(ctypes.c_uint)] * 3
    plain = ci.Cursor.location.fget

    def location(cursor):
        loc = plain(cursor)
        if cursor.kind != ci.CursorKind.CLASS_DECL or not cursor.spelling.startswith("(lambda at") or loc.file is None:
            return loc
        f, line, col, off = ci.c_object_p(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
        spelling(loc, ctypes.byref(f), ctypes.byref(line), ctypes.byref(col), ctypes.byref(off))
        if not f or ci.File(f).name != loc.file.name or off.value == loc.offset:
            return loc
        with open(loc.file.name, "rb") as fh:
            fh.seek(off.value)
            if fh.read(1) != b"[":
                return loc
        # (libclang maps a file offset inside a macro argument back to the invocation: a plain record)
        return collections.namedtuple("Loc", "file line column offset")(loc.file, line.value, col.value, off.value)

    ci.Cursor.location = property(location)


def note_missing_definitions(o):
    """A kernel whose reach calls a function this TU does not define (the folder's SYCL_EXTERNAL
    use_feature_function_external_decorated, defined in kernel_features_separate_unit.cpp) is
    incomplete for the oracle, which sees one TU: noted, as real_corpus.py does, and left out."""
    import clang.cindex as ci

    collect = o.collect_function

    def record(fn, acc, callees, notes):
        collect(fn, acc, callees, notes)
        for ref in callees:
            if (ref.kind in (ci.CursorKind.FUNCTION_DECL, ci.CursorKind.CXX_METHOD) and ref.spelling != "operator="
                    and not ref.spelling.startswith("__builtin") and not o.is_library(ref) and ref.get_definition() is None):
                note = "%s %s" % (real_corpus.EXTERNAL, ref.spelling)
                notes += [] if note in notes else [note]

    o.collect_function = record


def cts_defines(cts):
    text = open(os.path.join(cts, "CMakeLists.txt")).read()
    opts = re.findall(r'add_cts_option\((\w+)\s+"[^"]*"\s+(ON|OFF)', text)
    return ["SYCL_CTS_COMPILING_WITH_DPCPP"] + ["%s=%d" % (n, v == "ON") for n, v in opts]


def write_copy(cts, copy, sycl_header):
    """The folder and the CTS macro headers, lines kept, with the utility headers replaced by
    STANDIN; with sycl_header, <sycl/sycl.hpp> becomes it."""
    for rel in [os.path.join(FOLDER, n) for n in os.listdir(os.path.join(cts, FOLDER))] + REAL:
        d = os.path.join(copy, rel)
        os.makedirs(os.path.dirname(d), exist_ok=True)
        text = real_corpus.read(os.path.join(cts, rel))
        with open(d, "w") as f:
            f.write(real_corpus.SYCL_INCLUDE.sub(r'\1"%s"' % sycl_header, text) if sycl_header else text)
    for rel in STANDIN_FOR:
        os.makedirs(os.path.dirname(os.path.join(copy, rel)), exist_ok=True)
        with open(os.path.join(copy, rel), "w") as f:
            f.write(STANDIN.replace("SYCL_HEADER", '"%s"' % sycl_header if sycl_header else "<sycl/sycl.hpp>"))
    return copy


def analyzer_kernels(cts, catch2, analyzer, defines, tmp, orig=lambda p: p):
    """The analyzer on the tree cts (the CTS, or a copy: orig maps its paths back)."""
    folder = os.path.join(cts, FOLDER)
    cc = [{"directory": folder, "file": f, "arguments": [
        "/opt/intel/oneapi/compiler/2025.0.0/linux/bin/icpx", "-fsycl", "-fsycl-targets=intel_gpu_acm_g10", "-std=c++17",
        "-I" + folder, "-I" + cts, "-I" + os.path.join(cts, "tests"), "-I" + catch2] + ["-D" + d for d in defines] + ["-c", f]}
        for f in sorted(glob.glob(os.path.join(folder, "*.cpp")))]
    path = os.path.join(tmp, "compile_commands_%d.json" % len(os.listdir(tmp)))
    with open(path, "w") as f:
        json.dump(cc, f, indent=1)
    p = subprocess.run([analyzer, "check", folder, "--compile-commands", path, "--targets", "intel_gpu_acm_g10", "--no-cache",
                        "--format", "json"], capture_output=True, text=True, timeout=900)
    if p.returncode not in (0, 1):
        raise SystemExit("analyzer exit %d: %s" % (p.returncode, p.stderr[-500:]))
    out, kernels = json.loads(p.stdout), {}
    for k in out["kernels"]:
        f = os.path.realpath(orig(os.path.realpath(os.path.join(folder, k["file"]))))
        kernels.setdefault((f, k["line"], k["column"]), set()).update(set(k["used"]) & set(ASPECTS))
    return kernels, out.get("problems", [])


def oracle_kernels(cts, catch2, defines, tmp):
    import oracle

    lib = os.path.join(tmp, "lib")
    os.makedirs(lib)
    header = os.path.join(lib, "sycl_mini_real.hpp")
    real_corpus.make_header(header)
    text = real_corpus.read(header).replace("RC_INFO(max_work_item_sizes, range<3>) ", "")  # SYCL 2020's is a template
    at, line = real_corpus.find_anchor(text, "class queue { ...   void wait_and_throw();")
    text = text[:at] + "  void throw_asynchronous();\n" + text[at:]
    with open(header, "w") as f:
        f.write(text + EXTRA)
    for h in real_corpus.OVERRIDDEN:
        open(os.path.join(lib, h), "w").close()
    sysinc = real_corpus.system_includes()
    real_corpus.check_header(header, sysinc)
    copy = write_copy(cts, os.path.join(tmp, "cts"), header)
    name_lambdas_by_their_bracket()
    o = oracle.Oracle(lib_dirs=[lib, catch2] + sysinc)
    note_missing_definitions(o)
    args = ["-x", "c++", "-std=c++17", "-nostdinc", "-nostdinc++", "-Wno-everything", "-ferror-limit=0", "-DSYCL_LANGUAGE_VERSION=202012",
            "-I", lib, "-I", os.path.join(copy, FOLDER), "-I", copy, "-I", os.path.join(copy, "tests"), "-isystem", catch2]
    args += ["-D" + d for d in defines] + [x for d in sysinc for x in ("-isystem", d)]
    kernels, tus = {}, []
    orig = lambda p: os.path.join(cts, os.path.relpath(os.path.realpath(p), os.path.realpath(copy)))
    for tu in sorted(glob.glob(os.path.join(copy, FOLDER, "*.cpp"))):
        r = o.analyze(tu, args=args)
        tus.append({"file": orig(tu), "errors": [e.replace(copy, "") for e in r["errors"][:5]], "nerrors": len(r["errors"]),
                    "kernels": len(r["kernels"]), "notes": r.get("notes", [])})
        for k in r["kernels"]:
            m = kernels.setdefault((os.path.realpath(orig(k["file"])), k["line"], k["column"]),
                                   {"used_folded": set(), "why": {}, "names": [], "notes": []})
            m["used_folded"].update(set(k["used_folded"]) & set(ASPECTS))
            m["why"].update({a: w.replace(copy, cts) for a, w in k["why_folded"].items()})
            m["names"] += k["names"]
            m["notes"] += k["notes"]
    return kernels, tus


def compare(title, ana, ora, out):
    """Per aspect, the share of kernels (all that either side launches; a kernel the analyzer does
    not report has no finding, so it counts as using nothing) on which the analyzer agrees."""
    incomplete = {k for k, v in ora.items() if any(n.startswith(real_corpus.EXTERNAL) for n in v["notes"])}
    w, keys = out.write, sorted((set(ana) | set(ora)) - incomplete)
    used = lambda d, k: d[k]["used_folded"] if k in d and isinstance(d[k], dict) else d.get(k, set())
    w("\n== %s: kernels %d (oracle %d, analyzer %d, both %d)\n" % (title, len(keys), len(ora), len(ana), len(set(ana) & set(ora))))
    w("%-9s %8s %8s %6s %6s %6s %6s\n" % ("aspect", "agree", "share", "TP", "FP", "FN", "TN"))
    table = {}
    for a in ASPECTS:
        c = collections.Counter((a in used(ora, k), a in used(ana, k)) for k in keys)  # (truth, finding)
        tp, fp, fn, tn = c[True, True], c[False, True], c[True, False], c[False, False]
        table[a] = {"TP": tp, "FP": fp, "FN": fn, "TN": tn, "share": round((tp + tn) / len(keys), 3) if keys else None}
        w("%-9s %8d %7.1f%% %6d %6d %6d %6d\n" % (a, tp + tn, 100.0 * (tp + tn) / len(keys) if keys else 0, tp, fp, fn, tn))
    mism = []
    for k in keys:
        o, s_ = set(used(ora, k)), set(used(ana, k))
        if o != s_:
            mism.append(dict(file=k[0], line=k[1], column=k[2], oracle=sorted(o), analyzer=sorted(s_),
                             reported=k in ana, launched=k in ora, why=ora[k]["why"] if k in ora else {},
                             names=ora[k]["names"][:2] if k in ora else [], source=real_corpus.source_line(k[0], k[1])))
    w("-- %d kernels left out: their reach calls a function the oracle's TU does not define (SYCL_EXTERNAL); the analyzer "
      "says: %s\n" % (len(incomplete), ", ".join("%s:%d {%s}" % (os.path.basename(k[0]), k[1], ", ".join(sorted(ana.get(k, ()))))
                                                  for k in sorted(incomplete))))
    w("-- %d disagreements\n" % len(mism))
    for m in mism:
        w("%s:%d:%d: oracle {%s}, analyzer {%s}%s | %s\n" % (
            os.path.relpath(m["file"]), m["line"], m["column"], ", ".join(m["oracle"]), ", ".join(m["analyzer"]),
            "" if m["reported"] else " (no kernel for the analyzer)" if m["launched"] else " (no kernel for the oracle)", m["source"][:90]))
        w("".join("    oracle's use of %s: %s\n" % aw for aw in m["why"].items() if aw[0] not in m["analyzer"]))
    return {"per_aspect": table, "kernels": len(keys), "disagreements": mism,
            "left_out": [dict(file=k[0], line=k[1], column=k[2], analyzer=sorted(ana.get(k, ()))) for k in sorted(incomplete)]}


def print_tus(tus, problems, out):
    w = out.write
    w("== oracle: %s\n" % ", ".join("%s: %s" % (os.path.basename(t["file"]), "%d errors" % t["nerrors"] if t["nerrors"] else
                                                 "%d kernels" % t["kernels"]) for t in tus))
    for t in tus:
        w("".join("   %s: %s\n" % (os.path.basename(t["file"]), e) for e in t["errors"]))
    w("".join("   analyzer problem: %s\n" % p.get("message", p) for p in problems[:5]))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cts", default="/work/corpora/SYCL-CTS")
    ap.add_argument("--catch2", default="/work/corpora/deps/Catch2/src")
    ap.add_argument("--analyzer", default=os.path.join(HERE, "..", "..", "target", "release", "sycl-analyzer"))
    ap.add_argument("--json-report", default="cts_kernel_features_report.json")
    ap.add_argument("--keep-temp", action="store_true")
    ns = ap.parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="cts_okf_")
    defines = cts_defines(ns.cts)
    ana, problems = analyzer_kernels(ns.cts, ns.catch2, ns.analyzer, defines, tmp)
    standin = write_copy(ns.cts, os.path.join(tmp, "standin"), None)
    back = lambda p: os.path.join(ns.cts, os.path.relpath(p, os.path.realpath(standin)))
    ana_standin, _ = analyzer_kernels(standin, ns.catch2, ns.analyzer, defines, tmp, back)
    ora, tus = oracle_kernels(ns.cts, ns.catch2, defines, tmp)
    print_tus(tus, problems, sys.stdout)
    rep = {"tus": tus, "analyzer": compare("the analyzer on the CTS as built (Catch2's own macros)", ana, ora, sys.stdout),
           "analyzer_standin": compare("the analyzer on the oracle's view (Catch2's template test cases as plain calls, "
                                       "STANDIN for the utility headers)", ana_standin, ora, sys.stdout)}
    with open(ns.json_report, "w") as f:
        json.dump(rep, f, indent=1)
    if ns.keep_temp:
        sys.stdout.write("temp: %s\n" % tmp)
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
