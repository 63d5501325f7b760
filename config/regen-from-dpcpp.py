#!/usr/bin/env python3
"""Regenerates the embedded data in config/ from an intel/llvm (DPC++) checkout.

    python3 config/regen-from-dpcpp.py PATH/TO/intel-llvm            # writes config/
    python3 config/regen-from-dpcpp.py PATH/TO/intel-llvm --check    # exit 1 if config/ differs
    python3 config/regen-from-dpcpp.py OLDER --names-from NEWER      # two revisions

Reads, under the checkout:
  llvm/include/llvm/SYCLLowerIR/DeviceConfigFile.td   -> default-device-config.yaml
  sycl/include/sycl/info/aspects.def (+ aspects_deprecated.def) -> aspects.yaml
  llvm/lib/TargetParser/SYCLTargetParser.cpp          -> targets.yaml (driver names)
    (revisions before it: clang/lib/Driver/ToolChains/SYCL.cpp, SYCL::gen::resolveGenDevice)
and records in sources.yaml (what `sycl-analyzer --version` prints) the repository, commit and
path of each: device_table, aspects, aspects_deprecated, target_names.

The driver and the headers name new devices and aspects before DeviceConfigFile.td describes
them, and a public copy of the newest files is not always of one commit. `--names-from NEWER`
reads aspects.def, aspects_deprecated.def and the name table from NEWER (its HEAD is their
commit) and only DeviceConfigFile.td from the first tree. A driver name the table has no entry
for is kept, and said: DPC++ treats such a target as it treats any target missing from
DeviceConfigFile.td (sycl-post-link filters nothing out of its image:
isTargetCompatibleWithModule, llvm/lib/SYCLPostLink/Utils.cpp), and the driver leaves it out
of the trait macros.

What is ours is kept: aspect descriptions (a new aspect gets an empty one, reported), and the
generic-target section of targets.yaml. Following a DPC++ release is this one command, then a
review of `git diff config/` and `cargo test`. Only the Python standard library is used.

DeviceConfigFile.td is evaluated by a small TableGen interpreter covering what that file uses:
classes with template arguments, defaults and a parent class (with or without a body of its
own), `defvar`, `def` (named or anonymous, a body's `let` overriding its class), `!listconcat`,
`!listremove`, `!eq`, `#` pasting (lists and strings), and `assert` (checked). Anything else
stops it with the file and line. An aspect a target lists twice is written once (said on
stderr), and DPC++'s own self-test lists (`__TestAspectList`, `__TestDeprecatedAspectList`) are
compared with the .def files: a difference, e.g. files of different commits, is said, not fatal.

The inputs need not be a git checkout: a tree with the same paths, say files copied from
several repositories, works when --source names where each input comes from (no --commit is
needed then). The data committed in config/ is reproduced byte for byte by:

    python3 config/regen-from-dpcpp.py TREE --check \\
      --source device_table=intel/llvm@250ca20b58e27e44c9a8f77a2f45f12398c3768e \\
      --source aspects=KornevNikita/llvm@fabc8bf0a5902556f20a44644ae1a96d26abca15 \\
      --source aspects_deprecated=intel/llvm@df84a293c783ed0fbf5cfb8a7e328e42e604e820 \\
      --source target_names=intel/llvm@e5a6590081666edb186c2371a64efda5fdc2b2c9

where TREE holds, each file at the commit named, DeviceConfigFile.td of intel/llvm
(250ca20b58e2), aspects.def of KornevNikita/llvm (fabc8bf0a590), SYCLTargetParser.cpp of
intel/llvm (e5a659008166) and aspects_deprecated.def of intel/llvm (df84a293c783). The aspects
still come from that fork of intel/llvm's `sycl` branch: the newest aspects.def of an intel/llvm
commit found (250ca20b58e2) lacks ext_oneapi_per_event_profiling (98, which DPC++'s tests use)
and ext_intel_igca (101), and numbers ext_oneapi_ipc_event 98, not 99; regenerating from it would
drop two aspects users name in device_has. The device table of that commit equals the fork's.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field

TD_PATH = "llvm/include/llvm/SYCLLowerIR/DeviceConfigFile.td"
ASPECTS_DEF = "sycl/include/sycl/info/aspects.def"
ASPECTS_DEPRECATED_DEF = "sycl/include/sycl/info/aspects_deprecated.def"
TARGET_PARSER = "llvm/lib/TargetParser/SYCLTargetParser.cpp"
# Where older revisions keep the same tables (SYCL::gen::resolveGenDevice, 2024-2025).
DRIVER_SYCL = "clang/lib/Driver/ToolChains/SYCL.cpp"


class RegenError(Exception):
    pass


# --- TableGen subset -------------------------------------------------------------------------

TOKEN = re.compile(
    r"""
    (?P<ws>\s+|//[^\n]*|/\*.*?\*/)
  | (?P<str>"(?:[^"\\\n]|\\.)*")
  | (?P<bang>![A-Za-z_][A-Za-z0-9_]*)
  | (?P<int>-?(?:0x[0-9A-Fa-f]+|[0-9]+))
  | (?P<id>[A-Za-z_][A-Za-z0-9_.]*)
  | (?P<punct>[\[\]<>(){},;:=#?])
    """,
    re.VERBOSE | re.DOTALL,
)


# Classes of files the .td includes and this script does not read; their defs are no targets.
FOREIGN_CLASSES = {"DynamicTable"}


@dataclass
class Tok:
    kind: str
    text: str
    line: int


def tokenize(text: str, name: str) -> list[Tok]:
    toks, pos, line = [], 0, 1
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise RegenError(f"{name}:{line}: cannot read {text[pos:pos + 20]!r}")
        kind = m.lastgroup
        if kind != "ws":
            toks.append(Tok(kind, m.group(), line))
        line += m.group().count("\n")
        pos = m.end()
    toks.append(Tok("eof", "", line))
    return toks


@dataclass
class Record:
    """A def: the name of its class chain and its field values."""

    classes: list[str]
    fields: dict


@dataclass
class Class:
    name: str
    params: list  # [(name, default expr tokens or None)]
    parent: tuple | None  # (class name, [arg expr]) or None
    body: list  # [("field", name, expr) | ("assert", cond, msg)]


@dataclass
class TableGen:
    name: str
    toks: list[Tok]
    pos: int = 0
    classes: dict = field(default_factory=dict)
    globals: dict = field(default_factory=dict)
    records: list = field(default_factory=list)

    # token helpers
    def peek(self, k: int = 0) -> Tok:
        return self.toks[self.pos + k]

    def next(self) -> Tok:
        t = self.toks[self.pos]
        self.pos += 1
        return t

    def expect(self, text: str) -> Tok:
        t = self.next()
        if t.text != text:
            raise RegenError(f"{self.name}:{t.line}: expected '{text}', found '{t.text}'")
        return t

    def accept(self, text: str) -> bool:
        if self.peek().text == text:
            self.pos += 1
            return True
        return False

    def ident(self) -> str:
        t = self.next()
        if t.kind != "id":
            raise RegenError(f"{self.name}:{t.line}: expected a name, found '{t.text}'")
        return t.text

    # parsing: expressions are kept as small trees and evaluated against an environment
    def parse_type(self) -> None:
        self.ident()
        if self.accept("<"):
            depth = 1
            while depth:
                t = self.next()
                depth += {"<": 1, ">": -1}.get(t.text, 0)

    def parse_expr(self):
        left = self.parse_value()
        while self.accept("#"):
            left = ("paste", left, self.parse_value())
        return left

    def parse_value(self):
        t = self.next()
        if t.kind == "str":
            return ("lit", bytes(t.text[1:-1], "utf-8").decode("unicode_escape"))
        if t.kind == "int":
            return ("lit", int(t.text, 0))
        if t.text == "[":
            items = []
            while not self.accept("]"):
                items.append(self.parse_expr())
                if not self.accept(","):
                    self.expect("]")
                    break
            if self.peek().text == "<":  # a typed empty list: []<type>
                self.pos += 1
                self.parse_type()
                self.expect(">")
            return ("list", items)
        if t.kind == "bang":
            self.expect("(")
            args = []
            while not self.accept(")"):
                args.append(self.parse_expr())
                if not self.accept(","):
                    self.expect(")")
                    break
            return ("bang", t.text, args, t.line)
        if t.kind == "id":
            return ("ref", t.text, t.line)
        raise RegenError(f"{self.name}:{t.line}: unexpected '{t.text}'")

    def parse_args(self) -> list:
        args = []
        if self.accept("<"):
            while not self.accept(">"):
                args.append(self.parse_expr())
                if not self.accept(","):
                    self.expect(">")
                    break
        return args

    def skip_body(self) -> None:
        depth = 1
        while depth:
            t = self.next()
            if t.kind == "eof":
                raise RegenError(f"{self.name}: unterminated body")
            depth += {"{": 1, "}": -1}.get(t.text, 0)

    def parse_body(self) -> list:
        body = []
        while not self.accept("}"):
            if self.accept("assert"):
                cond = self.parse_expr()
                self.expect(",")
                body.append(("assert", cond, self.parse_expr()))
            elif self.accept("let"):
                name = self.ident()
                self.expect("=")
                body.append(("field", name, self.parse_expr()))
            else:
                self.parse_type()
                name = self.ident()
                value = None
                if self.accept("="):
                    value = self.parse_expr()
                body.append(("field", name, value))
            self.expect(";")
        return body

    def run(self) -> None:
        while self.peek().kind != "eof":
            t = self.next()
            if t.text == "include":
                self.next()
            elif t.text == "class":
                self.parse_class()
            elif t.text == "defvar":
                name = self.ident()
                self.expect("=")
                self.globals[name] = self.eval(self.parse_expr(), {})
                self.expect(";")
            elif t.text == "def":
                self.parse_def()
            else:
                raise RegenError(f"{self.name}:{t.line}: unsupported TableGen statement '{t.text}'")

    def parse_class(self) -> None:
        name = self.ident()
        params = []
        if self.accept("<"):
            while not self.accept(">"):
                self.parse_type()
                pname = self.ident()
                default = self.parse_expr() if self.accept("=") else None
                params.append((pname, default))
                if not self.accept(","):
                    self.expect(">")
                    break
        parent = None
        if self.accept(":"):
            pname = self.ident()
            parent = (pname, self.parse_args())
        body = self.parse_body() if self.accept("{") else []
        if not body:
            self.accept(";")
        self.classes[name] = Class(name, params, parent, body)

    def parse_def(self) -> None:
        name = self.ident() if self.peek().kind == "id" else None
        self.expect(":")
        cls = self.ident()
        args = self.parse_args()
        if cls not in self.classes:
            if cls not in FOREIGN_CLASSES:
                raise RegenError(f"{self.name}:{self.peek().line}: unknown class '{cls}'")
            if self.accept("{"):
                self.skip_body()
            self.accept(";")
            return
        body = self.parse_body() if self.accept("{") else []
        self.accept(";")
        record = self.instantiate(cls, [self.eval(a, {}) for a in args])
        # A def's own body (`def : TargetInfo<...> { let aotToolchain = "ocloc"; }`) overrides
        # what its class set.
        self.apply_body(body, record, {}, name or cls)
        if name:
            self.globals[name] = record
        self.records.append(record)

    def instantiate(self, cls_name: str, args: list) -> Record:
        cls = self.classes[cls_name]
        if len(args) > len(cls.params):
            raise RegenError(f"{self.name}: {cls_name} takes {len(cls.params)} arguments, got {len(args)}")
        env = {}
        for i, (pname, default) in enumerate(cls.params):
            if i < len(args):
                env[pname] = args[i]
            elif default is not None:
                env[pname] = self.eval(default, env)
            else:
                raise RegenError(f"{self.name}: {cls_name} needs its argument '{pname}'")
        if cls.parent:
            pname, pargs = cls.parent
            record = self.instantiate(pname, [self.eval(a, env) for a in pargs])
            record.classes.append(cls_name)
        else:
            record = Record([cls_name], {})
        self.apply_body(cls.body, record, env, cls_name)
        return record

    def apply_body(self, body: list, record: Record, env: dict, where: str) -> None:
        scope = {**record.fields, **env}
        for item in body:
            if item[0] == "field" and item[2] is not None:
                record.fields[item[1]] = self.eval(item[2], scope)
                scope[item[1]] = record.fields[item[1]]
            elif item[0] == "assert" and not self.eval(item[1], scope):
                raise RegenError(f"{self.name}: assert in {where} failed: {self.eval(item[2], scope)}")

    def eval(self, e, env):
        kind = e[0]
        if kind == "lit":
            return e[1]
        if kind == "list":
            return [self.eval(x, env) for x in e[1]]
        if kind == "ref":
            if e[1] in env:
                return env[e[1]]
            if e[1] in self.globals:
                return self.globals[e[1]]
            raise RegenError(f"{self.name}:{e[2]}: unknown name '{e[1]}'")
        if kind == "paste":
            a, b = self.eval(e[1], env), self.eval(e[2], env)
            if isinstance(a, list) and isinstance(b, list):
                return a + b
            return f"{a}{b}"
        if kind == "bang":
            op, args = e[1], [self.eval(x, env) for x in e[2]]
            if op == "!listconcat":
                return [x for a in args for x in a]
            if op == "!listremove":
                return [x for x in args[0] if x not in args[1]]
            if op == "!eq":
                return int(args[0] == args[1])
            raise RegenError(f"{self.name}:{e[3]}: unsupported operator {op}")
        raise AssertionError(kind)


@dataclass
class Target:
    name: str
    aspects: list[str]
    may_support_other_aspects: bool
    sub_group_sizes: list[int]
    aot_toolchain: str
    aot_toolchain_options: str
    duplicates: list[str]


def device_table(td_text: str, name: str = TD_PATH) -> tuple[list[Target], dict]:
    """The targets, and DPC++'s self-test lists (`__TestAspectList`,
    `__TestDeprecatedAspectList`: every aspect the .td defines, which DPC++ checks against
    aspects.def) as {DeviceId: [aspect names]}."""
    tg = TableGen(name, tokenize(td_text, name))
    tg.run()
    targets, self_tests = [], {}
    for r in tg.records:
        if "TargetInfo" not in r.classes:
            continue
        f = r.fields
        if f["DeviceId"].startswith("__"):  # a self-test of DPC++, no target
            self_tests[f["DeviceId"]] = [a.fields["Name"] for a in f["aspects"]]
            continue
        names, dups = [], []
        for a in f["aspects"]:
            n = a.fields["Name"]
            (dups if n in names else names).append(n)
        targets.append(
            Target(
                f["DeviceId"],
                names,
                bool(f["maySupportOtherAspects"]),
                list(f["subGroupSizes"]),
                f.get("aotToolchain", ""),
                f.get("aotToolchainOptions", ""),
                dups,
            )
        )
    if not targets:
        raise RegenError(f"{name}: no TargetInfo definitions found")
    return targets, self_tests


def render_device_table(targets: list[Target], source: str) -> str:
    # An aspect upstream lists twice in a target is written once (sycl-analyzer warns on a
    # duplicate aspect in a device config); the script says so on stderr, not in the file.
    lines = [
        "# The default device table of sycl-analyzer, in the format of a user device-config YAML",
        "# (what DPC++ takes as -fsycl-device-config-file=). Generated by config/regen-from-dpcpp.py",
        f"# from DPC++'s DeviceConfigFile.td ({source}; {len(targets)} targets): do not edit,",
        "# regenerate.",
        "# aot-toolchain / aot-toolchain-options are written only where upstream sets them; the loader",
        "# fills them in for intel_gpu_* targets (ocloc, -device <suffix>).",
    ]
    for t in targets:
        lines += [
            "",
            f"{t.name}:",
            f"  aspects: [{', '.join(t.aspects)}]",
            f"  may_support_other_aspects: {'true' if t.may_support_other_aspects else 'false'}",
            f"  sub-group-sizes: [{', '.join(str(s) for s in t.sub_group_sizes)}]",
        ]
        if t.aot_toolchain:
            lines.append(f"  aot-toolchain: {t.aot_toolchain}")
        if t.aot_toolchain_options:
            lines.append(f"  aot-toolchain-options: {t.aot_toolchain_options}")
    return "\n".join(lines) + "\n"


# --- target names (SYCLTargetParser.cpp) ------------------------------------------------------

def function_body(cpp: str, name: str, path: str) -> str:
    m = re.search(name + r"\s*\([^)]*\)\s*\{", cpp)
    if not m:
        raise RegenError(f"{path}: no function {name}")
    depth, i = 1, m.end()
    while depth:
        depth += {"{": 1, "}": -1}.get(cpp[i], 0)
        i += 1
    return cpp[m.end():i]


def string_switch(body: str) -> list[tuple[list[str], str]]:
    """`.Case("a", "x")` and `.Cases({"a", "b"}, "x")` / `.Cases("a", "b", "x")` in order."""
    cases = []
    for m in re.finditer(r"\.Cases?\s*\((.*?)\)\s*(?=\.|;)", body, re.DOTALL):
        strings = re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1))
        if len(strings) < 2:
            continue
        cases.append((strings[:-1], strings[-1]))
    return cases


def driver_names(cpp: str, path: str = TARGET_PARSER) -> dict:
    devices = string_switch(function_body(cpp, "resolveGenDevice", path))
    macros = {}
    for names, macro in string_switch(function_body(cpp, "getGenDeviceMacro", path)):
        for n in names:
            macros[n] = macro
    families = {"intel_gpu": [], "nvidia_gpu": [], "amd_gpu": []}
    for names, arch in devices:
        canonical = names[0]
        family = next((f for f in families if canonical.startswith(f + "_")), None)
        if family is None:
            raise RegenError(f"{path}: '{canonical}' is of no known family")
        # sycl-analyzer derives the macro from the canonical name; a driver that stops doing
        # so needs code, not data.
        expected = canonical.upper()
        if macros.get(arch) != expected:
            raise RegenError(
                f"{path}: the macro of '{canonical}' is {macros.get(arch)!r}, not {expected!r}:"
                " sycl-analyzer's rule (canonical name upper-cased) no longer holds"
            )
        families[family].append((canonical, names[1:]))
    return families


def render_targets(families: dict, generic_section: str, source: str) -> str:
    lines = [
        "# -fsycl-targets names the DPC++ driver accepts. Generated by config/regen-from-dpcpp.py from",
        f"# SYCLTargetParser.cpp ({source}), but for the generic section, which is ours.",
        "# Names are case-sensitive. The __SYCL_TARGET_*__ macro of a device-specific name is its",
        "# canonical name upper-cased; the device-config entry of a name is its canonical name.",
        "# Generic targets map to a device-config entry by their arch name.",
        "",
        "intel_gpu:   # canonical name: [aliases]",
    ]
    for canonical, aliases in families["intel_gpu"]:
        lines.append(f"  {canonical}: [{', '.join(aliases)}]")
    lines.append("")
    for family in ("nvidia_gpu", "amd_gpu"):
        with_aliases = [c for c, a in families[family] if a]
        if with_aliases:
            raise RegenError(f"{family} names now have aliases ({with_aliases}): targets.yaml has no place for them")
        lines.append(f"{family}: [{', '.join(c for c, _ in families[family])}]")
    return "\n".join(lines) + "\n\n" + generic_section


def generic_section(existing: str) -> str:
    i = existing.find("# Generic (triple-like)")
    if i < 0:
        raise RegenError("config/targets.yaml has no generic section to keep")
    return existing[i:]


# --- aspects (aspects.def, aspects_deprecated.def) --------------------------------------------

def aspect_defs(text: str, path: str) -> tuple[list, list, list]:
    """(aspects [(name, value)], deprecated [(name, value, message)], aliases [name]) in file
    order. Deprecated aliases of another aspect (`__SYCL_ASPECT_DEPRECATED_ALIAS`) have no value
    of their own and are left out of the data, as sycl-analyzer's registry leaves them out."""
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.DOTALL)
    aliases = re.findall(r"__SYCL_ASPECT_DEPRECATED_ALIAS\(\s*(\w+)\s*,", text)
    aspects = [(n, int(v)) for n, v in re.findall(r"__SYCL_ASPECT\(\s*(\w+)\s*,\s*(\d+)\s*\)", text)]
    deprecated = [
        (n, int(v), bytes(m, "utf-8").decode("unicode_escape"))
        for n, v, m in re.findall(
            r'__SYCL_ASPECT_DEPRECATED\(\s*(\w+)\s*,\s*(\d+)\s*,\s*"((?:[^"\\]|\\.)*)"\s*\)', text
        )
    ]
    if not aspects and not deprecated and not aliases:
        raise RegenError(f"{path}: no __SYCL_ASPECT entries")
    return aspects, deprecated, aliases


