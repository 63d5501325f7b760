#!/usr/bin/env python3
"""Replay of public bug reports: are the kernels that the fixes changed flagged?

Each case of cases.json is a public report of "fp64 / fp16 / atomic64 not supported" (or "Double
type is not supported on this platform") in a SYCL project, and the commit that fixed it. The
script materialises the project's tree at the revision the user ran (`git archive` from a bare
mirror, into WORKDIR/NAME@REV; never into this repository), writes a compile_commands.json for the
translation units as the project's build compiles them (its include directories, defines, the
user's `-fsycl-targets=` and compiler release), runs `sycl-analyzer check --format json` on it and
reports, per case:

* changed: the kernels the fix changed (listed by hand in cases.json from the fix's diff: the line
  of the kernel's `[` or `operator()` at the revision), and how many of them the analyzer flags
  with the reported aspect;
* false: kernels of the same files that the analyzer flags with an aspect the target lacks but
  that neither the fix changed nor the case lists as a true use that the fix left in place
  (`also_uses`: a double kernel guarded by `has(aspect::fp64)`, say).

A case whose mirror is absent is listed as such (mirrors come from `fetch github:OWNER/NAME`, or
`git clone --mirror`, into MIRRORS/OWNER+NAME/repo). Exit status 0 whatever the figures: it
measures, it does not gate.

    replay.py [--cases cases.json] [--analyzer BIN] [--mirrors DIR] [--workdir DIR] [--json FILE] [CASE...]
"""

import argparse, collections, json, os, shutil, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
LACKS = "target-unsupported-aspect"  # the analyzer's finding for a kernel whose target lacks an aspect
DPCPP_PATH = "/opt/intel/oneapi/compiler/%s/linux/bin/icpx"  # where check reads the release from


def git(mirror, *args):
    return subprocess.run(["git", "--git-dir", mirror] + list(args), capture_output=True, text=True, check=True).stdout


def materialise(case, mirrors, workdir):
    """The tree at the case's revision (only its `paths`, or all of it): WORKDIR/NAME@REV."""
    mirror = os.path.join(mirrors, case["repo"].replace("/", "+"), "repo")
    if not os.path.isdir(mirror):
        return None, "mirror absent: %s (fetch github:%s)" % (mirror, case["repo"])
    rev = git(mirror, "rev-parse", case["revision"] + "^{commit}").strip()
    tree = os.path.join(workdir, "%s@%s" % (case["name"], rev[:10]))
    if not os.path.isdir(tree):
        write_tree(mirror, rev, case.get("paths", []), tree + ".tmp")
        for dep in case.get("deps", []):  # the project's dependencies at the versions its build pins
            dmirror = os.path.join(mirrors, dep["repo"].replace("/", "+"), "repo")
            if not os.path.isdir(dmirror):
                shutil.rmtree(tree + ".tmp")
                return None, "mirror absent: %s (fetch github:%s)" % (dmirror, dep["repo"])
            drev = git(dmirror, "rev-parse", dep["revision"] + "^{commit}").strip()
            write_tree(dmirror, drev, dep.get("paths", []), os.path.join(tree + ".tmp", "_deps", dep["repo"].split("/")[1]))
        os.rename(tree + ".tmp", tree)
    return tree, None


