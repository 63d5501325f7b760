#!/usr/bin/env python3
"""Differential test driver: the libclang oracle against sycl-analyzer on generated programs.

  run.py --analyzer PATH --count N --seed-start S [--jobs J] [--keep DIR] [--report-only]
  run.py --count N --seed-start S --check-gen         (oracle against the generator; no analyzer)
  run.py --oracle-only FILE... [-I DIR] [--lib-dir DIR]
  run.py --self-test                                   (the oracle against cases/*.cpp)

For each seed: gen.py writes a program (a .cpp, often with headers, some in a subdirectory) next
to a copy of sycl_mini.hpp in a temporary directory; the oracle parses the .cpp once;
`PATH check FILE.cpp HEADER... --format json --no-cache` analyses it and its headers; the kernels'
aspects (fp64, fp16, atomic64 only) are compared location by location (file, line, column), in
the .cpp and in the headers, with both sides' paths made relative to the program's directory
after resolving `..` and symbolic links; so are the aspect-mismatch findings of every function
declaring device_has (the oracle's `device_has` entries). `--forms NAMES` / `--forms-rate R`
choose gen.py's issue-50 streams (gen.py --forms). Exit status: 0 when
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
# on the line of a function declaring device_has: the aspects its device instances use that it does
# not list (the aspect-mismatch findings DPC++ gives it; none when only host code calls it)
DEVICE_HAS_RE = re.compile(r"expect-oracle-device-has:\s*([a-z0-9_, ]+)")


def fmt_set(s):
    if s is None:
        return "(not reported)"
    return "{" + ", ".join(a for a in ALL_ASPECTS if a in s) + "}"


def norm_rel(path, root):
    """A kernel's file as both sides are compared: relative to the program's directory (root),
    after resolving `.`, `..` and symbolic links. A relative path is taken from root."""
    if not os.path.isabs(path):
        path = os.path.join(root, path)
    return os.path.relpath(os.path.realpath(path), os.path.realpath(root))


def fmt_loc(loc):
    return "%s:%d:%d" % tuple(loc)


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


def check_expectations(files, kernels, root, folded=False):
    """Disagreements between `expect-oracle` comments and the oracle's kernels (by file and line).
    files: {path relative to root: text}, the program's .cpp and headers."""
    exp = {}
    for rel, text in files.items():
        for line, s in expectations(text, folded).items():
            exp[(rel, line)] = s
    key = "used_folded" if folded else "used"
    got = {}
    for k in kernels:
        rel = norm_rel(k["file"], root)
        if rel not in files:
            continue
        got.setdefault((rel, k["line"]), []).append(k)
    problems = []
    for rel, line in sorted(set(exp) | set(got)):
        e = exp.get((rel, line))
        ks = got.get((rel, line), [])
        g = set().union(*[set(k[key]) for k in ks]) if ks else None
        if len(ks) > 1:
            problems.append("%s:%d: %d kernels on one line" % (rel, line, len(ks)))
        if e is None:
            problems.append("%s:%d: oracle found a kernel %s that has no expect-oracle comment" % (rel, line, fmt_set(g)))
        elif g is None:
            problems.append("%s:%d: expected a kernel %s, the oracle found none" % (rel, line, fmt_set(e)))
        elif e != g:
            why = "; ".join("%s: %s" % (a, w) for k in ks for a, w in k["why_folded" if folded else "why"].items())
            problems.append("%s:%d: expected %s, oracle%s %s (%s)" % (
                rel, line, fmt_set(e), " (folded)" if folded else "", fmt_set(g), why))
    return problems


