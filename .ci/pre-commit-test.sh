#!/usr/bin/env bash
# The hooks of .pre-commit-hooks.yaml, run by pre-commit (from PyPI) on a sample repository:
# a commit with a device_has mismatch is refused, with the finding on the terminal; the fixed
# one goes through. Both hooks: `sycl-analyzer-system` (the binary on PATH) and `sycl-analyzer`
# (pre-commit builds this repository with cargo). Uses HEAD of this checkout, as a user's
# `rev:` would name a commit.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rev="$(git -C "$root" rev-parse HEAD)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

venv="$work/venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check 'pre-commit==4.7.0'
export PRE_COMMIT_HOME="$work/cache"

sample() { # $1: the hook id; makes a fresh sample repository in $work/$1
  local repo="$work/$1"
  mkdir -p "$repo/src"
  git -C "$repo" init -q
  git -C "$repo" config user.email ci@example.invalid
  git -C "$repo" config user.name ci
  cat >"$repo/.pre-commit-config.yaml" <<EOF
repos:
  - repo: $root
    rev: $rev
    hooks:
      - id: $1
EOF
  # The double is in a helper, so the finding must follow the call from the kernel.
  cat >"$repo/src/kernel.cpp" <<'EOF'
#include <sycl/sycl.hpp>

float scale(float x) { return x * 0.5; }

void run(sycl::queue &q, float *p) {
  q.single_task([=]() [[sycl::device_has(sycl::aspect::fp16)]] { p[0] = scale(p[0]); });
}
EOF
  (cd "$repo" && "$venv/bin/pre-commit" install >/dev/null)
}

attempt() { # $1: repo; commits what is staged; prints pre-commit's output, returns git's status
  (cd "$1" && git add -A && PATH="$venv/bin:$PATH" git commit -q -m sample 2>&1)
}

run_hook() { # $1: the hook id
  local repo="$work/$1" out status
  sample "$1"
  status=0
  out="$(attempt "$repo")" || status=$?
  printf '%s\n' "$out" | sed 's/^/  | /'
  [ "$status" -ne 0 ] || { echo "pre-commit-test: $1 let a device_has mismatch through" >&2; exit 1; }
  grep -q "aspect-mismatch" <<<"$out" || { echo "pre-commit-test: $1 refused without the finding" >&2; exit 1; }
  grep -q "propagated from call to function 'scale(float)'" <<<"$out" ||
    { echo "pre-commit-test: $1 did not show the call chain" >&2; exit 1; }
  [ -z "$(git -C "$repo" log --oneline 2>/dev/null)" ] || { echo "pre-commit-test: $1 committed anyway" >&2; exit 1; }

  sed -i 's/0\.5;/0.5f;/' "$repo/src/kernel.cpp"
  status=0
  out="$(attempt "$repo")" || status=$?
  printf '%s\n' "$out" | sed 's/^/  | /'
  [ "$status" -eq 0 ] || { echo "pre-commit-test: $1 refused the fixed commit" >&2; exit 1; }
  [ "$(git -C "$repo" log --oneline | wc -l)" -eq 1 ] || { echo "pre-commit-test: $1: no commit" >&2; exit 1; }
  echo "pre-commit-test: $1 ok"
}

echo "== hook sycl-analyzer-system (the release binary on PATH)"
[ -x "$root/target/release/sycl-analyzer" ] || cargo build --locked --release --quiet --manifest-path "$root/Cargo.toml"
PATH="$root/target/release:$PATH" run_hook sycl-analyzer-system

echo "== hook sycl-analyzer (built by pre-commit with cargo install)"
# Reuses this checkout's release artifacts, as a user's cargo cache would after the first run.
CARGO_TARGET_DIR="$root/target" run_hook sycl-analyzer
