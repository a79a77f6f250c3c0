import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PortalHttpError, PortalResponseError, PortalTokenError } from '../../src/portal/errors.js';
import { FAKE_CLIENT, FAKE_USER, FakePortal } from '../support/fake-portal.js';
import { clientFor, manualClock } from '../support/fake-portal-client.js';

let fake: FakePortal;
beforeEach(async () => {
  fake = await FakePortal.start();
});
afterEach(() => fake.close());

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('token request', () => {
  it('client_credentials: Basic client id/secret, grant as form data, bearer on the API call', async () => {
    const client = clientFor(fake);
    const user = await client.currentUser();
    expect(user).toEqual({ id: 0, text: FAKE_CLIENT.clientId });
    const [tokenReq, apiReq] = fake.requests;
    expect(tokenReq).toMatchObject({ method: 'POST', path: '/oauth/token', query: {}, authorization: basic(FAKE_CLIENT.clientId, FAKE_CLIENT.clientSecret) });
    expect(tokenReq!.contentType).toMatch(/^application\/x-www-form-urlencoded/);
    expect(Object.fromEntries(new URLSearchParams(tokenReq!.body))).toEqual({ grant_type: 'client_credentials' });
    expect(apiReq!.authorization).toMatch(/^Bearer tok-/);
    expect(fake.rejections).toEqual([]);
  });

  it('password grant: username and password as form data next to the Basic client header', async () => {
    const client = clientFor(fake, { grant: { type: 'password', ...FAKE_USER } });
    expect(await client.currentUser()).toMatchObject({ username: FAKE_USER.username });
    const form = Object.fromEntries(new URLSearchParams(fake.tokenRequests()[0]!.body));
    expect(form).toEqual({ grant_type: 'password', username: FAKE_USER.username, password: FAKE_USER.password });
    expect(fake.rejections).toEqual([]);
  });

  it('returns scopes, expires_in and ignores unknown token fields', async () => {
    const token = await clientFor(fake).token();
    expect(token.scopes).toEqual(['EVIDED', 'EXTERNAL_SYSTEM']);
    expect(token.expiresInSeconds).toBe(43_199);
    expect(token).not.toHaveProperty('unknownExtra');
  });

  it('a wrong client secret is a PortalTokenError with status 401 and the body', async () => {
    const client = clientFor(fake, { clientSecret: 'wrong' });
    const err = await client.currentUser().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PortalTokenError);
    expect(err).toMatchObject({ status: 401, path: '/oauth/token', body: { error: 'invalid_client' } });
  });

  it('a wrong user password is a PortalTokenError (400 invalid_grant)', async () => {
    const client = clientFor(fake, { grant: { type: 'password', username: FAKE_USER.username, password: 'nope' } });
    await expect(client.token()).rejects.toMatchObject({ name: 'PortalTokenError', status: 400, body: { error: 'invalid_grant' } });
  });

  it('a token response without access_token is a PortalResponseError with the zod path', async () => {
    const client = clientFor(fake);
    // Make the fake issue a bad token body: expires_in as a string.
    fake.expiresIn = 'soon' as unknown as number;
    const err = await client.token().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PortalResponseError);
    expect((err as PortalResponseError).issues[0]!.path).toEqual(['expires_in']);
  });
});

describe('token cache and renewal', () => {
  it('reuses the token across calls and shares one token request between concurrent calls', async () => {
    const client = clientFor(fake);
    await Promise.all([client.currentUser(), client.newestDocuments(), client.search({ kind: 'document' })]);
    await client.currentUser();
    expect(fake.tokenRequests()).toHaveLength(1);
  });

  it('renews before expires_in (seconds) runs out, on the injected monotonic clock', async () => {
    fake.expiresIn = 600; // 10 min; margin = min(60 s, 60 s) = 60 s
    const clock = manualClock();
    const client = clientFor(fake, { now: clock.now });
    await client.currentUser();
    clock.advance(539_000); // 8 min 59 s: still fresh
    await client.currentUser();
    expect(fake.tokenRequests()).toHaveLength(1);
    clock.advance(2_000); // 9 min 01 s: inside the margin
    await client.currentUser();
    expect(fake.tokenRequests()).toHaveLength(2);
    const bearers = fake.requests.filter((r) => r.path !== '/oauth/token').map((r) => r.authorization);
    expect(bearers[1]).toBe(bearers[0]);
    expect(bearers[2]).not.toBe(bearers[0]);
  });

  it('caps the renewal margin at a tenth of a short lifetime', async () => {
    fake.expiresIn = 30;
    const clock = manualClock();
    const client = clientFor(fake, { now: clock.now });
    await client.currentUser();
    clock.advance(26_000); // renewAt = 30 s - 3 s
    await client.currentUser();
    expect(fake.tokenRequests()).toHaveLength(1);
    clock.advance(1_500);
    await client.currentUser();
    expect(fake.tokenRequests()).toHaveLength(2);
  });

  it('on a 401 renews the token once and retries the request once', async () => {
    const client = clientFor(fake);
    await client.currentUser();
    fake.revokeAllTokens();
    const holding = await client.createHolding(fake.documents[0]!.id, 7);
    expect(holding).toMatch(/^[0-9a-f-]{36}$/);
    expect(fake.tokenRequests()).toHaveLength(2);
    const posts = fake.requests.filter((r) => r.path === '/api/record-holdings');
    expect(posts.map((r) => r.body)).toEqual([posts[0]!.body, posts[0]!.body]); // same request resent
    expect(fake.holdings).toHaveLength(1);
  });

  it('a second 401 after the renewal is a PortalHttpError 401, with no further attempts', async () => {
    const client = clientFor(fake);
    fake.refuseAllBearers = true;
    const err = await client.currentUser().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PortalHttpError);
    expect(err).not.toBeInstanceOf(PortalTokenError);
    expect(err).toMatchObject({ status: 401, method: 'GET', path: '/api/users/current', body: { error: 'invalid_token' } });
    expect(fake.tokenRequests()).toHaveLength(2);
    expect(fake.requests.filter((r) => r.path === '/api/users/current')).toHaveLength(2);
  });
});
