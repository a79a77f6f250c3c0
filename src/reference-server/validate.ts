/**
 * Pure checks of an incoming request: credentials, media type, body shape. Strict on purpose:
 * this server exists to catch station bugs, so anything the spec requires is required here.
 * Unknown request fields are dropped (spec general rule 1), never an error.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { requestShapes } from '../protocol/shapes.js';
import type { Endpoint, RequestBodies } from '../protocol/types.js';
import type { SimulatedStation } from './types.js';

import { UUID_V4_RE as UUID_V4_LOWER } from '../uuid.js';

export { UUID_V4_LOWER };

/** A validated request of one endpoint, discriminated by `endpoint`. */
export type SimRequest = { [E in Endpoint]: { readonly endpoint: E; readonly body: RequestBodies[E] } }[Endpoint];

export type Validation = { readonly ok: true; readonly request: SimRequest } | { readonly ok: false; readonly problems: readonly string[] };

/** Shape check plus what needs the authenticated station: the `station` field and the full box list. */
export function validateRequest(endpoint: Endpoint, body: unknown, station: SimulatedStation): Validation {
  const parsed = requestShapes()[endpoint].safeParse(body);
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(body)'}: ${i.message}`) };
  }
  // The schema for `endpoint` produced the body, so the pairing holds; TS cannot correlate the two.
  const request = { endpoint, body: parsed.data } as SimRequest;
  const problems: string[] = [];
  if (request.body.station !== station.id) problems.push(`station: ${request.body.station} is not the authenticated station ${station.id}`);
  if (request.endpoint === 'state') {
    // Spec: "all boxes of the station are sent" - a missing box would hide a door the server waits for.
    const sent = request.body.boxes.map((b) => b.id);
    const unknown = sent.filter((id) => !station.boxes.includes(id));
    const missing = station.boxes.filter((id) => !sent.includes(id));
    const dupes = sent.filter((id, i) => sent.indexOf(id) !== i);
    if (unknown.length > 0) problems.push(`boxes: unknown box ids ${unknown.join(', ')}`);
    if (missing.length > 0) problems.push(`boxes: missing box ids ${missing.join(', ')}`);
    if (dupes.length > 0) problems.push(`boxes: duplicate box ids ${dupes.join(', ')}`);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, request };
}

/** The `event` field if it is there at all, for the request record of an invalid request. */
export function extractEventId(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || !('event' in body)) return null;
  return typeof body.event === 'string' ? body.event : null;
}

export function parseBasicAuth(header: string | undefined): { user: string; password: string } | null {
  const m = header === undefined ? null : /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header);
  if (m?.[1] === undefined) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** The station the header authenticates, or null. Constant-time on the password, as a real server must be. */
export function authenticate(header: string | undefined, stations: ReadonlyMap<string, SimulatedStation>): SimulatedStation | null {
  const creds = parseBasicAuth(header);
  if (creds === null) return null;
  const station = stations.get(creds.user);
  if (station === undefined) return null;
  return timingSafeEqual(digest(creds.password), digest(station.password)) ? station : null;
}

/** `application/json`, with or without parameters such as charset. */
export function isJsonContentType(header: string | undefined): boolean {
  return header?.split(';')[0]?.trim().toLowerCase() === 'application/json';
}