def check_device_has(files, entries, root, folded=False):
    """Disagreements between `expect-oracle-device-has` comments and the oracle's functions
    declaring device_has (by file and line)."""
    exp = {}
    for rel, text in files.items():
        for i, line in enumerate(text.split("\n"), 1):
            m = DEVICE_HAS_RE.search(line)
            if m:
                v = m.group(1).strip()
                exp[(rel, i)] = set() if v == "none" else {x.strip() for x in v.split(",") if x.strip()}
    key = "findings_folded" if folded else "findings"
    got = {}
    for d in entries:
        rel = norm_rel(d["file"], root)
        if rel in files:
            got[(rel, d["line"])] = set(d[key]) & set(COMPARED)
    problems = []
    for rel, line in sorted(set(exp) | set(got)):
        e, g = exp.get((rel, line)), got.get((rel, line))
        if e is None:
            problems.append("%s:%d: oracle found a function declaring device_has (findings %s) without an expect-oracle-device-has comment" % (rel, line, fmt_set(g)))
        elif g is None:
            problems.append("%s:%d: expected a function declaring device_has, the oracle found none" % (rel, line))
        elif e != g:
            problems.append("%s:%d: expected device_has findings %s, oracle%s %s" % (rel, line, fmt_set(e), " (folded)" if folded else "", fmt_set(g)))
    return problems


