import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WaitTimeoutError } from '../../src/reference-server/errors.js';
import { DEMO_STATION, SEED_BARCODES, SEED_PIN_SINGLE } from '../../src/reference-server/seed.js';
import { basicAuth } from '../support/sim-client.js';
import { startSim, type SimFixture } from '../support/sim-fixture.js';

let sim: SimFixture;
beforeEach(async () => {
  sim = await startSim();
});
afterEach(() => sim.server.stop());

describe('authentication and validation', () => {
  it('wrong password, unknown station, no header and a non-Basic scheme all get 401 with the exception body', async () => {
    const { client, server } = sim;
    for (const authorization of [basicAuth(DEMO_STATION.id, 'wrongPassw0rd0000000'), basicAuth(randomUUID(), DEMO_STATION.password), null, 'Bearer abc']) {
      const r = await client.state([], { authorization });
      expect(r.status, String(authorization)).toBe(401);
      expect(r.json).toEqual({
        type: 'exception',
        exceptionType: 'AuthenticationException',
        displayMessages: ['Station not authorized', 'call the library'],
        message: 'missing or wrong station credentials',
      });
    }
    // Nothing was acted on: the station never counted as alive.
    expect(server.stationState(DEMO_STATION.id).lastHeartbeatAt).toBeNull();
    expect(server.requests.map((r) => r.stationId)).toEqual([null, null, null, null]);
  });

  it('rejects bodies that break the spec with 400 (and a 415 for a non-JSON content type)', async () => {
    const { client } = sim;
    const cases: [string, () => ReturnType<typeof client.post>][] = [
      ['uppercase eventId', () => client.state([], { eventId: randomUUID().toUpperCase() })],
      ['not a v4 eventId', () => client.state([], { eventId: '00000000-0000-1000-8000-000000000000' })],
      ['station is not the authenticated one', () => client.post('cancel', { station: randomUUID() })],
      ['a box missing from /state', () => client.post('state', { st: 'UP', errorMessage: null, boxes: [{ id: client.box(1), st: 'CLOSED' }] })],
      ['errorMessage absent', () => client.post('state', { st: 'UP', boxes: DEMO_STATION.boxes.map((id) => ({ id, st: 'CLOSED' })) })],
      ['bad identifierType', () => client.post('item-identify', { identifierValue: SEED_BARCODES[0], identifierType: 'QR' })],
      ['body not JSON', () => client.post('cancel', {}, { rawBody: '{"station":' })],
    ];
    for (const [name, send] of cases) {
      const r = await send();
      expect(r.status, name).toBe(400);
      expect(r.json, name).toMatchObject({ type: 'exception', exceptionType: 'BadRequestException' });
    }
    const textPlain = await client.state([], { contentType: 'text/plain' });
    expect(textPlain.status).toBe(415);
    // charset parameters are fine
    expect((await client.state([], { contentType: 'application/json; charset=utf-8' })).status).toBe(200);
  });

  it('unknown request fields are ignored', async () => {
    const r = await sim.client.post('state', {
      st: 'UP',
      errorMessage: null,
      boxes: DEMO_STATION.boxes.map((id) => ({ id, st: 'CLOSED', temp: 21 })),
      firmware: 'x',
    });
    expect(r.status).toBe(200);
  });

  it('unknown path -> 404 exception body; GET on an endpoint -> 405 with Allow: POST', async () => {
    const notFound = await sim.client.post('nope');
    expect(notFound.status).toBe(404);
    expect(notFound.json).toMatchObject({ type: 'exception', exceptionType: 'NotFoundException' });
    const wrongMethod = await fetch(`${sim.url}/state`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect(await wrongMethod.json()).toMatchObject({ type: 'exception', exceptionType: 'MethodNotAllowedException' });
  });
});

describe('idempotency by eventId', () => {
  it('a resent item-identify gets the same answer and opens no second box', async () => {
    const { client, server } = sim;
    await client.state();
    const first = await client.identify(SEED_BARCODES[0]);
    const resent = await client.identify(SEED_BARCODES[0], 'BAR_CODE', { eventId: first.eventId });
    expect(resent.status).toBe(200);
    expect(resent.text).toBe(first.text);
    const records = server.requests.filter((r) => r.endpoint === 'item-identify');
    expect(records.map((r) => r.resendOf)).toEqual([null, records[0]!.seq]);
    // Had it acted twice, the second would have been refused as ActionInProgress.
    expect(records[1]!.status).toBe(200);
  });

  it('a resent /state after the box closed does not complete anything twice but still counts as a heartbeat', async () => {
    const { client, server, advance } = sim;
    await client.state();
    await client.pin(SEED_PIN_SINGLE);
    await client.state([4]);
    const closed = await client.state([]);
    const before = server.stationState(DEMO_STATION.id);
    advance(500);
    const resent = await client.state([], { eventId: closed.eventId });
    expect(resent.json).toEqual(closed.json);
    const after = server.stationState(DEMO_STATION.id);
    expect(after.history).toEqual(before.history);
    expect(after.lastHeartbeatAt).toBe((before.lastHeartbeatAt ?? 0) + 500);
  });

  it('a resent exception answer is the same exception, even when the situation changed meanwhile', async () => {
    const { client } = sim;
    const refused = await client.identify(SEED_BARCODES[0]); // no heartbeat yet -> 409
    expect(refused.status).toBe(409);
    await client.state();
    const resent = await client.identify(SEED_BARCODES[0], 'BAR_CODE', { eventId: refused.eventId });
    expect(resent.status).toBe(409);
    expect(resent.json).toEqual(refused.json);
  });

  it('an eventId reused for a different request is a 400 EventIdConflictException', async () => {
    const { client } = sim;
    const first = await client.state();
    const conflict = await client.pin(SEED_PIN_SINGLE, { eventId: first.eventId });
    expect(conflict.status).toBe(400);
    expect(conflict.json).toMatchObject({ exceptionType: 'EventIdConflictException' });
  });
});

describe('request records', () => {
  it('records every request in order with endpoint, redacted auth, body, eventId, trace id, status and response', async () => {
    const { client, server } = sim;
    const traceId = randomUUID();
    const r = await client.state([], { traceId });
    expect(r.traceId).toBe(traceId);
    await client.post('unknown');
    const [rec, unknown] = server.requests;
    expect(rec).toMatchObject({
      seq: 1,
      at: 10_000,
      endpoint: 'state',
      method: 'POST',
      path: '/v2/state',
      eventId: r.eventId,
      traceId,
      stationId: DEMO_STATION.id,
      status: 200,
      response: r.json,
      resendOf: null,
      fault: null,
    });
    expect(rec!.headers.authorization).toBe('Basic ***');
    expect(rec!.headers['user-agent']).toBe('pickup-station-test/0.1.0');
    expect(rec!.body).toMatchObject({ station: DEMO_STATION.id, st: 'UP', event: r.eventId });
    expect(JSON.stringify(server.requests)).not.toContain(DEMO_STATION.password);
    expect(unknown).toMatchObject({ seq: 2, endpoint: null, status: 404, traceId: null });
  });

  it('waitForRequest finds past and future requests, honours afterSeq, and times out with WaitTimeoutError', async () => {
    const { client, server } = sim;
    await client.state();
    const past = await server.waitForRequest((r) => r.endpoint === 'state', 100);
    expect(past.seq).toBe(1);
    const future = server.waitForRequest((r) => r.endpoint === 'state', 2000, { afterSeq: server.lastSeq });
    const sent = await client.state([], { traceId: 'trace-2' });
    expect((await future).eventId).toBe(sent.eventId);
    await expect(server.waitForRequest((r) => r.endpoint === 'cancel', 50)).rejects.toBeInstanceOf(WaitTimeoutError);
  });
});
