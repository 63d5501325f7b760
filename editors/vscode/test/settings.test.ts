import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { deviceConfigsFromCompileCommands, findServer, noServerMessage, toInitializationOptions } from '../src/settings';

test('empty settings leave discovery to the server', () => {
  assert.deepEqual(toInitializationOptions({ serverPath: '', deprecatedPath: '', targets: [], deviceConfig: [], compileCommands: '' }), {});
});

test('settings become initialization options', () => {
  assert.deepEqual(
    toInitializationOptions({ serverPath: '', deprecatedPath: '', targets: [' intel_gpu_pvc ', ''], deviceConfig: ['devices.yaml'], compileCommands: 'build/compile_commands.json' }),
    { targets: ['intel_gpu_pvc'], deviceConfig: ['devices.yaml'], compileCommands: 'build/compile_commands.json' },
  );
});

const p = (serverPath: string, deprecatedPath = '') => ({ serverPath, deprecatedPath });

test('the configured path wins, relative to the workspace, and nothing else is tried', () => {
  const exists = (p: string) => p === '/ws/bin/sycl-analyzer' || p === '/ext/server/sycl-analyzer' || p === '/usr/bin/sycl-analyzer';
  assert.deepEqual(findServer(p('bin/sycl-analyzer'), '/ext/server/sycl-analyzer', '/ws', '/usr/bin', exists, 'linux'), {
    path: '/ws/bin/sycl-analyzer',
    source: 'setting',
  });
  assert.deepEqual(findServer(p('/nope/sycl-analyzer'), '/ext/server/sycl-analyzer', '/ws', '/usr/bin', exists, 'linux'), {
    tried: ['/nope/sycl-analyzer (the setting: no executable file there)'],
  });
});

test('the deprecated sycl-analyzer.path is read when server.path is empty', () => {
  const exists = (f: string) => f === '/old/sycl-analyzer' || f === '/new/sycl-analyzer' || f === '/ext/server/sycl-analyzer';
  assert.deepEqual(findServer(p('', '/old/sycl-analyzer'), '/ext/server/sycl-analyzer', '/ws', '', exists, 'linux'), {
    path: '/old/sycl-analyzer',
    source: 'setting',
  });
  assert.deepEqual(findServer(p('/new/sycl-analyzer', '/old/sycl-analyzer'), '/ext/server/sycl-analyzer', '/ws', '', exists, 'linux'), {
    path: '/new/sycl-analyzer',
    source: 'setting',
  });
});

test('else the bundled binary, before PATH', () => {
  const exists = (p: string) => p === '/ext/server/sycl-analyzer' || p === '/usr/bin/sycl-analyzer';
  assert.deepEqual(findServer(p(''), '/ext/server/sycl-analyzer', '/ws', '/usr/bin', exists, 'linux'), {
    path: '/ext/server/sycl-analyzer',
    source: 'bundled',
  });
  // The generic package has no bundled binary: PATH.
  assert.deepEqual(findServer(p('  '), undefined, '/ws', '/usr/bin', exists, 'linux'), { path: '/usr/bin/sycl-analyzer', source: 'PATH' });
});

test('else the first sycl-analyzer on PATH', () => {
  const exists = (p: string) => p === '/opt/b/sycl-analyzer' || p === '/opt/c/sycl-analyzer';
  assert.deepEqual(findServer(p(''), '/ext/server/sycl-analyzer', '/ws', '/opt/a::/opt/b:/opt/c', exists, 'linux'), {
    path: '/opt/b/sycl-analyzer',
    source: 'PATH',
  });
  assert.deepEqual(findServer(p(''), undefined, '/ws', undefined, exists, 'linux'), { tried: ['sycl-analyzer on PATH'] });
  assert.deepEqual(findServer(p(''), '/ext/server/sycl-analyzer', '/ws', '/opt/a', exists, 'linux'), {
    tried: ['/ext/server/sycl-analyzer (bundled, not executable)', 'sycl-analyzer on PATH'],
  });
  const win = findServer(p(''), undefined, undefined, 'C:\\a;C:\\b', (p) => p.endsWith('sycl-analyzer.exe'), 'win32');
  assert.equal('path' in win && win.path.endsWith('sycl-analyzer.exe'), true);
});

test('the no-server message names the setting', () => {
  const m = noServerMessage('/opt/sycl-analyzer (setting) exited at once (exit code 127)');
  assert.match(m, /"sycl-analyzer\.server\.path"/);
  assert.match(m, /start the language server: \/opt\/sycl-analyzer \(setting\) exited at once \(exit code 127\)\. /);
});

test('device configs named in compile_commands.json', () => {
  const db = JSON.stringify([
    { directory: '/b', file: 'a.cpp', command: 'icpx -fsycl -fsycl-device-config-file=cfg/dev.yaml -c a.cpp' },
    { directory: '/b', file: 'c.cpp', arguments: ['icpx', '-fsycl-device-config-file=/abs/x.yaml', 'c.cpp'] },
    { directory: '/b', file: 'd.cpp', command: 'icpx -fsycl-device-config-file=cfg/dev.yaml d.cpp' },
  ]);
  assert.deepEqual(deviceConfigsFromCompileCommands(db), ['/b/cfg/dev.yaml', '/abs/x.yaml']);
  assert.deepEqual(deviceConfigsFromCompileCommands('not json'), []);
  assert.deepEqual(deviceConfigsFromCompileCommands('{}'), []);
});
