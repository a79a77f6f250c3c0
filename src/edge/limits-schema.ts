/**
 * The limits every HTTP port of the station declares, in one schema (record 0161): the technician
 * port (`technician` section, src/config/technician.ts) and the kiosk page (`display` of kind `kiosk`,
 * src/devices/input/schema.ts) build their keys here from the bounds below, and both check their
 * time-outs with the same rule. What the limits do is src/edge/ (connections.ts, sse.ts, http.ts).
 *
 * The two ports differ in what they serve, not in how they are bounded: a port on the network for
 * technicians (more sockets, a longer log interval) and a loopback page for one browser (few
 * sockets, small streams). Their bounds stand side by side so that a change to one is read beside
 * the other. A section schema: it imports only the schema builder (ARCHITECTURE.md, layers).
 */
import * as z from '../schema.js';
import { intIn } from '../schema.js';

/** One limit: its range and its default. */
export interface Bound {
  readonly min: number;
  readonly max: number;
  readonly default: number;
}

/** The limits a port may declare. */
export interface EdgeBounds {
  /** Sockets open at once; a newcomer closes the least recently active one that has not proved itself. */
  readonly maxConnections: Bound;
  /** Event streams at once. */
  readonly maxStreams: Bound;
  /** What a stream may hold for a client that stops reading before it is dropped. */
  readonly streamBufferBytes: Bound;
  /** A comment line on idle event streams this often (keeps proxies and NATs from closing them). */
  readonly keepAliveMs: Bound;
  /** A connection must send a complete request head within this (else 408 and closed)… */
  readonly headersTimeoutMs: Bound;
  /** … and its whole request (head and body) within this. */
  readonly requestTimeoutMs: Bound;
  /** Refusals are logged at most once per kind per this interval, with a count. */
  readonly refusalLogIntervalMs: Bound;
}

/** The kiosk page's own: an idle keep-alive socket is closed after this. */
export interface KioskEdgeBounds extends EdgeBounds {
  readonly idleTimeoutMs: Bound;
}

/** The technician port: reachable over the network by technicians' tools and Prometheus. */
export const TECHNICIAN_EDGE: EdgeBounds = {
  maxConnections: { min: 4, max: 1_024, default: 64 },
  maxStreams: { min: 1, max: 100, default: 8 },
  streamBufferBytes: { min: 16_384, max: 67_108_864, default: 262_144 },
  keepAliveMs: { min: 100, max: 300_000, default: 15_000 },
  headersTimeoutMs: { min: 100, max: 120_000, default: 5_000 },
  requestTimeoutMs: { min: 100, max: 300_000, default: 10_000 },
  refusalLogIntervalMs: { min: 100, max: 3_600_000, default: 60_000 },
};

/** The kiosk page: one browser on the same board, over loopback. */
export const KIOSK_EDGE: KioskEdgeBounds = {
  maxConnections: { min: 2, max: 256, default: 16 },
  maxStreams: { min: 1, max: 16, default: 2 },
  streamBufferBytes: { min: 4_096, max: 16_777_216, default: 65_536 },
  keepAliveMs: { min: 100, max: 600_000, default: 15_000 },
  headersTimeoutMs: { min: 100, max: 120_000, default: 5_000 },
  requestTimeoutMs: { min: 100, max: 300_000, default: 10_000 },
  refusalLogIntervalMs: { min: 100, max: 3_600_000, default: 60_000 },
  idleTimeoutMs: { min: 100, max: 600_000, default: 30_000 },
};

/** A limit's key: a whole number in its range, with its default. */
export const limitKey = (b: Bound) => z._default(intIn(b.min, b.max), b.default);

/** Every limit of `bounds` as a key of a section (each port wraps them in its reload classes as it needs). */
export function edgeLimitKeys<B extends EdgeBounds>(bounds: B): { readonly [K in keyof B]: ReturnType<typeof limitKey> } {
  return Object.fromEntries(Object.entries(bounds).map(([k, b]) => [k, limitKey(b as Bound)])) as { readonly [K in keyof B]: ReturnType<typeof limitKey> };
}

/**
 * The one rule across the limits: a request head may not take longer than the whole request
 * (Node refuses such a server). For `.check(z.superRefine(headWithinRequest))` on a section.
 */
export function headWithinRequest(d: { readonly headersTimeoutMs: number; readonly requestTimeoutMs: number }, ctx: z.core.$RefinementCtx): void {
  if (d.headersTimeoutMs > d.requestTimeoutMs)
    ctx.addIssue({
      code: 'custom',
      path: ['headersTimeoutMs'],
      message: `must not be longer than requestTimeoutMs (${d.requestTimeoutMs})`,
      input: d.headersTimeoutMs,
    });
}
