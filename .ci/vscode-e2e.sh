#!/usr/bin/env bash
# The VS Code extension inside a real VS Code (code-server) driven by headless Chromium
# (editors/vscode/e2e/run.mjs), three ways: the linux-x64 package with its bundled server, the
# generic package with the server on the user's PATH, and the generic package with no server.
# Screenshots: target/artifacts/vscode/<mode>/. Needs Debian's chromium and libkrb5-dev (code-server's
# native modules), which .ci/run installs; Node 24 for code-server comes from the npm registry.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${TMPDIR:-/tmp}/sycl-analyzer-vscode-e2e"
mkdir -p "$cache"

[ -x /usr/bin/chromium ] || { echo "vscode-e2e: /usr/bin/chromium is missing (apt-get install chromium)" >&2; exit 1; }
[ -f /usr/include/gssapi/gssapi.h ] || { echo "vscode-e2e: libkrb5-dev is missing (code-server builds kerberos)" >&2; exit 1; }

[ -x "$root/target/release/sycl-analyzer" ] || cargo build --locked --release --quiet --manifest-path "$root/Cargo.toml"

echo "== the two packages"
(cd "$root/editors/vscode" && npm ci --no-audit --no-fund --silent && npm run --silent package:linux-x64 && npm run --silent package)

# code-server's native modules are built by node-gyp, which would fetch Node's headers from
# nodejs.org (not a package registry); the system's headers serve (the modules use N-API).
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then
  export npm_config_nodedir=/usr
fi

echo "== Node 24 and code-server"
[ -x "$cache/node/node_modules/.bin/node" ] ||
  npm install --prefix "$cache/node" --no-save --no-audit --no-fund --silent node@24.21.0
export PATH="$cache/node/node_modules/.bin:$PATH"
node --version
(cd "$root/editors/vscode/e2e" && npm ci --no-audit --no-fund --silent)

echo "== VS Code"
cd "$root/editors/vscode/e2e"
start=$SECONDS
node run.mjs ../sycl-analyzer-linux-x64.vsix
node run.mjs ../sycl-analyzer.vsix --server-on-path "$root/target/release"
node run.mjs ../sycl-analyzer.vsix --no-server
echo "vscode-e2e: ok in $((SECONDS - start)) s"
