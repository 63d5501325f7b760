#!/usr/bin/env python3
"""Differential test driver: the libclang oracle against sycl-analyzer on generated programs.

  run.py --analyzer PATH --count N --seed-start S [--jobs J] [--keep DIR] [--report-only]
  run.py --count N --seed-start S --check-gen         (oracle against the generator; no analyzer)
  run.py --oracle-only FILE... [-I DIR] [--lib-dir DIR]
  run.py --self-test                                   (the oracle against cases/*.cpp)

For each seed: gen.py writes a program next to a copy of sycl_mini.hpp in a temporary directory;
the oracle parses it once; `PATH check FILE --format json --no-cache` analyses it; the kernels'
aspects (fp64, fp16, atomic64 only) are compared location by location. Exit status: 0 when
everything agreed, 1 on any mismatch, analyzer error, rejected program or (with --check-gen)
oracle/generator disagreement, unless --report-only.
"""

import argparse
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the work tree
sys.path.insert(0, HERE)

COMPARED = ("fp64", "fp16", "atomic64")
ALL_ASPECTS = ("fp64", "fp16", "atomic64", "ext_oneapi_atomic16")
HEADER = os.path.join(HERE, "sycl_mini.hpp")
EXPECT_RE = re.compile(r"expect-oracle(-fold)?:\s*([a-z0-9_, ]+)")


def fmt_set(s):
    if s is None:
        return "(not reported)"
    return "{" + ", ".join(a for a in ALL_ASPECTS if a in s) + "}"


def expectations(text, folded=False):
    """line -> set of aspects, from `// expect-oracle: a, b` (or `none`) comments; with folded,
    `// expect-oracle-fold: ...` takes precedence where a line has it."""
    out = {}
    for i, line in enumerate(text.split("\n"), 1):
        found = {}
        for m in EXPECT_RE.finditer(line):
            v = m.group(2).strip()
            found[bool(m.group(1))] = set() if v == "none" else {x.strip() for x in v.split(",") if x.strip()}
        if found:
            out[i] = found[True] if folded and True in found else found.get(False, found.get(True))
    return out


def check_expectations(path, text, kernels, folded=False):
    """Disagreements between `expect-oracle` comments and the oracle's kernels (by line)."""
    exp = expectations(text, folded)
    key = "used_folded" if folded else "used"
    got = {}
    for k in kernels:
        if os.path.realpath(k["file"]) != os.path.realpath(path):
            continue
        got.setdefault(k["line"], []).append(k)
    problems = []
    for line in sorted(set(exp) | set(got)):
        e = exp.get(line)
        ks = got.get(line, [])
        g = set().union(*[set(k[key]) for k in ks]) if ks else None
        if len(ks) > 1:
            problems.append("%s:%d: %d kernels on one line" % (os.path.basename(path), line, len(ks)))
        if e is None:
            problems.append("%s:%d: oracle found a kernel %s that has no expect-oracle comment" % (os.path.basename(path), line, fmt_set(g)))
        elif g is None:
            problems.append("%s:%d: expected a kernel %s, the oracle found none" % (os.path.basename(path), line, fmt_set(e)))
        elif e != g:
            why = "; ".join("%s: %s" % (a, w) for k in ks for a, w in k["why_folded" if folded else "why"].items())
            problems.append("%s:%d: expected %s, oracle%s %s (%s)" % (
                os.path.basename(path), line, fmt_set(e), " (folded)" if folded else "", fmt_set(g), why))
    return problems


# ----- the analyzer ----------------------------------------------------------------------------
def run_analyzer(analyzer, path, timeout):
    """(kernels by (line, column) -> set, error or None)."""
    try:
        p = subprocess.run(
            [analyzer, "check", path, "--format", "json", "--no-cache"],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=os.path.dirname(path),
        )
    except subprocess.TimeoutExpired:
        return None, "timed out after %ds" % timeout
    except OSError as e:
        return None, "could not run: %s" % e
    if p.returncode not in (0, 1):
        return None, "exit status %d: %s" % (p.returncode, (p.stderr or p.stdout).strip()[:500])
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        return None, "output is not JSON (%s): %s" % (e, p.stdout[:300])
    ks = doc.get("kernels") if isinstance(doc, dict) else None
    if not isinstance(ks, list):
        return None, "no top-level \"kernels\" array in the JSON output"
    out = {}
    real = os.path.realpath(path)
    for k in ks:
        try:
            f, line, col, used = k["file"], int(k["line"]), int(k["column"]), k.get("used", [])
        except (KeyError, TypeError, ValueError):
            return None, "malformed kernel entry: %r" % (k,)
        fp = f if os.path.isabs(f) else os.path.join(os.path.dirname(path), f)
        if os.path.realpath(fp) != real and os.path.basename(f) != os.path.basename(path):
            continue
        out.setdefault((line, col), set()).update(a for a in used if a in COMPARED)
    return out, None


