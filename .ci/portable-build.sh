#!/usr/bin/env bash
# The server binary the linux-x64 VS Code package bundles, built for an old glibc baseline
# (2.17, RHEL/CentOS 7 and newer; HPC clusters run RHEL 8 and older) as rust-analyzer's releases
# are: cargo-zigbuild links against zig's glibc 2.17 stubs (zig from PyPI's `ziglang`). Then
# checks that no symbol newer than the baseline is imported. Prints the binary's path last.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
baseline="2.17"
venv="${TMPDIR:-/tmp}/sycl-analyzer-zig-venv"
[ -x "$venv/bin/python-zig" ] || [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "ziglang==0.13.0.post1" >&2
# cargo-zigbuild finds zig as `python -m ziglang` when no `zig` is on PATH.
export CARGO_ZIGBUILD_ZIG_PATH="$venv/bin/python3 -m ziglang"
export PATH="$venv/bin:$PATH"
command -v cargo-zigbuild >/dev/null || cargo install --locked --quiet cargo-zigbuild --version 0.19.8 >&2
target="x86_64-unknown-linux-gnu"
cargo zigbuild --locked --release --quiet --manifest-path "$root/Cargo.toml" --target "$target.$baseline" >&2
bin="$root/target/$target/release/sycl-analyzer"
[ -x "$bin" ] || { echo "portable-build: $bin was not built" >&2; exit 1; }

# Every versioned glibc symbol the binary imports must exist in the baseline.
newest=$(objdump -T "$bin" | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V -u | tail -1)
echo "portable-build: newest glibc symbol version imported: $newest (baseline $baseline)" >&2
if [ "$(printf '%s\n%s\n' "$newest" "$baseline" | sort -V | tail -1)" != "$baseline" ]; then
  echo "portable-build: symbols newer than glibc $baseline:" >&2
  objdump -T "$bin" | grep -E "GLIBC_[0-9.]+" | awk -v b="$baseline" '{ for (i = 1; i <= NF; i++) if ($i ~ /^\(?GLIBC_/) print }' | sort -u >&2
  exit 1
fi
"$bin" --version >&2
echo "$bin"
