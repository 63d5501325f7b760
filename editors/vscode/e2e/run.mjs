// The packaged extension inside a real VS Code: code-server (which bundles VS Code) with the
// linux-x64 .vsix installed, driven by headless Chromium through puppeteer-core. A user's first
// minute: open examples/vector-math, see the aspect-mismatch warning with its call chain in the
// Problems panel, hover `fp16`, run "Show predefined macros". No sycl-analyzer on PATH: the
// bundled server must be the one that runs. Screenshots of each step go to $ARTIFACTS.
//
// Usage: node run.mjs VSIX [--server-on-path DIR | --no-server | --server-exits]
//        (env: ARTIFACTS, CHROMIUM, REPO)
// The generic .vsix is run with --server-on-path (the server from PATH), with --no-server and
// with --server-exits (the deprecated sycl-analyzer.path names a binary that exits at once): the
// user sees one error naming the setting to use, not a popup per restart.
import { spawn, spawnSync, execFileSync } from 'node:child_process';
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
const serverExits = process.argv.includes('--server-exits');
const mode = noServer ? 'no-server' : serverExits ? 'server-exits' : onPath ? 'server-on-path' : 'bundled';
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
// An executable that is no server: it starts and exits at once, as a binary for another glibc would.
const broken = join(work, 'broken/sycl-analyzer');
mkdirSync(dirname(broken));
writeFileSync(broken, '#!/bin/sh\necho "sycl-analyzer: this binary is broken on purpose" >&2\nexit 3\n', { mode: 0o755 });

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
let serverLog = '';
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

async function problemsPanel() {
  // 1. The Problems panel: the aspect-mismatch warning on the kernel, with its chain.
  await commandPalette('View: Focus Problems');
  // The tree's rows with their depth: 1 a file, 2 a problem, 3 its related information. The
  // list is virtual: only rows in view exist.
  const problems = async () => page.$$eval('.markers-panel .monaco-list-row', (rs) =>
    rs.map((r) => ({ level: Number(r.getAttribute('aria-level')), text: r.textContent ?? '' })));
  const show = async () => (await problems()).map((r) => `${'  '.repeat(r.level)}${r.text}`).join('\n');
  const kernel = (t) => t.includes("uses aspect 'fp64' not listed in its 'sycl::device_has' attribute") && t.includes('lambda at');
  await until('the aspect-mismatch warning in Problems', async () => (await problems()).some((r) => r.level === 2 && kernel(r.text)), 60000, show);
  // Fold the other files' problems, as a user would to look at main.cpp's, so that the kernel's
  // warning and the rows under it are in view.
  for (let i = 0; i < 5; i++) {
    const folded = await page.$$eval('.markers-panel .monaco-list-row[aria-level="1"][aria-expanded="true"]', (rs) => {
      const other = rs.find((r) => !(r.textContent ?? '').startsWith('main.cpp'));
      other?.querySelector('.monaco-tl-twistie')?.dispatchEvent(new MouseEvent('click', { bubbles: true }));
      return other !== undefined;
    });
    if (!folded) break;
    await new Promise((r) => setTimeout(r, 300));
  }
  // Related information rows sit under their problem: the call of mix() in the kernel, mix()'s
  // call of blend() in device_lib.cpp, the double literal in blend.hpp.
  const related = await until('the related locations of the kernel\'s warning', async () => {
    const r = await problems();
    const at = r.findIndex((x) => x.level === 2 && kernel(x.text));
    if (at < 0) return undefined;
    const chain = [];
    for (let i = at + 1; i < r.length && r[i].level === 3; i++) chain.push(r[i].text);
    const want = ["main.cpp[Ln 18, Col 5]: propagated from call to function 'mix(", "device_lib.cpp[Ln 6, Col 44]: propagated from call to function 'blend(float, float)'", "blend.hpp[Ln 7, Col 51]: uses 'double literal 0.5' here"];
    // textContent runs the location and the message together: compare without blanks.
    const bare = (x) => x.replace(/\s+/g, '');
    return want.every((w) => chain.some((c) => bare(c).includes(bare(w)))) ? chain : undefined;
  }, 15000, show);
  log(`the kernel's warning, then: ${related.join(' / ')}`);
  // Any error the extension or the server showed is a failure a user would see.
  const toasts = await page.$$eval('.notification-toast', (n) => n.map((x) => x.textContent ?? ''));
  if (toasts.some((t) => t.includes('sycl-analyzer'))) throw new Error(`notifications: ${toasts.join(' | ')}`);
  await shot('problems');
}

