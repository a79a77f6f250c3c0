/** The protocol client on the wire, seen from the reference server; and what never reaches a log. */
import { afterEach, describe, expect, it } from 'vitest';
import { SEED_BARCODES, SEED_PIN_MULTI, SEED_PIN_SINGLE } from '../../src/reference-server/index.js';
import { VERSION } from '../../src/version.js';
import { sleep, STATION, waitFor } from '../support/shared.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('protocol client', () => {
  it('sends the spec headers, a fresh trace id per request and a fresh lowercase UUIDv4 per event', async () => {
    h = await startHarness({ server: { acceptLanguage: 'cs-CZ, cs;q=0.9' } });
    await waitFor('idle', () => h!.station.runtime.snapshot().mode.kind === 'idle');
    h.sim.scanBarcode(SEED_BARCODES[0]);
    await h.server.waitForRequest((r) => r.endpoint === 'item-identify');
    const records = h.server.requests;
    for (const r of records) {
      expect(r.method).toBe('POST');
      expect(r.path).toBe(`/v2/${r.endpoint}`);
      expect(r.status).toBe(200); // the server checked Basic stationId:password
      expect(r.headers['authorization']).toBe('Basic ***');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['accept']).toBe('application/json');
      expect(r.headers['user-agent']).toBe(`pickup-station/${VERSION}`);
      expect(r.headers['accept-language']).toBe('cs-CZ, cs;q=0.9');
      expect(r.traceId).toMatch(UUID_V4);
      expect(r.eventId).toMatch(UUID_V4);
    }
    expect(new Set(records.map((r) => r.traceId)).size).toBe(records.length);
    expect(new Set(records.map((r) => r.eventId)).size).toBe(records.length);
    // /state carries the power readings
    expect(records[0]!.body).toMatchObject({ st: 'UP', errorMessage: null, inputVoltage: 12.4, internetSignalStrength: 87 });
    // the trace id is logged with the eventId so a technician can find it in the server's log
    const identify = records.find((r) => r.endpoint === 'item-identify')!;
    const line = h.logs.find((l) => l.includes(identify.traceId!) && l.includes(identify.eventId!));
    expect(line).toBeDefined();
  });

  it('Accept-Language follows messages.locale unless server.acceptLanguage names one', async () => {
    h = await startHarness();
    await waitFor('first /state', () => h!.server.requests.length >= 1);
    expect(h.server.requests[0]!.headers['accept-language']).toBe('en');
    await h.stop();
    h = await startHarness({ messages: { locale: 'cs' } });
    await waitFor('first /state', () => h!.server.requests.length >= 1);
    expect(h.server.requests[0]!.headers['accept-language']).toBe('cs-CZ, cs;q=0.9');
    // (a configured one wins: the test above sends 'cs-CZ, cs;q=0.9' with the English texts)
  });

  it('a wrong password gets 401 with the exception body: an answer, shown, not resent', async () => {
    h = await startHarness({}, {}, 'WrongPassword0000000');
    const r = await h.server.waitForRequest((x) => x.endpoint === 'state');
    expect(r.status).toBe(401);
    const messages = (r.response as { displayMessages: string[] }).displayMessages;
    await waitFor('auth failure shown', () => h!.sim.display.lastShown().join() === messages.join());
    await sleep(500);
    expect(h.server.requests.filter((x) => x.eventId === r.eventId)).toHaveLength(1);
  });
});

describe('secrets in logs', () => {
  it('no password, Authorization value or PIN digits in any log line over full flows', async () => {
    h = await startHarness();
    await waitFor('idle', () => h!.station.runtime.snapshot().mode.kind === 'idle');
    // deposit
    h.sim.scanBarcode(SEED_BARCODES[0]);
    await waitFor('closing (deposit)', () => h!.station.runtime.snapshot().mode.kind === 'closing');
    h.sim.closeDoor(1);
    await waitFor('idle', () => h!.station.runtime.snapshot().mode.kind === 'idle' && h!.station.runtime.snapshot().inFlight === null);
    // pickups, typed key by key
    for (const [pin, boxes] of [
      [SEED_PIN_SINGLE, [4]],
      [SEED_PIN_MULTI, [5, 6]],
    ] as const) {
      h.sim.typePin(pin);
      await waitFor('closing (pickup)', () => h!.station.runtime.snapshot().mode.kind === 'closing');
      for (const b of boxes) h.sim.closeDoor(b);
      await waitFor('idle', () => h!.station.runtime.snapshot().mode.kind === 'idle' && h!.station.runtime.snapshot().inFlight === null);
    }
    // a wrong-length PIN too
    h.sim.typePin('98765');
    await waitFor('wrong length logged', () => h!.logs.some((l) => l.includes('PIN of wrong length')));

    const all = h.logs.join('');
    expect(h.logs.length).toBeGreaterThan(20);
    expect(all).toContain('pin-enter'); // the events themselves are logged
    const basic = Buffer.from(`${STATION.id}:${STATION.password}`).toString('base64');
    for (const secret of [STATION.password, basic, SEED_PIN_SINGLE, SEED_PIN_MULTI, '98765']) {
      expect(all).not.toContain(secret);
    }
  });
});
