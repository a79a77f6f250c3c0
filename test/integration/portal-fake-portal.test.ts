/**
 * The fake portal must reject what the spec does not allow, or the client tests could not fail.
 * These requests are made with plain fetch, bypassing the client's own checks.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_CLIENT, FakePortal } from '../support/fake-portal.js';

let fake: FakePortal;
let bearer: string;
beforeEach(async () => {
  fake = await FakePortal.start();
  bearer = `Bearer ${await token()}`;
});
afterEach(() => fake.close());

const basic = `Basic ${Buffer.from(`${FAKE_CLIENT.clientId}:${FAKE_CLIENT.clientSecret}`).toString('base64')}`;
const form = 'application/x-www-form-urlencoded';

async function token(): Promise<string> {
  const res = await fetch(`${fake.url}/oauth/token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': form },
    body: 'grant_type=client_credentials',
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

async function status(path: string, init: RequestInit = {}): Promise<number> {
  return (await fetch(`${fake.url}${path}`, init)).status;
}

const json = (body: unknown, auth = true): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...(auth ? { authorization: bearer } : {}) },
  body: JSON.stringify(body),
});

async function editation(): Promise<string> {
  const res = await fetch(`${fake.url}/api/record-editations/new?kind=document&fond=1&emptyFieldsCompletion=false`, {
    method: 'POST',
    headers: { authorization: bearer },
  });
  return ((await res.json()) as { id: string }).id;
}

describe('fake portal strictness', () => {
  it('token endpoint: wrong grant, missing Basic, JSON instead of form, grant in the URL', async () => {
    const post = (body: string, headers: Record<string, string>, query = '') => status(`/oauth/token${query}`, { method: 'POST', headers, body });
    expect(await post('grant_type=authorization_code', { authorization: basic, 'content-type': form })).toBe(400);
    expect(await post('grant_type=password&username=technician', { authorization: basic, 'content-type': form })).toBe(400);
    expect(await post('grant_type=client_credentials', { 'content-type': form })).toBe(401);
    expect(await post('{"grant_type":"client_credentials"}', { authorization: basic, 'content-type': 'application/json' })).toBe(400);
    expect(await post('', { authorization: basic, 'content-type': form }, '?grant_type=client_credentials')).toBe(400);
  });

  it('API calls: missing bearer, unknown bearer, Basic instead of bearer', async () => {
    expect(await status('/api/users/current')).toBe(401);
    expect(await status('/api/users/current', { headers: { authorization: 'Bearer tok-unknown' } })).toBe(401);
    expect(await status('/api/users/current', { headers: { authorization: basic } })).toBe(401);
    expect(await status('/api/users/current', { headers: { authorization: bearer } })).toBe(200);
  });

  it('search: unknown kind, unknown parameter, non-integer paging', async () => {
    const get = (q: string) => status(`/api/search?${q}`, { headers: { authorization: bearer } });
    expect(await get('kind=book')).toBe(400);
    expect(await get('kind=document&page=2')).toBe(400);
    expect(await get('kind=document&pageSize=ten')).toBe(400);
    expect(await get('kind=document&pageNumber=0')).toBe(400);
    expect(await get('kind=document')).toBe(200);
  });

  it('editation: bad kind, missing fond, non-UUIDv4 field id, bad code, body on a PUT, bad value shapes', async () => {
    expect(await status('/api/record-editations/new?kind=book&fond=1', { method: 'POST', headers: { authorization: bearer } })).toBe(400);
    expect(await status('/api/record-editations/new?kind=document', { method: 'POST', headers: { authorization: bearer } })).toBe(400);
    const ed = await editation();
    const put = (path: string, init: RequestInit = {}) =>
      status(`/api/record-editations/${ed}/fields/${path}`, { method: 'PUT', headers: { authorization: bearer }, ...init });
    expect(await put('not-a-uuid?code=245')).toBe(400);
    expect(await put('00000000-0000-1000-8000-000000000001?code=245')).toBe(400); // v1, not v4
    const f = crypto.randomUUID();
    expect(await put(`${f}?code=24`)).toBe(400);
    expect(await put(`${f}?code=245`, { method: 'PUT', headers: { authorization: bearer, 'content-type': 'application/json' }, body: '{}' })).toBe(400);
    expect(await put(`${f}?code=245&extra=1`)).toBe(400);
    expect(await put(`${f}?code=245`)).toBe(200);
    const s = crypto.randomUUID();
    expect(await put(`${f}/${s}?code=main`)).toBe(200);
    const value = (v: unknown) => status(`/api/record-editations/${ed}/fields/${f}/${s}`, json({ value: v }));
    expect(await value('plain text on a main subfield')).toBe(400);
    expect(await value({ fieldLabel: 'simple label on main' })).toBe(400);
    expect(await value({ fieldLabels: { '100a': 'x' } })).toBe(400);
    expect(await value({ id: 'nope' })).toBe(400);
    expect(await value({ fieldLabels: { 'D.100.a': 'x' } })).toBe(200);
  });

  it('phase, holding, sync: bodies of the wrong shape', async () => {
    const rec = fake.documents[0]!.id;
    expect(await status('/api/records/phase', json({ record: rec, phase: 'DONE' }))).toBe(400);
    expect(await status('/api/record-holdings', json({ record: rec, department: '7' }))).toBe(400);
    expect(await status('/api/record-holdings', json({ record: rec, department: 7, extra: true }))).toBe(400);
    expect(await status('/api/sync/user', json({ id: 'ext-1001' }))).toBe(400);
    expect(await status('/api/sync/user', json({ identifier: 'ext-1001' }, false))).toBe(401);
    expect(await status('/api/sync/user', { method: 'POST', headers: { authorization: bearer }, body: 'identifier=ext-1001' })).toBe(415);
  });

  it('records every rejection', async () => {
    await status('/api/newest-documents');
    expect(fake.rejections).toEqual([{ method: 'GET', path: '/api/newest-documents', status: 401, reason: 'missing bearer token' }]);
  });
});
