import { networkInterfaces } from 'node:os';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SimConfigError } from '../../src/reference-server/errors.js';
import { isLoopback } from '../../src/reference-server/http-util.js';
import { ReferenceServer } from '../../src/reference-server/server.js';
import { DEMO_STATION, SEED_BARCODES, seedData } from '../../src/reference-server/seed.js';
import type { RequestRecord, StationSnapshot } from '../../src/reference-server/types.js';
import { ioUntil } from '../support/fake-clock-io.js';
import { SimStationClient } from '../support/sim-client.js';
import { startSim, type SimFixture } from '../support/sim-fixture.js';

let sim: SimFixture | undefined;
afterEach(async () => {
  await sim?.server.stop();
  sim = undefined;
});

async function control<T = Record<string, unknown>>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: T }> {
  const origin = new URL(sim!.url).origin;
  const res = await fetch(`${origin}/_control/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as T };
}

describe('control API', () => {
  it('arms and clears faults', async () => {
    sim = await startSim();
    expect(await control('POST', 'fault', { endpoint: 'state', fault: 'html502', times: 1 })).toEqual({ status: 200, json: { ok: true } });
    expect((await sim.client.state()).status).toBe(502);
    expect((await sim.client.state()).status).toBe(200);
    await control('POST', 'fault', { endpoint: '*', fault: { kind: 'malformed', body: { type: 'nope' } } });
    expect((await control<{ faults: unknown }>('GET', 'faults')).json.faults).toEqual([
      { target: '*', fault: { kind: 'malformed', body: { type: 'nope' } }, remaining: null },
    ]);
    expect((await sim.client.state()).json).toEqual({ type: 'nope' });
    await control('POST', 'clear-faults');
    expect((await sim.client.state()).json).toMatchObject({ type: 'wait-for-input' });
  });

  it('rejects bad control bodies with 400 and unknown routes / stations with 404', async () => {
    sim = await startSim();
    expect((await control('POST', 'fault', { endpoint: 'state', fault: 'explode' })).status).toBe(400);
    expect((await control('POST', 'fault', { endpoint: 'nowhere', fault: 'drop' })).status).toBe(400);
    expect((await control('POST', 'fault', { endpoint: 'state', fault: { kind: 'delay' } })).status).toBe(400);
    expect(
      (await control('POST', 'fault', { endpoint: 'pin-enter', fault: { kind: 'exception', status: 200, exceptionType: 'InvalidPinException' } })).status,
    ).toBe(400);
    expect(
      (await control('POST', 'fault', { endpoint: 'pin-enter', fault: { kind: 'exception', status: 404, exceptionType: 'InvalidPinException' }, times: 5 }))
        .status,
    ).toBe(200);
    expect((await control('POST', 'disable', { stationId: DEMO_STATION.id })).status).toBe(400);
    expect((await control('GET', 'stations/nope')).status).toBe(404);
    expect((await control('GET', 'nothing-here')).status).toBe(404);
    expect((await control('POST', 'deposits', { identifierValue: 'x', stationId: DEMO_STATION.id, boxId: randomUUID() })).status).toBe(400);
  });

  it('disables and enables a station and shows its state', async () => {
    sim = await startSim();
    await sim.client.state();
    await control('POST', 'disable', { stationId: DEMO_STATION.id, displayMessages: ['Maintenance'] });
    expect((await sim.client.state()).json).toEqual({ type: 'station-disable', displayMessages: ['Maintenance'] });
    const snap = (await control<StationSnapshot>('GET', `stations/${DEMO_STATION.id}`)).json;
    expect(snap).toMatchObject({ stationId: DEMO_STATION.id, available: true, disabled: ['Maintenance'], lastHeartbeatAt: 10_000 });
    expect(snap.boxes.map((b) => b.number)).toEqual([1, 2, 3, 4, 5, 6]);
    await control('POST', 'enable', { stationId: DEMO_STATION.id });
    expect((await sim.client.state()).json).toMatchObject({ type: 'wait-for-input' });
    expect((await control('GET', 'stations')).json).toEqual({ stations: [DEMO_STATION.id] });
  });

  it('adds deposits and pickups', async () => {
    sim = await startSim();
    await sim.client.state();
    const box2 = sim.client.box(2);
    expect((await control('POST', 'deposits', { identifierValue: '99999', stationId: DEMO_STATION.id, boxId: box2 })).status).toBe(200);
    expect((await sim.client.identify('99999', 'RFID')).json).toMatchObject({ type: 'box-open', boxes: [box2] });
    await sim.client.state([2]);
    await sim.client.state([]);
    expect((await control('POST', 'pickups', { pin: '777777', stationId: DEMO_STATION.id, boxIds: [box2] })).status).toBe(200);
    expect((await sim.client.pin('777777')).json).toMatchObject({ type: 'box-open', boxes: [box2] });
    // A duplicate PIN would make the answer depend on list order.
    expect((await control('POST', 'pickups', { pin: '777777', stationId: DEMO_STATION.id, boxIds: [box2] })).status).toBe(400);
  });

  it('lists requests, optionally only after a seq, and is not recorded itself', async () => {
    sim = await startSim();
    const traceId = randomUUID();
    await sim.client.state([], { traceId });
    await sim.client.identify(SEED_BARCODES[0]);
    const all = (await control<{ requests: RequestRecord[] }>('GET', 'requests')).json.requests;
    expect(all.map((r) => [r.seq, r.endpoint, r.status])).toEqual([
      [1, 'state', 200],
      [2, 'item-identify', 200],
    ]);
    expect(all[0]!.traceId).toBe(traceId);
    const later = (await control<{ requests: RequestRecord[] }>('GET', 'requests?after=1')).json.requests;
    expect(later.map((r) => r.seq)).toEqual([2]);
    expect(sim.server.requests).toHaveLength(2);
  });

  it('is not reachable under the protocol prefix, nor when disabled', async () => {
    sim = await startSim();
    const under = await sim.client.post('_control/requests', {}, { method: 'GET' });
    expect(under.status).toBe(404);
    expect(under.json).toMatchObject({ type: 'exception', exceptionType: 'NotFoundException' });
    await sim.server.stop();
    sim = await startSim({ control: false });
    expect((await control('GET', 'requests')).json).toMatchObject({ exceptionType: 'NotFoundException' });
  });

  const external = Object.values(networkInterfaces())
    .flat()
    .find((i) => i?.family === 'IPv4' && !i.internal)?.address;
  it.skipIf(external === undefined)('refuses a non-loopback peer with 403', async () => {
    sim = await startSim({ host: '0.0.0.0' });
    const res = await fetch(`http://${external}:${new URL(sim.url).port}/_control/requests`);
    expect(res.status).toBe(403);
  });

  it('isLoopback knows IPv4, IPv6 and mapped loopback addresses', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'].map(isLoopback)).toEqual([true, true, true, true]);
    expect(['10.0.0.1', '::ffff:10.0.0.1', undefined].map(isLoopback)).toEqual([false, false, false]);
  });
});

