/**
 * A minimal station-side HTTP client for tests of the reference server: real fetch over
 * 127.0.0.1, no retries, every header under the test's control.
 */
import { randomUUID } from 'node:crypto';
import type { BoxStatus, IdentifierType } from '../../src/protocol/types.js';
import type { SimulatedStation } from '../../src/reference-server/types.js';

export interface PostOptions {
  readonly eventId?: string;
  readonly traceId?: string;
  /** Full Authorization header value; null sends none. Default: the station's Basic credentials. */
  readonly authorization?: string | null;
  readonly contentType?: string;
  /** Raw body text instead of JSON.stringify({station, event, ...fields}). */
  readonly rawBody?: string;
  readonly method?: string;
}

export interface Reply {
  readonly status: number;
  readonly contentType: string | null;
  readonly traceId: string | null;
  readonly text: string;
  /** Parsed JSON, or undefined when the body is not JSON. */
  readonly json: unknown;
  readonly eventId: string;
}

export const basicAuth = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

export class SimStationClient {
  constructor(
    readonly baseUrl: string,
    readonly station: SimulatedStation,
  ) {}

  /** `endpoint` is a path under the base URL: one of the four, or anything else to test 404s. */
  async post(endpoint: string, fields: Record<string, unknown> = {}, opts: PostOptions = {}): Promise<Reply> {
    const eventId = opts.eventId ?? randomUUID();
    const headers: Record<string, string> = {
      'content-type': opts.contentType ?? 'application/json',
      accept: 'application/json',
      'user-agent': 'pickup-station-test/0.1.0',
    };
    const auth = opts.authorization === undefined ? basicAuth(this.station.id, this.station.password) : opts.authorization;
    if (auth !== null) headers.authorization = auth;
    if (opts.traceId !== undefined) headers['x-service-trace-id'] = opts.traceId;
    const method = opts.method ?? 'POST';
    const res = await fetch(`${this.baseUrl}/${endpoint}`, {
      method,
      headers,
      ...(method === 'GET' ? {} : { body: opts.rawBody ?? JSON.stringify({ station: this.station.id, event: eventId, ...fields }) }),
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, contentType: res.headers.get('content-type'), traceId: res.headers.get('x-service-trace-id'), text, json, eventId };
  }

  /** /state with every box, `open` listing 1-based box numbers reported OPEN. */
  state(open: readonly number[] = [], opts: PostOptions & { st?: 'UP' | 'DOWN'; errorMessage?: string | null } = {}): Promise<Reply> {
    const boxes = this.station.boxes.map((id, i): { id: string; st: BoxStatus } => ({ id, st: open.includes(i + 1) ? 'OPEN' : 'CLOSED' }));
    return this.post('state', { st: opts.st ?? 'UP', errorMessage: opts.errorMessage ?? null, inputVoltage: 12.1, internetSignalStrength: 100, boxes }, opts);
  }

  identify(identifierValue: string, identifierType: IdentifierType = 'BAR_CODE', opts: PostOptions = {}): Promise<Reply> {
    return this.post('item-identify', { identifierValue, identifierType }, opts);
  }

  pin(pin: string, opts: PostOptions = {}): Promise<Reply> {
    return this.post('pin-enter', { pin }, opts);
  }

  cancel(opts: PostOptions = {}): Promise<Reply> {
    return this.post('cancel', {}, opts);
  }

  /** boxId of a 1-based box number. */
  box(n: number): string {
    const id = this.station.boxes[n - 1];
    if (id === undefined) throw new RangeError(`no box ${n}`);
    return id;
  }
}
