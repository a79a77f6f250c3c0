/**
 * Bad input (acceptance 6), one test each: wrong/missing token -> 401 without detail (also in
 * auth.test.ts), unknown route -> 404 JSON, wrong method -> 405, oversized body -> 413, malformed
 * JSON -> 400, a body that is not JSON -> 415, an action the current mode forbids -> 409 with the reason.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SEED_PIN_MULTI } from '../../src/reference-server/index.js';
import { waitFor } from '../support/shared.js';
import { idle, startDebugHarness, type DebugHarness } from '../support/technician-harness.js';

let d: DebugHarness | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

/** A raw request that streams `bytes` of body without a Content-Length (chunked), to test the running count. */
function chunkedPost(url: string, path: string, token: string, bytes: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url + path, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    const chunk = Buffer.alloc(4096, 0x20);
    let sent = 0;
    const pump = (): void => {
      while (sent < bytes) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

/** Send raw bytes and return the status line of the answer. */
function raw(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname, () => s.write(text));
    let got = '';
    s.on('data', (c: Buffer) => {
      got += c.toString();
      if (got.includes('\r\n')) {
        s.destroy();
        resolve(got.split('\r\n')[0] ?? '');
      }
    });
    s.on('error', reject);
  });
}

describe('bad input', () => {
  it('a request target that is not a URL -> 400; the station keeps running', async () => {
    d = await startDebugHarness();
    for (const target of ['//', 'http://[']) expect(await raw(d.url, `GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`)).toBe('HTTP/1.1 400 Bad Request');
    expect((await d.call('GET', '/healthz')).status).toBe(200);
  });

  it('a wrong token -> 401 with nothing but "unauthorized"', async () => {
    d = await startDebugHarness();
    const r = await d.call('GET', '/api/status', { token: 'pst_' + 'A'.repeat(43) });
    expect(r.status).toBe(401);
    expect(r.text).toBe('{"error":"unauthorized","message":"unauthorized"}');
  });

  it('an unknown route -> 404 JSON; a known route with the wrong method -> 405 with Allow', async () => {
    d = await startDebugHarness();
    const r = await d.call('GET', '/api/nothing-here');
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    expect(r.body).toMatchObject({ error: 'not_found' });
    const m = await d.call('GET', '/api/selftest');
    expect(m.status).toBe(405);
    expect(m.headers.get('allow')).toBe('POST');
  });

  it('an oversized body -> 413, by Content-Length and by counting a chunked body; nothing done', async () => {
    d = await startDebugHarness();
    await idle(d);
    const big = JSON.stringify({ on: true, pad: 'x'.repeat(20_000) });
    const r = await d.call('POST', '/api/service', { body: big });
    expect(r.status).toBe(413);
    expect(r.body['error']).toBe('payload_too_large');
    const chunked = await chunkedPost(d.url, '/api/service', d.tokens.service, 64 * 1024);
    expect(chunked.status).toBe(413);
    expect(d.wp.supervisor.station.runtime.snapshot().faults).toEqual({});
  });

  it('malformed JSON -> 400; a body that does not say JSON -> 415; a wrong shape -> 400 with the paths', async () => {
    d = await startDebugHarness();
    const bad = await d.call('POST', '/api/service', { body: '{"on": tru' });
    expect(bad.status).toBe(400);
    expect(bad.body['error']).toBe('malformed_json');
    const type = await d.call('POST', '/api/service', { body: 'on=true', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(type.status).toBe(415);
    const shape = await d.call('POST', '/api/service', { body: { on: 'yes', extra: 1 } });
    expect(shape.status).toBe(400);
    expect((shape.body['problems'] as { path: string }[]).map((p) => p.path)).toEqual(expect.arrayContaining(['on']));
    expect(d.wp.supervisor.station.runtime.snapshot().faults).toEqual({});
  });

  it('an action the current mode forbids -> 409 with the reason (open a box during a pickup, inject meanwhile)', async () => {
    d = await startDebugHarness();
    await idle(d);
    d.h.sim.typePin(SEED_PIN_MULTI);
    await waitFor('pickup in progress', () => d!.wp.supervisor.station.runtime.snapshot().mode.kind === 'closing');
    for (const [path, body] of [
      ['/api/boxes/1/open', undefined],
      ['/api/inject/scan', { value: '31234000000017' }],
    ] as const) {
      const r = await d.call('POST', path, { body });
      expect(r.status, path).toBe(409);
      expect(r.body['error']).toBe('busy');
      expect(String(r.body['message'])).toMatch(/closing/);
    }
  });
});