def write_tree(mirror, rev, paths, dest):
    """The files under paths at rev, blob by blob: a mirror may lack its largest blobs (git archive
    would stop there), and a source tree is never one of them."""
    listing = git(mirror, "ls-tree", "-r", "-z", rev, "--", *paths).split("\0")
    blobs = [(l.split()[2], l.split("\t", 1)[1]) for l in listing if l and l.split()[1] == "blob"]
    cat = subprocess.Popen(["git", "--git-dir", mirror, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    for sha, path in blobs:
        cat.stdin.write(sha.encode() + b"\n")
        cat.stdin.flush()
        head = cat.stdout.readline().split()
        if head[1] == b"missing":
            continue
        data = cat.stdout.read(int(head[2]) + 1)[:-1]
        os.makedirs(os.path.dirname(os.path.join(dest, path)), exist_ok=True)
        with open(os.path.join(dest, path), "wb") as f:
            f.write(data)
    cat.stdin.close()
    cat.wait()


def compile_commands(case, tree):
    """One entry per translation unit, as the project's build would compile it for the user."""
    path = os.path.join(tree, "compile_commands.json")
    entries = []
    for tu in case["tus"]:
        args = [DPCPP_PATH % case["dpcpp"], "-fsycl", "-fsycl-targets=" + case["target"], "-std=" + case.get("std", "c++17")]
        args += ["-x", "c++"] if not tu.endswith((".cpp", ".cc", ".cxx")) else []  # traccc's .sycl sources
        args += ["-I" + os.path.normpath(os.path.join(tree, d)) for d in case.get("include_dirs", [])]
        args += ["-D" + d for d in case.get("defines", [])]
        args += ["-c", os.path.join(tree, tu), "-o", os.path.join(tree, tu) + ".o"]
        entries.append({"directory": tree, "file": os.path.join(tree, tu), "arguments": args})
    with open(path, "w") as f:
        json.dump(entries, f, indent=1)
    return path


def analyse(case, tree, analyzer):
    cc = compile_commands(case, tree)
    # the materialised paths, headers included: check analyses the files it is given
    # the TUs by name too: a directory walk skips sources named otherwise (traccc's .sycl)
    cmd = [analyzer, "check"] + [p for p in (os.path.join(tree, t) for t in case.get("paths") or ["."]) if os.path.exists(p)] + [
        os.path.join(tree, t) for t in case["tus"] if not t.endswith((".cpp", ".cc", ".cxx"))] + [
        "--compile-commands", cc, "--targets", case["target"], "--dpcpp", case["dpcpp"], "--no-cache", "--format", "json"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if p.returncode not in (0, 1):
        raise RuntimeError("analyzer exit %d: %s" % (p.returncode, p.stderr[-400:]))
    return json.loads(p.stdout)


def judge(case, tree, out):
    """Per kernel line (relative file, line): the aspects flagged for the target."""
    # the analyzer names files relative to the compile commands' directory, the tree
    rel = lambda f: os.path.relpath(os.path.realpath(os.path.join(tree, f)), os.path.realpath(tree))
    flagged, used = {}, {}
    for k in out["kernels"]:
        used.setdefault((rel(k["file"]), k["line"]), set()).update(k["used"])
    for d in out["diagnostics"]:
        if d.get("code") == LACKS:
            flagged.setdefault((rel(d["file"]), d["line"]), set()).add(d["aspect"])
    aspect = case["aspect"]
    changed = []
    for k in case["changed"]:
        key = (k["file"], k["line"])
        changed.append(dict(k, flagged=aspect in flagged.get(key, set()), found=key in used, used=sorted(used.get(key, set()))))
    known = {(k["file"], k["line"]) for k in case["changed"] + case.get("also_uses", [])}
    files = {k["file"] for k in case["changed"]}
    false = [{"file": f, "line": l, "aspects": sorted(a)} for (f, l), a in sorted(flagged.items()) if f in files and (f, l) not in known]
    also = [dict(k, flagged=sorted(flagged.get((k["file"], k["line"]), set()))) for k in case.get("also_uses", [])]
    return {"changed": changed, "false": false, "also_uses": also, "problems": out.get("problems", [])[:5]}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", help="only these cases")
    ap.add_argument("--cases", default=os.path.join(HERE, "cases.json"))
    ap.add_argument("--analyzer", default=os.path.join(HERE, "..", "..", "target", "release", "sycl-analyzer"))
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--workdir", default="/work/replay")
    ap.add_argument("--json", help="write the per-case results here")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every changed kernel and false finding")
    ns = ap.parse_args(argv)
    with open(ns.cases) as f:
        cases = [c for c in json.load(f)["cases"] if not ns.names or c["name"] in ns.names]
    os.makedirs(ns.workdir, exist_ok=True)
    results, w = [], sys.stdout.write
    w("%-28s %-8s %-22s %8s %7s  %s\n" % ("case", "aspect", "target", "flagged", "false", "misses (the idiom that hides them)"))
    for c in cases:
        tree, why = materialise(c, ns.mirrors, ns.workdir)
        if tree is None:
            w("%-28s %s\n" % (c["name"], why))
            results.append({"name": c["name"], "skipped": why})
            continue
        try:
            r = judge(c, tree, analyse(c, tree, ns.analyzer))
        except (RuntimeError, subprocess.TimeoutExpired, ValueError) as e:
            w("%-28s analyzer failed: %s\n" % (c["name"], str(e)[:200]))
            results.append({"name": c["name"], "skipped": str(e)})
            continue
        hit = sum(k["flagged"] for k in r["changed"])
        misses = sorted({k.get("idiom", "?") for k in r["changed"] if not k["flagged"]})
        w("%-28s %-8s %-22s %4d/%-3d %7d  %s\n" % (c["name"], c["aspect"], c["target"], hit, len(r["changed"]), len(r["false"]),
                                                  ("; ".join(misses))[:90]))
        if ns.verbose:
            for k in r["changed"]:
                w("    %s %s:%d %s%s\n" % ("HIT " if k["flagged"] else "MISS", k["file"], k["line"], k.get("note", ""),
                                         " (used: {%s})" % ", ".join(k["used"]) if k["found"] else " (no kernel found there)"))
            for k in r["false"]:
                w("    FALSE %s:%d {%s}\n" % (k["file"], k["line"], ", ".join(k["aspects"])))
        results.append(dict(name=c["name"], tree=tree, **r))
    done = [r for r in results if "changed" in r]
    hit = sum(k["flagged"] for r in done for k in r["changed"])
    total = sum(len(r["changed"]) for r in done)
    false = sum(len(r["false"]) for r in done)
    known = sum(c["aspect"] in k["used"] for c in cases for r in done if r["name"] == c["name"] for k in r["changed"])
    w("\nkernels the fixes changed that are flagged: %d/%d (%s) over %d cases; false findings on the other kernels of those files: %d; "
      "cases skipped: %d\n" % (hit, total, "%.0f %%" % (100.0 * hit / total) if total else "-", len(done), false, len(results) - len(done)))
    w("(changed kernels whose used aspects, before the target's rules, include the reported one: %d/%d)\n" % (known, total))
    by_idiom = collections.Counter(k.get("idiom", "(not stated in cases.json)") for r in done for k in r["changed"] if not k["flagged"])
    w("".join("\nmissed %d: %s" % (n, i) for i, n in by_idiom.most_common()) + ("\n" if by_idiom else ""))
    if ns.json:
        with open(ns.json, "w") as f:
            json.dump({"cases": results, "flagged": hit, "changed": total, "false": false}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
