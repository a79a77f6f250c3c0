/**
 * A fake library portal (library-portal-api.md) on 127.0.0.1 for tests. Real HTTP, small state,
 * and strict: it rejects whatever the spec does not allow (wrong grant, grant parameters in the
 * URL, missing or unknown bearer, unknown query parameters, non-UUIDv4 client ids, bodies of the
 * wrong shape), so a client that drifts from the spec fails its tests. Every rejection is also
 * recorded in `rejections`, so happy-path tests can assert there were none.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as z from 'zod';
import {
  doc,
  editationBody,
  fetchedUser,
  mainValueBody,
  uuid,
  valueBody,
  type FakeEditation,
  type FakeRecord,
  type ExternalUser,
  type FakeSearchItem,
} from './fake-portal-data.js';

export const FAKE_CLIENT = { clientId: 'station-commissioning', clientSecret: 'cl1ent-S3CRET-do-not-log' } as const;
export const FAKE_USER = { username: 'technician', password: 'us3r-PASSWORD-do-not-log' } as const;

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const posInt = /^[1-9][0-9]*$/;

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  readonly body: string;
}

export interface Rejection {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly reason: string;
}

interface IssuedToken {
  readonly grant: 'client_credentials' | 'password';
  readonly username?: string;
  revoked: boolean;
}

/** `text` sends a raw text/plain body instead of JSON. */
export type Interceptor = (req: RecordedRequest) => { status: number; body?: unknown; text?: string } | undefined;

export type { FakeEditation, FakeRecord, FakeSearchItem };

class Reject extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    readonly body: unknown = { error: reason },
  ) {
    super(reason);
  }
}

export class FakePortal {
  readonly requests: RecordedRequest[] = [];
  readonly rejections: Rejection[] = [];
  readonly tokens = new Map<string, IssuedToken>();
  readonly editations = new Map<string, FakeEditation>();
  readonly records = new Map<string, FakeRecord>();
  readonly holdings: { id: string; record: string; department: number }[] = [];
  readonly synced: string[] = [];
  /** expires_in (seconds) of issued tokens. */
  expiresIn = 43_199;
  scope = 'EVIDED EXTERNAL_SYSTEM';
  /** Which methods /api/record-editations/new accepts (the spec shows both). */
  editationMethods: ('GET' | 'POST')[] = ['GET', 'POST'];
  /** Which quick-set path forms are accepted (the spec shows both). */
  quickSetForms: ('template' | 'example')[] = ['template', 'example'];
  /** While true every bearer is refused with 401 (a portal that revoked the client). */
  refuseAllBearers = false;
  /** Runs after authentication, before routing; return a response to replace the real one. */
  interceptor: Interceptor | undefined;

  documents: FakeSearchItem[] = Array.from({ length: 23 }, (_, i) => doc(i + 1, i === 4 ? 'R.U.R.' : `Book number ${i + 1}`));
  authorities: FakeSearchItem[] = [
    {
      id: '00000000-0000-4000-9000-000000000001',
      kindedId: 1,
      name: 'Čapek, Karel, 1890-1938',
      type: 'authority',
      text: 'Čapek, Karel',
      fond: { id: 31, name: 'Persons', text: 'Persons' },
      status: { id: 13, text: 'Finished' },
      lastUpdateDate: '2024-01-01T00:00:00+01:00',
      cover: null,
      directoryId: 3,
    },
  ];
  exemplars: FakeSearchItem[] = [{ id: '00000000-0000-4000-a000-000000000001', name: 'Book number 1', barCode: '2500012345', document: { id: doc(1, '').id } }];
  users: FakeSearchItem[] = [{ id: '00000000-0000-4000-b000-000000000001', name: 'Novák, Jan', text: 'Novák, Jan' }];
  externalUsers = new Map<string, ExternalUser>([['ext-1001', { id: 42, firstName: 'Jan', lastName: 'Novák', cardNumber: 'C-0001001' }]]);

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakePortal> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const fake = new FakePortal(server, `http://127.0.0.1:${port}`);
    server.on('request', (req, res) => void fake.handle(req, res));
    return fake;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Revoke every token issued so far (the next bearer call gets a 401). */
  revokeAllTokens(): void {
    for (const t of this.tokens.values()) t.revoked = true;
  }

  tokenRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.path === '/oauth/token');
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', this.url);
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization: req.headers.authorization,
      contentType: req.headers['content-type'],
      body: Buffer.concat(chunks).toString('utf8'),
    };
    this.requests.push(recorded);
    try {
      const out: ReturnType<Interceptor> = this.route(recorded);
      if (out?.text !== undefined) res.writeHead(out.status, { 'content-type': 'text/plain' }).end(out.text);
      else send(res, out?.status ?? 500, out?.body);
    } catch (e) {
      if (!(e instanceof Reject)) throw e;
      this.rejections.push({ method: recorded.method, path: recorded.path, status: e.status, reason: e.reason });
      if (e.status === 401) res.setHeader('www-authenticate', 'Bearer error="invalid_token"');
      send(res, e.status, e.body);
    }
  }

  private route(r: RecordedRequest): ReturnType<Interceptor> {
    if (r.path === '/oauth/token') return this.token(r);
    this.bearer(r);
    const intercepted = this.interceptor?.(r);
    if (intercepted) return intercepted;
    const p = r.path.split('/').slice(1);
    const m = r.method;
    if (m === 'GET' && r.path === '/api/users/current') return this.currentUser(r);
    if (m === 'GET' && r.path === '/api/search') return this.search(r);
    if (m === 'GET' && r.path === '/api/newest-documents') return this.newest(r);
    if (r.path === '/api/record-editations/new') return this.newEditation(r);
    if (p[0] === 'api' && p[1] === 'record-editations' && p[2] !== undefined) return this.editation(r, p[2], p.slice(3));
    if (m === 'POST' && r.path === '/api/records/phase') return this.phase(r);
    if (m === 'POST' && p[1] === 'records' && p[3] === 'fields') return this.quickSet(r, p);
    if (m === 'POST' && r.path === '/api/record-holdings') return this.holding(r);
    if (m === 'POST' && r.path === '/api/sync/user') return this.sync(r);
    if (m === 'POST' && r.path === '/api/sync/user/fetch') return this.fetch(r);
    throw new Reject(404, `no route ${m} ${r.path}`);
  }

  // ---- auth --------------------------------------------------------------------------------------

  private token(r: RecordedRequest): { status: number; body: unknown } {
    if (r.method !== 'POST') throw new Reject(405, 'token endpoint is POST');
    if (Object.keys(r.query).length > 0) throw new Reject(400, 'grant parameters belong in the body, not the URL', { error: 'invalid_request' });
    const basic = /^Basic ([A-Za-z0-9+/=]+)$/.exec(r.authorization ?? '');
    const [id, secret] = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8').split(':', 2) : [];
    if (id !== FAKE_CLIENT.clientId || secret !== FAKE_CLIENT.clientSecret) throw new Reject(401, 'bad client credentials', { error: 'invalid_client' });
    if (!r.contentType?.startsWith('application/x-www-form-urlencoded'))
      throw new Reject(400, 'grant parameters must be form data', { error: 'invalid_request' });
    const form = Object.fromEntries(new URLSearchParams(r.body));
    const keys = Object.keys(form).sort().join(',');
    let issued: IssuedToken;
    if (form['grant_type'] === 'client_credentials' && keys === 'grant_type') issued = { grant: 'client_credentials', revoked: false };
    else if (form['grant_type'] === 'password' && keys === 'grant_type,password,username') {
      if (form['username'] !== FAKE_USER.username || form['password'] !== FAKE_USER.password)
        throw new Reject(400, 'bad user credentials', { error: 'invalid_grant', error_description: 'Bad credentials' });
      issued = { grant: 'password', username: FAKE_USER.username, revoked: false };
    } else throw new Reject(400, `unsupported grant: ${keys}`, { error: 'unsupported_grant_type' });
    const accessToken = `tok-${randomUUID()}`;
    this.tokens.set(accessToken, issued);
    return {
      status: 200,
      body: { access_token: accessToken, token_type: 'bearer', expires_in: this.expiresIn, scope: this.scope, jti: randomUUID(), unknownExtra: 1 },
    };
  }

  private bearer(r: RecordedRequest): IssuedToken {
    const m = /^Bearer (\S+)$/.exec(r.authorization ?? '');
    const t = m ? this.tokens.get(m[1]!) : undefined;
    if (!t || t.revoked || this.refuseAllBearers)
      throw new Reject(401, m ? 'unknown or revoked bearer token' : 'missing bearer token', { error: 'invalid_token' });
    return t;
  }

  // ---- helpers -----------------------------------------------------------------------------------

  private query(r: RecordedRequest, allowed: readonly string[]): Record<string, string> {
    const unknown = Object.keys(r.query).filter((k) => !allowed.includes(k));
    if (unknown.length > 0) throw new Reject(400, `unknown query parameter(s): ${unknown.join(', ')}`);
    return r.query;
  }

  private json<S extends z.ZodType>(r: RecordedRequest, schema: S): z.output<S> {
    if (!r.contentType?.startsWith('application/json')) throw new Reject(415, 'JSON body required');
    let raw: unknown;
    try {
      raw = JSON.parse(r.body);
    } catch {
      throw new Reject(400, 'body is not JSON');
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw new Reject(400, `bad body: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return parsed.data;
  }

  private noBody(r: RecordedRequest): void {
    if (r.body !== '') throw new Reject(400, 'this request has no body');
  }

  private recordExists(id: string): boolean {
    return this.records.has(id) || this.documents.some((d) => d.id === id);
  }

  // ---- endpoints ---------------------------------------------------------------------------------

  private currentUser(r: RecordedRequest): { status: number; body: unknown } {
    this.query(r, []);
    const t = this.bearer(r);
    return {
      status: 200,
      body: t.grant === 'password' ? { id: 7, username: t.username, text: 'Technician, Test', kind: 'PERSON' } : { id: 0, text: FAKE_CLIENT.clientId },
    };
  }

  private search(r: RecordedRequest): { status: number; body: unknown } {
    const q = this.query(r, ['kind', 'q', 'name', 'fond', 'pageSize', 'pageNumber']);
    const kind = q['kind'];
    if (kind !== 'document' && kind !== 'authority' && kind !== 'exemplar' && kind !== 'user') throw new Reject(400, `bad kind ${kind}`);
    for (const k of ['pageSize', 'pageNumber', 'fond'] as const)
      if (q[k] !== undefined && !posInt.test(q[k])) throw new Reject(400, `${k} must be a positive integer`);
    const pageSize = Number(q['pageSize'] ?? (kind === 'authority' ? 30 : 10));
    const pageNumber = Number(q['pageNumber'] ?? 1);
    const all = { document: this.documents, authority: this.authorities, exemplar: this.exemplars, user: this.users }[kind];
    const needle = q['q']?.toLowerCase();
    const hits = all.filter(
      (it) =>
        (needle === undefined || JSON.stringify(it).toLowerCase().includes(needle)) &&
        (q['name'] === undefined || it.name.toLowerCase().includes(q['name'].toLowerCase())) &&
        (q['fond'] === undefined || (it['fond'] as { id: number } | undefined)?.id === Number(q['fond'])),
    );
    const content = hits.slice((pageNumber - 1) * pageSize, pageNumber * pageSize);
    return {
      status: 200,
      body: {
        title: q['name'] ?? q['q'] ?? '',
        subtitle: null,
        type: 'search',
        id: randomUUID(),
        result: {
          totalElements: hits.length,
          duration: 3,
          content,
          numberOfElements: content.length,
          totalPages: Math.ceil(hits.length / pageSize),
          pageNumber,
          pageSize,
        },
      },
    };
  }

  private newest(r: RecordedRequest): { status: number; body: unknown } {
    this.query(r, []);
    return {
      status: 200,
      body: this.documents.slice(0, 3).map((d, i) => ({
        id: d.id,
        kindedId: d['kindedId'],
        name: d.name,
        type: 'document',
        fond: { id: 1, name: 'Books' },
        author: d['author'],
        isbn: { value: `978-80-7${i}`, trimmedValue: `978807${i}` },
        publisher: null,
        publicationYear: 2020 + i,
        cover: { id: 100 + i },
        fields: [],
        text: d.name,
        unknownExtra: 'ignored',
      })),
    };
  }

  private newEditation(r: RecordedRequest): { status: number; body: unknown } {
    if (r.method !== 'GET' && r.method !== 'POST') throw new Reject(405, 'GET or POST');
    if (!this.editationMethods.includes(r.method)) throw new Reject(405, `${r.method} not accepted by this portal`);
    this.noBody(r);
    const q = this.query(r, ['kind', 'fond', 'revisionSavingPolicy', 'emptyFieldsCompletion']);
    const kind = q['kind'];
    if (kind !== 'document' && kind !== 'authority') throw new Reject(400, 'kind must be document or authority');
    if (q['fond'] === undefined || !posInt.test(q['fond'])) throw new Reject(400, 'fond must be an integer');
    const policy = q['revisionSavingPolicy'];
    if (policy !== undefined && !['manual-only', 'after-each-change-when-draft', 'after-each-change-always'].includes(policy))
      throw new Reject(400, 'bad revisionSavingPolicy');
    const completion = q['emptyFieldsCompletion'];
    if (completion !== undefined && completion !== 'true' && completion !== 'false') throw new Reject(400, 'emptyFieldsCompletion must be true or false');
    const ed: FakeEditation = {
      id: `ed-${this.editations.size + 1}-${randomUUID().slice(0, 8)}`,
      recordId: randomUUID(),
      kind,
      fond: Number(q['fond']),
      query: q,
      fields: [],
      published: false,
    };
    if (completion !== 'false') ed.fields.push({ id: randomUUID(), code: '245', subfields: [{ id: randomUUID(), code: 'a', value: null }] });
    this.editations.set(ed.id, ed);
    return { status: 200, body: editationBody(ed) };
  }

  private editation(r: RecordedRequest, editationId: string, rest: string[]): { status: number; body?: unknown } {
    const ed = this.editations.get(decodeURIComponent(editationId));
    if (!ed) throw new Reject(404, 'no such editation');
    if (ed.published) throw new Reject(409, 'editation already published');
    if (r.method === 'POST' && rest.length === 1 && rest[0] === 'publish') {
      this.noBody(r);
      this.query(r, []);
      ed.published = true;
      this.records.set(ed.recordId, { id: ed.recordId, kind: ed.kind, fond: ed.fond, fields: ed.fields, quickSets: [] });
      const title = ed.fields.find((f) => f.code === '245')?.subfields.find((s) => s.code === 'a')?.value;
      if (ed.kind === 'document' && typeof title === 'string') this.documents.push(doc(this.documents.length + 1, title, { id: ed.recordId }));
      return { status: 200, body: { text: 'Published' } };
    }
    if (rest[0] !== 'fields' || rest.length < 2 || rest.length > 3) throw new Reject(404, 'no such editation route');
    const [, fieldId, subfieldId] = rest as [string, string, string | undefined];
    if (r.method === 'PUT') {
      this.noBody(r);
      const code = this.query(r, ['code'])['code'];
      const newId = subfieldId ?? fieldId;
      if (!UUID_V4.test(newId)) throw new Reject(400, `id ${newId} is not a UUIDv4`);
      if (subfieldId === undefined) {
        if (code === undefined || !/^[0-9]{3}$/.test(code)) throw new Reject(400, 'field code must be three digits');
        if (ed.fields.some((f) => f.id === fieldId)) throw new Reject(409, 'field exists');
        ed.fields.push({ id: fieldId, code, subfields: [] });
      } else {
        if (code === undefined || !/^([a-z0-9]|main)$/.test(code)) throw new Reject(400, 'subfield code must be one character or main');
        const field = ed.fields.find((f) => f.id === fieldId);
        if (!field) throw new Reject(404, 'no such parent field');
        if (field.subfields.some((s) => s.id === subfieldId)) throw new Reject(409, 'subfield exists');
        field.subfields.push({ id: subfieldId, code, value: null });
      }
      return { status: 200 };
    }
    if (r.method === 'POST' && subfieldId !== undefined) {
      this.query(r, []);
      if (!uuid.safeParse(fieldId).success || !uuid.safeParse(subfieldId).success) throw new Reject(400, 'ids must be UUIDs');
      let field = ed.fields.find((f) => f.id === fieldId);
      // Spec: "when no field with the given identifier exists, it is created".
      if (!field) ed.fields.push((field = { id: fieldId, code: '???', subfields: [] }));
      let sub = field.subfields.find((s) => s.id === subfieldId);
      if (!sub) field.subfields.push((sub = { id: subfieldId, code: '?', value: null }));
      const { value } = this.json(r, sub.code === 'main' ? mainValueBody : valueBody);
      sub.value = value;
      return { status: 200 };
    }
    throw new Reject(405, `${r.method} not allowed here`);
  }

  private phase(r: RecordedRequest): { status: number } {
    this.query(r, []);
    const body = this.json(r, z.strictObject({ record: uuid, phase: z.enum(['STUB', 'CATALOGING', 'CATALOGED']) }));
    const rec = this.records.get(body.record);
    if (!rec) throw new Reject(404, 'no such record');
    rec.phase = body.phase;
    return { status: 200 };
  }

  private quickSet(r: RecordedRequest, p: string[]): { status: number } {
    // /api/records/{r}/fields/{f}/fields/{s} (template) or /api/records/{r}/fields/{f}/{s} (example)
    const form = p.length === 7 && p[5] === 'fields' ? 'template' : p.length === 6 ? 'example' : undefined;
    if (form === undefined || !this.quickSetForms.includes(form)) throw new Reject(404, 'no such quick-set route');
    const [recordId, fieldId, subfieldId] = [p[2]!, p[4]!, p[p.length - 1]!];
    if (![recordId, fieldId, subfieldId].every((id) => uuid.safeParse(id).success)) throw new Reject(400, 'ids must be UUIDs');
    this.query(r, []);
    const { value } = this.json(r, z.strictObject({ value: z.union([z.string(), z.strictObject({ id: uuid })]) }));
    const rec = this.records.get(recordId);
    if (!rec) throw new Reject(404, 'no such record');
    rec.quickSets.push({ fieldId, subfieldId, value, form });
    return { status: 200 };
  }

  private holding(r: RecordedRequest): { status: number; body: unknown } {
    this.query(r, []);
    const body = this.json(r, z.strictObject({ record: uuid, department: z.number().int() }));
    if (!this.recordExists(body.record)) throw new Reject(404, 'no such record');
    const id = randomUUID();
    this.holdings.push({ id, ...body });
    return { status: 200, body: { text: 'Saved', savedObject: { id, record: { id: body.record }, department: { id: body.department } } } };
  }

  private sync(r: RecordedRequest): { status: number; body: unknown } {
    this.query(r, []);
    const { identifier } = this.json(r, identifierBody);
    const u = this.externalUsers.get(identifier);
    const way = u === undefined ? 'SKIP' : this.synced.includes(identifier) ? 'UPDATE' : 'CREATE';
    if (u) this.synced.push(identifier);
    return {
      status: 200,
      body: {
        responseType: 'FinishedUserSyncResponse',
        text: 'Finished',
        finished: true,
        items: [u ? { item: { id: u.id, text: `${u.lastName}, ${u.firstName}` }, way } : { way }],
      },
    };
  }

  private fetch(r: RecordedRequest): { status: number; body: unknown } {
    this.query(r, []);
    const { identifier } = this.json(r, identifierBody);
    const u = this.externalUsers.get(identifier);
    const item = u && fetchedUser(u, identifier);
    return { status: 200, body: { responseType: 'FinishedUserFetchResponse', text: 'Finished', finished: true, items: item ? [{ item }] : [] } };
  }
}

const identifierBody = z.strictObject({ identifier: z.string().min(1) });

function send(res: ServerResponse, status: number, body: unknown): void {
  if (body === undefined) {
    res.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}
