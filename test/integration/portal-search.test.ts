import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PortalResponseError } from '../../src/portal/errors.js';
import { FakePortal } from '../support/fake-portal.js';
import { clientFor } from '../support/fake-portal-client.js';

let fake: FakePortal;
beforeEach(async () => {
  fake = await FakePortal.start();
});
afterEach(() => fake.close());

const searches = () => fake.requests.filter((r) => r.path === '/api/search');

describe('search', () => {
  it('sends kind, q, name, fond, pageSize and pageNumber as query parameters', async () => {
    const page = await clientFor(fake).search({ kind: 'document', q: 'book', name: 'number', fond: 53, pageSize: 5, pageNumber: 2 });
    expect(searches()[0]!.query).toEqual({ kind: 'document', q: 'book', name: 'number', fond: '53', pageSize: '5', pageNumber: '2' });
    expect(page.result).toMatchObject({ pageNumber: 2, pageSize: 5, totalElements: 11, totalPages: 3, numberOfElements: 5 });
    expect(page.result.content.every((d) => d.fond?.id === 53)).toBe(true);
    expect(fake.rejections).toEqual([]);
  });

  it('leaves out parameters that are not given', async () => {
    await clientFor(fake).search({ kind: 'authority' });
    expect(searches()[0]!.query).toEqual({ kind: 'authority' });
  });

  it('types document items and strips fields the spec does not list', async () => {
    const page = await clientFor(fake).search({ kind: 'document', name: 'R.U.R.' });
    const d = page.result.content[0]!;
    expect(d).toMatchObject({ name: 'R.U.R.', type: 'document', status: { id: 4 }, fond: { id: 53 } });
    expect(d).not.toHaveProperty('unknownExtra');
  });

  it('searches authorities, exemplars and users', async () => {
    const client = clientFor(fake);
    const a = await client.search({ kind: 'authority', name: 'Čapek' });
    expect(a.result.content[0]).toMatchObject({ type: 'authority', status: { id: 13 } });
    const e = await client.search({ kind: 'exemplar', q: '2500012345' });
    expect(e.result.content[0]).toMatchObject({ barCode: '2500012345' }); // shape not specified: kept as is
    const u = await client.search({ kind: 'user', name: 'Novák' });
    expect(u.result.totalElements).toBe(1);
    expect(searches().map((r) => r.query['kind'])).toEqual(['authority', 'exemplar', 'user']);
  });

  it('rejects bad paging arguments before sending', async () => {
    await expect(clientFor(fake).search({ kind: 'document', pageSize: 0 })).rejects.toThrow(RangeError);
    expect(searches()).toHaveLength(0);
  });

  it('searchPages iterates every page in order; searchItems yields every item', async () => {
    const client = clientFor(fake);
    const pages = [];
    for await (const p of client.searchPages({ kind: 'document', pageSize: 10 })) pages.push(p.result.pageNumber);
    expect(pages).toEqual([1, 2, 3]);
    expect(searches().map((r) => r.query['pageNumber'])).toEqual(['1', '2', '3']);
    const items = [];
    for await (const it of client.searchItems({ kind: 'document', pageSize: 7 })) items.push(it.id);
    expect(items).toHaveLength(23);
    expect(new Set(items).size).toBe(23);
  });

  it('searchPages stops at maxPages and at an empty page even if totalPages says more', async () => {
    const client = clientFor(fake);
    const limited = [];
    for await (const p of client.searchPages({ kind: 'document', pageSize: 2 }, { maxPages: 2 })) limited.push(p);
    expect(limited).toHaveLength(2);
    fake.interceptor = (r) =>
      r.path === '/api/search'
        ? { status: 200, body: { result: { totalElements: 99, content: [], numberOfElements: 0, totalPages: 99, pageNumber: 1, pageSize: 10 } } }
        : undefined;
    const lying = [];
    for await (const p of client.searchPages({ kind: 'document' })) lying.push(p);
    expect(lying).toHaveLength(1);
  });

  it('a malformed page is a PortalResponseError naming the zod path', async () => {
    fake.interceptor = (r) =>
      r.path === '/api/search'
        ? {
            status: 200,
            body: {
              result: {
                totalElements: 1,
                content: [{ id: 'not-a-uuid', kindedId: 1, name: 'x', type: 'document' }],
                numberOfElements: 1,
                totalPages: 1,
                pageNumber: 1,
                pageSize: 10,
              },
            },
          }
        : undefined;
    const err = await clientFor(fake)
      .search({ kind: 'document' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PortalResponseError);
    expect(err).toMatchObject({ method: 'GET', path: '/api/search', status: 200 });
    expect((err as PortalResponseError).issues[0]!.path).toEqual(['result', 'content', 0, 'id']);
    expect((err as Error).message).toContain('result.content.0.id');
  });
});

describe('newest documents', () => {
  it('GETs /api/newest-documents; isbn is an object here; unknown fields are stripped', async () => {
    const docs = await clientFor(fake).newestDocuments();
    expect(docs).toHaveLength(3);
    expect(docs[0]).toMatchObject({ type: 'document', isbn: { value: '978-80-70', trimmedValue: '9788070' }, cover: { id: 100 }, fields: [] });
    expect(docs[0]).not.toHaveProperty('unknownExtra');
    expect(fake.requests.at(-1)).toMatchObject({ method: 'GET', path: '/api/newest-documents', query: {} });
  });
});
