/**
 * A reload applies each config key as its schema declares (src/config/apply.ts, the supervisor's
 * plan.ts): `live` keys under the running station — no lock OFF, no device reopened, even while a
 * reader uses it; `station` keys by restarting the station in-process once no reader uses it
 * (waiting at most timing.reloadWaitLimitMs); `process` keys not until the process restarts
 * (answered in restartNeeded and shown in the status and a metric until then). A reload asked for
 * while one runs is queued and answered, never dropped. Real station, reference server and
 * technician port on 127.0.0.1.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { applyClasses } from '../../src/config/apply.js';
import { configDigest } from '../../src/config/read.js';
import { configSchema } from '../../src/config/schema.js';
import { SEED_BARCODES } from '../../src/reference-server/index.js';
import type { ConfigFileView } from '../../src/technician/status.js';
import { waitFor } from '../support/shared.js';
import { idle, startDebugHarness, type DebugHarness } from '../support/technician-harness.js';

let d: DebugHarness | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

const write = (d: DebugHarness, change: Record<string, unknown>): void => writeFileSync(d.configFile, JSON.stringify({ ...d.configInput, ...change }));
const reload = async (d: DebugHarness, change: Record<string, unknown>) => {
  write(d, change);
  return d.call('POST', '/api/reload');
};

/** A librarian's deposit left with its box open (the station waits for the door to close): a reader is at the station. */
async function depositLeftOpen(d: DebugHarness): Promise<number> {
  d.h.sim.scanBarcode(SEED_BARCODES[0]);
  await waitFor('deposit waits for closing', () => d.wp.supervisor.station.runtime.snapshot().mode.kind === 'closing');
  const snap = d.wp.supervisor.station.runtime.snapshot();
  const open = d.wp.supervisor.core.boxes.find((b) => snap.boxes[b.id] === 'OPEN');
  if (open === undefined) throw new Error('no box open');
  return open.number;
}

const configFileOf = async (d: DebugHarness): Promise<ConfigFileView> => (await d.call('GET', '/api/status')).body['configFile'] as ConfigFileView;
const logged = (d: DebugHarness, msg: string): boolean => d.h.logs.some((l) => (JSON.parse(l) as { msg: string }).msg === msg);
const version = (d: DebugHarness): string => configDigest(readFileSync(d.configFile));

describe('every config key declares how a reload applies it', () => {
  it('the schema walk finds a class for every key, and the keys read once at start are `process`', () => {
    const classes = applyClasses(configSchema);
    expect(classes.get('log.level')).toBe('live');
    expect(classes.get('technician.tokens')).toBe('live');
    expect(classes.get('server.answerTimeoutMs')).toBe('station');
    expect(classes.get('timing.heartbeatIntervalMs')).toBe('station');
    for (const once of [
      'timing.drainLimitMs',
      'timing.firstReportHeadStartMs',
      'technician.enabled',
      'technician.listen',
      'technician.logLines',
      'metrics.enabled',
      'metrics.textfileDir',
    ])
      expect(classes.get(once), once).toBe('process');
    expect(classes.size).toBeGreaterThan(50);
  });
});

