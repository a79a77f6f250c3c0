import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PortalHttpError, PortalNetworkError } from '../../src/portal/errors.js';
import { FAKE_CLIENT, FAKE_USER, FakePortal } from '../support/fake-portal.js';
import { captureLogger, clientFor } from '../support/fake-portal-client.js';

let fake: FakePortal;
beforeEach(async () => {
  fake = await FakePortal.start();
});
afterEach(() => fake.close());

describe('typed errors', () => {
  it('a 500 with a text body is a PortalHttpError carrying status and body', async () => {
    fake.interceptor = (r) => (r.path === '/api/newest-documents' ? { status: 500, text: 'database down' } : undefined);
    const err = await clientFor(fake)
      .newestDocuments()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PortalHttpError);
    expect(err).toMatchObject({ status: 500, method: 'GET', path: '/api/newest-documents', body: 'database down' });
    expect((err as Error).message).toBe('GET /api/newest-documents: HTTP 500: database down');
  });

  it('no retry on a 5xx: got retry is off', async () => {
    fake.interceptor = (r) => (r.path === '/api/search' ? { status: 503 } : undefined);
    await expect(clientFor(fake).search({ kind: 'user' })).rejects.toMatchObject({ status: 503 });
    expect(fake.requests.filter((r) => r.path === '/api/search')).toHaveLength(1);
  });

  it('a refused connection is a PortalNetworkError with the code and no cause', async () => {
    const url = fake.url;
    await fake.close();
    const err = await clientFor(fake, { baseUrl: url })
      .token()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PortalNetworkError);
    expect(err).toMatchObject({ code: 'ECONNREFUSED', method: 'POST', path: '/oauth/token' });
    expect((err as Error).cause).toBeUndefined();
    fake = await FakePortal.start(); // for afterEach
  });

  it('a base URL with a path prefix keeps the prefix', async () => {
    const err = await clientFor(fake, { baseUrl: `${fake.url}/portal` })
      .token()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ path: '/oauth/token' }); // the path as the client knows it
    expect(fake.requests[0]!.path).toBe('/portal/oauth/token');
  });
});

describe('secrets never reach the logs', () => {
  const secrets = () => [
    FAKE_CLIENT.clientSecret,
    FAKE_USER.password,
    Buffer.from(`${FAKE_CLIENT.clientId}:${FAKE_CLIENT.clientSecret}`).toString('base64'),
    ...fake.tokens.keys(),
  ];

  it('logs method, path, status and duration only (pino at trace level)', async () => {
    const chunks: string[] = [];
    const sink = new Writable({ write: (c: Buffer, _e, cb) => void (chunks.push(c.toString()), cb()) });
    const logger = pino({ level: 'trace' }, sink);
    const client = clientFor(fake, { logger, grant: { type: 'password', ...FAKE_USER } });
    await client.currentUser();
    fake.revokeAllTokens(); // exercise the renewal path too
    await client.search({ kind: 'user', q: 'Novák' });
    await client.createHolding(fake.documents[0]!.id, 1);
    await new Promise((r) => setImmediate(r));
    const text = chunks.join('');
    for (const s of secrets()) expect(text).not.toContain(s);
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThanOrEqual(6);
    for (const l of lines) {
      expect(
        Object.keys(l)
          .filter((k) => !['level', 'time', 'pid', 'hostname', 'msg'].includes(k))
          .sort(),
      ).toEqual(['durationMs', 'method', 'path', 'status']);
    }
    expect(lines.map((l) => `${String(l['method'])} ${String(l['path'])} ${String(l['status'])}`)).toContain('GET /api/search 401');
    expect(text).not.toContain('Novák'); // the query string is not logged either
  });

  it('errors do not carry secrets, not even when serialised with their properties', async () => {
    const { logger, lines } = captureLogger();
    fake.refuseAllBearers = true;
    const err = await clientFor(fake, { logger })
      .currentUser()
      .catch((e: unknown) => e);
    const serialised = JSON.stringify(err, Object.getOwnPropertyNames(err)) + String((err as Error).stack) + lines.join('\n');
    for (const s of secrets()) expect(serialised).not.toContain(s);
    const bad = await clientFor(fake, { clientSecret: `${FAKE_CLIENT.clientSecret}-x` })
      .token()
      .catch((e: unknown) => e);
    expect(JSON.stringify(bad, Object.getOwnPropertyNames(bad))).not.toContain(FAKE_CLIENT.clientSecret);
  });
});
