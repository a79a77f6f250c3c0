/**
 * A hostile server double on 127.0.0.1: answers like a station server (or a library portal) until
 * told to misbehave. The misbehaviour that matters here is size: a body of any length streamed
 * from one reused chunk (so the double itself stays small), written with backpressure, and
 * stopped the moment the client goes away — which the double records, with the bytes it got out.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Behaviour =
  /** 200 with this JSON body. */
  | { readonly kind: 'json'; readonly body: unknown; readonly status?: number }
  /** A body of `bytes` bytes (chunked, or with Content-Length when `declare`), starting with `prefix`. */
  | { readonly kind: 'huge'; readonly bytes: number; readonly declare?: boolean; readonly contentType?: string; readonly prefix?: string }
  /** Any status, content type and text (an HTML page from a captive portal or a proxy). */
  | { readonly kind: 'text'; readonly status: number; readonly contentType: string; readonly text: string };

export interface Delivery {
  readonly path: string;
  readonly kind: Behaviour['kind'];
  /** Body bytes written before the client went away or the body ended. */
  bytesOut: number;
  /** The client closed the connection before the whole body was written. */
  abandoned: boolean;
  /** Settles when the answer is over (sent or abandoned). */
  readonly done: Promise<void>;
}

export class HostileServer {
  private server: Server | null = null;
  private readonly rules: { match: (path: string) => boolean; behaviour: Behaviour; times: number }[] = [];
  readonly deliveries: Delivery[] = [];

  constructor(private readonly fallback: (req: IncomingMessage) => Behaviour) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => this.answer(req, res));
    });
    await new Promise<void>((r) => this.server?.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next `times` requests whose path matches answer with `behaviour`. */
  arm(match: (path: string) => boolean, behaviour: Behaviour, times = 1): void {
    this.rules.push({ match, behaviour, times });
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const path = req.url ?? '/';
    const rule = this.rules.find((r) => r.times > 0 && r.match(path));
    if (rule) rule.times--;
    const b = rule?.behaviour ?? this.fallback(req);
    let finish: () => void = () => undefined;
    const delivery: Delivery = { path, kind: b.kind, bytesOut: 0, abandoned: false, done: new Promise((r) => (finish = r)) };
    this.deliveries.push(delivery);
    res.on('close', () => {
      if (!res.writableFinished) delivery.abandoned = true;
      finish();
    });
    switch (b.kind) {
      case 'json': {
        const text = JSON.stringify(b.body);
        delivery.bytesOut = Buffer.byteLength(text);
        res.writeHead(b.status ?? 200, { 'content-type': 'application/json' }).end(text);
        return;
      }
      case 'text':
        delivery.bytesOut = Buffer.byteLength(b.text);
        res.writeHead(b.status, { 'content-type': b.contentType }).end(b.text);
        return;
      case 'huge':
        res.writeHead(200, { 'content-type': b.contentType ?? 'application/json', ...(b.declare ? { 'content-length': String(b.bytes) } : {}) });
        streamHuge(res, b.bytes, b.prefix ?? '{"type":"wait-for-input","displayMessages":["', delivery);
        return;
    }
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

const CHUNK = Buffer.alloc(65_536, 'x');

function streamHuge(res: ServerResponse, bytes: number, prefix: string, d: Delivery): void {
  const head = Buffer.from(prefix);
  res.write(head);
  d.bytesOut += head.length;
  const pump = (): void => {
    while (d.bytesOut < bytes && !res.destroyed) {
      const n = Math.min(CHUNK.length, bytes - d.bytesOut);
      d.bytesOut += n;
      if (!res.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) {
        res.once('drain', pump);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  pump();
}
