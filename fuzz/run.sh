#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 60) from seeds taken from this repository.
# Usage: fuzz/run.sh [SECONDS] [extra cargo-fuzz flags, e.g. -s none]
# Only the stable toolchain exists here: RUSTC_BOOTSTRAP=1 lets it take the -Z flags cargo-fuzz
# passes (sanitizer, coverage instrumentation).
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-60}"; shift || true
export RUSTC_BOOTSTRAP=1
work="${TMPDIR:-/tmp}/sycl-analyzer-fuzz"
mkdir -p "$work"/seeds/{cpp_extract,yaml_config,jsonrpc,lsp_edits}
cp ../tests/fixtures/*.cpp ../examples/vector-math/src/* "$work/seeds/cpp_extract/"
find ../tests/fixtures -name '*.h*' -exec cp {} "$work/seeds/cpp_extract/" \;
cp ../config/*.yaml ../config/examples/*.yaml "$work/seeds/yaml_config/"
grep -h '^--> {' ../protocol.md | sed 's/^--> //' | split -l 1 - "$work/seeds/jsonrpc/ex"
cargo fuzz build -O "$@"
for t in yaml_config jsonrpc cpp_extract lsp_edits; do
  echo "== fuzz $t for ${seconds}s"
  mkdir -p "$work/corpus/$t"
  cargo fuzz run -O "$@" "$t" "$work/corpus/$t" "$work/seeds/$t" -- \
    -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=4096 -print_final_stats=1 2>&1 \
    | grep -E '^(stat::number_of_executed_units|Done|==[0-9]+==|SUMMARY)|panicked' || true
  # A crash leaves an artifact and a non-zero status: cargo fuzz run's own status is kept.
  [ -z "$(ls artifacts/$t 2>/dev/null)" ] || { echo "fuzz: $t found a crash: $(ls artifacts/$t)" >&2; exit 1; }
done
