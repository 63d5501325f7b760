import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { deviceConfigsFromCompileCommands, findServer, toInitializationOptions } from '../src/settings';

test('empty settings leave discovery to the server', () => {
  assert.deepEqual(toInitializationOptions({ path: '', targets: [], deviceConfig: [], compileCommands: '' }), {});
});

test('settings become initialization options', () => {
  assert.deepEqual(
    toInitializationOptions({ path: '', targets: [' intel_gpu_pvc ', ''], deviceConfig: ['devices.yaml'], compileCommands: 'build/compile_commands.json' }),
    { targets: ['intel_gpu_pvc'], deviceConfig: ['devices.yaml'], compileCommands: 'build/compile_commands.json' },
  );
});

test('the configured path wins, relative to the workspace', () => {
  const exists = (p: string) => p === '/ws/bin/sycl-analyzer';
  assert.equal(findServer('bin/sycl-analyzer', '/ws', '/usr/bin', exists, 'linux'), '/ws/bin/sycl-analyzer');
  assert.equal(findServer('/nope/sycl-analyzer', '/ws', '/usr/bin', exists, 'linux'), undefined);
});

test('else the first sycl-analyzer on PATH', () => {
  const exists = (p: string) => p === '/opt/b/sycl-analyzer' || p === '/opt/c/sycl-analyzer';
  assert.equal(findServer('', '/ws', '/opt/a::/opt/b:/opt/c', exists, 'linux'), '/opt/b/sycl-analyzer');
  assert.equal(findServer('', '/ws', undefined, exists, 'linux'), undefined);
  assert.equal(findServer('', undefined, 'C:\\a;C:\\b', (p) => p.endsWith('sycl-analyzer.exe'), 'win32')?.endsWith('sycl-analyzer.exe'), true);
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
