/**
 * The kiosk's HTTP server: the touchscreen page, its live state and its keys, on 127.0.0.1 only,
 * on a listener that outlives it (listener.ts). It serves nothing else: not the technician port's
 * API, no state beyond the display lines, whether cancel and more time are offered and the page's
 * words; no box actions. Keys go in as a hardware keypad's do (and a PIN's digits are never logged).
 *
 * Who may use it: only the kiosk browser. Every key, hold, cancel, help request, heartbeat and event
 * stream must carry the kiosk's secret (`Authorization: Bearer`, secret.ts): without it, 401 and the
 * connection closed, so no other local process can type keys, cancel a deposit or hold the update
 * lock by looking busy. When the secret changes, every connection and stream that proved itself
 * with the old one is closed at once. The page itself and its script and style are served to anyone
 * (they hold nothing). Requests must name the kiosk itself as Host (127.0.0.1:<port> or
 * localhost:<port>), so that a web page elsewhere cannot reach it by DNS rebinding; a POST must
 * carry no Origin or the kiosk's own and be JSON (a cross-site form cannot send one).
 *
 * Bounded by the edge every port shares (src/edge/; docs/decisions/0036, 0038, 0095): connection
 * caps that close the least recently active socket that has not proved itself (the browser's own
 * sockets are trusted for their life and never closed to make room), the head, request and idle
 * time-outs, refusals summarised per kind and interval, bodies of at most 256 bytes, and streams
 * dropped before what they hold for a page that does not read — Node's unsent bytes plus the
 * kernel's unacknowledged ones — would pass `streamBufferBytes`. Here: routes, the secret, and at
 * most `maxStreams` event streams (a new one, the page reloaded, replaces the oldest).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { ConnectionGuard } from '../../edge/connections.js';
import { applyTimeouts, BodyTooLarge, COMMON_HEADERS, hostIs, loopbackHosts, originAllowed, readBody, saysJson } from '../../edge/http.js';
import { RefusalLog, type RefusalText } from '../../edge/refusals.js';
import { openSse, type SseStream } from '../../edge/sse.js';
import { bearerToken } from '../../tokens/bearer.js';
import type { AssistRequest, KeypadKey, KioskRefusalReason } from '../types.js';
import type { KioskListener } from './listener.js';
import { kioskAssets, type KioskAssets } from './page.js';
import type { KioskSecret } from './secret.js';
import type { KioskState } from './state.js';

export type { KioskState };

export interface KioskLimits {
  readonly maxConnections: number;
  readonly maxStreams: number;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly streamBufferBytes: number;
  /** A comment on idle event streams this often (keeps them from being taken for dead). */
  readonly keepAliveMs: number;
  readonly refusalLogIntervalMs: number;
}

export interface KioskServerOptions {
  readonly listener: KioskListener;
  readonly secret: KioskSecret;
  readonly limits: KioskLimits;
  /** The page in the station's locale (page.ts kioskHtml). */
  readonly html: string;
  readonly log: Logger;
  readonly onKey: (key: KeypadKey) => void;
  readonly onHold: (key: KeypadKey) => void;
  readonly onCancel: () => void;
  readonly onAssist: (request: AssistRequest) => void;
  /** The page's heartbeat, with the kiosk secret. */
  readonly onHeartbeat: () => void;
  /** A heartbeat without it (answered 401). */
  readonly onHeartbeatRefused: () => void;
}

const MAX_BODY = 256;

