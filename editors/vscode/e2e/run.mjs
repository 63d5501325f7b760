// The packaged extension inside a real VS Code: code-server (which bundles VS Code) with the
// linux-x64 .vsix installed, driven by headless Chromium through puppeteer-core. A user's first
// minute: open examples/vector-math, see the aspect-mismatch warning with its call chain in the
// Problems panel, hover `fp16`, run "Show predefined macros". No sycl-analyzer on PATH: the
// bundled server must be the one that runs. Screenshots of each step go to $ARTIFACTS.
//
// Usage: node run.mjs VSIX [--server-on-path DIR | --no-server]   (env: ARTIFACTS, CHROMIUM, REPO)
// The generic .vsix is run with --server-on-path (the server from PATH) and with --no-server
// (the user sees one error naming the setting to use).
import { spawn, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(process.env.REPO ?? join(here, '../../..'));
const vsix = resolve(process.argv[2] ?? join(here, '../sycl-analyzer-linux-x64.vsix'));
const onPath = process.argv.includes('--server-on-path') ? resolve(process.argv[process.argv.indexOf('--server-on-path') + 1]) : undefined;
const noServer = process.argv.includes('--no-server');
const mode = noServer ? 'no-server' : onPath ? 'server-on-path' : 'bundled';
const artifacts = resolve(process.env.ARTIFACTS ?? join(repo, 'target/artifacts/vscode', mode));
const chromium = process.env.CHROMIUM ?? '/usr/bin/chromium';
const codeServer = join(here, 'node_modules/code-server/out/node/entry.js');

const work = mkdtempSync(join(tmpdir(), 'sycl-analyzer-vscode-'));
// A fresh home: VS Code takes PATH from the user's login shell, not from whoever started it, so
// "the server on PATH" is what ~/.profile puts there (as cargo install's ~/.cargo/bin is).
const home = join(work, 'home');
mkdirSync(home);
const userData = join(work, 'user-data');
const extensions = join(work, 'extensions');
const project = join(work, 'vector-math');
cpSync(join(repo, 'examples/vector-math'), project, { recursive: true });
rmSync(artifacts, { recursive: true, force: true });
mkdirSync(artifacts, { recursive: true });

// Only system directories on PATH (and the server's, when asked): a sycl-analyzer found there
// would hide a broken bundle.
const systemPath = `${dirname(process.execPath)}:/usr/bin:/bin`;
const env = { ...process.env, HOME: home, SHELL: '/bin/bash', PATH: systemPath, XDG_CACHE_HOME: join(work, 'cache') };
writeFileSync(join(home, '.profile'), onPath ? `export PATH="${onPath}:$PATH"\n` : '');

function log(msg) {
  console.log(`vscode-e2e (${mode}): ${msg}`);
}

async function freePort() {
  return new Promise((ok) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

/** Polls `probe` until it returns a truthy value; on timeout throws with what `seen` says. */
async function until(what, probe, timeoutMs, seen) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${seen ? `; seen: ${await seen().catch((e) => e)}` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

let page;
let browser;
let server;
let step = 0;
async function shot(name) {
  step += 1;
  const file = join(artifacts, `${String(step).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file });
  log(`screenshot ${file}`);
}

async function commandPalette(command) {
  await page.keyboard.press('F1');
  const input = await page.waitForSelector('.quick-input-widget input', { visible: true, timeout: 10000 });
  await input.type(command);
  await until(`"${command}" in the command palette`, async () => {
    const rows = await page.$$eval('.quick-input-list .monaco-list-row', (rs) => rs.map((r) => r.textContent ?? ''));
    return rows.some((r) => r.includes(command));
  }, 10000, () => page.$$eval('.quick-input-list .monaco-list-row', (rs) => rs.map((r) => r.textContent).join(' | ')));
  await page.keyboard.press('Enter');
}

async function main() {
  log(`installing ${vsix}`);
  execFileSync(process.execPath, [codeServer, '--user-data-dir', userData, '--extensions-dir', extensions, '--install-extension', vsix], {
    env,
    stdio: 'inherit',
  });
  mkdirSync(join(userData, 'User'), { recursive: true });
  writeFileSync(
    join(userData, 'User/settings.json'),
    JSON.stringify({
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'workbench.enableExperiments': false,
      'security.workspace.trust.enabled': false,
      'telemetry.telemetryLevel': 'off',
      'extensions.autoCheckUpdates': false,
      'extensions.ignoreRecommendations': true,
      'update.mode': 'none',
      'editor.hover.delay': 100,
      'window.zoomLevel': 0,
      // The chat side bar would take a third of the screenshots.
      'chat.disableAIFeatures': true,
      'workbench.secondarySideBar.defaultVisibility': 'hidden',
    }),
  );

  const port = await freePort();
  server = spawn(
    process.execPath,
    [codeServer, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
      '--disable-workspace-trust', '--disable-getting-started-override', '--user-data-dir', userData, '--extensions-dir', extensions, project],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let serverLog = '';
  server.stdout.on('data', (d) => (serverLog += d));
  server.stderr.on('data', (d) => (serverLog += d));
  await until('code-server to listen', async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 60000, async () => serverLog);
  log(`code-server on port ${port}`);

  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    userDataDir: join(work, 'chromium'),
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--window-size=1280,800'],
    defaultViewport: { width: 1280, height: 800 },
  });
  page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(project)}`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
  await until('the explorer', async () => (await page.$$('.explorer-folders-view .monaco-list-row')).length > 0, 60000);
  await shot('workbench');

  // Open src/main.cpp through Quick Open, as a user would.
  await page.keyboard.down('Control');
  await page.keyboard.press('KeyP');
  await page.keyboard.up('Control');
  const quick = await page.waitForSelector('.quick-input-widget input', { visible: true, timeout: 10000 });
  await quick.type('main.cpp');
  await until('main.cpp in Quick Open', async () => {
    const rows = await page.$$eval('.quick-input-list .monaco-list-row', (rs) => rs.map((r) => r.textContent ?? ''));
    return rows.some((r) => r.includes('main.cpp'));
  }, 15000);
  await page.keyboard.press('Enter');
  await until('main.cpp in an editor', async () => (await page.$$eval('.tab.active', (t) => t.map((x) => x.textContent))).join().includes('main.cpp'), 15000);

  if (noServer) {
    const toast = await until('the no-server error', async () => {
      const t = await page.$$eval('.notification-toast', (n) => n.map((x) => x.textContent ?? ''));
      return t.find((x) => x.includes('cannot start the language server'));
    }, 30000, () => page.$$eval('.notification-toast', (n) => n.map((x) => x.textContent).join(' | ')));
    log(`error shown: ${toast.slice(0, 300)}`);
    if (!toast.includes('sycl-analyzer.server.path') || !toast.includes('Open Settings')) throw new Error(`the error lacks the setting or its button: ${toast}`);
    await shot('no-server');
    // Its button opens the settings at that setting.
    const buttons = await page.$$('.notification-toast .monaco-button');
    let clicked = false;
    for (const b of buttons) {
      if ((await b.evaluate((x) => x.textContent ?? '')).includes('Open Settings')) {
        await b.click();
        clicked = true;
        break;
      }
    }
    if (!clicked) throw new Error('no Open Settings button');
    await until('the settings editor at sycl-analyzer.server.path', async () => {
      const t = await page.$$eval('.settings-editor .setting-item-contents', (n) => n.map((x) => x.textContent ?? '').join('\n'));
      return t.includes('Server: Path') || t.includes('server.path');
    }, 15000, () => page.$$eval('.settings-editor', (n) => n.map((x) => x.textContent).join(' | ').slice(0, 500)));
    await shot('settings');
    return;
  }

  // 1. The Problems panel: the aspect-mismatch warning on the kernel, with its chain.
  await commandPalette('View: Focus Problems');
  const problems = async () => page.$$eval('.markers-panel .monaco-list-row', (rs) => rs.map((r) => r.textContent ?? ''));
  const rows = await until('the aspect-mismatch warning in Problems', async () => {
    const r = await problems();
    return r.some((t) => t.includes("uses aspect 'fp64' not listed in its 'sycl::device_has' attribute") && t.includes('lambda at')) ? r : undefined;
  }, 60000, async () => (await problems()).join('\n'));
  // Related information rows sit under their problem: the calls down to the literal in blend.hpp.
  const related = await until('the related locations of the warning', async () => {
    const r = await problems();
    const chain = r.filter((t) => t.includes('propagated from call to function') || t.includes("uses 'double"));
    return chain.some((t) => t.includes('blend.hpp')) && chain.some((t) => t.includes("function 'mix(")) ? chain : undefined;
  }, 15000, async () => (await problems()).join('\n'));
  log(`Problems: ${rows.length} rows; chain: ${related.join(' / ')}`);
  // Any error the extension or the server showed is a failure a user would see.
  const toasts = await page.$$eval('.notification-toast', (n) => n.map((x) => x.textContent ?? ''));
  if (toasts.some((t) => t.includes('sycl-analyzer'))) throw new Error(`notifications: ${toasts.join(' | ')}`);
  await shot('problems');

  // 2. Hover fp16 in the kernel's device_has.
  const text = readFileSync(join(project, 'src/main.cpp'), 'utf8').split('\n');
  const line = text.findIndex((l) => l.includes('device_has(sycl::aspect::fp16)'));
  const column = text[line].indexOf('fp16') + 2; // inside the word
  await commandPalette('Go to Line/Column');
  await page.keyboard.type(`${line + 1}:${column + 1}`);
  await page.keyboard.press('Enter');
  await commandPalette('Show or Focus Hover');
  const hover = await until('the hover of fp16', async () => {
    const t = await page.$$eval('.monaco-hover .hover-contents, .monaco-hover .rendered-markdown', (h) => h.map((x) => x.textContent ?? '').join('\n'));
    return t.includes('fp16') ? t : undefined;
  }, 20000, () => page.$$eval('.monaco-hover', (h) => h.map((x) => x.textContent).join(' | ')));
  log(`hover: ${hover.replace(/\s+/g, ' ').slice(0, 300)}`);
  if (!/aspect/i.test(hover) || !hover.includes('intel_gpu_pvc')) throw new Error(`the fp16 hover lacks the aspect and the targets: ${hover}`);
  await shot('hover-fp16');
  await page.keyboard.press('Escape');

  // 3. The macros of the project's targets, in a new editor.
  await commandPalette('sycl-analyzer: Show predefined macros');
  const macros = await until('the predefined macros', async () => {
    const t = await page.$$eval('.editor-instance .view-lines', (v) => v.map((x) => x.textContent ?? '').join('\n'));
    return t.includes('__SYCL_TARGET_INTEL_GPU_PVC__') ? t : undefined;
  }, 20000, () => page.$$eval('.editor-instance .view-lines', (v) => v.map((x) => x.textContent).join(' | ')));
  for (const m of ['-fsycl-targets=intel_gpu_dg1,intel_gpu_pvc', '__SYCL_TARGET_INTEL_GPU_DG1__', '__SYCL_ANY_DEVICE_HAS_fp16__']) {
    if (!macros.includes(m)) throw new Error(`Show predefined macros lacks ${m}: ${macros}`);
  }
  await shot('macros');

  // The server that answered is the bundled one: the extension says so in its output channel.
  const extDir = execFileSync('ls', [extensions], { encoding: 'utf8' }).split('\n').find((d) => d.startsWith('sycl-analyzer.'));
  if (!extDir) throw new Error('the extension is not installed');
  log(`installed extension ${extDir}; server log lines: ${serverLog.split('\n').length}`);
}

let failed = false;
try {
  await main();
  log('ok');
} catch (e) {
  failed = true;
  console.error(`vscode-e2e: FAILED: ${e instanceof Error ? e.stack : e}`);
  if (page) await shot('failure').catch(() => {});
} finally {
  if (browser) await browser.close().catch(() => {});
  if (server) server.kill();
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
