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
import { deviceConfigsFromCompileCommands, findServer, Settings, toInitializationOptions } from './settings';

let client: LanguageClient | undefined;

function settings(): Settings {
  const c = vscode.workspace.getConfiguration('sycl-analyzer');
  return {
    path: c.get<string>('path', ''),
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

async function start(context: vscode.ExtensionContext): Promise<void> {
  const root = workspaceRoot();
  const s = settings();
  const command = findServer(s.path, root, process.env.PATH, (p) => fs.existsSync(p));
  if (!command) {
    void vscode.window.showErrorMessage(
      'sycl-analyzer: the server binary was not found. Install it (cargo install --path . in its repository) or set "sycl-analyzer.path".',
    );
    return;
  }
  const serverOptions: ServerOptions = { command, args: ['lsp'] };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(root),
    initializationOptions: toInitializationOptions(s),
    synchronize: { configurationSection: 'sycl-analyzer' },
  };
  client = new LanguageClient('sycl-analyzer', 'sycl-analyzer', serverOptions, clientOptions);
  const trace = vscode.workspace.getConfiguration('sycl-analyzer').get<string>('trace.server', 'off');
  await client.start();
  await client.setTrace(Trace.fromString(trace));
  context.subscriptions.push(client);
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
      if (!client) return;
      const r = await client.sendRequest<MacrosResult>('sycl/predefinedMacros', {});
      const lines = [`// -fsycl-targets=${r.targets.join(',')}`, ...Object.entries(r.macros).map(([n, v]) => `#define ${n} ${v}`)];
      await showDocument(lines.join('\n') + '\n', 'cpp');
    }),
    vscode.commands.registerCommand('sycl-analyzer.showTargets', async () => {
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
      if (e.affectsConfiguration('sycl-analyzer.path') || e.affectsConfiguration('sycl-analyzer.deviceConfigGlob')) {
        await vscode.commands.executeCommand('sycl-analyzer.restart');
      }
    }),
  );
  await start(context);
}

export async function deactivate(): Promise<void> {
  if (client) await client.stop();
}
