import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_EXTRA_FIELDS } from '../../src/reference-server/faults.js';
import { DEMO_STATION, SEED_BARCODES, SEED_PIN_MULTI } from '../../src/reference-server/seed.js';
import { startSim, type SimFixture } from '../support/sim-fixture.js';

let sim: SimFixture;
beforeEach(async () => {
  sim = await startSim();
  await sim.client.state();
});
afterEach(() => sim.server.stop());

const active = (): unknown => sim.server.stationState(DEMO_STATION.id).active;

describe('faults that replace the answer (the server does not act)', () => {
  it('exception500: HTTP 500 with the protocol exception body, IllegalStateException', async () => {
    sim.server.setFault('item-identify', 'exception500');
    const r = await sim.client.identify(SEED_BARCODES[0]);
    expect(r.status).toBe(500);
    expect(r.json).toMatchObject({ type: 'exception', exceptionType: 'IllegalStateException', displayMessages: ['Something went wrong', 'please try again'] });
    expect(active()).toBeNull();
    expect(sim.server.requests.at(-1)).toMatchObject({ fault: 'exception500', status: 500, notes: ['not processed'] });
  });

  it('exception: any status and exceptionType; by default every PIN is answered as wrong (404 InvalidPinException), the pickup is not started', async () => {
    sim.server.setFault('pin-enter', 'exception', { times: 2 });
    const r = await sim.client.pin(SEED_PIN_MULTI);
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ type: 'exception', exceptionType: 'InvalidPinException', displayMessages: ['Invalid PIN', 'please try again'] });
    expect(active()).toBeNull();
    expect(sim.server.requests.at(-1)).toMatchObject({ fault: 'exception', status: 404, notes: ['not processed'] });
    sim.server.setFault(
      'pin-enter',
      { kind: 'exception', status: 423, exceptionType: 'StationUnavailableException', displayMessages: ['Locked'] },
      { times: 1 },
    );
    const locked = await sim.client.pin(SEED_PIN_MULTI);
    expect(locked.status).toBe(423);
    expect(locked.json).toMatchObject({ exceptionType: 'StationUnavailableException', displayMessages: ['Locked'] });
    // Once the fault is used up, the same PIN opens its boxes.
    expect((await sim.client.pin(SEED_PIN_MULTI)).json).toMatchObject({ type: 'box-open' });
  });

  it('html502: HTTP 502 text/html like a proxy', async () => {
    sim.server.setFault('state', 'html502');
    const r = await sim.client.state();
    expect(r.status).toBe(502);
    expect(r.contentType).toBe('text/html');
    expect(r.text).toContain('502 Bad Gateway');
    expect(r.json).toBeUndefined();
  });

  it('non-json: HTTP 200 text/plain garbage', async () => {
    sim.server.setFault('pin-enter', { kind: 'non-json', body: 'hello' });
    const r = await sim.client.pin(SEED_PIN_MULTI);
    expect([r.status, r.contentType, r.text]).toEqual([200, 'text/plain', 'hello']);
    expect(active()).toBeNull();
  });

  it('malformed: box-open without boxes by default, or any body / raw text', async () => {
    const { server, client } = sim;
    server.setFault('item-identify', 'malformed', { times: 1 });
    const r1 = await client.identify(SEED_BARCODES[0]);
    expect([r1.status, r1.contentType, r1.json]).toEqual([200, 'application/json', { type: 'box-open' }]);
    const foreignBox = randomUUID();
    server.setFault('item-identify', { kind: 'malformed', body: { type: 'box-open', boxes: [foreignBox], displayMessages: [] } }, { times: 1 });
    expect((await client.identify(SEED_BARCODES[0])).json).toEqual({ type: 'box-open', boxes: [foreignBox], displayMessages: [] });
    server.setFault('item-identify', { kind: 'malformed', body: { type: 'self-destruct', displayMessages: [] } }, { times: 1 });
    expect((await client.identify(SEED_BARCODES[0])).json).toMatchObject({ type: 'self-destruct' });
    server.setFault('item-identify', { kind: 'malformed', raw: '{"type":"box-' }, { times: 1 });
    const truncated = await client.identify(SEED_BARCODES[0]);
    expect([truncated.contentType, truncated.text]).toEqual(['application/json', '{"type":"box-']);
    expect(active()).toBeNull();
    // times ran out: the real answer again
    expect((await client.identify(SEED_BARCODES[0])).json).toMatchObject({
      type: 'box-open',
      boxes: [client.box(1)],
      displayMessages: ['Box 1 opens', 'put the item in and close'],
    });
  });
});