describe('server options and lifecycle', () => {
  it("serves the protocol at the root with pathPrefix ''; refuses a prefix under /_control and bad data", async () => {
    sim = await startSim({ pathPrefix: '' });
    expect(sim.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await sim.client.state()).status).toBe(200);
    expect(() => new ReferenceServer({ stations: [DEMO_STATION], pathPrefix: '/_control/v2' })).toThrow(SimConfigError);
    expect(() => new ReferenceServer({ stations: [{ ...DEMO_STATION, id: DEMO_STATION.id.toUpperCase() }] })).toThrow(/lowercase UUIDv4/);
    expect(() => new ReferenceServer({ stations: [DEMO_STATION], pickups: [{ pin: '12', stationId: DEMO_STATION.id, boxIds: [] }] })).toThrow(
      /pickups\.0\.pin/,
    );
  });

  it('stop() cuts a pending delayed answer, rejects waiters and returns without waiting for the delay', async () => {
    const server = new ReferenceServer({ ...seedData([DEMO_STATION]) });
    const client = new SimStationClient(await server.start(), DEMO_STATION);
    // A fake clock that never moves: the 60 s delay cannot pass, so a stop() that ends did not wait for it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      server.setFault('state', { kind: 'delay', ms: 60_000 });
      const pending = expect(client.state()).rejects.toThrow();
      const waiter = expect(server.waitForRequest((r) => r.endpoint === 'cancel', 60_000)).rejects.toThrow(/stopped/);
      await ioUntil(() => server.requests.some((r) => r.endpoint === 'state'));
      let stopped = false;
      void server.stop().then(() => (stopped = true));
      await ioUntil(() => stopped);
      await pending;
      await waiter;
    } finally {
      vi.useRealTimers();
    }
  });

  it('uses the real monotonic clock by default', async () => {
    const server = new ReferenceServer({ stations: [DEMO_STATION] });
    const client = new SimStationClient(await server.start(), DEMO_STATION);
    try {
      const before = performance.now();
      await client.state();
      const at = server.stationState(DEMO_STATION.id).lastHeartbeatAt!;
      expect(at).toBeGreaterThanOrEqual(before);
      expect(at).toBeLessThanOrEqual(performance.now());
      expect(server.isAvailable(DEMO_STATION.id)).toBe(true);
    } finally {
      await server.stop();
    }
  });
});
