/**
 * A stop always ends (src/lifecycle.ts): whatever a step of the stop does, the exit code is
 * resolved by drainLimitMs + stopLimitMs after the stop signal, with a log line saying so. In a
 * child process: the signal is real, and a hung stop in this test's own worker would hang it.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const LIFECYCLE = join(import.meta.dirname, '../../dist/src/lifecycle.js');

const script = (drain: string, stop: string): string => `
  const { serveUntilSignal } = await import(${JSON.stringify(LIFECYCLE)});
  const lines = [];
  const log = { info: (o, m) => lines.push(m ?? o), warn: (o, m) => lines.push(m ?? o), error: (o, m) => lines.push(m ?? o) };
  const target = { drain: () => ${drain}, stop: () => ${stop} };
  // What keeps a daemon's event loop alive (its sockets and timers); signal listeners do not.
  const alive = setInterval(() => undefined, 1000);
  const served = serveUntilSignal(target, log, {}, { drainLimitMs: 300, stopLimitMs: 400 });
  process.kill(process.pid, 'SIGTERM');
  const code = await served;
  clearInterval(alive);
  console.log(JSON.stringify({ code, lines }));
  process.exit(0);
`;

const run = (drain: string, stop: string): { code: number; lines: string[] } => {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script(drain, stop)], { encoding: 'utf8', timeout: 20_000 });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { code: number; lines: string[] };
};

it('a stop step that never settles: the exit code is resolved anyway, and the log says the stop did not end in time', () => {
  const r = run("Promise.resolve('drained')", 'new Promise(() => {})');
  expect(r.code).toBe(0);
  expect(r.lines).toContain("the stop did not end in time: exiting now (the unit's ExecStopPost drives every lock OFF)");
});

it('a drain that never settles: the same, by drain limit + stop limit', () => {
  const r = run('new Promise(() => {})', 'Promise.resolve()');
  expect(r.code).toBe(0);
  expect(r.lines).toContain("the stop did not end in time: exiting now (the unit's ExecStopPost drives every lock OFF)");
});

it('a stop that ends: no such line', () => {
  const r = run("Promise.resolve('drained')", 'Promise.resolve()');
  expect(r.code).toBe(0);
  expect(r.lines).toContain('drained');
  expect(r.lines.some((l) => String(l).includes('did not end in time'))).toBe(false);
});