# ----- one seed ----------------------------------------------------------------------------
_worker = {}


def _init_worker(opts):
    import oracle

    _worker["oracle"] = oracle.Oracle()
    d = tempfile.mkdtemp(prefix="sycl-diff-", dir=opts.get("tmp"))
    shutil.copy(HEADER, os.path.join(d, "sycl_mini.hpp"))
    _worker["dir"] = d
    _worker["opts"] = opts


def run_seed(seed):
    import gen

    opts = _worker["opts"]
    d = _worker["dir"]
    res = {"seed": seed, "kernels": [], "mismatches": [], "error": None, "rejected": None, "gen_problems": []}
    try:
        text = gen.generate(seed)
    except Exception as e:  # a generator crash is a generator bug
        res["rejected"] = ["gen.py crashed: %r" % (e,)]
        return res
    path = os.path.join(d, "seed_%d.cpp" % seed)
    with open(path, "w") as f:
        f.write(text)
    res["lines"] = text.count("\n")
    t0 = time.time()
    try:
        r = _worker["oracle"].analyze(path, include_dirs=[d])
    except Exception:  # an oracle crash is a harness bug: report it like a rejected program
        import traceback

        res["rejected"] = ["oracle.py crashed:"] + traceback.format_exc().strip().split("\n")[-6:]
        res["text"] = text
        os.unlink(path)
        return res
    res["oracle_s"] = time.time() - t0
    if r["errors"]:
        res["rejected"] = r["errors"][:8]
        res["text"] = text
        os.unlink(path)
        return res
    oracle_k = {}
    for k in r["kernels"]:
        if os.path.realpath(k["file"]) != os.path.realpath(path):
            continue
        oracle_k[(k["line"], k["column"])] = k
    if opts["check_gen"]:
        # the generator's answer holds under both views: it never lets a constant expression
        # be the only use of an aspect
        res["gen_problems"] = check_expectations(path, text, r["kernels"]) + check_expectations(path, text, r["kernels"], True)
    view, why = ("used_folded", "why_folded") if opts["fold"] else ("used", "why")
    res["kernels"] = [{"loc": loc, "used": k[view], "names": k["names"], "why": k[why]} for loc, k in sorted(oracle_k.items())]
    if opts["analyzer"]:
        t0 = time.time()
        ana, err = run_analyzer(opts["analyzer"], path, opts["timeout"])
        res["analyzer_s"] = time.time() - t0
        if err:
            res["error"] = err
        else:
            res["analyzer"] = {"%d:%d" % loc: sorted(v) for loc, v in ana.items()}
            for loc in sorted(set(oracle_k) | set(ana)):
                o = set(oracle_k[loc][view]) & set(COMPARED) if loc in oracle_k else None
                a = ana.get(loc)
                if o != a:
                    res["mismatches"].append(
                        {
                            "loc": loc,
                            "oracle": sorted(o) if o is not None else None,
                            "analyzer": sorted(a) if a is not None else None,
                            "why": oracle_k[loc][why] if loc in oracle_k else {},
                            "names": oracle_k[loc]["names"] if loc in oracle_k else [],
                        }
                    )
    if res["mismatches"] or res["error"] or res["gen_problems"] or opts["keep_all"]:
        res["text"] = text
    os.unlink(path)
    return res


# ----- modes -----------------------------------------------------------------------------------
def keep_program(keep, res):
    if not keep or "text" not in res:
        return None
    os.makedirs(keep, exist_ok=True)
    dst = os.path.join(keep, "seed_%d.cpp" % res["seed"])
    with open(dst, "w") as f:
        f.write(res["text"])
    hdr = os.path.join(keep, "sycl_mini.hpp")
    if not os.path.exists(hdr):
        shutil.copy(HEADER, hdr)
    return dst


