/**
 * What went wrong on the way to the server, in words a technician can act on. The reason is what
 * the log line, the event record, the technician status and the next /state's errorMessage carry,
 * so it names the cause and keeps the system's code in brackets for searching.
 *
 * A board without a real-time clock boots in the past until time sync has run; TLS then refuses
 * every certificate as "not yet valid". That case is named for what it is: the board clock.
 */
import { errorMessage } from '../errors.js';

const UNTRUSTED_CA = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_UNTRUSTED',
]);

/**
 * Reason for a request that got no HTTP response (got's RequestError or a Node system error).
 * `wallClock` is read only to show it in the reason (the board's idea of "now"), never to time anything.
 */
export function describeTransportError(e: unknown, wallClock: () => Date = () => new Date()): string {
  const code = e && typeof e === 'object' && 'code' in e && typeof e.code === 'string' ? e.code : null;
  const message = errorMessage(e);
  const board = (): string => `board clock ${wallClock().toISOString()}`;
  if (code === null) return message;
  if (code === 'ETIMEDOUT') return 'no answer within the answer timeout';
  if (code === 'CERT_NOT_YET_VALID') return `board clock is behind: the server's certificate is not valid yet (${board()}; is time sync running?) [${code}]`;
  if (code === 'CERT_HAS_EXPIRED') return `the server's certificate has expired, or the board clock is ahead (${board()}) [${code}]`;
  if (UNTRUSTED_CA.has(code)) return `TLS: the server's certificate is not signed by a trusted CA (server.caFile) [${code}: ${message}]`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `TLS: the server's certificate is for another host name [${code}: ${message}]`;
  if (code === 'ECONNREFUSED') return `connection refused [${code}: ${message}]`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `server name not found (DNS) [${code}: ${message}]`;
  if (code === 'ECONNRESET' || code === 'EPIPE') return `connection reset by the server or the network [${code}: ${message}]`;
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return `no route to the server [${code}: ${message}]`;
  return `${code}: ${message}`;
}