describe('faults around a processed answer', () => {
  it('extra-fields: the normal answer plus unknown top-level fields, which never replace known ones', async () => {
    sim.server.setFault('item-identify', { kind: 'extra-fields', fields: { type: 'wait-for-input', traceUrl: 'x' } });
    const r = await sim.client.identify(SEED_BARCODES[0]);
    expect(r.json).toEqual({ type: 'box-open', boxes: [sim.client.box(1)], displayMessages: ['Box 1 opens', 'put the item in and close'], traceUrl: 'x' });
    sim.server.setFault('state', 'extra-fields');
    expect((await sim.client.state([1])).json).toMatchObject({ type: 'wait-for-closing', cancellable: true, ...DEFAULT_EXTRA_FIELDS });
  });

  it('drop: the socket closes without an answer, the server has acted; the resend gets the same box-open', async () => {
    const { server, client } = sim;
    server.setFault('item-identify', 'drop', { times: 1 });
    const eventId = randomUUID();
    await expect(client.identify(SEED_BARCODES[0], 'BAR_CODE', { eventId })).rejects.toThrow(/fetch failed/);
    expect(active()).toMatchObject({ kind: 'deposit' });
    const dropped = server.requests.at(-1)!;
    expect(dropped).toMatchObject({ fault: 'drop', status: null, response: null });
    const resent = await client.identify(SEED_BARCODES[0], 'BAR_CODE', { eventId });
    expect(resent.json).toMatchObject({ type: 'box-open', boxes: [client.box(1)] });
    expect(server.requests.at(-1)).toMatchObject({ resendOf: dropped.seq, fault: null, status: 200 });
  });

  it('drop with processed:false loses the request itself: the resend is acted on as new', async () => {
    sim.server.setFault('pin-enter', { kind: 'drop', processed: false }, { times: 1 });
    const eventId = randomUUID();
    await expect(sim.client.pin(SEED_PIN_MULTI, { eventId })).rejects.toThrow();
    expect(active()).toBeNull();
    expect((await sim.client.pin(SEED_PIN_MULTI, { eventId })).status).toBe(200);
    expect(sim.server.requests.at(-1)?.resendOf).toBeNull();
  });

  it('delay: acted on at once, answered after ms; a resend meanwhile is answered from the cache', async () => {
    const { server, client } = sim;
    server.setFault('item-identify', { kind: 'delay', ms: 500 }, { times: 1 });
    const eventId = randomUUID();
    let slowAnswered = false;
    const slow = client.identify(SEED_BARCODES[0], 'BAR_CODE', { eventId }).finally(() => (slowAnswered = true));
    // The station's own answer timeout expires first: it resends the same eventId.
    await server.waitForRequest((r) => r.eventId === eventId, 1000);
    expect(active()).toMatchObject({ kind: 'deposit' });
    const resent = await client.identify(SEED_BARCODES[0], 'BAR_CODE', { eventId });
    // In order: the resend is answered from the cache while the delayed answer is still held back.
    expect(slowAnswered).toBe(false);
    const late = await slow;
    expect(late.json).toEqual(resent.json);
    expect(late.json).toMatchObject({ type: 'box-open' });
  });
});

describe('fault targets', () => {
  it("'*' hits every endpoint, an endpoint's own fault wins, clearFaults removes all", async () => {
    const { server, client } = sim;
    server.setFault('*', 'html502');
    server.setFault('cancel', 'exception500');
    expect((await client.state()).status).toBe(502);
    expect((await client.pin(SEED_PIN_MULTI)).status).toBe(502);
    expect((await client.cancel()).status).toBe(500);
    expect(
      server
        .faults()
        .map((f) => f.target)
        .sort(),
    ).toEqual(['*', 'cancel']);
    server.clearFaults();
    expect((await client.state()).status).toBe(200);
  });

  it('times counts down per request', async () => {
    sim.server.setFault('state', 'exception500', { times: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await sim.client.state()).status);
    expect(statuses).toEqual([500, 500, 200]);
    expect(() => sim.server.setFault('state', 'drop', { times: 0 })).toThrow(RangeError);
  });
});