def differential(ns):
    if ns.analyzer and not (os.path.isfile(ns.analyzer) and os.access(ns.analyzer, os.X_OK)):
        print("run.py: the analyzer %s is not an executable file" % ns.analyzer, file=sys.stderr)
        return 2
    opts = {
        "analyzer": os.path.abspath(ns.analyzer) if ns.analyzer else None,
        "check_gen": ns.check_gen,
        "fold": ns.fold_constants,
        "timeout": ns.timeout,
        "keep_all": ns.keep_all,
        "tmp": tempfile.mkdtemp(prefix="sycl-differential-"),
    }
    seeds = list(range(ns.seed_start, ns.seed_start + ns.count))
    t0 = time.time()
    results = []
    try:
        if ns.jobs <= 1:
            _init_worker(opts)
            for s in seeds:
                results.append(run_seed(s))
        else:
            ctx = multiprocessing.get_context("fork")
            with ctx.Pool(ns.jobs, initializer=_init_worker, initargs=(opts,)) as pool:
                for r in pool.imap_unordered(run_seed, seeds, chunksize=4):
                    results.append(r)
    finally:
        shutil.rmtree(opts["tmp"], ignore_errors=True)
    elapsed = time.time() - t0
    results.sort(key=lambda r: r["seed"])

    conf = {a: {"tp": 0, "fp": 0, "fn": 0, "tn": 0} for a in COMPARED}
    oracle_count = {a: 0 for a in ALL_ASPECTS}
    n_kernels = n_progs = n_rejected = n_errors = n_mism_progs = n_mism_kernels = n_gen = 0
    n_missing = n_extra = 0
    out = sys.stdout
    for r in results:
        if r["rejected"]:
            n_rejected += 1
            kept = keep_program(ns.keep, r)
            what = "a harness bug" if "crashed" in r["rejected"][0] else "a generator bug: clang rejects the program"
            out.write("REJECTED seed %d (%s)%s\n" % (r["seed"], what, " -> " + kept if kept else ""))
            for e in r["rejected"]:
                out.write("    %s\n" % e)
            continue
        n_progs += 1
        n_kernels += len(r["kernels"])
        for k in r["kernels"]:
            for a in k["used"]:
                oracle_count[a] += 1
        if r["gen_problems"]:
            n_gen += 1
            kept = keep_program(ns.keep, r)
            out.write("ORACLE/GENERATOR DISAGREE seed %d%s\n" % (r["seed"], " -> " + kept if kept else ""))
            for p in r["gen_problems"]:
                out.write("    %s\n" % p)
        if not opts["analyzer"]:
            if ns.keep_all:
                keep_program(ns.keep, r)
            continue
        if r["error"]:
            n_errors += 1
            kept = keep_program(ns.keep, r)
            if n_errors <= 10:
                out.write("ANALYZER ERROR seed %d: %s%s\n" % (r["seed"], r["error"], " -> " + kept if kept else ""))
            elif n_errors == 11:
                out.write("(further analyzer errors are counted, not shown)\n")
            continue
        ana = {tuple(int(x) for x in k.split(":")): set(v) for k, v in r["analyzer"].items()}
        orc = {tuple(k["loc"]): set(k["used"]) & set(COMPARED) for k in r["kernels"]}
        for loc in set(orc) | set(ana):
            o, a = orc.get(loc, set()), ana.get(loc, set())
            if loc not in ana:
                n_missing += 1
            if loc not in orc:
                n_extra += 1
            for asp in COMPARED:
                key = ("tp" if asp in a else "fn") if asp in o else ("fp" if asp in a else "tn")
                conf[asp][key] += 1
        if r["mismatches"] or ns.keep_all:
            kept = keep_program(ns.keep, r)
        if r["mismatches"]:
            n_mism_progs += 1
            n_mism_kernels += len(r["mismatches"])
            out.write("MISMATCH seed %d: %s\n" % (r["seed"], kept or "(regenerate: gen.py --seed %d)" % r["seed"]))
            for m in r["mismatches"]:
                line, col = m["loc"]
                o = set(m["oracle"]) if m["oracle"] is not None else None
                a = set(m["analyzer"]) if m["analyzer"] is not None else None
                out.write("    kernel at %d:%d: oracle %s, analyzer %s\n" % (line, col, fmt_set(o) if o is not None else "(no kernel here)", fmt_set(a)))
                src = r["text"].split("\n")[line - 1] if 0 < line <= r["text"].count("\n") + 1 else ""
                out.write("        | %s\n" % src.strip()[:160])
                for nm in m["names"][:3]:
                    out.write("        instantiation: %s\n" % nm)
                for asp, w in sorted(m["why"].items()):
                    if asp in COMPARED:
                        out.write("        oracle's %s: %s\n" % (asp, w))

    out.write("\n== summary: seeds %d..%d, %.1fs with %d job(s); oracle view: %s\n" % (
        ns.seed_start, ns.seed_start + ns.count - 1, elapsed, ns.jobs, "folded" if ns.fold_constants else "rule"))
    out.write("programs: %d analysed, %d rejected by clang (generator bugs)\n" % (n_progs, n_rejected))
    out.write("kernels: %d (oracle); per aspect in the oracle: %s\n" % (
        n_kernels, ", ".join("%s %d" % (a, oracle_count[a]) for a in ALL_ASPECTS)))
    out.write("kernels using no compared aspect: %d\n" % sum(1 for r in results if not r["rejected"] for k in r["kernels"] if not set(k["used"]) & set(COMPARED)))
    if ns.check_gen:
        out.write("oracle/generator disagreements: %d program(s)\n" % n_gen)
    if opts["analyzer"]:
        out.write("analyzer errors: %d program(s)\n" % n_errors)
        out.write("mismatches: %d kernel(s) in %d program(s); kernels the analyzer did not report: %d; reported where the oracle has none: %d\n" % (
            n_mism_kernels, n_mism_progs, n_missing, n_extra))
        out.write("%-9s %6s %6s %6s %6s %8s %12s\n" % ("aspect", "TP", "FP", "FN", "TN", "recall", "false-finding"))
        for a in COMPARED:
            c = conf[a]
            recall = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else float("nan")
            ffr = c["fp"] / (c["fp"] + c["tp"]) if c["fp"] + c["tp"] else float("nan")
            out.write("%-9s %6d %6d %6d %6d %8.3f %12.3f\n" % (a, c["tp"], c["fp"], c["fn"], c["tn"], recall, ffr))
        out.write("(recall = TP/(TP+FN); false-finding rate = FP/(FP+TP), the share of the analyzer's findings the oracle does not have)\n")
    else:
        out.write("no --analyzer: only the oracle ran\n")
    if ns.json_report:
        with open(ns.json_report, "w") as f:
            json.dump({"results": [{k: v for k, v in r.items() if k != "text"} for r in results], "confusion": conf}, f, indent=1)
    failed_seeds = {r["seed"] for r in results if r["rejected"] or r["error"] or r["mismatches"] or (ns.check_gen and r["gen_problems"])}
    bad = len(failed_seeds)
    out.write("differential: %d passed, %d failed\n" % (len(results) - bad, bad))
    if bad and not ns.report_only:
        return 1
    return 0


