// VS Code front end of sycl-analyzer: starts `sycl-analyzer lsp` and adds four commands.
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  CloseAction,
  CloseHandlerResult,
  DocumentSelector,
  ErrorHandler,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  Trace,
} from 'vscode-languageclient/node';
import { deviceConfigsFromCompileCommands, findServer, noServerMessage, Settings, toInitializationOptions } from './settings';

let client: LanguageClient | undefined;

function settings(): Settings {
  const c = vscode.workspace.getConfiguration('sycl-analyzer');
  return {
    serverPath: c.get<string>('server.path', ''),
    deprecatedPath: c.get<string>('path', ''),
    targets: c.get<string[]>('targets', []),
    deviceConfig: c.get<string[]>('deviceConfig', []),
    compileCommands: c.get<string>('compileCommands', ''),
  };
}

function workspaceRoot(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

/** C/C++ files, the device-config glob, and the YAML files named in compile_commands.json. */
function documentSelector(root: string | undefined): DocumentSelector {
  const glob = vscode.workspace.getConfiguration('sycl-analyzer').get<string>('deviceConfigGlob', '');
  const selector: DocumentSelector = [
    { scheme: 'file', language: 'cpp' },
    { scheme: 'file', language: 'c' },
    { scheme: 'file', language: 'cuda-cpp' },
  ];
  if (glob) selector.push({ scheme: 'file', pattern: glob });
  const s = settings();
  const configs = s.deviceConfig.map((c) => (root && !path.isAbsolute(c) ? path.join(root, c) : c));
  if (root) {
    for (const db of [path.join(root, 'compile_commands.json'), path.join(root, 'build', 'compile_commands.json')]) {
      if (fs.existsSync(db)) configs.push(...deviceConfigsFromCompileCommands(fs.readFileSync(db, 'utf8')));
    }
  }
  for (const c of configs) selector.push({ scheme: 'file', pattern: c });
  return selector;
}

/** A regular file this process may execute: a directory or a non-executable file cannot start. */
function isExecutable(p: string): boolean {
  try {
    if (!fs.statSync(p).isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

let restarting: Promise<void> = Promise.resolve();

/** Why the server is not running, when it is not: commands repeat it instead of doing nothing. */
let notRunning: string | undefined;

async function showNoServer(reason: string): Promise<void> {
  const open = 'Open Settings';
  const choice = await vscode.window.showErrorMessage(noServerMessage(reason), open);
  if (choice === open) await vscode.commands.executeCommand('workbench.action.openSettings', 'sycl-analyzer.server.path');
}

/**
 * A client whose own error popups are held back while it starts: a failed start is reported
 * once by the extension, with the setting to fix, instead of up to three generic messages.
 */
class Client extends LanguageClient {
  starting = true;
  override error(message: string, data?: unknown, showNotification: boolean | 'force' = true): void {
    super.error(message, data, this.starting ? false : showNotification);
  }
}

/** A server that exits this soon after its spawn is broken, not crashed: restarting repeats it. */
const EXITS_AT_ONCE_MS = 10_000;

async function start(context: vscode.ExtensionContext): Promise<void> {
  const root = workspaceRoot();
  const s = settings();
  const exe = process.platform === 'win32' ? 'sycl-analyzer.exe' : 'sycl-analyzer';
  // Only the platform packages have server/: the generic one has nothing bundled to report.
  const bundled = fs.existsSync(context.asAbsolutePath('server')) ? context.asAbsolutePath(path.join('server', exe)) : undefined;
  const found = findServer(s, bundled, root, process.env.PATH, isExecutable);
  if (!('path' in found)) {
    notRunning = `tried ${found.tried.join(', ')}`;
    void showNoServer(notRunning);
    return;
  }
  const what = `${found.path} (${found.source})`;
  // One message per start, whichever of the start failure and the close handler sees it first.
  let reported = false;
  const fail = (reason: string) => {
    notRunning = reason;
    if (client === c) client = undefined;
    if (!reported) void showNoServer(reason);
    reported = true;
  };
  let spawned = Date.now();
  // How the last server process ended and the end of its stderr, for the message.
  let ended = '';
  let stderr = '';
  let exited: Promise<void> = Promise.resolve();
  // The client may see the closed pipe before the process's exit: give the exit a moment.
  const settle = () => Promise.race([exited, new Promise((r) => setTimeout(r, 1000))]);
  const why = () => {
    const last = stderr.trim().split('\n').pop()?.trim();
    return `${ended || 'closed its connection'}${last ? `: ${last}` : ''}`;
  };
  let fallback: ErrorHandler | undefined;
  const errorHandler: ErrorHandler = {
    error: (error, message, count) => fallback!.error(error, message, count),
    closed: async (): Promise<CloseHandlerResult> => {
      const after = Date.now() - spawned;
      if (after < EXITS_AT_ONCE_MS) {
        await settle();
        fail(`${what} exited at once (${why()})`);
        return { action: CloseAction.DoNotRestart, handled: true };
      }
      // A crash after a good start: restarted, up to the client's usual limit.
      const r = await fallback!.closed();
      if (r.action === CloseAction.DoNotRestart) {
        await settle();
        fail(`${what} crashed 5 times in 3 minutes, last ${why()}`);
        return { ...r, handled: true };
      }
      return r;
    },
  };
  // Spawned here rather than by the client, to know the exit code and a spawn error (a binary
  // for another platform or glibc) for the one message a user gets.
  const serverOptions: ServerOptions = () =>
    new Promise<ChildProcess>((resolve, reject) => {
      spawned = Date.now();
      ended = '';
      stderr = '';
      const child = spawn(found.path, ['lsp'], { cwd: root, stdio: 'pipe' });
      child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
      exited = new Promise((done) =>
        child.on('exit', (code, signal) => {
          ended = signal ? `killed by ${signal}` : `exit code ${code}`;
          done();
        }),
      );
      child.on('error', (e) => {
        ended = e.message;
        reject(e);
      });
      child.on('spawn', () => resolve(child));
    });
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(root),
    initializationOptions: toInitializationOptions(s),
    synchronize: { configurationSection: 'sycl-analyzer' },
    errorHandler,
    // A failed initialize is reported by fail(), not by a popup of the client's.
    initializationFailedHandler: () => false,
  };
  const c = new Client('sycl-analyzer', 'sycl-analyzer', serverOptions, clientOptions);
  fallback = c.createDefaultErrorHandler(4);
  c.info(`server: ${what}`);
  const trace = vscode.workspace.getConfiguration('sycl-analyzer').get<string>('trace.server', 'off');
  try {
    await c.start();
  } catch (e) {
    await settle();
    // The exit seen by the process beats the client's "write EPIPE" or "connection got disposed".
    fail(`${what} ${ended ? `exited at once (${why()})` : `failed: ${e instanceof Error ? e.message : String(e)}`}`);
    void c.dispose().catch(() => undefined);
    return;
  }
  c.starting = false;
  notRunning = undefined;
  client = c;
  await client.setTrace(Trace.fromString(trace));
  context.subscriptions.push(client);
}

/** The running client, or the reason there is none, shown once more. */
function running(): LanguageClient | undefined {
  if (!client) void showNoServer(notRunning ?? 'not started');
  return client;
}

async function showDocument(content: string, language: string): Promise<void> {
  const doc = await vscode.workspace.openTextDocument({ content, language });
  await vscode.window.showTextDocument(doc, { preview: true });
}

interface MacrosResult {
  targets: string[];
  macros: Record<string, string>;
}

interface TargetRow {
  name: string;
  aspects: string[];
  may_support_other_aspects: boolean;
  sub_group_sizes: number[];
  source: string;
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    // One restart at a time: settings edits come in bursts, and two overlapping restarts would
    // both stop the same client and then start two servers.
    vscode.commands.registerCommand('sycl-analyzer.restart', () => {
      const restart = async () => {
        if (client) {
          const c = client;
          client = undefined;
          await c.stop().catch(() => undefined);
        }
        await start(context);
      };
      restarting = restarting.then(restart, restart);
      return restarting;
    }),
    vscode.commands.registerCommand('sycl-analyzer.showMacros', async () => {
      const client = running();
      if (!client) return;
      const r = await client.sendRequest<MacrosResult>('sycl/predefinedMacros', {});
      const lines = [`// -fsycl-targets=${r.targets.join(',')}`, ...Object.entries(r.macros).map(([n, v]) => `#define ${n} ${v}`)];
      await showDocument(lines.join('\n') + '\n', 'cpp');
    }),
    vscode.commands.registerCommand('sycl-analyzer.showTargets', async () => {
      const client = running();
      if (!client) return;
      const rows = await client.sendRequest<TargetRow[]>('sycl/listTargets', {});
      const lines = ['| target | aspects | may have more | sub-group sizes | from |', '|---|---|---|---|---|'];
      for (const t of rows) {
        lines.push(`| ${t.name} | ${t.aspects.join(', ')} | ${t.may_support_other_aspects} | ${t.sub_group_sizes.join(', ')} | ${t.source} |`);
      }
      await showDocument(lines.join('\n') + '\n', 'markdown');
    }),
    // Also the command of the code lens above each kernel.
    vscode.commands.registerCommand('sycl-analyzer.showKernelMatrix', async () => {
      const client = running();
      if (!client) return;
      const r = await client.sendRequest<{ markdown: string }>('sycl/kernelMatrix', { format: 'markdown' });
      await showDocument(r.markdown, 'markdown');
    }),
    vscode.commands.registerCommand('sycl-analyzer.showKernelAspects', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return;
      const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
        'vscode.executeHoverProvider',
        editor.document.uri,
        editor.selection.active,
      );
      const text = (hovers ?? [])
        .flatMap((h) => h.contents)
        .map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : ''))
        .join('\n');
      if (text.includes('uses:')) await showDocument(text, 'markdown');
      else void vscode.window.showInformationMessage('sycl-analyzer: put the cursor on a kernel (its lambda [...] or name).');
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      // The path or the file set changes what is started: restart. Other settings go to the
      // running server as didChangeConfiguration.
      if (e.affectsConfiguration('sycl-analyzer.server.path') ||
        e.affectsConfiguration('sycl-analyzer.path') ||
        e.affectsConfiguration('sycl-analyzer.deviceConfigGlob')) {
        await vscode.commands.executeCommand('sycl-analyzer.restart');
      }
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  if (client) await client.stop();
}
