import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PortalHttpError } from '../../src/portal/errors.js';
import { FakePortal } from '../support/fake-portal.js';
import { clientFor } from '../support/fake-portal-client.js';

let fake: FakePortal;
beforeEach(async () => {
  fake = await FakePortal.start();
});
afterEach(() => fake.close());

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const apiCalls = () => fake.requests.filter((r) => r.path !== '/oauth/token');

describe('editation flow', () => {
  it('create → PUT field → PUT subfield → POST value → publish → phase → holding', async () => {
    const client = clientFor(fake);
    const ed = await client.createEditation({ kind: 'document', fond: 1, revisionSavingPolicy: 'manual-only', emptyFieldsCompletion: false });
    expect(ed).toMatchObject({ type: 'document', draft: true, fond: { id: 1 }, fields: [] });
    expect(ed).not.toHaveProperty('editorsOnline');
    const fieldId = await client.createField(ed.id, '245');
    const subfieldId = await client.createSubfield(ed.id, fieldId, 'a');
    expect(fieldId).toMatch(UUID_V4);
    expect(subfieldId).toMatch(UUID_V4);
    expect(subfieldId).not.toBe(fieldId);
    await client.setEditationValue(ed.id, fieldId, subfieldId, 'Commissioning test');
    await client.publishEditation(ed.id);
    await client.setPhase(ed.recordId, 'CATALOGED');
    const holdingId = await client.createHolding(ed.recordId, 7);

    const calls = apiCalls().map((r) => ({ m: r.method, p: r.path, q: r.query, b: r.body, ct: r.contentType }));
    const base = `/api/record-editations/${ed.id}`;
    expect(calls).toEqual([
      {
        m: 'POST',
        p: '/api/record-editations/new',
        q: { kind: 'document', fond: '1', revisionSavingPolicy: 'manual-only', emptyFieldsCompletion: 'false' },
        b: '',
        ct: undefined,
      },
      { m: 'PUT', p: `${base}/fields/${fieldId}`, q: { code: '245' }, b: '', ct: undefined },
      { m: 'PUT', p: `${base}/fields/${fieldId}/${subfieldId}`, q: { code: 'a' }, b: '', ct: undefined },
      { m: 'POST', p: `${base}/fields/${fieldId}/${subfieldId}`, q: {}, b: '{"value":"Commissioning test"}', ct: 'application/json' },
      { m: 'POST', p: `${base}/publish`, q: {}, b: '', ct: undefined },
      { m: 'POST', p: '/api/records/phase', q: {}, b: JSON.stringify({ record: ed.recordId, phase: 'CATALOGED' }), ct: 'application/json' },
      { m: 'POST', p: '/api/record-holdings', q: {}, b: JSON.stringify({ record: ed.recordId, department: 7 }), ct: 'application/json' },
    ]);
    expect(fake.rejections).toEqual([]);
    const rec = fake.records.get(ed.recordId)!;
    expect(rec.phase).toBe('CATALOGED');
    expect(rec.fields).toEqual([{ id: fieldId, code: '245', subfields: [{ id: subfieldId, code: 'a', value: 'Commissioning test' }] }]);
    expect(fake.holdings).toEqual([{ id: holdingId, record: ed.recordId, department: 7 }]);
  });

  it('GET for /new by option; emptyFieldsCompletion and policy left out when not given', async () => {
    fake.editationMethods = ['GET'];
    const client = clientFor(fake, { editationCreateMethod: 'GET' });
    const ed = await client.createEditation({ kind: 'authority', fond: 31 });
    expect(apiCalls()[0]).toMatchObject({ method: 'GET', query: { kind: 'authority', fond: '31' } });
    // The portal default (completion on) filled in an empty 245 with its subfields.
    expect(ed.fields[0]).toMatchObject({ code: '245', fields: [{ code: 'a', typeId: 'D.245.a' }] });
    expect(ed.fields[0]!.fields[0]).not.toHaveProperty('somethingNew');
    // Per-call override back to POST against a portal that only takes GET: a typed 405.
    await expect(client.createEditation({ kind: 'document', fond: 1 }, { method: 'POST' })).rejects.toMatchObject({ name: 'PortalHttpError', status: 405 });
  });

  it('sets a value in every documented shape, including main composite authorities', async () => {
    const client = clientFor(fake);
    const ed = await client.createEditation({ kind: 'document', fond: 1, emptyFieldsCompletion: false });
    const authorId = fake.authorities[0]!.id;
    const f100 = await client.createField(ed.id, '100');
    const main = await client.createSubfield(ed.id, f100, 'main');
    await client.setEditationValue(ed.id, f100, main, { fieldLabels: { 'D.100.a': 'Čapek, Karel', 'D.100.d': '1890-1938' } });
    await client.setEditationValue(ed.id, f100, main, { id: authorId });
    const f650 = await client.createField(ed.id, '650');
    const a650 = await client.createSubfield(ed.id, f650, 'a');
    await client.setEditationValue(ed.id, f650, a650, { fieldLabel: 'Robots' });
    await client.setEditationValue(ed.id, f650, a650, { id: authorId });
    const bodies = apiCalls()
      .filter((r) => r.method === 'POST' && r.path.includes('/fields/'))
      .map((r) => JSON.parse(r.body) as unknown);
    expect(bodies).toEqual([
      { value: { fieldLabels: { 'D.100.a': 'Čapek, Karel', 'D.100.d': '1890-1938' } } },
      { value: { id: authorId } },
      { value: { fieldLabel: 'Robots' } },
      { value: { id: authorId } },
    ]);
    expect(fake.rejections).toEqual([]);
  });

  it('POST value to unknown field and subfield ids creates them (spec), with client ids', async () => {
    const client = clientFor(fake);
    const ed = await client.createEditation({ kind: 'document', fond: 1, emptyFieldsCompletion: false });
    const [f, s] = [crypto.randomUUID(), crypto.randomUUID()];
    await client.setEditationValue(ed.id, f, s, 'direct');
    expect(fake.editations.get(ed.id)!.fields).toEqual([{ id: f, code: '???', subfields: [{ id: s, code: '?', value: 'direct' }] }]);
  });

  it('checks ids and value shapes before sending', async () => {
    const client = clientFor(fake);
    const ed = await client.createEditation({ kind: 'document', fond: 1 });
    const before = fake.requests.length;
    await expect(client.createField(ed.id, '245', 'not-a-uuid')).rejects.toThrow(/UUIDv4/);
    await expect(client.createField(ed.id, '245', '00000000-0000-1000-8000-000000000000')).rejects.toThrow(/UUIDv4/);
    const f = crypto.randomUUID();
    await expect(client.setEditationValue(ed.id, f, crypto.randomUUID(), { fieldLabels: { '100a': 'x' } as never })).rejects.toThrow(/D.<field>.<sub>/);
    await expect(client.setEditationValue(ed.id, f, crypto.randomUUID(), { id: 'nope' })).rejects.toThrow(/UUID/);
    expect(fake.requests.length).toBe(before);
  });

  it('a rejected step surfaces as PortalHttpError with status and body', async () => {
    const client = clientFor(fake);
    const ed = await client.createEditation({ kind: 'document', fond: 1, emptyFieldsCompletion: false });
    const err = await client.createSubfield(ed.id, crypto.randomUUID(), 'a').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PortalHttpError);
    expect(err).toMatchObject({ status: 404, method: 'PUT', body: { error: 'no such parent field' } });
  });
});

