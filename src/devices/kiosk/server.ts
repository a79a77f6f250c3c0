/**
 * The kiosk's HTTP server: the touchscreen page, its live state and its keys, on 127.0.0.1 only,
 * on a listener that outlives it (listener.ts). It serves nothing else: not the technician port's
 * API, no state beyond the display lines, whether cancel and more time are offered and the page's
 * words; no box actions. Keys go in as a hardware keypad's do (and a PIN's digits are never logged).
 *
 * Who may use it: only the kiosk browser. Every key, hold, cancel, help request and event stream
 * must carry the kiosk's per-boot secret (`Authorization: Bearer`, secret.ts): without it, 401 and
 * the connection closed, so no other local process can type keys, cancel a deposit or hold the
 * update lock by looking busy. The page itself and its script and style are served to anyone (they
 * hold nothing). Requests must name the kiosk itself as Host (127.0.0.1:<port> or localhost:<port>),
 * so that a web page elsewhere cannot reach it by DNS rebinding; a POST must carry no Origin or the
 * kiosk's own and be JSON (a cross-site form cannot send one).
 *
 * Bounded like the technician port (docs/decisions/0036, 0038):
 * - at most `maxConnections` sockets; a newcomer past it closes the least recently active socket
 *   that has not carried the kiosk's secret (the browser's own sockets are never closed to make
 *   room);
 * - a request head must come within `headersTimeoutMs` and the whole request within
 *   `requestTimeoutMs` (else 408 and closed); an idle keep-alive socket is closed after `idleTimeoutMs`;
 * - at most `maxStreams` event streams: a new one (the page reloaded) replaces the oldest;
 * - a stream that does not read is dropped before the bytes held for it — what Node has not handed
 *   to the kernel plus what the kernel has not had acknowledged (send-queue.ts) — would pass
 *   `streamBufferBytes`: each write is checked first;
 * - refusals are logged as one line per interval with their counts, never one per request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { AssistRequest, KeypadKey } from '../types.js';
import type { KioskListener } from './listener.js';
import { kioskAssets } from './page.js';
import type { KioskSecret } from './secret.js';
import { kernelSendQueue } from './send-queue.js';

export interface KioskState {
  readonly lines: readonly string[];
  readonly cancel: boolean;
  readonly cancelLabel: string;
  /** A time limit is about to run out: the page shows its "more time" button. */
  readonly moreTime: boolean;
  /** Counts the patrons who have gone: when it changes, the page's settings go back to the defaults. */
  readonly session: number;
  readonly lang: string;
  readonly words: Readonly<Record<string, string>>;
  /** How long a key is held to ask for speech. */
  readonly holdMs: number;
}

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
}

const MAX_BODY = 256;

const HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
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

/** Why a request was refused, for the summary line. */
type Refusal = 'no-secret' | 'wrong-host' | 'foreign-origin' | 'not-json' | 'bad-body' | 'not-found' | 'evicted';

interface Stream {
  readonly res: ServerResponse;
  readonly socket: Socket;
  /**
   * The kernel's unacknowledged bytes when last read from /proc/net/tcp, plus every byte written
   * since: never less than what the kernel holds now (acknowledgements only shrink it), so the table
   * (one line per socket of the machine) is read again only when this bound would pass the limit.
   */
  kernelAtMost: number;
}

interface Tracked {
  /** It carried a request with the kiosk's secret: the kiosk's own, never closed to make room. */
  trusted: boolean;
}

export class KioskServer {
  private state: KioskState;
  private readonly streams: Stream[] = [];
  private readonly sockets = new Map<Socket, Tracked>();
  private keepAlive: NodeJS.Timeout | null = null;
  private summary: NodeJS.Timeout | null = null;
  private readonly refused = new Map<Refusal, number>();
  private started = false;
  private readonly handler = (req: IncomingMessage, res: ServerResponse): void => this.handle(req, res);
  private readonly onConnection = (socket: Socket): void => this.admit(socket);