/** Beside the edge's common headers: the page may load only its own script and style, and never in a frame. */
const PAGE_HEADERS = {
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

const ASSIST_REQUESTS: readonly AssistRequest[] = ['speech', 'volume-up', 'volume-down', 'more-time', 'visual'];

export function parseKey(v: unknown): KeypadKey | null {
  if (typeof v !== 'string') return null;
  if (/^[0-9]$/.test(v)) return { kind: 'digit', digit: v };
  if (v === 'backspace' || v === 'clear' || v === 'enter') return { kind: v };
  return null;
}

/** Why a request was refused, for the summary lines and the counts (the metric's label). */
type Refusal = KioskRefusalReason;

const REFUSALS: Readonly<Record<Refusal, RefusalText>> = {
  'no-secret': { level: 'warn', text: 'kiosk page: requests refused (keys, heartbeats and streams need the kiosk secret)' },
  'wrong-host': { level: 'warn', text: 'kiosk page: a request naming another host was refused (421)' },
  'foreign-origin': { level: 'warn', text: "kiosk page: a request from another page's origin was refused (403)" },
  'not-json': { level: 'info', text: 'kiosk page: a request whose body is not JSON was refused (415)' },
  'bad-body': { level: 'info', text: 'kiosk page: a request with a body the route does not take was refused (400, 413)' },
  'not-found': { level: 'info', text: 'kiosk page: a request for nothing the page serves was refused (404)' },
  evicted: { level: 'warn', text: 'kiosk page: a connection without the kiosk secret was closed to make room' },
};

export class KioskServer {
  private state: KioskState;
  private readonly streams: SseStream[] = [];
  private readonly guard: ConnectionGuard;
  private readonly refusals: RefusalLog<Refusal>;
  private readonly assets: KioskAssets = kioskAssets();
  private unwatch: (() => void) | null = null;
  private started = false;
  private readonly handler = (req: IncomingMessage, res: ServerResponse): void => this.handle(req, res);

  constructor(
    private readonly o: KioskServerOptions,
    initial: KioskState,
  ) {
    this.state = initial;
    this.refusals = new RefusalLog(o.log, o.limits.refusalLogIntervalMs, REFUSALS);
    // Every client of a loopback port has the same address: the per-address cap is the whole cap.
    const caps = { maxConnections: o.limits.maxConnections, maxConnectionsPerAddress: o.limits.maxConnections };
    this.guard = new ConnectionGuard(caps, (address) => this.refuse('evicted', address));
  }

  get port(): number {
    return this.o.listener.port;
  }

  /** Take over the listener: requests, new connections, the time-outs; follow the secret. */
  start(): void {
    if (this.started) return;
    this.started = true;
    const { server } = this.o.listener;
    applyTimeouts(server, this.o.limits);
    this.guard.attach(server);
    this.o.listener.attach(this.handler);
    this.unwatch = this.o.secret.watch(() => this.secretChanged());
  }

  update(state: KioskState): void {
    this.state = state;
    for (const s of [...this.streams]) s.send('state', state);
  }

  /** Open connections and streams, for tests and the technician's view. */
  counts(): { connections: number; streams: number } {
    return { connections: this.guard.counts().open, streams: this.streams.length };
  }

  close(): Promise<void> {
    if (!this.started) return Promise.resolve();
    this.started = false;
    this.unwatch?.();
    this.refusals.close();
    for (const s of this.streams.splice(0)) s.close();
    this.guard.detach();
    this.o.listener.detach(this.handler);
    return Promise.resolve();
  }

  /** The secret is not the one the open connections proved themselves with: none of them stays. */
  private secretChanged(): void {
    const streams = this.streams.length;
    for (const s of this.streams.splice(0)) s.close();
    const connections = this.guard.closeTrusted();
    this.o.log.warn(
      { connections, streams, problem: this.o.secret.problem },
      'kiosk page: the kiosk secret changed; connections that proved themselves with the old one closed',
    );
  }

  // --- answers ------------------------------------------------------------------------------------

  /** Every refusal is counted (the metric); its log line is summarised per kind and interval. */
  private refuse(why: Refusal, address: string | undefined): void {
    this.o.listener.countRefusal(why);
    this.refusals.refused(why, address);
  }

  private reply(res: ServerResponse, status: number, text: string, why: Refusal | null, close = false): void {
    if (why !== null) this.refuse(why, res.req.socket.remoteAddress);
    res.writeHead(status, { ...COMMON_HEADERS, ...PAGE_HEADERS, 'content-type': 'text/plain; charset=utf-8', ...(close ? { connection: 'close' } : {}) });
    res.end(`${text}\n`);
  }

  // --- requests -----------------------------------------------------------------------------------

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.guard.active(req.socket);
    const own = loopbackHosts(this.port);
    if (!hostIs(req, own)) return this.reply(res, 421, 'wrong host', 'wrong-host', true);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const method = req.method ?? 'GET';
    if (method === 'GET' || method === 'HEAD') {
      if (path === '/events') return this.authorised(req, res) ? this.openStream(res) : undefined;
      const file = this.file(path);
      if (!file) return this.reply(res, 404, 'not found', 'not-found');
      res.writeHead(200, { ...COMMON_HEADERS, ...PAGE_HEADERS, 'content-type': file.type });
      res.end(method === 'HEAD' ? undefined : file.body);
      return;
    }
    const routes = ['/key', '/hold', '/cancel', '/assist', '/heartbeat'];
    if (method !== 'POST' || !routes.includes(path)) return this.reply(res, 404, 'not found', 'not-found');
    if (!originAllowed(req, own)) return this.reply(res, 403, 'foreign origin', 'foreign-origin', true);
    if (!this.authorised(req, res)) {
      if (path === '/heartbeat') this.o.onHeartbeatRefused();
      return;
    }
    if (!saysJson(req)) return this.reply(res, 415, 'json only', 'not-json');
    readBody(req, MAX_BODY).then(
      (body) => {
        let parsed: Record<string, unknown> | null = null;
        try {
          const v = JSON.parse(body.toString('utf8')) as unknown;
          parsed = v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : null;
        } catch {
          parsed = null;
        }
        if (!this.act(path, parsed)) return this.reply(res, 400, 'bad request', 'bad-body');
        res.writeHead(204, { ...COMMON_HEADERS, ...PAGE_HEADERS });
        res.end();
      },
      (e: unknown) => {
        if (res.headersSent) return void res.destroy();
        if (e instanceof BodyTooLarge) return this.reply(res, 413, 'too long', 'bad-body', true);
        res.destroy();
      },
    );
  }

  /** Carry out a POST; false: its body says nothing this route takes. */
  private act(path: string, body: Record<string, unknown> | null): boolean {
    switch (path) {
      case '/cancel':
        // A press after the button was hidden (a slow page) is still a press: the core refuses it if cancel is not allowed.
        this.o.onCancel();
        return true;
      case '/heartbeat':
        // `{}`: the page is on the screen (it sends this from an animation frame).
        if (body === null) return false;
        this.o.onHeartbeat();
        return true;
      case '/assist': {
        const request = body?.['request'];
        if (!ASSIST_REQUESTS.includes(request as AssistRequest)) return false;
        this.o.onAssist(request as AssistRequest);
        return true;
      }
      default: {
        const key = parseKey(body?.['key']);
        if (key === null) return false;
        if (path === '/hold') this.o.onHold(key);
        else this.o.onKey(key);
        return true;
      }
    }
  }

  /** Whether the request carries the kiosk's secret (its socket is then the kiosk's); answers 401 (and closes) when not. */
  private authorised(req: IncomingMessage, res: ServerResponse): boolean {
    if (this.o.secret.verify(bearerToken(req.headers.authorization))) {
      this.guard.trust(req.socket);
      return true;
    }
    this.reply(res, 401, 'the kiosk secret is needed', 'no-secret', true);
    return false;
  }

  private file(path: string): { type: string; body: string } | null {
    switch (path) {
      case '/':
        return { type: 'text/html; charset=utf-8', body: this.o.html };
      case '/kiosk.css':
        return { type: 'text/css; charset=utf-8', body: this.assets.css };
      case '/kiosk.js':
        return { type: 'text/javascript; charset=utf-8', body: this.assets.js };
      default:
        return null;
    }
  }

  // --- event streams ------------------------------------------------------------------------------

  private openStream(res: ServerResponse): void {
    while (this.streams.length >= this.o.limits.maxStreams) this.streams.shift()?.close();
    const stream = openSse(res, {
      keepAliveMs: this.o.limits.keepAliveMs,
      maxBufferedBytes: this.o.limits.streamBufferBytes,
      countKernelQueue: true,
      headers: PAGE_HEADERS,
      onDrop: (drop) => this.o.log.warn({ ...drop }, 'kiosk page: an event stream that does not read was dropped'),
    });
    this.streams.push(stream);
    stream.onClose(() => {
      const i = this.streams.indexOf(stream);
      if (i >= 0) this.streams.splice(i, 1);
    });
    stream.send('state', this.state);
  }
}
