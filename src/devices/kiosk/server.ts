/**
 * The kiosk's HTTP server: the touchscreen page, its live state (server-sent events) and its
 * keys, on 127.0.0.1 only. No token: whoever can reach it is the person at the screen, so it
 * serves nothing else: not the technician port's API, no state beyond the display lines and
 * whether cancel is offered, no box actions. Keys go in as a hardware keypad's do (and a PIN's
 * digits are never logged).
 *
 * Requests must name the kiosk itself as Host (127.0.0.1:<port> or localhost:<port>), so that a web
 * page elsewhere cannot reach it by DNS rebinding; a POST must carry no Origin or the kiosk's own.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { KeypadKey } from '../types.js';
import { KIOSK_CSS, KIOSK_HTML, KIOSK_JS } from './page.js';

export interface KioskState {
  readonly lines: readonly string[];
  readonly cancel: boolean;
  readonly cancelLabel: string;
}

export interface KioskServerOptions {
  /** 0: any free port (tests). */
  readonly port: number;
  /** A comment on idle event streams this often (keeps them from being taken for dead). */
  readonly keepAliveMs: number;
  readonly log: Logger;
  readonly onKey: (key: KeypadKey) => void;
  readonly onCancel: () => void;
}

/** Unsent bytes past which an event stream is dropped (a page that stopped reading). */
const MAX_BUFFERED = 256 * 1024;
const MAX_BODY = 256;

const HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

const STATIC: Readonly<Record<string, { type: string; body: string }>> = {
  '/': { type: 'text/html; charset=utf-8', body: KIOSK_HTML },
  '/kiosk.css': { type: 'text/css; charset=utf-8', body: KIOSK_CSS },
  '/kiosk.js': { type: 'text/javascript; charset=utf-8', body: KIOSK_JS },
};

function parseKey(v: unknown): KeypadKey | null {
  if (typeof v !== 'string') return null;
  if (/^[0-9]$/.test(v)) return { kind: 'digit', digit: v };
  if (v === 'backspace' || v === 'clear' || v === 'enter') return { kind: v };
  return null;
}

export class KioskServer {
  private server: Server | null = null;
  private state: KioskState = { lines: [], cancel: false, cancelLabel: '' };
  private readonly streams = new Set<ServerResponse>();
  private keepAlive: NodeJS.Timeout | null = null;
  private boundPort = 0;

  constructor(private readonly o: KioskServerOptions) {}

  /** The port listened on (after listen()). */
  get port(): number {
    return this.boundPort;
  }

  listen(): Promise<void> {
    const server = createServer((req, res) => this.handle(req, res));
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.o.port, '127.0.0.1', () => {
        server.off('error', reject);
        this.server = server;
        this.boundPort = (server.address() as AddressInfo).port;
        this.keepAlive = setInterval(() => {
          for (const s of this.streams) s.write(': keep-alive\n\n');
        }, this.o.keepAliveMs);
        this.o.log.info({ url: `http://127.0.0.1:${this.boundPort}/` }, 'kiosk page listening');
        resolve();
      });
    });
  }

  update(state: KioskState): void {
    this.state = state;
    for (const s of this.streams) this.send(s);
  }

  async close(): Promise<void> {
    if (this.keepAlive) clearInterval(this.keepAlive);
    for (const s of this.streams) s.end();
    this.streams.clear();
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private send(res: ServerResponse): void {
    if (res.writableLength > MAX_BUFFERED) {
      this.streams.delete(res);
      res.destroy();
      return;
    }
    res.write(`event: state\ndata: ${JSON.stringify(this.state)}\n\n`);
  }

  private refuse(res: ServerResponse, status: number, text: string): void {
    res.writeHead(status, { ...HEADERS, 'content-type': 'text/plain; charset=utf-8' });
    res.end(`${text}\n`);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const own = [`127.0.0.1:${this.boundPort}`, `localhost:${this.boundPort}`];
    if (!own.includes(req.headers.host ?? '')) return this.refuse(res, 421, 'wrong host');
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' || req.method === 'HEAD') {
      if (path === '/events') return this.events(req, res);
      const file = STATIC[path];
      if (!file) return this.refuse(res, 404, 'not found');
      res.writeHead(200, { ...HEADERS, 'content-type': file.type });
      res.end(req.method === 'HEAD' ? undefined : file.body);
      return;
    }
    if (req.method !== 'POST' || (path !== '/key' && path !== '/cancel')) return this.refuse(res, 404, 'not found');
    const origin = req.headers.origin;
    if (origin !== undefined && !own.map((h) => `http://${h}`).includes(origin)) return this.refuse(res, 403, 'foreign origin');
    if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return this.refuse(res, 415, 'json only');
    let body = '';
    let tooLong = false;
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > MAX_BODY) {
        tooLong = true;
        req.destroy();
      }
    });
    req.on('end', () => {
      if (tooLong) return;
      if (path === '/cancel') {
        this.o.onCancel();
        res.writeHead(204, HEADERS);
        res.end();
        return;
      }
      let key: KeypadKey | null = null;
      try {
        key = parseKey((JSON.parse(body) as { key?: unknown } | null)?.key);
      } catch {
        key = null;
      }
      if (!key) return this.refuse(res, 400, 'unknown key');
      this.o.onKey(key);
      res.writeHead(204, HEADERS);
      res.end();
    });
  }

  private events(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { ...HEADERS, 'content-type': 'text/event-stream; charset=utf-8', connection: 'keep-alive' });
    this.streams.add(res);
    this.send(res);
    const drop = (): void => {
      this.streams.delete(res);
    };
    req.on('close', drop);
    res.on('close', drop);
  }
}
