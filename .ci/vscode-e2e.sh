#!/usr/bin/env bash
# The VS Code extension inside a real VS Code (code-server) driven by headless Chromium
# (editors/vscode/e2e/run.mjs), four ways: the linux-x64 package with its bundled server (built
# for glibc 2.17 by .ci/portable-build.sh, zig from PyPI), the
# generic package with the server on the user's PATH, with no server, and with a configured
# server that exits at once. Screenshots and code-server's log: artifacts/vscode/<mode>/ in cargo's
# target directory ($CARGO_TARGET_DIR when set, else target/ of the checkout).
# Needs Debian's chromium (.ci/run installs it), node 20 + npm and the npm registry: Node 24 for
# code-server comes from the registry; no compiler (code-server's native modules are not built).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# Where cargo builds: a relative CARGO_TARGET_DIR is taken from here, as cargo takes it.
target="$(realpath -m "${CARGO_TARGET_DIR:-$root/target}")"
cache="${TMPDIR:-/tmp}/sycl-analyzer-vscode-e2e"
mkdir -p "$cache"

[ -x /usr/bin/chromium ] || { echo "vscode-e2e: /usr/bin/chromium is missing (apt-get install chromium)" >&2; exit 1; }

[ -x "$target/release/sycl-analyzer" ] || cargo build --locked --release --quiet --manifest-path "$root/Cargo.toml"

echo "== the portable server (glibc 2.17) and the two packages"
# The linux-x64 package carries the server built as it is released: for an old glibc.
portable="$(bash "$root/.ci/portable-build.sh")"
(cd "$root/editors/vscode" && npm ci --no-audit --no-fund --silent &&
  SYCL_ANALYZER_BIN="$portable" npm run --silent package:linux-x64 && npm run --silent package)

echo "== Node 24 and code-server"
[ -x "$cache/node/node_modules/.bin/node" ] ||
  npm install --prefix "$cache/node" --no-save --no-audit --no-fund --silent node@24.21.0
export PATH="$cache/node/node_modules/.bin:$PATH"
node --version
# code-server's postinstall (npm install in lib/vscode and lib/vscode/extensions) without
# install scripts: they would build native modules with node-gyp, which needs a compiler,
# libkrb5-dev and Node's headers from nodejs.org. The test uses none of them (kerberos: proxy
# auth; node-pty: terminals; spdlog: log files, VS Code logs to stderr without it).
e2e="$root/editors/vscode/e2e"
(cd "$e2e" && npm ci --ignore-scripts --no-audit --no-fund --silent)
(cd "$e2e/node_modules/code-server/lib/vscode" && npm install --omit=dev --ignore-scripts --no-audit --no-fund --silent &&
  cd extensions && npm install --omit=dev --ignore-scripts --no-audit --no-fund --silent)

echo "== VS Code"
cd "$e2e"
start=$SECONDS
# run.mjs's defaults are under the checkout's target/: name the real one.
e2e_run() {
  local mode="$1"
  shift
  ARTIFACTS="$target/artifacts/vscode/$mode" SYCL_ANALYZER_BIN="$target/release/sycl-analyzer" node run.mjs "$@"
}
e2e_run bundled ../sycl-analyzer-linux-x64.vsix
e2e_run server-on-path ../sycl-analyzer.vsix --server-on-path "$target/release"
e2e_run no-server ../sycl-analyzer.vsix --no-server
e2e_run server-exits ../sycl-analyzer.vsix --server-exits
echo "vscode-e2e: ok in $((SECONDS - start)) s"
