/**
 * Record editation sessions (spec "Record editation", "Create field and subfield", "Set value in
 * an editation"): create the session, add fields and subfields under client-generated UUIDv4s,
 * set values, publish.
 */
import { randomUUID } from 'node:crypto';
import { assertUuid, assertUuidV4 } from './ids.js';
import { parseResponse, seg, type PortalRequest, type SendFn } from './http.js';
import { recordEditationSchema, type RecordEditation } from './schemas.js';

export type RecordKind = 'document' | 'authority';

/**
 * - manual-only: never saved automatically; save or publish after editing.
 * - after-each-change-when-draft: saved after every change while a draft; manual after publishing.
 * - after-each-change-always: saved after every change; no save or publish needed.
 */
export type RevisionSavingPolicy = 'manual-only' | 'after-each-change-when-draft' | 'after-each-change-always';

export interface CreateEditationParams {
  readonly kind: RecordKind;
  /** Fond id, e.g. 1 or 53. */
  readonly fond: number;
  readonly revisionSavingPolicy?: RevisionSavingPolicy;
  /** Portal default true: empty fields are created automatically. */
  readonly emptyFieldsCompletion?: boolean;
}

/**
 * The spec defines /api/record-editations/new as a GET and uses it with POST (empty body) in its
 * example. POST is the default: creating a session is not a safe, repeatable read, and the
 * example is what was observed to work.
 */
export type EditationCreateMethod = 'POST' | 'GET';

/** A subfield's type id, `D.<field>.<sub>`, as used in `fieldLabels`. */
export type SubfieldTypeId = `D.${string}.${string}`;

/**
 * The documented shapes of `value` when setting a subfield in an editation:
 * - a string: standard text subfield
 * - `{id}`: simple or complex (`main`) authority subfield, known record
 * - `{fieldLabel}`: simple authority subfield, unknown record
 * - `{fieldLabels}`: complex authority (`main`), unknown record; subfield type id → text
 */
export type EditationValue =
  string | { readonly id: string } | { readonly fieldLabel: string } | { readonly fieldLabels: Readonly<Record<SubfieldTypeId, string>> };

const SUBFIELD_TYPE_ID_RE = /^D\.[^.]+\.[^.]+$/;

/** Rebuild the value with only its documented key, checking it on the way. */
function checkedValue(value: EditationValue): EditationValue {
  if (typeof value === 'string') return value;
  if ('id' in value) {
    assertUuid('value.id', value.id);
    return { id: value.id };
  }
  if ('fieldLabel' in value) return { fieldLabel: value.fieldLabel };
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(value.fieldLabels)) {
    if (!SUBFIELD_TYPE_ID_RE.test(k)) throw new RangeError(`fieldLabels key must look like D.<field>.<sub>, got ${JSON.stringify(k)}`);
    labels[k] = v;
  }
  if (Object.keys(labels).length === 0) throw new RangeError('fieldLabels must not be empty');
  return { fieldLabels: labels };
}

const FIELD_CODE_RE = /^[0-9A-Za-z]{1,5}$/;

export const editationPath = (id: string): string => `/api/record-editations/${seg(id)}`;

export async function createEditation(send: SendFn, params: CreateEditationParams, method: EditationCreateMethod): Promise<RecordEditation> {
  if (!Number.isInteger(params.fond)) throw new RangeError(`fond must be an integer, got ${params.fond}`);
  const req: PortalRequest = {
    method,
    path: '/api/record-editations/new',
    query: {
      kind: params.kind,
      fond: params.fond,
      revisionSavingPolicy: params.revisionSavingPolicy,
      emptyFieldsCompletion: params.emptyFieldsCompletion,
    },
  };
  return parseResponse(recordEditationSchema, req, await send(req));
}

/**
 * PUT …/fields/{fieldId}?code=<code>, no body. The field id is a new UUIDv4 (crypto.randomUUID
 * unless given) and is returned; the response body is not specified.
 */
export async function createField(send: SendFn, editationId: string, code: string, fieldId: string = randomUUID()): Promise<string> {
  assertUuidV4('fieldId', fieldId);
  if (!FIELD_CODE_RE.test(code)) throw new RangeError(`field code must be alphanumeric, got ${JSON.stringify(code)}`);
  await send({ method: 'PUT', path: `${editationPath(editationId)}/fields/${seg(fieldId)}`, query: { code } });
  return fieldId;
}

/**
 * PUT …/fields/{fieldId}/{subfieldId}?code=<code>, no body; `fieldId` is the parent field. For a
 * complex authority (one authority over e.g. 100.a, 100.b, 100.c) create one subfield with code
 * `main` instead of each subfield. Returns the new subfield's UUIDv4.
 */
export async function createSubfield(send: SendFn, editationId: string, fieldId: string, code: string, subfieldId: string = randomUUID()): Promise<string> {
  assertUuid('fieldId', fieldId);
  assertUuidV4('subfieldId', subfieldId);
  if (!FIELD_CODE_RE.test(code)) throw new RangeError(`subfield code must be alphanumeric, got ${JSON.stringify(code)}`);
  await send({ method: 'PUT', path: `${editationPath(editationId)}/fields/${seg(fieldId)}/${seg(subfieldId)}`, query: { code } });
  return subfieldId;
}

/**
 * POST …/fields/{fieldId}/{subfieldId} with `{value}`. The portal creates the field when no field
 * with that id exists yet.
 */
export async function setEditationValue(send: SendFn, editationId: string, fieldId: string, subfieldId: string, value: EditationValue): Promise<void> {
  assertUuid('fieldId', fieldId);
  assertUuid('subfieldId', subfieldId);
  await send({ method: 'POST', path: `${editationPath(editationId)}/fields/${seg(fieldId)}/${seg(subfieldId)}`, json: { value: checkedValue(value) } });
}

/** POST …/publish, no body: publishes and saves the session. Response body not specified. */
export async function publishEditation(send: SendFn, editationId: string): Promise<void> {
  await send({ method: 'POST', path: `${editationPath(editationId)}/publish` });
}
