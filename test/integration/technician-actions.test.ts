/**
 * Service actions (acceptance 3) over real HTTP against a real station and the reference server:
 * each reaches the station the way the issue asks, is logged at warn with the token's name (never
 * the token or a PIN), and is refused with 409 and a reason when the station is not free.
 */
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { SEED_BARCODES, SEED_PIN_SINGLE, type RequestRecord } from '../../src/reference-server/index.js';
import { box, waitFor } from '../support/shared.js';
import { idle, startDebugHarness, type DebugHarness } from '../support/technician-harness.js';

let d: DebugHarness | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

type StateBody = { st: string; errorMessage: string | null; boxes: { id: string; st: string }[] };
const stateBody = (r: RequestRecord): StateBody => r.body as StateBody;
const warnLines = (d: DebugHarness): { level: number; msg: string; technician?: string }[] =>
  d.h.logs.map((l) => JSON.parse(l) as { level: number; msg: string; technician?: string }).filter((l) => l.level === 40);

describe('POST /api/boxes/:box/open', () => {
  it('pulses the lock once for the configured time and reports the opening through /state; logged at warn with the name', async () => {
    d = await startDebugHarness();
    await idle(d);
    const r = await d.call('POST', '/api/boxes/3/open');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ box: 3, id: box(3), opened: true, rescue: false });
    expect(d.h.sim.locks.pulses).toEqual([{ box: 3, ms: 50 }]);
    const st = await d.h.server.waitForRequest((q) => q.endpoint === 'state' && stateBody(q).boxes.some((b) => b.id === box(3) && b.st === 'OPEN'));
    expect(stateBody(st).st).toBe('UP');
    const audit = warnLines(d).find((l) => l.msg === 'technician action: open box');
    expect(audit?.technician).toBe('alice');
    expect(d.h.logs.join('')).not.toContain(d.tokens.service);
    const status = await d.call('GET', '/api/status');
    expect((status.body['boxes'] as { lastAction: { what: string } }[])[2]?.lastAction.what).toBe('opened (technician alice)');
  });

  it('takes the box id as well as the number; an unknown box is a 404', async () => {
    d = await startDebugHarness();
    await idle(d);
    expect((await d.call('POST', `/api/boxes/${box(2)}/open`)).body).toMatchObject({ box: 2, opened: true });
    expect((await d.call('POST', '/api/boxes/99/open')).status).toBe(404);
    expect(d.h.sim.locks.pulses.map((p) => p.box)).toEqual([2]);
  });

  it('409 with the reason during a reader pickup; no lock pulsed, the reader screen untouched', async () => {
    d = await startDebugHarness();
    await idle(d);
    d.h.sim.typePin(SEED_PIN_SINGLE);
    await waitFor('pickup waits for closing', () => d!.h.station.runtime.snapshot().mode.kind === 'closing');
    const shown = d.h.sim.display.lastShown();
    const pulses = d.h.sim.locks.pulses.length;
    const r = await d.call('POST', '/api/boxes/1/open');
    expect(r.status).toBe(409);
    expect(r.body['error']).toBe('busy');
    expect(r.body['message']).toMatch(/box action is in progress \(closing\)/);
    expect(d.h.sim.locks.pulses).toHaveLength(pulses);
    expect(d.h.sim.display.lastShown()).toEqual(shown);
  });

  it('409 while a reader is typing a PIN', async () => {
    d = await startDebugHarness();
    await idle(d);
    d.h.sim.typePin('12', false);
    const r = await d.call('POST', '/api/boxes/1/open');
    expect(r.status).toBe(409);
    expect(r.body['message']).toMatch(/PIN is being typed/);
    expect(d.h.sim.locks.pulses).toEqual([]);
  });
});