def yaml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def existing_descriptions(text: str) -> dict:
    return dict(re.findall(r'\{name: (\w+),.*description: "((?:[^"\\]|\\.)*)"\}', text))


def render_aspects(aspects, deprecated, descriptions: dict, source: str, missing: list) -> str:
    lines = [
        "# SYCL aspects known to sycl-analyzer: DPC++ aspects.def and aspects_deprecated.def, generated",
        f"# by config/regen-from-dpcpp.py ({source}). Names are primary; numbers are",
        "# accepted as input only. Descriptions are ours, one-line paraphrases for hovers (kept by the",
        "# script; a new aspect gets an empty one to write).",
        "",
        "aspects:",
    ]

    def desc(name):
        if name not in descriptions:
            missing.append(name)
        return yaml_str(descriptions.get(name, ""))

    for n, v in sorted(aspects, key=lambda a: a[1]):
        lines.append(f"  - {{name: {n}, value: {v}, description: {desc(n)}}}")
    lines += ["", "deprecated:"]
    for n, v, m in deprecated:
        lines.append(f"  - {{name: {n}, value: {v}, message: {yaml_str(m)}, description: {desc(n)}}}")
    return "\n".join(lines) + "\n"


# --- sources.yaml -----------------------------------------------------------------------------

def render_sources(sources: dict, paths: dict) -> str:
    lines = [
        "# Where the embedded data comes from: the DPC++ (intel/llvm) sources each file was generated or",
        "# transcribed from. `--version` prints it; config/regen-from-dpcpp.py rewrites it with the data.",
    ]
    for data, what in (
        ("device_table", "default-device-config.yaml"),
        ("aspects", "aspects.yaml"),
        ("aspects_deprecated", "aspects.yaml, deprecated"),
        ("target_names", "targets.yaml"),
    ):
        repo, commit = sources[data]
        path = paths[data]
        lines += [
            f"{data}:{' ' * max(1, 15 - len(data))}# {what}",
            f"  repo: {repo}",
            f"  commit: {commit}",
            f"  path: {path}",
        ]
    return "\n".join(lines) + "\n"