  constructor(
    private readonly o: KioskServerOptions,
    initial: KioskState,
  ) {
    this.state = initial;
  }

  get port(): number {
    return this.o.listener.port;
  }

  /** Take over the listener: requests, new connections, the time-outs. */
  start(): void {
    if (this.started) return;
    this.started = true;
    const { server } = this.o.listener;
    const l = this.o.limits;
    server.headersTimeout = l.headersTimeoutMs;
    server.requestTimeout = l.requestTimeoutMs;
    server.keepAliveTimeout = l.idleTimeoutMs;
    server.on('connection', this.onConnection);
    this.o.listener.attach(this.handler);
    this.keepAlive = setInterval(() => {
      for (const s of [...this.streams]) this.write(s, ': keep-alive\n\n');
    }, l.keepAliveMs);
    this.summary = setInterval(() => this.logRefusals(), l.refusalLogIntervalMs);
    this.summary.unref();
  }

  update(state: KioskState): void {
    this.state = state;
    const text = this.event();
    for (const s of [...this.streams]) this.write(s, text);
  }

  /** Open connections and streams, for tests and the technician's view. */
  counts(): { connections: number; streams: number } {
    return { connections: this.sockets.size, streams: this.streams.length };
  }

  close(): Promise<void> {
    if (!this.started) return Promise.resolve();
    this.started = false;
    if (this.keepAlive) clearInterval(this.keepAlive);
    if (this.summary) clearInterval(this.summary);
    this.logRefusals();
    const { server } = this.o.listener;
    server.off('connection', this.onConnection);
    for (const s of this.streams.splice(0)) s.res.end();
    this.o.listener.detach(this.handler);
    this.sockets.clear();
    return Promise.resolve();
  }

  private event(): string {
    return `event: state\ndata: ${JSON.stringify(this.state)}\n\n`;
  }

  // --- connections ------------------------------------------------------------------------------

  private admit(socket: Socket): void {
    if (this.sockets.size >= this.o.limits.maxConnections) {
      // The least recently active socket without the kiosk's stream makes room (Map order = activity).
      const victim = [...this.sockets].find(([, t]) => !t.trusted)?.[0];
      if (victim === undefined) {
        socket.destroy();
        this.refuse('evicted');
        return;
      }
      this.sockets.delete(victim);
      victim.destroy();
      this.refuse('evicted');
    }
    this.sockets.set(socket, { trusted: false });
    socket.once('close', () => this.sockets.delete(socket));
  }

  /** A request head arrived on `socket`: most recently active now. */
  private active(socket: Socket): void {
    const t = this.sockets.get(socket);
    if (t === undefined) return;
    this.sockets.delete(socket);
    this.sockets.set(socket, t);
  }

  // --- refusals -----------------------------------------------------------------------------------

  private refuse(why: Refusal): void {
    this.refused.set(why, (this.refused.get(why) ?? 0) + 1);
  }

  private logRefusals(): void {
    if (this.refused.size === 0) return;
    const counts = Object.fromEntries(this.refused);
    this.refused.clear();
    this.o.log.warn({ refused: counts }, 'kiosk page: requests refused (keys and streams need the kiosk secret)');
  }

  private reply(res: ServerResponse, status: number, text: string, why: Refusal | null, close = false): void {
    if (why !== null) this.refuse(why);
    res.writeHead(status, { ...HEADERS, 'content-type': 'text/plain; charset=utf-8', ...(close ? { connection: 'close' } : {}) });
    res.end(`${text}\n`);
  }