async function main() {
  log(`installing ${vsix}`);
  // Its output (and VS Code's complaints about native modules not built) goes to the log.
  const install = spawnSync(process.execPath, [codeServer, '--user-data-dir', userData, '--extensions-dir', extensions, '--install-extension', vsix], {
    env,
    encoding: 'utf8',
  });
  serverLog += `${install.stdout}${install.stderr}`;
  if (install.status !== 0 || !install.stdout.includes('successfully installed')) throw new Error(`installing ${vsix} failed:\n${serverLog}`);
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
      // The deprecated name, still read.
      ...(serverExits ? { 'sycl-analyzer.path': broken } : {}),
    }),
  );

  const port = await freePort();
  server = spawn(
    process.execPath,
    [codeServer, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
      '--disable-workspace-trust', '--disable-getting-started-override', '--user-data-dir', userData, '--extensions-dir', extensions, project],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
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

  if (noServer || serverExits) {
    const expected = noServer ? 'tried sycl-analyzer on PATH' : `${broken} (setting) exited`;
    const toasts = () => page.$$eval('.notification-toast', (n) => n.map((x) => (x instanceof HTMLElement ? x.innerText : '').replace(/\s+/g, ' ')));
    const toast = await until('the no-server error', async () => (await toasts()).find((x) => x.includes('cannot start the language server')),
      30000, async () => (await toasts()).join(' | '));
    log(`error shown: ${toast.slice(0, 400)}`);
    if (!toast.includes('sycl-analyzer.server.path') || !toast.includes('Open Settings') || !toast.includes(expected)) {
      throw new Error(`the error lacks the setting, its button or "${expected}": ${toast}`);
    }
    // Later restarts or the client's own messages would pile up here: the error stays the only one.
    await new Promise((r) => setTimeout(r, 5000));
    const all = await toasts();
    const bell = await page.$$eval('.notifications-center .notification-list-item', (n) => n.length).catch(() => 0);
    if (all.length !== 1) throw new Error(`${all.length} notifications instead of one: ${all.join(' | ')}`);
    log(`notifications: ${all.length} toast(s), ${bell} in the center`);
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
    // The user's fix: the right binary typed into that setting restarts the extension's server.
    const input = await until('the input of Server: Path', async () => {
      const items = await page.$$('.settings-editor .setting-item-contents');
      for (const item of items) {
        if ((await item.evaluate((x) => x.textContent ?? '')).includes('Server: Path')) return item.$('input');
      }
      return undefined;
    }, 10000, () => page.$$eval('.settings-editor .setting-item-contents', (n) => n.map((x) => x.textContent).join(' | ')));
    await input.click();
    await input.type(process.env.SYCL_ANALYZER_BIN ?? join(repo, 'target/release/sycl-analyzer'));
    await page.keyboard.press('Tab');
    // Written to the user's settings.json (debounced) before the dialog is left: Escape earlier
    // would discard the edit.
    const good = process.env.SYCL_ANALYZER_BIN ?? join(repo, 'target/release/sycl-analyzer');
    await until('the setting in settings.json', async () => readFileSync(join(userData, 'User/settings.json'), 'utf8').includes(good), 10000,
      async () => readFileSync(join(userData, 'User/settings.json'), 'utf8'));
    // This VS Code shows the settings as a modal dialog: close it to reach the workbench.
    await until('the settings dialog to close', async () => {
      if (!(await page.$('.settings-editor'))) return true;
      await page.keyboard.press('Escape');
      return false;
    }, 10000, () => page.$$eval('.settings-editor', (n) => n.map((x) => x.textContent).join(' | ').slice(0, 300)));
    await problemsPanel();
    return;
  }

  await problemsPanel();


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
  // What the server says of fp16 (tests/lsp.rs's hover tests and `sycl-analyzer aspects`).
  for (const want of ['sycl::aspect::fp16', '16-bit floating point (sycl::half) in kernels', '-fsycl-targets=intel_gpu_dg1,intel_gpu_pvc', 'any_device_has_v<aspect::fp16> = true']) {
    if (!hover.includes(want)) throw new Error(`the fp16 hover lacks "${want}": ${hover}`);
  }
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
  // code-server's own log (its extension host's errors included), kept for failures.
  writeFileSync(join(artifacts, 'code-server.log'), serverLog);
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