describe('POST /api/service', () => {
  it('on: /state DOWN with errorMessage "service"; off: UP again', async () => {
    d = await startDebugHarness();
    await idle(d);
    expect((await d.call('POST', '/api/service', { body: { on: true } })).body).toEqual({ service: true });
    const down = await d.h.server.waitForRequest((q) => q.endpoint === 'state' && stateBody(q).st === 'DOWN');
    expect(stateBody(down).errorMessage).toBe('service');
    expect((await d.call('GET', '/api/status')).body['service']).toBe(true);
    expect((await d.call('POST', '/api/service', { body: { on: false } })).body).toEqual({ service: false });
    const up = await d.h.server.waitForRequest((q) => q.endpoint === 'state' && stateBody(q).st === 'UP', 5_000, { afterSeq: down.seq });
    expect(stateBody(up).errorMessage).toBeNull();
    expect(
      warnLines(d)
        .filter((l) => l.msg.startsWith('technician action: service mode'))
        .map((l) => l.msg),
    ).toEqual(['technician action: service mode on', 'technician action: service mode off']);
  });
});

describe('POST /api/selftest', () => {
  it('is refused (409) outside service mode: it opens every box', async () => {
    d = await startDebugHarness();
    await idle(d);
    const r = await d.call('POST', '/api/selftest');
    expect(r.status).toBe(409);
    expect(r.body['message']).toMatch(/service mode/);
    expect(d.h.sim.locks.pulses).toEqual([]);
  });

  it('in service mode pulses each lock in turn and reports each door; a jammed box is reported as not opened', async () => {
    d = await startDebugHarness({ timing: { doorOpenTimeoutMs: 300 } });
    await idle(d);
    await d.call('POST', '/api/service', { body: { on: true } });
    d.h.sim.locks.jammed.add(4);
    const r = await d.call('POST', '/api/selftest');
    expect(r.status).toBe(200);
    const report = r.body as { ok: boolean; results: { box: number; pulsed: boolean; door: string; openedAfterMs: number | null }[]; skipped: unknown[] };
    expect(report.ok).toBe(false);
    expect(report.skipped).toEqual([]);
    expect(report.results.map((x) => x.box)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(report.results.every((x) => x.pulsed)).toBe(true);
    expect(report.results.filter((x) => x.door !== 'opened').map((x) => [x.box, x.door])).toEqual([[4, 'not opened']]);
    // An opened door carries how long it took (within the window, or it would be 'not opened'); a jammed one none.
    expect(report.results[0]?.openedAfterMs).toEqual(expect.any(Number));
    expect(report.results[3]?.openedAfterMs).toBeNull();
    // One at a time, each for the configured pulse.
    expect(d.h.sim.locks.pulses).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({ box: n, ms: 50 })));
    // The doors it opened reach the server like any door change.
    await d.h.server.waitForRequest((q) => q.endpoint === 'state' && stateBody(q).boxes.filter((b) => b.st === 'OPEN').length === 7);
  });

  it('stops testing when service mode goes off meanwhile (checked before every box)', async () => {
    d = await startDebugHarness({ timing: { doorOpenTimeoutMs: 300 } });
    await idle(d);
    await d.call('POST', '/api/service', { body: { on: true } });
    // Jammed doors make each box wait out doorOpenTimeoutMs: the test is still running when service mode goes off.
    for (let n = 2; n <= 8; n++) d.h.sim.locks.jammed.add(n);
    const test = d.call('POST', '/api/selftest');
    await waitFor('first pulse', () => d!.h.sim.locks.pulses.length >= 1);
    await d.call('POST', '/api/service', { body: { on: false } });
    const report = (await test).body as { ok: boolean; skipped: { box: number; reason: string }[] };
    expect(report.ok).toBe(false);
    expect(report.skipped.length).toBeGreaterThan(0);
    expect(report.skipped[0]?.reason).toBe('service mode was turned off');
  });
});