  // --- requests -----------------------------------------------------------------------------------

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.active(req.socket);
    const own = [`127.0.0.1:${this.port}`, `localhost:${this.port}`];
    if (!own.includes(req.headers.host ?? '')) return this.reply(res, 421, 'wrong host', 'wrong-host', true);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const method = req.method ?? 'GET';
    if (method === 'GET' || method === 'HEAD') {
      if (path === '/events') return this.authorised(req, res) ? this.openStream(req, res) : undefined;
      const file = this.file(path);
      if (!file) return this.reply(res, 404, 'not found', 'not-found');
      res.writeHead(200, { ...HEADERS, 'content-type': file.type });
      res.end(method === 'HEAD' ? undefined : file.body);
      return;
    }
    const routes = ['/key', '/hold', '/cancel', '/assist'];
    if (method !== 'POST' || !routes.includes(path)) return this.reply(res, 404, 'not found', 'not-found');
    const origin = req.headers.origin;
    if (origin !== undefined && !own.map((h) => `http://${h}`).includes(origin)) return this.reply(res, 403, 'foreign origin', 'foreign-origin', true);
    if (!this.authorised(req, res)) return;
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return this.reply(res, 415, 'json only', 'not-json');
    let body = '';
    let tooLong = false;
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > MAX_BODY && !tooLong) {
        tooLong = true;
        this.reply(res, 413, 'too long', 'bad-body', true);
      }
    });
    req.on('end', () => {
      if (tooLong) return;
      let parsed: Record<string, unknown> | null = null;
      try {
        const v = JSON.parse(body) as unknown;
        parsed = v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : null;
      } catch {
        parsed = null;
      }
      if (!this.act(path, parsed)) return this.reply(res, 400, 'bad request', 'bad-body');
      res.writeHead(204, HEADERS);
      res.end();
    });
  }

  /** Carry out a POST; false: its body says nothing this route takes. */
  private act(path: string, body: Record<string, unknown> | null): boolean {
    switch (path) {
      case '/cancel':
        // A press after the button was hidden (a slow page) is still a press: the core refuses it if cancel is not allowed.
        this.o.onCancel();
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
    const m = /^Bearer ([0-9a-f]{64})$/.exec(req.headers.authorization ?? '');
    if (this.o.secret.verify(m?.[1] ?? null)) {
      const t = this.sockets.get(req.socket);
      if (t) t.trusted = true;
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
        return { type: 'text/css; charset=utf-8', body: kioskAssets().css };
      case '/kiosk.js':
        return { type: 'text/javascript; charset=utf-8', body: kioskAssets().js };
      default:
        return null;
    }
  }

  // --- event streams ------------------------------------------------------------------------------

  private openStream(req: IncomingMessage, res: ServerResponse): void {
    while (this.streams.length >= this.o.limits.maxStreams) this.streams.shift()?.res.destroy();
    res.writeHead(200, { ...HEADERS, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
    const stream: Stream = { res, socket: req.socket, kernelAtMost: 0 };
    this.streams.push(stream);
    const drop = (): void => {
      const i = this.streams.indexOf(stream);
      if (i >= 0) this.streams.splice(i, 1);
    };
    res.on('close', drop);
    this.write(stream, this.event());
  }

  /** Write to a stream, or drop it when what it holds unread would pass the bound with this. */
  private write(s: Stream, text: string): void {
    if (s.res.destroyed) return;
    const bound = this.o.limits.streamBufferBytes;
    const adding = Buffer.byteLength(text);
    let queued = s.res.writableLength;
    if (queued + s.kernelAtMost + adding > bound && s.socket.remotePort !== undefined) {
      s.kernelAtMost = kernelSendQueue(this.port, s.socket.remotePort) ?? 0;
      queued = s.res.writableLength;
    }
    const kernel = s.kernelAtMost;
    const held = queued + kernel;
    if (held + adding <= bound) {
      s.res.write(text);
      s.kernelAtMost += adding;
      return;
    }
    const i = this.streams.indexOf(s);
    if (i >= 0) this.streams.splice(i, 1);
    // end() would queue behind what is unsent, and a plain close leaves the kernel holding the unsent
    // bytes (an orphan in FIN_WAIT1 behind a window the page never opens): a reset frees both now.
    s.socket.resetAndDestroy();
    this.o.log.warn({ held, queued, kernel, adding, bound }, 'kiosk page: an event stream that does not read was dropped');
  }
}
