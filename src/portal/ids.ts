/** Client-side checks of the UUIDs the spec requires in paths and bodies. */

import { UUID_ANY_CASE_RE as UUID_RE, UUID_V4_ANY_CASE_RE as UUID_V4_RE } from '../uuid.js';

/** Any 8-4-4-4-12 hex id (record ids come from the portal; their version is its business). */
export function assertUuid(what: string, v: string): void {
  if (!UUID_RE.test(v)) throw new RangeError(`${what} must be a UUID, got ${JSON.stringify(v)}`);
}

/** A client-generated id: the spec requires UUIDv4 for new fields and subfields. */
export function assertUuidV4(what: string, v: string): void {
  if (!UUID_V4_RE.test(v)) throw new RangeError(`${what} must be a UUIDv4, got ${JSON.stringify(v)}`);
}
