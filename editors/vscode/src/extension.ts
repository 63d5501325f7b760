// VS Code front end of sycl-analyzer: starts `sycl-analyzer lsp` and adds four commands.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  DocumentSelector,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  Trace,
} from 'vscode-languageclient/node';
import { deviceConfigsFromCompileCommands, findServer, noServerMessage, Settings, toInitializationOptions } from './settings';

let client: LanguageClient | undefined;

function settings(): Settings {
  const c = vscode.workspace.getConfiguration('sycl-analyzer');
  // `sycl-analyzer.path` is the deprecated name of `server.path`, still read.
  return {
    serverPath: c.get<string>('server.path', '') || c.get<string>('path', ''),
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

/** Why the server is not running, when it is not: commands repeat it instead of doing nothing. */
let notRunning: string | undefined;

async function showNoServer(reason: string): Promise<void> {
  const open = 'Open Settings';
  const choice = await vscode.window.showErrorMessage(noServerMessage(reason), open);
  if (choice === open) await vscode.commands.executeCommand('workbench.action.openSettings', 'sycl-analyzer.server.path');
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const root = workspaceRoot();
  const s = settings();
  const exe = process.platform === 'win32' ? 'sycl-analyzer.exe' : 'sycl-analyzer';
  const bundled = context.asAbsolutePath(path.join('server', exe));
  const found = findServer(s.serverPath, bundled, root, process.env.PATH, isExecutable);
  if (!('path' in found)) {
    notRunning = `not found: ${found.tried.join(', ')}`;
    void showNoServer(notRunning);
    return;
  }
  const serverOptions: ServerOptions = { command: found.path, args: ['lsp'] };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(root),
    initializationOptions: toInitializationOptions(s),
    synchronize: { configurationSection: 'sycl-analyzer' },
  };
  const c = new LanguageClient('sycl-analyzer', 'sycl-analyzer', serverOptions, clientOptions);
  c.info(`server: ${found.path} (${found.source})`);
  const trace = vscode.workspace.getConfiguration('sycl-analyzer').get<string>('trace.server', 'off');
  try {
    await c.start();
  } catch (e) {
    notRunning = `${found.path} (${found.source}) failed: ${e instanceof Error ? e.message : String(e)}`;
    void showNoServer(notRunning);
    void c.dispose();
    return;
  }
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
    vscode.commands.registerCommand('sycl-analyzer.restart', async () => {
      if (client) {
        await client.stop();
        client = undefined;
      }
      await start(context);
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
