import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PortalResponseError } from '../../src/portal/errors.js';
import { FakePortal } from '../support/fake-portal.js';
import { clientFor } from '../support/fake-portal-client.js';

let fake: FakePortal;
beforeEach(async () => {
  fake = await FakePortal.start();
});
afterEach(() => fake.close());

describe('user sync', () => {
  it('POSTs {identifier} and returns the SyncWay per item (CREATE, then UPDATE)', async () => {
    const client = clientFor(fake);
    const first = await client.syncUser('ext-1001');
    expect(first).toEqual({
      responseType: 'FinishedUserSyncResponse',
      text: 'Finished',
      finished: true,
      items: [{ item: { id: 42, text: 'Novák, Jan' }, way: 'CREATE' }],
    });
    const second = await client.syncUser('ext-1001');
    expect(second.items[0]!.way).toBe('UPDATE');
    const req = fake.requests.filter((r) => r.path === '/api/sync/user')[0]!;
    expect(req).toMatchObject({ method: 'POST', contentType: 'application/json', body: '{"identifier":"ext-1001"}' });
    expect(fake.rejections).toEqual([]);
  });

  it('an item without a user label (SKIP) is valid', async () => {
    const r = await clientFor(fake).syncUser('nobody');
    expect(r.items).toEqual([{ way: 'SKIP' }]);
  });

  it('an unknown SyncWay or response type is a PortalResponseError', async () => {
    fake.interceptor = (r) =>
      r.path === '/api/sync/user' ? { status: 200, body: { responseType: 'FinishedUserSyncResponse', finished: true, items: [{ way: 'MERGE' }] } } : undefined;
    const err = await clientFor(fake)
      .syncUser('ext-1001')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PortalResponseError);
    expect((err as PortalResponseError).issues[0]!.path).toEqual(['items', 0, 'way']);
    fake.interceptor = (r) =>
      r.path === '/api/sync/user' ? { status: 200, body: { responseType: 'FinishedUserFetchResponse', finished: true, items: [] } } : undefined;
    await expect(clientFor(fake).syncUser('ext-1001')).rejects.toBeInstanceOf(PortalResponseError);
  });
});

describe('user fetch', () => {
  it('POSTs {identifier} to /fetch and returns the user editation request without saving', async () => {
    const r = await clientFor(fake).fetchUser('ext-1001');
    expect(r.responseType).toBe('FinishedUserFetchResponse');
    const user = r.items[0]!.item;
    expect(user).toMatchObject({ id: 42, firstName: 'Jan', lastName: 'Novák', kind: 'PERSON', netId: 'ext-1001', editorAccounts: null });
    expect(user.readerAccounts![0]).toMatchObject({ cardNumber: 'C-0001001', readerCategory: { id: 'ADULT' } });
    expect(user.phoneNumbers![0]).toMatchObject({ smsCapable: true });
    expect(fake.synced).toEqual([]);
    expect(fake.requests.at(-1)).toMatchObject({ path: '/api/sync/user/fetch', body: '{"identifier":"ext-1001"}' });
  });

  it('an unknown user gives no items', async () => {
    expect((await clientFor(fake).fetchUser('nobody')).items).toEqual([]);
  });
});
