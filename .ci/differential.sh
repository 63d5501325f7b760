#!/usr/bin/env bash
# CI step: the differential test of the aspect analysis (tests/differential/README.md).
# Needs target/release/sycl-analyzer (cargo build --release); installs libclang from PyPI into a
# venv under ${TMPDIR:-/tmp}. Exits non-zero on any mismatch between the analyzer and the oracle.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
cd "$(dirname "$0")/.."

bin="${SYCL_ANALYZER_BIN:-$PWD/target/release/sycl-analyzer}"
count="${DIFFERENTIAL_COUNT:-300}"
seed="${DIFFERENTIAL_SEED_START:-1}"
[ -x "$bin" ] || { echo "differential: $bin is missing; build it first (cargo build --release)" >&2; exit 1; }

venv="${TMPDIR:-/tmp}/sycl-analyzer-differential-venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/differential/requirements.txt

echo "== differential: the oracle against its hand-checked cases"
"$venv/bin/python" tests/differential/run.py --self-test

echo "== differential: $count generated programs from seed $seed against $bin"
keep="${TMPDIR:-/tmp}/sycl-analyzer-differential-failures"
rm -rf "$keep"
"$venv/bin/python" tests/differential/run.py --analyzer "$bin" --count "$count" --seed-start "$seed" \
  --jobs "$(nproc)" --check-gen --keep "$keep"