def oracle_only(ns):
    import oracle

    o = oracle.Oracle(lib_dirs=ns.lib_dir, extra_args=ns.clang_arg)
    docs = []
    status = 0
    for f in ns.files:
        r = o.analyze(f, include_dirs=ns.include + [HERE])
        if r["errors"]:
            status = 1
        docs.append(r)
    json.dump(docs if len(docs) > 1 else docs[0], sys.stdout, indent=2)
    sys.stdout.write("\n")
    return status


def self_test(ns):
    import oracle

    o = oracle.Oracle()
    cases = sorted(os.path.join(HERE, "cases", f) for f in os.listdir(os.path.join(HERE, "cases")) if f.endswith(".cpp"))
    passed = failed = 0
    for path in cases:
        with open(path) as f:
            text = f.read()
        r = o.analyze(path, include_dirs=[HERE])
        if r["errors"]:
            failed += 1
            print("FAIL %s: clang rejects it:" % os.path.basename(path))
            for e in r["errors"][:5]:
                print("    " + e)
            continue
        nprob = 0
        for folded in (False, True):
            exp = expectations(text, folded)
            problems = check_expectations(path, text, r["kernels"], folded)
            passed += max(len(exp) - len([p for p in problems if "expected" in p]), 0)
            failed += len(problems)
            nprob += len(problems)
            for p in problems:
                print("FAIL " + p)
        print("%s: %d kernel(s), %d problem(s)" % (os.path.basename(path), len(r["kernels"]), nprob))
    print("self-test: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def main(argv):
    ap = argparse.ArgumentParser(description="differential test: libclang oracle vs sycl-analyzer")
    ap.add_argument("--analyzer", help="the sycl-analyzer binary")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed-start", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--keep", help="directory for the programs that went wrong (with the header)")
    ap.add_argument("--keep-all", action="store_true", help="keep every program in --keep")
    ap.add_argument("--report-only", action="store_true", help="always exit 0")
    ap.add_argument("--check-gen", action="store_true", help="also compare the oracle with the generator's expect-oracle comments")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per analyzer run")
    ap.add_argument("--fold-constants", action="store_true",
                    help="compare with the oracle's folded view (constant expressions are no use)")
    ap.add_argument("--json-report", help="write every result as JSON here")
    ap.add_argument("--oracle-only", nargs="+", dest="files", metavar="FILE", help="print the oracle's JSON for these files")
    ap.add_argument("-I", dest="include", action="append", default=[], help="include directory (with --oracle-only)")
    ap.add_argument("--lib-dir", action="append", default=[], help="directory of library code (with --oracle-only)")
    ap.add_argument("--clang-arg", action="append", default=[], help="extra clang argument (with --oracle-only)")
    ap.add_argument("--self-test", action="store_true", help="check the oracle against cases/*.cpp")
    ns = ap.parse_args(argv)
    if ns.self_test:
        return self_test(ns)
    if ns.files:
        return oracle_only(ns)
    return differential(ns)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
