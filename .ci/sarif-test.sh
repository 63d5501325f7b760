#!/usr/bin/env bash
# `check --format sarif` against GitHub code scanning's ingestion rules, as checked by Microsoft's
# SARIF Multitool (npm): the schema, the SARIF rules and the GitHub (GH) rules, on the example
# project run the way examples/ci/github-code-scanning.yml runs it. Errors fail; warnings print.
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

cp -r "$root/examples/vector-math" "$work/checkout"
status=0
(cd "$work/checkout" && XDG_CACHE_HOME="$work/cache" "$bin" check --format sarif >sycl-analyzer.sarif) || status=$?
[ "$status" -eq 1 ] || { echo "sarif-test: check exited $status, expected 1 (findings)" >&2; exit 1; }

# .NET wants a writable home for its caches; the tool needs no ICU for this.
out="$(cd "$work" && HOME="$work" DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 "$tool" validate \
  --rule-kind "Gh;Sarif" --log ForceOverwrite -o "$work/validation.sarif" "$work/checkout/sycl-analyzer.sarif" 2>&1)" || {
  printf '%s\n' "$out" >&2; echo "sarif-test: the multitool failed" >&2; exit 1; }
printf '%s\n' "$out" | grep -E ': (error|warning) ' || true
if grep -qE ': error ' <<<"$out"; then
  echo "sarif-test: code scanning would reject this SARIF" >&2
  exit 1
fi
echo "sarif-test: ok"