def checkout_commit(llvm: str, hint: str = "--commit") -> str:
    try:
        out = subprocess.run(
            ["git", "-C", llvm, "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        raise RegenError(f"{llvm} is not a git checkout: give its commit with {hint}")
    return out.stdout.strip()


def read(llvm: str, rel: str, required: bool = True) -> str:
    path = os.path.join(llvm, rel)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        if required:
            raise RegenError(f"{path}: not found (is {llvm} an intel/llvm checkout?)")
        return ""


DATA = ("device_table", "aspects", "aspects_deprecated", "target_names")
# The data a newer revision can give (--names-from): DPC++'s driver and headers name devices and
# aspects before DeviceConfigFile.td describes them.
NAMES_DATA = ("aspects", "aspects_deprecated", "target_names")


def target_table(tree: str) -> tuple[str, str]:
    """(path, text) of the file holding the driver's name tables: SYCLTargetParser.cpp in the
    newest revisions, the driver's SYCL.cpp before."""
    for path in (TARGET_PARSER, DRIVER_SYCL):
        text = read(tree, path, required=False)
        if text and re.search(r"resolveGenDevice\s*\([^)]*\)\s*\{", text):
            return path, text
    raise RegenError(f"{tree}: neither {TARGET_PARSER} nor {DRIVER_SYCL} defines resolveGenDevice")


def generate(llvm: str, out_dir: str, sources: dict, names_tree: str | None = None) -> tuple[dict, list[str]]:
    """The new text of each file of config/ this script owns, and the notes for the reviewer.
    `sources` gives each data's (repo, commit); `names_tree`, if given, is where aspects.def,
    aspects_deprecated.def and the driver's name table are read (a newer revision than `llvm`'s
    DeviceConfigFile.td)."""
    names_tree = names_tree or llvm

    def short(data):
        repo, commit = sources[data]
        return f"{repo}@{commit[:12]}"

    notes = []
    targets, self_tests = device_table(read(llvm, TD_PATH))
    twice: dict = {}
    for t in targets:
        for d in t.duplicates:
            twice.setdefault(d, []).append(t.name)
    for d, names in twice.items():
        where = names[0] if len(names) == 1 else f"{len(names)} targets ({names[0]} .. {names[-1]})"
        notes.append(f"upstream lists {d} twice in {where}: written once")
    aspects, deprecated, aliases = aspect_defs(read(names_tree, ASPECTS_DEF), ASPECTS_DEF)
    more = read(names_tree, ASPECTS_DEPRECATED_DEF, required=False)
    if more:
        a2, d2, al2 = aspect_defs(more, ASPECTS_DEPRECATED_DEF)
        aspects += a2
        deprecated += d2
        aliases += al2
    known = {n for n, _ in aspects} | {n for n, _, _ in deprecated}
    # DPC++ checks its self-test lists against the .def files; a difference here means the .td
    # and the .def files are not of one commit (or upstream is broken): said, not fatal.
    for test, defined, files in (
        ("__TestAspectList", {n for n, _ in aspects}, "aspects.def"),
        ("__TestDeprecatedAspectList", {n for n, _, _ in deprecated} | set(aliases), "aspects_deprecated.def"),
    ):
        if test not in self_tests:
            continue
        listed = self_tests[test]
        only_td = [n for n in listed if n not in defined]
        only_def = sorted(defined - set(listed))
        if only_td:
            notes.append(f"{TD_PATH} {test} names {', '.join(only_td)}, which {files} does not define")
        if only_def:
            notes.append(f"{files} defines {', '.join(only_def)}, which {TD_PATH} {test} does not name")
    for t in targets:
        unknown = [a for a in t.aspects if a not in known]
        if unknown:
            raise RegenError(f"{TD_PATH}: target {t.name} lists aspects aspects.def lacks: {unknown}")
    old_aspects = read(out_dir, "aspects.yaml", required=False)
    missing: list[str] = []
    aspects_text = render_aspects(
        aspects, deprecated, existing_descriptions(old_aspects), short("aspects"), missing
    )
    for n in missing:
        notes.append(f"new aspect '{n}': write its description in aspects.yaml")
    parser_path, parser_text = target_table(names_tree)
    families = driver_names(parser_text, parser_path)
    table_names = {t.name for t in targets}
    # Valid all the same: DPC++ treats a target missing from DeviceConfigFile.td as one that
    # guarantees no aspect, and sycl-post-link filters nothing out of its image.
    for family, names in families.items():
        for canonical, _ in names:
            if canonical not in table_names:
                notes.append(f"driver name '{canonical}' has no device-table entry (valid; no AOT filtering)")
    files = {
        "default-device-config.yaml": render_device_table(targets, short("device_table")),
        "aspects.yaml": aspects_text,
        "targets.yaml": render_targets(
            families, generic_section(read(out_dir, "targets.yaml")), short("target_names")
        ),
        "sources.yaml": render_sources(
            sources,
            {
                "device_table": TD_PATH,
                "aspects": ASPECTS_DEF,
                "aspects_deprecated": ASPECTS_DEPRECATED_DEF,
                "target_names": parser_path,
            },
        ),
    }
    return files, notes


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("llvm", help="an intel/llvm checkout (or any tree with the same paths)")
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)), help="config directory (default: this script's)")
    ap.add_argument("--repo", default="intel/llvm", help="repository named in sources.yaml (default: intel/llvm)")
    ap.add_argument("--commit", help="commit named in sources.yaml (default: the checkout's HEAD)")
    ap.add_argument(
        "--source",
        action="append",
        default=[],
        metavar="DATA=REPO@COMMIT",
        help="where one input really comes from, when not from the checkout's repo and commit"
        f" (DATA: {', '.join(DATA)}); repeatable",
    )
    ap.add_argument(
        "--names-from",
        metavar="TREE",
        help="a newer intel/llvm checkout (or tree) to read aspects.def, aspects_deprecated.def and"
        " the driver's names from, DeviceConfigFile.td still coming from LLVM; its HEAD is their"
        " commit unless --source names it",
    )
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file would change")
    args = ap.parse_args(argv)
    try:
        sources = {}
        for s in args.source:
            m = re.fullmatch(r"(\w+)=([\w.-]+/[\w.-]+)@([0-9a-f]{7,40})", s)
            if not m or m.group(1) not in DATA:
                raise RegenError(f"--source {s!r}: expected DATA=OWNER/REPO@COMMIT, DATA one of {', '.join(DATA)}")
            sources[m.group(1)] = (m.group(2), m.group(3))
        # A checkout's own commit is needed only for data no --source names (a tree of files
        # copied from several repositories is no git checkout and needs none).
        for d in DATA:
            if d in sources:
                continue
            if args.names_from and d in NAMES_DATA:
                sources[d] = (args.repo, checkout_commit(args.names_from, f"--source {d}=REPO@COMMIT"))
            else:
                sources[d] = (args.repo, args.commit or checkout_commit(args.llvm))
        files, notes = generate(args.llvm, args.out, sources, args.names_from)
    except RegenError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    changed = []
    for name, text in files.items():
        path = os.path.join(args.out, name)
        old = read(args.out, name, required=False)
        if old != text:
            changed.append(name)
            if not args.check:
                tmp = path + ".tmp"
                with open(tmp, "w", encoding="utf-8") as f:
                    f.write(text)
                os.replace(tmp, path)
    for n in notes:
        print(f"note: {n}", file=sys.stderr)
    verb = "differ" if args.check else "rewritten"
    print(f"{len(changed)} file(s) {verb}: {', '.join(changed) or 'none'}")
    if changed and not args.check:
        print("review with `git diff config/`, then run `cargo test`")
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
