/**
 * The daemon's start-up signal hold (src/daemon.ts holdSignals): a SIGTERM that arrives before
 * serveUntilSignal() is in place (the technician port still loading) must not end the process by
 * Node's default; it is kept and replayed to the handlers installed later. In a child process: a
 * real signal to this test's own worker would end it if the hold failed.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const DAEMON = join(import.meta.dirname, '../../dist/src/daemon.js');

const script = (hold: boolean): string => `
  const { holdSignals } = await import(${JSON.stringify(DAEMON)});
  const held = ${hold ? 'holdSignals()' : '{ release() {} }'};
  process.kill(process.pid, 'SIGTERM');
  await new Promise((r) => setTimeout(r, 200));
  process.on('SIGTERM', (s) => { console.log('handled ' + s); process.exit(0); });
  held.release(true);
  await new Promise((r) => setTimeout(r, 200));
  console.log('not replayed');
`;

it('a SIGTERM during start-up is kept and replayed to the handler installed after it', () => {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script(true)], { encoding: 'utf8' });
  expect(r.stdout.trim()).toBe('handled SIGTERM');
  expect(r.status).toBe(0);
});

it('without the hold the same signal ends the process by default (what the hold is for)', () => {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script(false)], { encoding: 'utf8' });
  expect(r.signal).toBe('SIGTERM');
  expect(r.stdout).toBe('');
});
