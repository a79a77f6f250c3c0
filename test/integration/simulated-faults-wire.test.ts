/**
 * The fault kinds the fault matrix needs (reference server side): what goes over the wire for
 * each, and whether the server acted on the request first. Plus HTTPS with a private CA.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_HUGE_BYTES, FOREIGN_BOX_ID } from '../../src/reference-server/faults.js';
import { ReferenceServer } from '../../src/reference-server/server.js';
import { DEMO_STATION, SEED_BARCODES, SEED_PIN_MULTI, seedData } from '../../src/reference-server/seed.js';
import { HAVE_OPENSSL, makeCa, makeLeaf } from '../support/certs.js';
import { basicAuth } from '../support/sim-client.js';
import { startSim, type SimFixture } from '../support/sim-fixture.js';

interface Raw {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  /** The socket ended before the announced body did. */
  readonly aborted: boolean;
}

/** One POST with node:http (no redirect following, no body decoding): the bytes as sent. */
function post(url: string, fields: Record<string, unknown>, opts: { ca?: string } = {}): Promise<Raw> {
  const body = JSON.stringify({ station: DEMO_STATION.id, event: crypto.randomUUID(), ...fields });
  const send = url.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: { authorization: basicAuth(DEMO_STATION.id, DEMO_STATION.password), 'content-type': 'application/json' },
        ...(opts.ca ? { ca: opts.ca } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let aborted = false;
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('aborted', () => (aborted = true));
        res.on('error', () => (aborted = true));
        res.on('close', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString(), aborted: aborted || !res.complete }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

let sim: SimFixture;
beforeEach(async () => {
  sim = await startSim();
  await sim.client.state();
});
afterEach(() => sim.server.stop());

const active = (): unknown => sim.server.stationState(DEMO_STATION.id).active;
const identify = (): Promise<Raw> => post(`${sim.url}/item-identify`, { identifierValue: SEED_BARCODES[0], identifierType: 'BAR_CODE' });

describe('faults that wrap a processed answer', () => {
  it('reset: the headers and half the body go out, then the connection is reset; the server acted', async () => {
    sim.server.setFault('item-identify', 'reset');
    const r = await identify();
    expect(r.status).toBe(200);
    expect(r.aborted).toBe(true);
    expect(Number(r.headers['content-length'])).toBeGreaterThan(r.body.length);
    expect(r.body.length).toBeGreaterThan(0);
    expect(active()).toMatchObject({ kind: 'deposit' });
    expect(sim.server.requests.at(-1)).toMatchObject({ fault: 'reset', status: 200 });
  });

  it('truncated: a complete response whose JSON stops in the middle', async () => {
    sim.server.setFault('item-identify', 'truncated');
    const r = await identify();
    expect([r.status, r.aborted, r.headers['content-type']]).toEqual([200, false, 'application/json']);
    expect(() => JSON.parse(r.body) as unknown).toThrow();
    expect(r.body.startsWith('{"type":"box-open"')).toBe(true);
    expect(active()).toMatchObject({ kind: 'deposit' });
  });

  it('huge: the real answer padded by an unknown field to several megabytes', async () => {
    sim.server.setFault('item-identify', 'huge');
    const r = await identify();
    expect(r.body.length).toBeGreaterThanOrEqual(DEFAULT_HUGE_BYTES - 10);
    const json = JSON.parse(r.body) as { type: string; boxes: string[]; padding: string };
    expect([json.type, json.boxes]).toEqual(['box-open', [DEMO_STATION.boxes[0]]]);
    expect(sim.server.requests.at(-1)?.response).toMatchObject({ type: 'box-open', padding: expect.stringMatching(/bytes of padding/) as unknown });
  });
});

describe('faults that replace the answer', () => {
  it('exception: any 4xx/5xx with the protocol body; status: a bare status without it', async () => {
    sim.server.setFault('pin-enter', { kind: 'exception', status: 409, exceptionType: 'ActionInProgressException', displayMessages: ['Busy'] }, { times: 1 });
    const e = await post(`${sim.url}/pin-enter`, { pin: SEED_PIN_MULTI });
    expect([e.status, JSON.parse(e.body)]).toEqual([
      409,
      { type: 'exception', exceptionType: 'ActionInProgressException', displayMessages: ['Busy'], message: 'injected exception' },
    ]);
    sim.server.setFault('pin-enter', 'status', { times: 1 });
    const s = await post(`${sim.url}/pin-enter`, { pin: SEED_PIN_MULTI });
    expect([s.status, s.headers['content-type'], s.body]).toEqual([503, 'text/plain', 'Service Unavailable']);
    expect(active()).toBeNull();
  });

  it('redirect: 307 with a Location on another host', async () => {
    sim.server.setFault('state', 'redirect');
    const r = await post(`${sim.url}/state`, {});
    expect(r.status).toBe(307);
    expect(r.headers.location).toBe('https://library.example/v2/state');
  });

  it('empty: HTTP 200 application/json with nothing in it', async () => {
    sim.server.setFault('cancel', 'empty');
    const r = await post(`${sim.url}/cancel`, {});
    expect([r.status, r.headers['content-type'], r.body]).toEqual([200, 'application/json', '']);
  });

  it('unknown-command and foreign-box: well-formed JSON the station must refuse', async () => {
    sim.server.setFault('state', 'unknown-command', { times: 1 });
    expect(JSON.parse((await post(`${sim.url}/state`, {})).body)).toMatchObject({ type: 'frobnicate' });
    sim.server.setFault('*', 'foreign-box');
    expect(JSON.parse((await identify()).body)).toEqual({ type: 'box-open', boxes: [FOREIGN_BOX_ID], displayMessages: ['Box opens'] });
    expect(JSON.parse((await post(`${sim.url}/state`, {})).body)).toMatchObject({ type: 'wait-for-closing', boxes: [FOREIGN_BOX_ID] });
    expect(DEMO_STATION.boxes).not.toContain(FOREIGN_BOX_ID);
    expect(active()).toBeNull();
  });
});

describe.runIf(HAVE_OPENSSL)('HTTPS', () => {
  it('serves the protocol over TLS with a certificate of a private CA', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-tls-'));
    const ca = makeCa(dir, 'Library Test CA');
    const leaf = makeLeaf(ca, 'server', { altNames: ['DNS:localhost', 'IP:127.0.0.1'] });
    const server = new ReferenceServer({ ...seedData([DEMO_STATION]), tls: { key: leaf.key, cert: leaf.cert } });
    const url = await server.start();
    try {
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v2$/);
      const state = { st: 'UP', errorMessage: null, boxes: DEMO_STATION.boxes.map((id) => ({ id, st: 'CLOSED' })) };
      const r = await post(`${url}/state`, state, { ca: readFileSync(ca.certFile, 'utf8') });
      expect([r.status, JSON.parse(r.body)]).toEqual([200, expect.objectContaining({ type: 'wait-for-input' })]);
      await expect(post(`${url}/state`, state)).rejects.toThrow(/certificate/);
    } finally {
      await server.stop();
    }
  });
});
