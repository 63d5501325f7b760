// Bundles the extension (dist/extension.js) or, with --tests, the unit tests (out/test/*.js),
// and copies the device-config schema next to the extension.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';

const tests = process.argv.includes('--tests');
if (tests) {
  const entries = readdirSync('test').filter((f) => f.endsWith('.test.ts')).map((f) => `test/${f}`);
  await build({ entryPoints: entries, outdir: 'out/test', bundle: true, platform: 'node', format: 'cjs', target: 'node18' });
} else {
  mkdirSync('schema', { recursive: true });
  copyFileSync('../../config/device-config.schema.json', 'schema/device-config.schema.json');
  await build({
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    external: ['vscode'],
    minify: true,
    sourcemap: false,
  });
}
