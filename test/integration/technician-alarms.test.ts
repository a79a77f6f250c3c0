/**
 * Alarms and the rescue open on the technician port: the status and the live stream name every
 * alarm as it is raised and cleared; a service technician opens a box while the server cannot be
 * asked (service mode on), logged at warn with the token's name and reported by the next /state the
 * server answers; without service mode the refusal stays.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { StatusBody } from '../../src/technician/status.js';
import { box, waitFor } from '../support/shared.js';
import { idle, readStream, startDebugHarness, type DebugHarness } from '../support/technician-harness.js';

let d: DebugHarness | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

type StateBody = { st: string; errorMessage: string | null; boxes: { id: string; st: string }[] };

describe('alarms on the technician port', () => {
  it('status and live stream: forced open raised and cleared, door outcomes, tamper, PIN throttle', async () => {
    d = await startDebugHarness({ pin: { lockoutMs: 60_000 } });
    await idle(d);
    const s = await readStream(d, '/api/events/stream');
    d.h.sim.forceOpen(2);
    await waitFor('alarm event', () => s.events.some((e) => e.data.type === 'alarm'));
    const raised = s.events.find((e) => e.data.type === 'alarm')!;
    expect(raised.event).toBe('alarm');
    expect(raised.data).toMatchObject({ alarm: { kind: 'forced-open', boxId: box(2), detail: 'box 2 forced open' }, active: true });
    expect(s.events.find((e) => e.data.type === 'box')?.data).toMatchObject({ number: 2, state: 'OPEN', outcome: 'opened-without-command' });

    d.h.sim.openTamper();
    await waitFor('tamper alarm', () => d!.wp.supervisor.station.runtime.snapshot().alarms.length === 2);
    const status = (await d.call('GET', '/api/status')).body as unknown as StatusBody;
    expect(status.alarms).toEqual([
      { kind: 'forced-open', boxId: box(2), detail: 'box 2 forced open' },
      { kind: 'tamper', boxId: null, detail: 'tamper' },
    ]);
    expect(status.tamper).toEqual({ open: true, name: 'simulated tamper switch' });
    expect(status.boxes[1]).toMatchObject({ number: 2, door: 'OPEN', outcome: 'opened-without-command', alarms: ['forced-open'] });
    expect(status.boxes[1]?.lastAction?.what).toBe('FORCED OPEN (opened without a command)');
    expect(status.pinThrottle).toEqual({ failures: 0, lockout: null });

    d.h.sim.closeDoor(2);
    d.h.sim.closeTamper();
    await waitFor('both cleared', () => s.events.filter((e) => e.data.type === 'alarm' && e.data['active'] === false).length === 2);
    s.close();
  });
});

describe('rescue open (the server cannot be asked)', () => {
  /** A station whose server stopped answering. */
  async function deactivated(): Promise<DebugHarness> {
    const dh = await startDebugHarness({ server: { attempts: 1, answerTimeoutMs: 300 } });
    await idle(dh);
    dh.h.server.setFault('*', { kind: 'drop', processed: false });
    await waitFor('deactivated', () => dh.wp.supervisor.station.runtime.snapshot().mode.kind === 'deactivated', 5_000);
    return dh;
  }

  it('without service mode the refusal stays (409), nothing pulsed', async () => {
    d = await deactivated();
    const r = await d.call('POST', '/api/boxes/2/open');
    expect(r.status).toBe(409);
    expect(r.body['message']).toBe('not now: station deactivated (server unanswered)');
    expect(d.h.sim.locks.pulses).toEqual([]);
  });

  it('service mode on: opened through the technician-open input, logged at warn with the name, reported by the next /state the server answers', async () => {
    d = await deactivated();
    expect((await d.call('POST', '/api/service', { body: { on: true } })).status).toBe(200);
    const r = await d.call('POST', '/api/boxes/2/open');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ box: 2, id: box(2), opened: true, rescue: true });
    expect(d.h.sim.locks.pulses).toEqual([{ box: 2, ms: 50 }]);
    const lines = d.h.logs.map((l) => JSON.parse(l) as { level: number; msg: string; technician?: string });
    expect(lines).toContainEqual(expect.objectContaining({ level: 40, msg: 'technician action: rescue open box', technician: 'alice' }));
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        msg: 'rescue open: technician alice opens box 2 while the station is deactivated (the server cannot be asked)',
        technician: 'alice',
      }),
    );
    // No forced-open alarm: it was a command.
    expect(d.wp.supervisor.station.runtime.snapshot().alarms).toEqual([]);

    // The server comes back: the first /state it answers carries the rescue.
    const seq = d.h.server.lastSeq;
    d.h.server.clearFaults();
    const reported = await d.h.server.waitForRequest((q) => q.endpoint === 'state' && q.status === 200, 5_000, { afterSeq: seq });
    const b = reported.body as StateBody;
    expect(b).toMatchObject({ st: 'DOWN', errorMessage: 'service; box 2 rescue-opened by technician alice while deactivated' });
    expect(b.boxes).toContainEqual({ id: box(2), st: 'OPEN' });
    // Once answered, it is not repeated.
    const next = await d.h.server.waitForRequest((q) => q.endpoint === 'state' && q.status === 200, 5_000, { afterSeq: reported.seq });
    expect((next.body as StateBody).errorMessage).toBe('service');
  });

  it('a station disabled by the server: rescue open with service mode', async () => {
    d = await startDebugHarness();
    await idle(d);
    d.h.server.disableStation(d.h.config.station.id, ['Closed for inventory']);
    await waitFor('disabled', () => d!.wp.supervisor.station.runtime.snapshot().mode.kind === 'disabled', 5_000);
    expect((await d.call('POST', '/api/boxes/3/open')).status).toBe(409);
    await d.call('POST', '/api/service', { body: { on: true } });
    const r = await d.call('POST', '/api/boxes/3/open');
    expect(r.body).toMatchObject({ opened: true, rescue: true });
  });
});
