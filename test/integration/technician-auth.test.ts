/**
 * Binding and auth of the technician port (acceptance 1 and the 401 of 6): loopback by default,
 * only /healthz (and the data-free page) without a token, Bearer only, never a token in a URL,
 * scopes, hashes only in config, tokens from the systemd credential too.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load.js';
import { bearerToken, hashToken, loadTokenEntries, newToken, TokenStore } from '../../src/technician/auth.js';
import { debugConfigSchema } from '../../src/config/technician.js';
import { ConfigError } from '../../src/errors.js';
import { startDebugHarness, type DebugHarness } from '../support/technician-harness.js';

let d: DebugHarness | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

describe('tokens (pure)', () => {
  it('a new token is 256 random bits with a prefix; only its sha256 is stored, and it verifies against that', () => {
    const t = newToken();
    expect(t).toMatch(/^pst_[A-Za-z0-9_-]{43}$/);
    expect(newToken()).not.toBe(t);
    const hash = hashToken(t);
    expect(hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(hash).not.toContain(t.slice(4));
    const store = new TokenStore([
      { name: 'bob', scope: 'read', hash: hashToken(newToken()) },
      { name: 'alice', scope: 'service', hash },
    ]);
    expect(store.verify(t)).toEqual({ name: 'alice', scope: 'service' });
    expect(store.verify(newToken())).toBeNull();
    expect(store.verify(t + 'x')).toBeNull();
    expect(store.verify('')).toBeNull();
  });

  it('parses only "Bearer <token>" headers', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('Basic abc')).toBeNull();
    expect(bearerToken('Bearer')).toBeNull();
    expect(bearerToken(undefined)).toBeNull();
  });

  it('the config default listens on 127.0.0.1; every interface only when written; a token entry needs a sha256 hash', () => {
    expect(debugConfigSchema.parse({}).listen).toEqual({ host: '127.0.0.1', port: 8470 });
    expect(debugConfigSchema.parse({ listen: { port: 9000 } }).listen).toEqual({ host: '127.0.0.1', port: 9000 });
    expect(debugConfigSchema.parse({ listen: { host: '0.0.0.0', port: 9000 } }).listen).toEqual({ host: '0.0.0.0', port: 9000 });
    expect(debugConfigSchema.parse({ listen: { socket: '/run/x.sock' } }).listen).toEqual({ socket: '/run/x.sock' });
    expect(debugConfigSchema.safeParse({ tokens: [{ name: 'a', scope: 'service', hash: 'plaintext-token' }] }).success).toBe(false);
    expect(debugConfigSchema.safeParse({ tokens: [{ name: 'a', scope: 'admin', hash: hashToken('x') }] }).success).toBe(false);
    const { config } = validateConfig({
      station: { id: 'd3b07384-d9a0-4c9b-8f3e-2b8c1a0e5f11', boxes: [{ number: 1, id: 'a1b2c3d4-0000-4000-8000-000000000001' }] },
      server: { baseUrl: 'https://library.example/pickup' },
    });
    expect(config?.debug).toMatchObject({ enabled: true, listen: { host: '127.0.0.1', port: 8470 }, tokens: [], maxBodyBytes: 16_384 });
  });

  it('adds the entries of the systemd credential technician-tokens; an invalid one is a ConfigError without the file text', () => {
    const dir = mkdtempSync(join(tmpdir(), 'creds-'));
    const own = { name: 'cfg', scope: 'read' as const, hash: hashToken(newToken()) };
    expect(loadTokenEntries([own], { CREDENTIALS_DIRECTORY: dir })).toEqual([own]); // no file: config only
    const cred = { name: 'cred', scope: 'service' as const, hash: hashToken(newToken()) };
    writeFileSync(join(dir, 'technician-tokens'), JSON.stringify([cred]));
    expect(loadTokenEntries([own], { CREDENTIALS_DIRECTORY: dir })).toEqual([own, cred]);
    writeFileSync(join(dir, 'technician-tokens'), 'pst_secretsecret not json');
    const err = (() => {
      try {
        loadTokenEntries([], { CREDENTIALS_DIRECTORY: dir });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(String((err as Error).message)).not.toContain('secretsecret');
  });
});

describe('over HTTP', () => {
  it('listens on 127.0.0.1; /healthz and the page answer without a token, nothing else does', async () => {
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
    expect(d.wp.station.runtime.snapshot().faults).toEqual({}); // the refused service call did nothing
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