describe('quick set of a field value', () => {
  async function publishedRecord(): Promise<string> {
    const client = clientFor(fake);
    const ed = await client.createEditation({ kind: 'document', fond: 1 });
    await client.publishEditation(ed.id);
    return ed.recordId;
  }

  it('uses the documented template path by default, with a string or a record reference', async () => {
    const recordId = await publishedRecord();
    fake.quickSetForms = ['template'];
    const client = clientFor(fake);
    const target = { recordId, fieldId: crypto.randomUUID(), subfieldId: crypto.randomUUID() };
    await client.quickSetField(target, 'Quick title');
    await client.quickSetField(target, { id: fake.authorities[0]!.id });
    const posts = apiCalls().filter((r) => r.path.startsWith('/api/records/') && r.path !== '/api/records/phase');
    expect(posts.map((r) => r.path)).toEqual(Array(2).fill(`/api/records/${recordId}/fields/${target.fieldId}/fields/${target.subfieldId}`));
    expect(posts.map((r) => JSON.parse(r.body) as unknown)).toEqual([{ value: 'Quick title' }, { value: { id: fake.authorities[0]!.id } }]);
    expect(fake.records.get(recordId)!.quickSets.map((q) => q.form)).toEqual(['template', 'template']);
  });

  it('uses the example path (no fields segment) by client option or per call', async () => {
    const recordId = await publishedRecord();
    fake.quickSetForms = ['example'];
    const target = { recordId, fieldId: crypto.randomUUID(), subfieldId: crypto.randomUUID() };
    await clientFor(fake, { quickSetPath: 'example' }).quickSetField(target, 'a');
    await clientFor(fake).quickSetField(target, 'b', { pathForm: 'example' });
    // The default form against a portal that only knows the example form: a typed 404.
    await expect(clientFor(fake).quickSetField(target, 'c')).rejects.toMatchObject({ name: 'PortalHttpError', status: 404 });
    expect(fake.records.get(recordId)!.quickSets.map((q) => [q.form, q.value])).toEqual([
      ['example', 'a'],
      ['example', 'b'],
    ]);
  });
});

describe('phase and holding', () => {
  it('refuses an unknown phase before sending', async () => {
    await expect(clientFor(fake).setPhase(crypto.randomUUID(), 'DONE' as never)).rejects.toThrow(RangeError);
    expect(fake.requests).toHaveLength(0);
  });

  it('a holding for an unknown record is a PortalHttpError 404', async () => {
    await expect(clientFor(fake).createHolding(crypto.randomUUID(), 1)).rejects.toMatchObject({
      name: 'PortalHttpError',
      status: 404,
      path: '/api/record-holdings',
    });
  });
});
