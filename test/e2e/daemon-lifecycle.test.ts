/**
 * Signals on the real daemon (docs/decisions/0009, 0010): SIGTERM drains (new input
 * refused, the event in flight answered, an answered box-open pulsed and reported, then every lock
 * OFF and exit 0) within timing.drainLimitMs; a second SIGTERM or the limit ends it at once;
 * SIGHUP reloads the config like the technician reload; every other terminating signal goes
 * through the same locks-OFF stop.
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/schema.js';
import { TERMINATING_SIGNALS } from '../../src/lifecycle.js';
import { SEED_BARCODES, SEED_PIN_SINGLE, type RequestRecord } from '../../src/reference-server/index.js';
import { DaemonRig, MAIN } from '../support/daemon.js';
import { box, waitFor } from '../support/shared.js';

let rig: DaemonRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const stateOf = (r: RequestRecord): { st: string; boxes: { id: string; st: string }[] } => r.body as never;
const msgs = (lines: { msg: string }[]): string[] => lines.map((l) => l.msg);
const CONFIG: Partial<ConfigInput> = { timing: { heartbeatIntervalMs: 2_000, drainLimitMs: 20_000 }, locks: { pulseMs: 1_000 } };

describe('SIGTERM drains', () => {
  it('the event in flight gets its answer, the box-open is pulsed and its /state answered, new input is refused; then locks OFF, exit 0', async () => {
    rig = await DaemonRig.create(CONFIG);
    const p = rig.start();
    await rig.idle();
    rig.server.setFault('item-identify', { kind: 'delay', ms: 1_500 }, { times: 1 });
    const seq = rig.server.lastSeq;
    await rig.tech('POST', '/api/inject/scan', { value: SEED_BARCODES[0] });
    const identify = await rig.server.waitForRequest((r) => r.endpoint === 'item-identify', 5_000, { afterSeq: seq });

    const events = rig.stream('/api/events/stream');
    await waitFor('live stream open', () => events.text().includes('event: status'));
    p.child.kill('SIGTERM');
    // New input is refused while draining (the technician gate or the core: no /pin-enter goes out).
    const injected = await rig.tech('POST', '/api/inject/pin', { pin: SEED_PIN_SINGLE });
    expect(injected.status).not.toBe(202);

    const { code } = await p.exited;
    // The display said so while the answer was awaited.
    expect(events.text()).toContain('"lines":["Station restarting","please wait a moment"]');
    expect(code).toBe(0);
    const after = rig.since(seq);
    // Answered once (not resent), pulsed, the door sprang open, and the /state reporting it was answered.
    expect(after.filter((r) => r.endpoint === 'item-identify')).toEqual([identify]);
    const opened = after.find((r) => r.endpoint === 'state' && stateOf(r).boxes.some((b) => b.id === box(1) && b.st === 'OPEN'));
    expect(opened?.status).toBe(200);
    expect(after.filter((r) => r.endpoint === 'pin-enter')).toEqual([]);
    const lines = msgs(p.lines());
    expect(lines).toEqual(expect.arrayContaining(['stopping', 'pulsing lock', 'drained']));
    expect(lines.indexOf('pulsing lock')).toBeGreaterThan(lines.indexOf('stopping'));
    expect(Object.values(rig.sim().locks).every((on) => !on)).toBe(true);
    expect(rig.sim().doors['1']).toBe('OPEN');
  }, 30_000);

  it('a second SIGTERM ends the drain at once: locks OFF, exit 0, the event not resent', async () => {
    rig = await DaemonRig.create(CONFIG);
    const p = rig.start();
    await rig.idle();
    rig.server.setFault('item-identify', { kind: 'delay', ms: 120_000 });
    const seq = rig.server.lastSeq;
    await rig.tech('POST', '/api/inject/scan', { value: SEED_BARCODES[0] });
    await rig.server.waitForRequest((r) => r.endpoint === 'item-identify', 5_000, { afterSeq: seq });
    p.child.kill('SIGTERM');
    await rig.statusUntil((s) => (s['display'] as string[])[0] === 'Station restarting', 'draining');
    const second = performance.now();
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
    const ms = performance.now() - second;
    expect(msgs(p.lines())).toContain('second stop signal: stopping now, every lock OFF');
    expect(rig.since(seq).filter((r) => r.endpoint === 'item-identify')).toHaveLength(1);
    console.error(`second SIGTERM -> exit: ${ms.toFixed(0)} ms`);
  }, 30_000);

  it('the drain limit ends it: locks OFF, exit 0', async () => {
    rig = await DaemonRig.create({ ...CONFIG, timing: { heartbeatIntervalMs: 2_000, drainLimitMs: 500 } });
    const p = rig.start();
    await rig.idle();
    rig.server.setFault('pin-enter', { kind: 'delay', ms: 120_000 });
    const seq = rig.server.lastSeq;
    await rig.tech('POST', '/api/inject/pin', { pin: SEED_PIN_SINGLE });
    await rig.server.waitForRequest((r) => r.endpoint === 'pin-enter', 5_000, { afterSeq: seq });
    const sent = performance.now();
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
    const ms = performance.now() - sent;
    // Ended by the drain limit (its line says so), not by the 20 s answer timeout or the 120 s delay.
    expect(msgs(p.lines())).toContain('drain limit reached: stopping now, every lock OFF');
    console.error(`SIGTERM with drainLimitMs 500 -> exit: ${ms.toFixed(0)} ms`);
  }, 30_000);
});

describe('other terminating signals', () => {
  it.each(['SIGQUIT', 'SIGUSR2', 'SIGALRM'] as const)(
    '%s mid-pulse: the locks-OFF stop, exit 128 + signo',
    async (signal) => {
      expect(TERMINATING_SIGNALS).toContain(signal);
      rig = await DaemonRig.create({ ...CONFIG, locks: { pulseMs: 3_000 }, hardware: { kind: 'simulated', doorSpringMs: 60_000 } });
      const p = rig.start();
      await rig.idle();
      await rig.tech('POST', '/api/inject/pin', { pin: SEED_PIN_SINGLE });
      await rig.simUntil((f) => f.locks[4] === true, 'lock 4 energized');
      p.child.kill(signal);
      const { code, signal: killedBy } = await p.exited;
      expect(killedBy).toBeNull();
      expect(code).toBe(128 + (await import('node:os')).constants.signals[signal]);
      expect(msgs(p.lines())).toContain('stopping');
      // The pulse was cut short: the lock output is OFF (the simulated hardware wrote it before exit).
      expect(rig.sim().locks['4']).toBe(false);
    },
    30_000,
  );
});

describe('SIGHUP reloads the config; `pickup-station reload` (ExecReload=) waits for the answer', () => {
  it('a station key: the station restarts in-process with it; the command exits 0 with the line; the process lives on', async () => {
    rig = await DaemonRig.create(CONFIG);
    const p = rig.start();
    await rig.idle();
    rig.writeConfig({ ...rig.configInput, messages: { prompt: ['Reloaded prompt'] } });
    const r = await reloadCommand(rig, p);
    expect(r).toMatchObject({ code: 0, out: 'config reloaded: station restarted with the new config\n' });
    const s = await rig.statusUntil((x) => JSON.stringify((x['config'] as { messages: unknown }).messages).includes('Reloaded prompt'), 'new config in use');
    expect(msgs(p.lines())).toContain('SIGHUP: config reloaded: station restarted with the new config');
    const file = s['configFile'] as { running: string; onDisk: string };
    expect(file.running).toBe(file.onDisk);
    expect(p.child.exitCode).toBeNull();
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
  }, 30_000);

  it('a bad file: refused with its paths, the command exits 1, the running config stays', async () => {
    rig = await DaemonRig.create(CONFIG);
    const p = rig.start();
    await rig.idle();
    rig.writeConfig({ ...rig.configInput, timing: { heartbeatIntervalMs: -5 } });
    const r = await reloadCommand(rig, p);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/invalid config .*config\.json, the running config stays: timing\.heartbeatIntervalMs: /);
    await waitForLine(p, 'SIGHUP: reload refused');
    await rig.idle();
    expect(p.child.exitCode).toBeNull();
  }, 30_000);

  it('a station key while a reader uses the station (a box open): it waits, and is refused after timing.reloadWaitLimitMs — the command exits 1', async () => {
    rig = await DaemonRig.create({ ...CONFIG, timing: { ...CONFIG.timing, reloadWaitLimitMs: 1_000 } });
    const p = rig.start();
    await rig.idle();
    rig.setDoor(2, 'OPEN');
    await rig.statusUntil((s) => (s['boxes'] as { door: string }[])[1]?.door === 'OPEN', 'box 2 open');
    rig.writeConfig({ ...rig.configInput, locks: { pulseMs: 800 } });
    const r = await reloadCommand(rig, p);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/box 2 is open \(waited 1 s; the running config stays\)/);
    expect(String(p.lines().find((l) => l.msg === 'SIGHUP: reload refused')?.['error'])).toContain('box 2 is open');
  }, 30_000);

  it('a live key while a box is open: applied at once, nothing restarted', async () => {
    rig = await DaemonRig.create(CONFIG);
    const p = rig.start();
    await rig.idle();
    rig.setDoor(2, 'OPEN');
    await rig.statusUntil((s) => (s['boxes'] as { door: string }[])[1]?.door === 'OPEN', 'box 2 open');
    rig.writeConfig({ ...rig.configInput, log: { level: 'info' } });
    const r = await reloadCommand(rig, p);
    expect(r).toMatchObject({ code: 0, out: 'config reloaded: live keys applied, the station kept running\n' });
  }, 30_000);

  it('a reload during a reload is queued, not dropped: config A reloading, config B written and reloaded meanwhile — both answered, B runs', async () => {
    rig = await DaemonRig.create(CONFIG);
    const p = rig.start();
    await rig.idle();
    // A box open makes the first reload (a station key) wait: the second arrives while it runs.
    rig.setDoor(2, 'OPEN');
    await rig.statusUntil((s) => (s['boxes'] as { door: string }[])[1]?.door === 'OPEN', 'box 2 open');
    rig.writeConfig({ ...rig.configInput, messages: { prompt: ['Config A'] } });
    const first = reloadCommand(rig, p);
    await waitForLine(p, 'reload waits until the station is free');
    rig.writeConfig({ ...rig.configInput, messages: { prompt: ['Config B'] } });
    const second = reloadCommand(rig, p);
    await waitFor('the second SIGHUP', () => p.lines().filter((l) => l.msg.startsWith('SIGHUP: reloading')).length === 2);
    rig.setDoor(2, 'CLOSED');
    const [a, b] = await Promise.all([first, second]);
    expect(a).toMatchObject({ code: 0, err: '' });
    expect(b).toMatchObject({ code: 0, err: '' });
    const s = await rig.statusUntil((x) => JSON.stringify((x['config'] as { messages: unknown }).messages).includes('Config B'), 'config B in use');
    const file = s['configFile'] as { running: string; onDisk: string; reloading: boolean };
    expect(file).toMatchObject({ running: file.onDisk, reloading: false });
    expect(p.lines().some((l) => l.msg.includes('ignored'))).toBe(false);
  }, 30_000);
});

/** The unit's ExecReload= as systemd runs it: `pickup-station reload --pid $MAINPID`, with the unit's RuntimeDirectory. */
function reloadCommand(rig: DaemonRig, p: { child: { pid?: number } }): Promise<{ code: number | null; out: string; err: string }> {
  const child = spawn(process.execPath, [MAIN, 'reload', '--pid', String(p.child.pid)], {
    env: { RUNTIME_DIRECTORY: rig.runtimeDir, PATH: process.env['PATH'] },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out, err })));
}

async function waitForLine(p: { lines(): { msg: string }[] }, msg: string, timeoutMs = 10_000): Promise<void> {
  await waitFor(`the log line "${msg}"`, () => p.lines().some((l) => l.msg === msg), timeoutMs);
}