describe('reload, key class by key class', () => {
  it('live only, mid-deposit: applied under the running station (same runtime, no lock OFF, not refused); the deposit finishes', async () => {
    d = await startDebugHarness();
    await idle(d);
    const box = await depositLeftOpen(d);
    const runtime = d.wp.supervisor.station.runtime;
    let locksOff = 0;
    const allOff = d.h.sim.locks.allOff.bind(d.h.sim.locks);
    d.h.sim.locks.allOff = () => {
      locksOff++;
      return allOff();
    };
    expect((await d.call('GET', '/api/status', { token: d.tokens.read })).status).toBe(200);
    const technician = { ...d.configInput.technician, tokens: (d.configInput.technician?.tokens ?? []).filter((t) => t.scope !== 'read') };
    const r = await reload(d, { technician, log: { level: 'info' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ reloaded: true, applied: 'live', version: version(d), restartNeeded: [] });
    expect(d.wp.supervisor.station.runtime).toBe(runtime);
    expect(locksOff).toBe(0);
    expect((await d.call('GET', '/api/status', { token: d.tokens.read })).status).toBe(401);
    expect(d.h.log.level).toBe('info');
    // The deposit goes on as if nothing happened: the door closes, /state reports it, idle again.
    d.h.sim.closeDoor(box);
    await idle(d);
    expect(d.wp.supervisor.station.runtime).toBe(runtime);
    expect(await configFileOf(d)).toMatchObject({ running: version(d), onDisk: version(d), restartNeeded: [], reloading: false });
  });

  it('a station key (the pulse length) waits until no reader uses the station, then restarts it with the new value', async () => {
    d = await startDebugHarness();
    await idle(d);
    const box = await depositLeftOpen(d);
    const before = d.wp.supervisor.station.runtime;
    const pending = reload(d, { locks: { ...d.configInput.locks, pulseMs: 80 } });
    await waitFor('the reload waits', () => logged(d!, 'reload waits until the station is free'));
    // Not restarted under the reader: the old station, the old pulse, a reload running.
    expect(d.wp.supervisor.station.runtime).toBe(before);
    expect(d.wp.supervisor.station.config.locks.pulseMs).toBe(50);
    expect(await configFileOf(d)).toMatchObject({ reloading: true, onDisk: version(d) });
    d.h.sim.closeDoor(box);
    const r = await pending;
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ reloaded: true, applied: 'restart-station', version: version(d) });
    expect(d.wp.supervisor.station.runtime).not.toBe(before);
    expect(d.wp.supervisor.station.config.locks.pulseMs).toBe(80);
    // The old station reported its door closed before it stopped.
    const closed = d.h.server.requests.find(
      (q) => q.endpoint === 'state' && (q.body as { boxes: { st: string }[] }).boxes.every((b) => b.st === 'CLOSED') && q.seq > 2,
    );
    expect(closed).toBeDefined();
  });

  it('a station key refused after timing.reloadWaitLimitMs while a reader stays: 409, the running config stays, the status shows the file as not reloaded', async () => {
    d = await startDebugHarness({ timing: { reloadWaitLimitMs: 300 } });
    await idle(d);
    await depositLeftOpen(d);
    const before = d.wp.supervisor.station.runtime;
    const running = (await configFileOf(d)).running;
    const r = await reload(d, { locks: { ...d.configInput.locks, pulseMs: 80 } });
    expect(r.status).toBe(409);
    expect(r.body['message']).toMatch(/box action is in progress .*waited .*the running config stays/);
    expect(d.wp.supervisor.station.runtime).toBe(before);
    expect(await configFileOf(d)).toMatchObject({ running, onDisk: version(d), reloading: false });
    expect(version(d)).not.toBe(running);
  });

  it("a reload asked for while one runs is queued behind it and answered; the file's latest content wins", async () => {
    d = await startDebugHarness();
    await idle(d);
    const box = await depositLeftOpen(d);
    const first = reload(d, { messages: { ...d.configInput.messages, prompt: ['Config A'] } });
    await waitFor('the first reload waits', () => logged(d!, 'reload waits until the station is free'));
    write(d, { messages: { ...d.configInput.messages, prompt: ['Config B'] } });
    const second = d.call('POST', '/api/reload');
    const third = d.call('POST', '/api/reload');
    await waitFor('both asked', () => d!.h.logs.filter((l) => l.includes('technician action: reload config')).length === 3);
    d.h.sim.closeDoor(box);
    const [a, b, c] = await Promise.all([first, second, third]);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    // The second and third joined one queued reload, which read the file after they were asked.
    expect(c.body).toEqual(b.body);
    expect(b.body).toMatchObject({ applied: 'restart-station', version: version(d) });
    expect(d.wp.supervisor.station.config.messages.prompt).toEqual(['Config B']);
    expect(await configFileOf(d)).toMatchObject({ running: version(d), onDisk: version(d), reloading: false });
  });

  it('process: answered in restartNeeded, and shown in the status and a metric, until the process restarts; the port keeps its address', async () => {
    d = await startDebugHarness();
    await idle(d);
    const changed = {
      timing: { ...d.configInput.timing, drainLimitMs: 1_000 },
      technician: { ...d.configInput.technician, logLines: 50 },
      metrics: { ...d.configInput.metrics, textfileIntervalMs: 20_000 },
    };
    const keys = ['timing.drainLimitMs', 'technician.logLines', 'metrics.textfileIntervalMs'];
    const first = await reload(d, changed);
    expect(first.body).toMatchObject({ reloaded: true, applied: 'nothing', restartNeeded: keys });
    // The same file again: still not in effect, still said — in the answer, the status and the metric.
    const again = await reload(d, changed);
    expect(again.body).toMatchObject({ reloaded: true, restartNeeded: keys });
    expect((await configFileOf(d)).restartNeeded).toEqual(keys);
    const metrics = await d.call('GET', '/metrics', { token: d.tokens.metrics });
    expect(metrics.text).toMatch(/^pickup_station_config_restart_needed\{station="[^"]+"\} 3$/m);
    expect(d.wp.port?.url).toBe(d.url);
    // Back to what the process started with: nothing waits for a restart any more.
    const back = await reload(d, {});
    expect(back.body).toMatchObject({ reloaded: true, applied: 'nothing', restartNeeded: [] });
    expect((await configFileOf(d)).restartNeeded).toEqual([]);
    expect((await d.call('GET', '/metrics', { token: d.tokens.metrics })).text).toMatch(/^pickup_station_config_restart_needed\{station="[^"]+"\} 0$/m);
  });

  it("a heartbeat interval at or above the server's 2-minute unavailability window is a config error with its path; the running station stays", async () => {
    d = await startDebugHarness();
    await idle(d);
    const before = d.wp.supervisor.station.runtime;
    const r = await reload(d, { timing: { ...d.configInput.timing, heartbeatIntervalMs: 120_000 } });
    expect(r.status).toBe(422);
    expect(r.body['problems']).toEqual([
      expect.objectContaining({ path: 'timing.heartbeatIntervalMs', message: expect.stringMatching(/below 120000 .*unavailable after 2 minutes/) }),
    ]);
    expect(d.wp.supervisor.station.runtime).toBe(before);
  });
});