describe('POST /api/inject/*', () => {
  it('a scan reaches the server as /item-identify (simulated hardware)', async () => {
    d = await startDebugHarness();
    await idle(d);
    const r = await d.call('POST', '/api/inject/scan', { body: { value: SEED_BARCODES[0] } });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ injected: 'scan', sent: true });
    const q = await d.h.server.waitForRequest((x) => x.endpoint === 'item-identify');
    expect(q.body).toMatchObject({ identifierType: 'BAR_CODE', identifierValue: SEED_BARCODES[0] });
  });

  it('a PIN reaches the server as /pin-enter and is never logged or echoed', async () => {
    d = await startDebugHarness();
    await idle(d);
    const r = await d.call('POST', '/api/inject/pin', { body: { pin: SEED_PIN_SINGLE } });
    expect(r.status).toBe(202);
    expect(r.text).not.toContain(SEED_PIN_SINGLE);
    const q = await d.h.server.waitForRequest((x) => x.endpoint === 'pin-enter');
    expect(q.body).toMatchObject({ pin: SEED_PIN_SINGLE });
    await waitFor('pickup', () => d!.h.station.runtime.snapshot().mode.kind === 'closing');
    expect(d.h.logs.join('')).not.toContain(SEED_PIN_SINGLE);
    expect(warnLines(d).find((l) => l.msg === 'technician action: inject pin')).toMatchObject({ technician: 'alice', length: 6 });
  });

  it('a bad PIN body is a 400 that does not echo the input', async () => {
    d = await startDebugHarness();
    const r = await d.call('POST', '/api/inject/pin', { body: { pin: '12345a7' } });
    expect(r.status).toBe(400);
    expect(r.text).not.toContain('12345a7');
  });
});

describe('POST /api/reload', () => {
  it('re-validates the file and, for a station key, restarts the station with it (locks OFF between); service mode carries over', async () => {
    d = await startDebugHarness();
    await idle(d);
    await d.call('POST', '/api/service', { body: { on: true } });
    const before = d.wp.supervisor.station.runtime;
    let oldLocksOff = 0;
    const allOff = d.h.sim.locks.allOff.bind(d.h.sim.locks);
    d.h.sim.locks.allOff = () => {
      oldLocksOff++;
      return allOff();
    };
    writeFileSync(d.configFile, JSON.stringify({ ...d.configInput, messages: { prompt: ['Reloaded prompt'] } }));
    const r = await d.call('POST', '/api/reload');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ reloaded: true, applied: 'restart-station', version: expect.stringMatching(/^[0-9a-f]{16}$/), restartNeeded: [] });
    expect(d.wp.supervisor.station.runtime).not.toBe(before);
    // The old station drove its locks OFF and released them: they cannot be energized any more.
    expect(oldLocksOff).toBeGreaterThan(0);
    await expect(d.h.sim.locks.pulse(1, 10)).rejects.toThrow('locks closed');
    expect(d.wp.supervisor.station.config.messages.prompt).toEqual(['Reloaded prompt']);
    const down = await d.h.server.waitForRequest((q) => q.endpoint === 'state' && stateBody(q).st === 'DOWN' && q.seq > 2);
    expect(stateBody(down).errorMessage).toBe('service');
    // The port follows the new station.
    const status = await d.call('GET', '/api/status');
    expect((status.body['config'] as { messages: { prompt: string[] } }).messages.prompt).toEqual(['Reloaded prompt']);
    expect(status.body['service']).toBe(true);
  });

  it('a bad file: 422 with every problem, and the running station stays as it was', async () => {
    d = await startDebugHarness();
    await idle(d);
    const before = d.wp.supervisor.station.runtime;
    writeFileSync(d.configFile, JSON.stringify({ ...d.configInput, server: { baseUrl: 'gopher://x', attempts: 0 } }));
    const r = await d.call('POST', '/api/reload');
    expect(r.status).toBe(422);
    const paths = (r.body['problems'] as { path: string }[]).map((p) => p.path);
    expect(paths).toEqual(expect.arrayContaining(['server.baseUrl', 'server.attempts']));
    expect(d.wp.supervisor.station.runtime).toBe(before);
    d.h.sim.scanBarcode(SEED_BARCODES[0]);
    await d.h.server.waitForRequest((q) => q.endpoint === 'item-identify');
  });

  it('409 when a reader still uses the station after timing.reloadWaitLimitMs (a station key changed)', async () => {
    d = await startDebugHarness({ timing: { reloadWaitLimitMs: 200 } });
    await idle(d);
    d.h.sim.scanBarcode(SEED_BARCODES[0]);
    await waitFor('deposit', () => d!.h.station.runtime.snapshot().mode.kind === 'closing');
    writeFileSync(d.configFile, JSON.stringify({ ...d.configInput, messages: { prompt: ['Reloaded prompt'] } }));
    const r = await d.call('POST', '/api/reload');
    expect(r.status).toBe(409);
    expect(r.body['message']).toMatch(/box action is in progress/);
  });
});
