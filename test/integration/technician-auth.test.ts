/**
 * Binding and auth of the technician port: loopback by default, only /healthz (and the data-free
 * page) without a token, Bearer only, never a token in a URL, scopes. The tokens themselves:
 * test/unit/tokens-store.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { newToken } from '../../src/tokens/tokens.js';
import { startDebugHarness, type DebugHarness } from '../support/technician-harness.js';

let d: DebugHarness | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

describe('over HTTP', () => {
  it('listens on 127.0.0.1; /healthz, the page and its script and style answer without a token, nothing else does', async () => {
    d = await startDebugHarness();
    expect(d.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await d.call('GET', '/healthz', { token: null });
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ ok: true });
    const page = await d.call('GET', '/', { token: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    // Its script and style are files of their own, this origin's only ones.
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'; style-src 'self'");
    for (const [path, type] of [
      ['/technician.js', /text\/javascript/],
      ['/technician.css', /text\/css/],
    ] as const) {
      const asset = await d.call('GET', path, { token: null });
      expect(asset.status, path).toBe(200);
      expect(asset.headers.get('content-type'), path).toMatch(type);
    }
    for (const path of ['/api/status', '/api/logs', '/api/events', '/api/events/stream', '/api/nope']) {
      const r = await d.call('GET', path, { token: null });
      expect(r.status, path).toBe(401);
    }
  });

  it('a missing, wrong or malformed token -> 401 with no detail; the same body every time', async () => {
    d = await startDebugHarness();
    const answers = [
      await d.call('GET', '/api/status', { token: null }),
      await d.call('GET', '/api/status', { token: newToken() }),
      await d.call('GET', '/api/status', { token: 'garbage' }),
      await d.call('GET', '/api/status', { token: null, headers: { authorization: `Basic ${Buffer.from(`x:${d.tokens.service}`).toString('base64')}` } }),
      await d.call('POST', '/api/service', { token: newToken(), body: { on: true } }),
    ];
    for (const a of answers) {
      expect(a.status).toBe(401);
      expect(a.body).toEqual({ error: 'unauthorized', message: 'unauthorized' });
      expect(a.headers.get('www-authenticate')).toBe('Bearer');
    }
    expect(d.wp.supervisor.station.runtime.snapshot().faults).toEqual({}); // the refused service call did nothing
  });

  it('a token in the query string is refused (400) even when valid, and never logged', async () => {
    d = await startDebugHarness();
    for (const p of ['token', 'access_token']) {
      const r = await d.call('GET', `/api/status?${p}=${d.tokens.service}`, { token: null });
      expect(r.status).toBe(400);
      expect(r.body['error']).toBe('token_in_url');
      const withHeader = await d.call('GET', `/api/status?${p}=${d.tokens.service}`);
      expect(withHeader.status).toBe(400);
    }
    expect(d.h.logs.join('')).not.toContain(d.tokens.service);
  });

  it('scopes: a read token reads but gets 403 on every service action; a service token does both', async () => {
    d = await startDebugHarness();
    expect((await d.call('GET', '/api/status', { token: d.tokens.read })).status).toBe(200);
    expect((await d.call('GET', '/api/logs', { token: d.tokens.read })).status).toBe(200);
    for (const [path, body] of [
      ['/api/boxes/1/open', undefined],
      ['/api/selftest', undefined],
      ['/api/service', { on: true }],
      ['/api/inject/scan', { value: 'x' }],
      ['/api/inject/pin', { pin: '123456' }],
      ['/api/reload', undefined],
    ] as const) {
      const r = await d.call('POST', path, { token: d.tokens.read, body });
      expect(r.status, path).toBe(403);
      expect(r.body['error']).toBe('forbidden');
    }
    expect(d.h.sim.locks.pulses).toEqual([]);
    expect((await d.call('GET', '/api/status', { token: d.tokens.service })).body['technician']).toEqual({ name: 'alice', scope: 'service' });
  });
});
