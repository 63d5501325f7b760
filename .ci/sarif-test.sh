#!/usr/bin/env bash
# `check --format sarif` against GitHub code scanning's ingestion rules, as checked by Microsoft's
# SARIF Multitool (npm): the schema, the SARIF rules and the GitHub (GH) rules, on the example
# project run the way examples/ci/github-code-scanning.yml runs it, and on each input a CI job
# can get wrong (a broken device config, an invalid or empty target list, a malformed compile
# database entry, only binary sources): exit 2 and a valid SARIF whose notifications say why.
# Errors fail; warnings print.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

bin="$root/target/release/sycl-analyzer"
[ -x "$bin" ] || cargo build --locked --release --quiet --manifest-path "$root/Cargo.toml"

npm install --prefix "$work/npm" --no-save --no-audit --no-fund --silent '@microsoft/sarif-multitool@5.7.0'
tool="$(find "$work/npm/node_modules/@microsoft" -name Sarif.Multitool -type f | head -1)"
[ -n "$tool" ] || { echo "sarif-test: the multitool's binary is missing" >&2; exit 1; }
chmod u+x "$tool" # npm 11 does not run the package's postinstall, which does this

# Validates one SARIF file; fails on what code scanning would reject.
validate() {
  local out
  out="$(cd "$work" && HOME="$work" DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 "$tool" validate \
    --rule-kind "Gh;Sarif" --log ForceOverwrite -o "$work/validation.sarif" "$1" 2>&1)" || {
    printf '%s\n' "$out" >&2; echo "sarif-test: the multitool failed on $1" >&2; exit 1; }
  printf '%s\n' "$out" | grep -E ': (error|warning) ' || true
  if grep -qE ': error ' <<<"$out"; then
    echo "sarif-test: code scanning would reject $1" >&2
    exit 1
  fi
}

# Runs `check --format sarif ARGS...` in DIR, expecting exit status STATUS; validates the SARIF
# and, for a refused run, that it says why: no result, a notification, executionSuccessful false.
check_case() {
  local name="$1" dir="$2" status="$3" expected_id="$4"
  shift 4
  local sarif="$work/$name.sarif" got=0
  (cd "$dir" && XDG_CACHE_HOME="$work/cache" "$bin" check --format sarif "$@" >"$sarif") || got=$?
  [ "$got" -eq "$status" ] || { echo "sarif-test: $name: check exited $got, expected $status" >&2; exit 1; }
  validate "$sarif"
  if [ "$status" -eq 2 ]; then
    python3 - "$sarif" "$expected_id" "$name" <<'PY'
import json, sys
path, expected, name = sys.argv[1:]
run = json.load(open(path))["runs"][0]
inv = run["invocations"][0]
ids = [n["descriptor"]["id"] for n in inv["toolExecutionNotifications"]]
assert run["results"] == [], (name, run["results"])
assert inv["executionSuccessful"] is False, (name, inv)
assert expected in ids, (name, ids)
PY
  fi
  echo "sarif-test: $name: exit $got, valid"
}

cp -r "$root/examples/vector-math" "$work/checkout"
# The example, as examples/ci/github-code-scanning.yml runs it: findings, exit 1.
check_case example "$work/checkout" 1 -
cp "$work/example.sarif" "$work/checkout/sycl-analyzer.sarif"

# Each input a CI job can get wrong exits 2 with a SARIF code scanning accepts, saying why.
printf 'intel_gpu_x: {aspects: [fp64\n' >"$work/checkout/broken.yaml"
check_case broken-config "$work/checkout" 2 yaml-syntax --config broken.yaml
check_case invalid-target "$work/checkout" 2 invalid-target --targets intel_gpu_pvcc
check_case empty-targets "$work/checkout" 2 empty-targets --targets ""
mkdir -p "$work/db"
cp -r "$work/checkout/src" "$work/db/src"
printf '[{"file": "src/main.cpp", "command": "icpx -fsycl -fsycl-targets=intel_gpu_dg1 -c src/main.cpp"}]\n' \
  >"$work/db/compile_commands.json"
check_case database-entry "$work/db" 2 invalid-compile-database
mkdir -p "$work/binary/src"
printf '\177ELF\000\001\002garbage' >"$work/binary/src/blob.cpp"
check_case binary-only "$work/binary" 2 no-source src
echo "sarif-test: ok"
