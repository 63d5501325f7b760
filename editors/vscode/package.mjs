// Packages the extension: the generic .vsix (the server comes from PATH or the settings), or with
// `--target linux-x64` a platform-specific one that carries the release binary in server/ (from
// $SYCL_ANALYZER_BIN, default ../../target/release/sycl-analyzer), as rust-analyzer's does.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';

const i = process.argv.indexOf('--target');
const target = i > 0 ? process.argv[i + 1] : undefined;
const vsce = resolve('node_modules/.bin/vsce');
// The README's images are relative (no published repository to rewrite them against).
const common = ['package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '--no-rewrite-relative-links'];

// A binary left from an earlier platform build must never ship in the generic package.
rmSync('server', { recursive: true, force: true });
if (!target) {
  execFileSync(vsce, [...common, '-o', 'sycl-analyzer.vsix'], { stdio: 'inherit' });
} else {
  if (target !== 'linux-x64') throw new Error(`no server build for ${target}: only linux-x64 is packaged`);
  const bin = resolve(process.env.SYCL_ANALYZER_BIN ?? '../../target/release/sycl-analyzer');
  if (!existsSync(bin)) throw new Error(`${bin} is missing: cargo build --release first, or set SYCL_ANALYZER_BIN`);
  mkdirSync('server');
  copyFileSync(bin, 'server/sycl-analyzer');
  chmodSync('server/sycl-analyzer', 0o755);
  // The release profile keeps line tables for profiling; users need none (67 MB -> about 10).
  try {
    execFileSync('strip', ['--strip-debug', 'server/sycl-analyzer']);
  } catch {
    console.warn('strip not found: the bundled server keeps its debug line tables');
  }
  try {
    execFileSync(vsce, [...common, '--target', target, '-o', `sycl-analyzer-${target}.vsix`], { stdio: 'inherit' });
  } finally {
    rmSync('server', { recursive: true, force: true });
  }
}
