/**
 * Record operations outside an editation: quick set of one field value, catalogization phase,
 * record holding.
 */
import { assertUuid } from './ids.js';
import { parseResponse, seg, type PortalRequest, type SendFn } from './http.js';
import { recordHoldingResponseSchema } from './schemas.js';

/** Quick-set value: a text, or another record referenced by its id. */
export type QuickSetValue = string | { readonly id: string };

/**
 * The spec's path template has a literal `fields` segment before the subfield id; its request
 * examples omit it, and it does not say which the portal accepts.
 * - 'template': /api/records/{recordId}/fields/{fieldId}/fields/{subfieldId} (default: the
 *   documented contract)
 * - 'example':  /api/records/{recordId}/fields/{fieldId}/{subfieldId}
 */
export type QuickSetPathForm = 'template' | 'example';

export interface QuickSetTarget {
  readonly recordId: string;
  readonly fieldId: string;
  readonly subfieldId: string;
}

export function quickSetPath(t: QuickSetTarget, form: QuickSetPathForm): string {
  const head = `/api/records/${seg(t.recordId)}/fields/${seg(t.fieldId)}`;
  switch (form) {
    case 'template':
      return `${head}/fields/${seg(t.subfieldId)}`;
    case 'example':
      return `${head}/${seg(t.subfieldId)}`;
  }
}

/** POST the quick-set path with body `{value}`. The response body is not specified; 2xx is success. */
export async function quickSetField(send: SendFn, target: QuickSetTarget, value: QuickSetValue, form: QuickSetPathForm): Promise<void> {
  assertUuid('recordId', target.recordId);
  assertUuid('fieldId', target.fieldId);
  assertUuid('subfieldId', target.subfieldId);
  if (typeof value !== 'string') assertUuid('value.id', value.id);
  await send({ method: 'POST', path: quickSetPath(target, form), json: { value: typeof value === 'string' ? value : { id: value.id } } });
}

/** Catalogization phases and the status ids they represent: STUB 2, CATALOGING 3, CATALOGED 4. */
export const PHASES = ['STUB', 'CATALOGING', 'CATALOGED'] as const;
export type Phase = (typeof PHASES)[number];

/** POST /api/records/phase with `{record, phase}`. Response body not specified. */
export async function setPhase(send: SendFn, recordId: string, phase: Phase): Promise<void> {
  assertUuid('record', recordId);
  if (!PHASES.includes(phase)) throw new RangeError(`phase must be one of ${PHASES.join(', ')}, got ${JSON.stringify(phase)}`);
  await send({ method: 'POST', path: '/api/records/phase', json: { record: recordId, phase } });
}

/**
 * POST /api/record-holdings with `{record, department}`: makes a new record visible at the
 * department. Returns the holding's id (savedObject.id).
 */
export async function createHolding(send: SendFn, recordId: string, department: number): Promise<string> {
  assertUuid('record', recordId);
  if (!Number.isInteger(department)) throw new RangeError(`department must be an integer, got ${department}`);
  const req: PortalRequest = { method: 'POST', path: '/api/record-holdings', json: { record: recordId, department } };
  return parseResponse(recordHoldingResponseSchema, req, await send(req)).savedObject.id;
}
