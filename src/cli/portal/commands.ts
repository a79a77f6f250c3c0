/** The `stationctl portal` subcommands, each returning its exit code. */
import type { PortalClient } from '../../portal/client.js';
import type { SearchKind } from '../../portal/schemas.js';
import type { PortalConfig } from '../../portal/config.js';
import { EXIT_FAILURE, EXIT_OK } from '../../errors.js';
import { formatDuration, newestLine, searchItemLine, syncLines, userLines } from './format.js';

export interface Output {
  readonly json: boolean;
  line(text: string): void;
  data(value: unknown): void;
}

export interface CommandContext {
  readonly client: PortalClient;
  readonly config: PortalConfig;
  readonly out: Output;
}

/** Get a token and call /api/users/current with it: both halves of "the credentials work". */
export async function login({ client, config, out }: CommandContext): Promise<number> {
  const token = await client.token();
  const user = await client.currentUser();
  const label = ['text', 'username', 'name'].map((k) => user[k]).find((v): v is string => typeof v === 'string' && v !== '');
  if (out.json) {
    out.data({
      ok: true,
      baseUrl: config.baseUrl,
      grant: config.grant,
      user: { id: user['id'], label },
      scopes: token.scopes,
      expiresInSeconds: token.expiresInSeconds,
    });
    return EXIT_OK;
  }
  out.line(`credentials OK for ${config.baseUrl} (grant ${config.grant}${config.grant === 'password' ? `, user ${config.username}` : ''})`);
  out.line(`current user: ${label ?? '(unnamed)'}`);
  out.line(`scopes: ${token.scopes.join(' ') || '(none)'}`);
  out.line(`token expires in ${formatDuration(token.expiresInSeconds)} (expires_in ${token.expiresInSeconds})`);
  return EXIT_OK;
}

export interface SearchArgs {
  readonly kind: SearchKind;
  readonly q?: string;
  readonly name?: string;
  readonly fond?: number;
  readonly pageSize?: number;
  readonly pageNumber?: number;
  readonly all: boolean;
}

export async function searchCommand({ client, out }: CommandContext, args: SearchArgs): Promise<number> {
  const { all, ...params } = args;
  if (all) {
    const items: unknown[] = [];
    for await (const item of client.searchItems(params)) {
      items.push(item);
      if (!out.json) out.line(searchItemLine(args.kind, item));
    }
    if (out.json) out.data({ totalElements: items.length, items });
    else out.line(`${items.length} result(s)`);
    return EXIT_OK;
  }
  const page = await client.search(params);
  if (out.json) {
    out.data(page);
    return EXIT_OK;
  }
  for (const item of page.result.content) out.line(searchItemLine(args.kind, item));
  const r = page.result;
  out.line(`page ${r.pageNumber}/${r.totalPages}: ${r.numberOfElements} of ${r.totalElements} result(s)`);
  return EXIT_OK;
}

export async function newest({ client, out }: CommandContext): Promise<number> {
  const docs = await client.newestDocuments();
  if (out.json) out.data(docs);
  else {
    for (const d of docs) out.line(newestLine(d));
    out.line(`${docs.length} document(s)`);
  }
  return EXIT_OK;
}

/**
 * Is this label known to the catalogue? An exemplar search by q first (a barcode labels an
 * exemplar), then a document search by q (the label may be an ISBN or similar). Exit 0 when
 * found, 1 when not. `q` is the portal's generic query, so a hit is the portal's match, not
 * an exact-barcode comparison (exemplar item fields are not specified).
 */
export async function item({ client, out }: CommandContext, barcode: string): Promise<number> {
  for (const kind of ['exemplar', 'document'] as const) {
    const page = await client.search({ kind, q: barcode, pageSize: 10 });
    if (page.result.totalElements > 0) {
      if (out.json) out.data({ barcode, found: true, kind, totalElements: page.result.totalElements, matches: page.result.content });
      else {
        out.line(`found: ${barcode} matches ${page.result.totalElements} ${kind}(s)`);
        for (const m of page.result.content) out.line(`  ${searchItemLine(kind, m)}`);
      }
      return EXIT_OK;
    }
  }
  if (out.json) out.data({ barcode, found: false });
  else out.line(`not found: ${barcode} is not known to the catalogue`);
  return EXIT_FAILURE;
}

export interface TestRecordArgs {
  readonly title: string;
  readonly fond: number;
  readonly department: number;
}

/** A step of create-test-record failed; says which, and what exists already (for cleanup). */
export class TestRecordStepError extends Error {
  override readonly name = 'TestRecordStepError';
  constructor(step: string, done: string, cause: unknown) {
    super(`create-test-record failed at step "${step}"${done ? ` (${done})` : ''}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/**
 * editation (document, manual-only, no empty-field completion) → field 245 → subfield a → title
 * → publish → phase CATALOGED → holding at the department.
 *
 * manual-only: nothing is saved before publish, so a flow that fails halfway leaves no record.
 * emptyFieldsCompletion=false: the portal would otherwise add an empty 245 of its own next to ours.
 */
export async function createTestRecord({ client, out }: CommandContext, args: TestRecordArgs): Promise<number> {
  let step = 'create editation';
  let done = '';
  try {
    const ed = await client.createEditation({ kind: 'document', fond: args.fond, revisionSavingPolicy: 'manual-only', emptyFieldsCompletion: false });
    done = `editation ${ed.id}, record ${ed.recordId}`;
    step = 'create field 245';
    const fieldId = await client.createField(ed.id, '245');
    step = 'create subfield 245.a';
    const subfieldId = await client.createSubfield(ed.id, fieldId, 'a');
    step = 'set title';
    await client.setEditationValue(ed.id, fieldId, subfieldId, args.title);
    step = 'publish';
    await client.publishEditation(ed.id);
    done = `record ${ed.recordId} published`;
    step = 'set phase CATALOGED';
    await client.setPhase(ed.recordId, 'CATALOGED');
    step = 'create holding';
    const holdingId = await client.createHolding(ed.recordId, args.department);
    if (out.json)
      out.data({
        recordId: ed.recordId,
        editationId: ed.id,
        fieldId,
        subfieldId,
        holdingId,
        title: args.title,
        fond: args.fond,
        department: args.department,
        phase: 'CATALOGED',
      });
    else {
      out.line(`created test record ${ed.recordId}`);
      out.line(`  title "${args.title}" (245.a), fond ${args.fond}, phase CATALOGED`);
      out.line(`  holding ${holdingId} at department ${args.department}`);
    }
    return EXIT_OK;
  } catch (e) {
    throw new TestRecordStepError(step, done, e);
  }
}

export async function syncUserCommand({ client, out }: CommandContext, identifier: string, fetch: boolean): Promise<number> {
  if (fetch) {
    const r = await client.fetchUser(identifier);
    if (out.json) out.data(r);
    else if (r.items.length === 0) out.line(`not found: ${identifier} is not known to the external system`);
    else for (const it of r.items) for (const l of userLines(it.item)) out.line(l);
    return r.items.length > 0 ? EXIT_OK : EXIT_FAILURE;
  }
  const r = await client.syncUser(identifier);
  if (out.json) out.data(r);
  else for (const l of syncLines(identifier, r)) out.line(l);
  return r.finished ? EXIT_OK : EXIT_FAILURE;
}
