// The extension's logic that does not need VS Code: settings to initialization options, finding
// the server binary, and the device-config files named in compile_commands.json.
import * as path from 'node:path';

export interface Settings {
  /** `sycl-analyzer.server.path`. */
  serverPath: string;
  /** `sycl-analyzer.path`, its deprecated old name: read when `serverPath` is empty. */
  deprecatedPath: string;
  targets: string[];
  deviceConfig: string[];
  compileCommands: string;
}

export interface InitializationOptions {
  targets?: string[];
  deviceConfig?: string[];
  compileCommands?: string;
}

/** What the server receives: empty settings are left out, so the server's own discovery applies. */
export function toInitializationOptions(s: Settings): InitializationOptions {
  const out: InitializationOptions = {};
  const targets = s.targets.map((t) => t.trim()).filter((t) => t.length > 0);
  if (targets.length > 0) out.targets = targets;
  const configs = s.deviceConfig.map((c) => c.trim()).filter((c) => c.length > 0);
  if (configs.length > 0) out.deviceConfig = configs;
  if (s.compileCommands.trim().length > 0) out.compileCommands = s.compileCommands.trim();
  return out;
}

/** Where the server comes from, for messages. */
export type ServerSource = 'setting' | 'bundled' | 'PATH';

export type ServerChoice = { path: string; source: ServerSource } | { tried: string[] };

/**
 * The server binary, as rust-analyzer's extension chooses: `sycl-analyzer.server.path`, else the
 * deprecated `sycl-analyzer.path` (made absolute against the workspace; if set, nothing else is
 * tried), else the binary bundled in a platform-specific package, else the first
 * `sycl-analyzer` on PATH. `bundled` is given when the package has a server/ directory.
 * `tried` says what was looked for when nothing is found. `exists`
 * (an executable file is there) is injected so this stays testable.
 */
export function findServer(
  paths: Pick<Settings, 'serverPath' | 'deprecatedPath'>,
  bundled: string | undefined,
  workspace: string | undefined,
  envPath: string | undefined,
  exists: (p: string) => boolean,
  platform: NodeJS.Platform = process.platform,
): ServerChoice {
  const exe = platform === 'win32' ? 'sycl-analyzer.exe' : 'sycl-analyzer';
  const configured = paths.serverPath.trim() || paths.deprecatedPath.trim();
  if (configured.length > 0) {
    const p = path.isAbsolute(configured) || !workspace ? configured : path.join(workspace, configured);
    return exists(p) ? { path: p, source: 'setting' } : { tried: [`${p} (the setting: no executable file there)`] };
  }
  const tried: string[] = [];
  if (bundled) {
    if (exists(bundled)) return { path: bundled, source: 'bundled' };
    tried.push(`${bundled} (bundled, not executable)`);
  }
  const sep = platform === 'win32' ? ';' : ':';
  for (const dir of (envPath ?? '').split(sep)) {
    if (dir.length === 0) continue;
    const p = path.join(dir, exe);
    if (exists(p)) return { path: p, source: 'PATH' };
  }
  tried.push(`${exe} on PATH`);
  return { tried };
}

/** The message shown when no server can be started: what was tried and the setting to use. */
export function noServerMessage(reason: string): string {
  return (
    `sycl-analyzer: cannot start the language server: ${reason}. ` +
    'Set "sycl-analyzer.server.path" to a sycl-analyzer binary (cargo install --locked --path . in its repository), ' +
    'or install the extension package for your platform, which carries one.'
  );
}

/** `-fsycl-device-config-file=` paths of a compile_commands.json, absolute, without repeats. */
export function deviceConfigsFromCompileCommands(text: string): string[] {
  let db: unknown;
  try {
    db = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(db)) return [];
  const found = new Set<string>();
  for (const entry of db) {
    if (typeof entry !== 'object' || entry === null) continue;
    const e = entry as { directory?: unknown; arguments?: unknown; command?: unknown };
    const dir = typeof e.directory === 'string' ? e.directory : '.';
    const args = Array.isArray(e.arguments)
      ? e.arguments.filter((a): a is string => typeof a === 'string')
      : typeof e.command === 'string'
        ? e.command.split(/\s+/)
        : [];
    for (const a of args) {
      const m = /^-fsycl-device-config-file=(.+)$/.exec(a);
      if (m) found.add(path.resolve(dir, m[1].replace(/^["']|["']$/g, '')));
    }
  }
  return [...found];
}
