/** What the technician port refuses before a token was accepted, and the line each is logged with (src/edge/refusals.ts). */
import type { RefusalText } from '../edge/refusals.js';

/** What the technician port refuses before a token was accepted. */
export type TechnicianRefusal =
  /** No Authorization: Bearer header (401). */
  | 'no-token'
  /** A token the station does not know (401). */
  | 'wrong-token'
  /** A credential in the query string (400; the token, if real, should be revoked). */
  | 'token-in-url'
  /** A request target that is no URL (400). */
  | 'bad-target'
  /** A socket without an authenticated request closed to make room (connection caps). */
  | 'evicted';

export const TECHNICIAN_REFUSALS: Readonly<Record<TechnicianRefusal, RefusalText>> = {
  'no-token': { level: 'info', text: 'technician port: a request without a token was refused (401)' },
  'wrong-token': { level: 'warn', text: 'technician port: a request with a wrong token was refused (401)' },
  'token-in-url': { level: 'warn', text: 'technician port: a credential in a URL was refused (if it was a real token, revoke it: URLs end up in logs)' },
  'bad-target': { level: 'info', text: 'technician port: a request target that is no URL was refused (400)' },
  evicted: { level: 'warn', text: 'technician port: an unauthenticated connection was closed to make room (too many open from one address, or in all)' },
};