# ----- the analyzer ----------------------------------------------------------------------------
def run_analyzer(analyzer, root, rels, timeout, findings_out=None):
    """Runs `analyzer check REL... --format json --no-cache` in root (the program's .cpp and its
    headers, as paths relative to root): (kernels by (file relative to root, line, column) ->
    set, error or None). Instantiations reported at one location are merged. The aspects of its
    aspect-mismatch findings by location go to findings_out (a dict) when given."""
    try:
        p = subprocess.run(
            [analyzer, "check"] + list(rels) + ["--format", "json", "--no-cache"],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=root,
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
    for k in ks:
        try:
            f, line, col, used = k["file"], int(k["line"]), int(k["column"]), k.get("used", [])
        except (KeyError, TypeError, ValueError):
            return None, "malformed kernel entry: %r" % (k,)
        out.setdefault((norm_rel(f, root), line, col), set()).update(a for a in used if a in COMPARED)
    if findings_out is not None:
        for d in doc.get("diagnostics") or []:
            if isinstance(d, dict) and d.get("code") == "aspect-mismatch" and "file" in d:
                loc = (norm_rel(d["file"], root), int(d.get("line", 0)), int(d.get("column", 0)))
                findings_out.setdefault(loc, set()).update(a for a in [d.get("aspect")] if a in COMPARED)
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


def write_program(d, files):
    """Writes the program's files under d; returns the paths written."""
    out = []
    for rel, text in files.items():
        dst = os.path.join(d, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "w") as f:
            f.write(text)
        out.append(dst)
    return out


def remove_program(d, files):
    for rel in files:
        try:
            os.unlink(os.path.join(d, rel))
        except OSError:
            pass
    for top in sorted({rel.split("/")[0] for rel in files if "/" in rel}):
        shutil.rmtree(os.path.join(d, top), ignore_errors=True)


def run_seed(seed):
    import gen

    opts = _worker["opts"]
    d = _worker["dir"]
    res = {"seed": seed, "kernels": [], "mismatches": [], "error": None, "rejected": None, "gen_problems": []}
    try:
        files, _ = gen.generate_files(seed)
    except Exception as e:  # a generator crash is a generator bug
        res["rejected"] = ["gen.py crashed: %r" % (e,)]
        return res
    main = gen.main_file(files)
    res["main"] = main
    write_program(d, files)
    path = os.path.join(d, main)
    res["lines"] = sum(t.count("\n") for t in files.values())
    t0 = time.time()
    try:
        r = _worker["oracle"].analyze(path, include_dirs=[d])
    except Exception:  # an oracle crash is a harness bug: report it like a rejected program
        import traceback

        res["rejected"] = ["oracle.py crashed:"] + traceback.format_exc().strip().split("\n")[-6:]
        res["files"] = files
        remove_program(d, files)
        return res
    res["oracle_s"] = time.time() - t0
    if r["errors"]:
        res["rejected"] = r["errors"][:8]
        res["files"] = files
        remove_program(d, files)
        return res
    oracle_k = {}
    for k in r["kernels"]:
        oracle_k[(norm_rel(k["file"], d), k["line"], k["column"])] = k
    if opts["check_gen"]:
        # the generator's answer holds under both views: it never lets a constant expression
        # be the only use of an aspect
        res["gen_problems"] = check_expectations(files, r["kernels"], d) + check_expectations(files, r["kernels"], d, True)
        res["gen_problems"] += check_device_has(files, r.get("device_has", []), d) + check_device_has(files, r.get("device_has", []), d, True)
    view, why = ("used_folded", "why_folded") if opts["fold"] else ("used", "why")
    res["kernels"] = [{"loc": loc, "used": k[view], "names": k["names"], "why": k[why]} for loc, k in sorted(oracle_k.items())]
    # functions declaring device_has: the findings of their device instances, by the name's place
    oracle_dh = {(norm_rel(x["file"], d), x["line"], x["column"]): set(x["findings_folded" if opts["fold"] else "findings"]) & set(COMPARED)
                 for x in r.get("device_has", [])}
    res["device_has"] = len(oracle_dh)
    if opts["analyzer"]:
        t0 = time.time()
        rels = [main] + sorted(p for p in files if p != main)
        findings = {}
        ana, err = run_analyzer(opts["analyzer"], d, rels, opts["timeout"], findings)
        res["analyzer_s"] = time.time() - t0
        if err:
            res["error"] = err
        else:
            res["analyzer"] = {fmt_loc(loc): sorted(v) for loc, v in ana.items()}
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
            for loc in sorted(oracle_dh):
                a = findings.get(loc, set())
                if oracle_dh[loc] != a:
                    res["mismatches"].append({"loc": loc, "device_has": True, "oracle": sorted(oracle_dh[loc]), "analyzer": sorted(a),
                                              "why": {}, "names": []})
    if res["mismatches"] or res["error"] or res["gen_problems"] or opts["keep_all"]:
        res["files"] = files
    remove_program(d, files)
    return res


# ----- modes -----------------------------------------------------------------------------------
def keep_program(keep, res):
    """Writes the program (its .cpp and headers) into keep; returns the .cpp's path (and the
    number of headers)."""
    if not keep or "files" not in res:
        return None
    os.makedirs(keep, exist_ok=True)
    write_program(keep, res["files"])
    hdr = os.path.join(keep, "sycl_mini.hpp")
    if not os.path.exists(hdr):
        shutil.copy(HEADER, hdr)
    dst = os.path.join(keep, res["main"])
    nh = len(res["files"]) - 1
    return dst + (" (+%d header%s)" % (nh, "s" if nh > 1 else "") if nh else "")


def gen_options():
    """The gen.py options that the environment gives the workers (to regenerate a program)."""
    out = ""
    for var, opt in (("SYCL_DIFF_FORMS", "--forms"), ("SYCL_DIFF_FORMS_RATE", "--forms-rate"), ("SYCL_DIFF_GAP_FORMS", "--gap-forms")):
        if os.environ.get(var):
            out += " %s %s" % (opt, os.environ[var])
    return out


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
    n_hdr_kernels = n_hdr_progs = n_hdr_mism = 0
    n_missing = n_extra = 0
    n_dh = n_dh_mism = 0
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
        n_dh += r.get("device_has", 0)
        hk = [k for k in r["kernels"] if k["loc"][0] != r["main"]]
        n_hdr_kernels += len(hk)
        n_hdr_progs += bool(hk)
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
        ana = {}
        for k, v in r["analyzer"].items():
            f, line, col = k.rsplit(":", 2)
            ana[(f, int(line), int(col))] = set(v)
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
            out.write("MISMATCH seed %d: %s\n" % (r["seed"], kept or "(regenerate: gen.py --seed %d%s -o DIR/%s)" % (r["seed"], gen_options(), r["main"])))
            for m in r["mismatches"]:
                rel, line, col = m["loc"]
                n_hdr_mism += rel != r["main"] and not m.get("device_has")
                o = set(m["oracle"]) if m["oracle"] is not None else None
                a = set(m["analyzer"]) if m["analyzer"] is not None else None
                if m.get("device_has"):
                    n_dh_mism += 1
                    out.write("    function declaring device_has at %s: aspect-mismatch findings: oracle %s, analyzer %s\n" % (
                        fmt_loc(m["loc"]), fmt_set(o), fmt_set(a)))
                else:
                    out.write("    kernel at %s: oracle %s, analyzer %s\n" % (fmt_loc(m["loc"]), fmt_set(o) if o is not None else "(no kernel here)", fmt_set(a)))
                text = r["files"].get(rel, "")
                src = text.split("\n")[line - 1] if 0 < line <= text.count("\n") + 1 else ""
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
    out.write("kernels in headers: %d (%.1f%%) in %d program(s)\n" % (n_hdr_kernels, 100.0 * n_hdr_kernels / max(n_kernels, 1), n_hdr_progs))
    out.write("kernels using no compared aspect: %d\n" % sum(1 for r in results if not r["rejected"] for k in r["kernels"] if not set(k["used"]) & set(COMPARED)))
    if ns.check_gen:
        out.write("oracle/generator disagreements: %d program(s)\n" % n_gen)
    if opts["analyzer"]:
        out.write("analyzer errors: %d program(s)\n" % n_errors)
        out.write("mismatches: %d kernel(s) (%d in headers) in %d program(s); kernels the analyzer did not report: %d; reported where the oracle has none: %d\n" % (
            n_mism_kernels - n_dh_mism, n_hdr_mism, n_mism_progs, n_missing, n_extra))
        out.write("functions declaring device_has: %d, whose aspect-mismatch findings differ: %d\n" % (n_dh, n_dh_mism))
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
            json.dump({"results": [{k: v for k, v in r.items() if k != "files"} for r in results], "confusion": conf}, f, indent=1)
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
    """The oracle against cases/*.cpp: the expect-oracle comments of each case and of the headers
    it includes from cases/ (a case may keep headers in a subdirectory of cases/; only *.cpp
    directly in cases/ are cases)."""
    import oracle

    o = oracle.Oracle()
    root = os.path.join(HERE, "cases")
    cases = sorted(os.path.join(root, f) for f in os.listdir(root) if f.endswith(".cpp"))
    passed = failed = 0
    for path in cases:
        r = o.analyze(path, include_dirs=[HERE])
        if r["errors"]:
            failed += 1
            print("FAIL %s: clang rejects it:" % os.path.basename(path))
            for e in r["errors"][:5]:
                print("    " + e)
            continue
        files = {}
        for f in [path] + r["includes"]:
            rel = norm_rel(f, root)
            if not rel.startswith(".."):
                with open(f) as fh:
                    files[rel] = fh.read()
        nprob = 0
        for folded in (False, True):
            nexp = sum(len(expectations(t, folded)) for t in files.values())
            problems = check_expectations(files, r["kernels"], root, folded) + check_device_has(files, r.get("device_has", []), root, folded)
            passed += max(nexp - len([p for p in problems if "expected" in p]), 0)
            failed += len(problems)
            nprob += len(problems)
            for p in problems:
                print("FAIL " + p)
        extra = " (with %s)" % ", ".join(sorted(f for f in files if f != norm_rel(path, root))) if len(files) > 1 else ""
        print("%s%s: %d kernel(s), %d problem(s)" % (os.path.basename(path), extra, len(r["kernels"]), nprob))
    print("self-test: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def main(argv):
    ap = argparse.ArgumentParser(description="differential test: libclang oracle vs sycl-analyzer")
    ap.add_argument("--analyzer", help="the sycl-analyzer binary")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed-start", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--keep", help="directory for the programs that went wrong (with their headers and sycl_mini.hpp)")
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
    ap.add_argument("--self-test", action="store_true", help="check the oracle against cases/*.cpp (and the headers they include)")
    ap.add_argument("--forms", metavar="NAMES",
                    help="gen.py --forms: write only these forms of issue 50 (comma-separated, 'all' (default) or 'none')")
    ap.add_argument("--forms-rate", type=float, metavar="R", help="gen.py --forms-rate: the share of programs that get each of them")
    ns = ap.parse_args(argv)
    # through the environment, so that the workers' gen.py reads them too
    if ns.forms is not None:
        os.environ["SYCL_DIFF_FORMS"] = ns.forms
    if ns.forms_rate is not None:
        os.environ["SYCL_DIFF_FORMS_RATE"] = str(ns.forms_rate)
    if ns.forms is not None or ns.forms_rate is not None:
        import gen

        try:
            gen.select_forms(ns.forms, ns.forms_rate)
        except ValueError as e:
            ap.error(str(e))
    if ns.self_test:
        return self_test(ns)
    if ns.files:
        return oracle_only(ns)
    return differential(ns)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
