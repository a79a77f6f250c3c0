/**
 * What every port checks of a request before its routes see it: the headers every answer carries,
 * the server's time-outs, the Host and Origin a loopback page accepts, and a body read within its
 * limit. Each port decides which of these it applies and how it answers (its own status codes and
 * words); the checks themselves are these.
 */
import type { IncomingMessage, Server, ServerOptions } from 'node:http';

/** Headers on every answer: nothing is cached (status, logs and screens are live and private), no sniffing. */
export const COMMON_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

export interface TimeoutLimits {
  /** A request head must come within this (else 408 and closed). */
  readonly headersTimeoutMs: number;
  /** … and the whole request within this. */
  readonly requestTimeoutMs: number;
  /** An idle keep-alive socket is closed after this (absent: Node's default, 5 s). */
  readonly idleTimeoutMs?: number;
}

/**
 * The time-outs as createServer's options. Node checks them only every `connectionsCheckingInterval`
 * (default 30 s, which would let a silent socket live 35 s with a 5 s head time-out): a fifth of
 * the head time-out keeps them honest. The interval is read when the server starts listening, so
 * these must be given at creation (or set before listen).
 */
export function serverTimeouts(l: TimeoutLimits): ServerOptions {
  return {
    headersTimeout: l.headersTimeoutMs,
    requestTimeout: l.requestTimeoutMs,
    ...(l.idleTimeoutMs !== undefined ? { keepAliveTimeout: l.idleTimeoutMs } : {}),
    connectionsCheckingInterval: Math.max(50, Math.round(l.headersTimeoutMs / 5)),
  };
}

/** Apply the time-outs to a server made earlier (the kiosk's listener outlives each station's limits). */
export function applyTimeouts(server: Server, l: TimeoutLimits): void {
  server.headersTimeout = l.headersTimeoutMs;
  server.requestTimeout = l.requestTimeoutMs;
  if (l.idleTimeoutMs !== undefined) server.keepAliveTimeout = l.idleTimeoutMs;
}

/** The Host values of a page on 127.0.0.1:port: only itself, so a web page elsewhere cannot reach it by DNS rebinding. */
export function loopbackHosts(port: number): readonly string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

/** Whether the request names one of `hosts` as its Host. */
export function hostIs(req: IncomingMessage, hosts: readonly string[]): boolean {
  return hosts.includes(req.headers.host ?? '');
}

/** Whether the request carries no Origin or one of `hosts`' own (a cross-site page's fetch or form carries its own). */
export function originAllowed(req: IncomingMessage, hosts: readonly string[]): boolean {
  const origin = req.headers.origin;
  return origin === undefined || hosts.some((h) => origin === `http://${h}`);
}

/** Whether the request says its body is JSON (a cross-site form cannot send that without a preflight). */
export function saysJson(req: IncomingMessage): boolean {
  return /^application\/json\b/i.test(req.headers['content-type'] ?? '');
}

/** A body longer than the port takes. */
export class BodyTooLarge extends Error {
  override readonly name = 'BodyTooLarge';
  constructor(readonly limit: number) {
    super(`the body is larger than ${limit} bytes`);
  }
}

/**
 * The request's body, at most `limit` bytes: refused on its Content-Length first, then while it is
 * read (a chunked body says no length). Rejects with BodyTooLarge; the caller answers (413, and
 * closes: the rest is not read).
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
