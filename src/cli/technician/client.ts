/**
 * stationctl's client of the technician port: JSON calls and server-sent event streams over TCP
 * (`--url`) or a unix socket (`--socket`), with the token in the Authorization header.
 *
 * Failures become typed errors with the message a technician needs: the station is not running,
 * the token was refused, the action was refused (with the station's reason).
 */
import { request, type IncomingMessage, type RequestOptions } from 'node:http';
import { SseParser } from '../../edge/sse.js';
import { Backoff, type BackoffOptions } from '../../time.js';

export type Target = { readonly kind: 'url'; readonly url: string } | { readonly kind: 'socket'; readonly path: string };

export function describeTarget(t: Target): string {
  return t.kind === 'url' ? t.url : `unix:${t.path}`;
}

/** Nothing answers at the target (ECONNREFUSED, ENOENT, ...). */
export class StationNotRunningError extends Error {
  override readonly name = 'StationNotRunningError';
}
/** 401: the token is not one the station accepts. */
export class TokenRefusedError extends Error {
  override readonly name = 'TokenRefusedError';
}
/** Any other non-2xx answer, with the station's reason. */
export class StationRefusedError extends Error {
  override readonly name = 'StationRefusedError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: Record<string, unknown>,
  ) {
    super(message);
  }
}

// Nothing listens there. (EACCES on a socket is not this: it is reported as it is.)
const NOT_RUNNING = new Set(['ECONNREFUSED', 'ENOENT', 'ENOTSOCK']);
/** How often a GET is sent again after its connection was reset before any answer (see send()). */
const GET_RESET_RETRIES = 3;
/** The pauses before those: 50, 100, 200 ms (a command line's own, short against a person waiting). */
const GET_RESET_BACKOFF: BackoffOptions = { initialMs: 50, factor: 2, maxMs: 200 };

export class PortClient {
  constructor(
    private readonly target: Target,
    private readonly token: string,
    /** Before each connection to a TCP target: throws when the token must not go there (port-owner.ts). */
    private readonly beforeConnect: (url: string) => Promise<void> = () => Promise.resolve(),
  ) {}

  private options(method: string, path: string, headers: Record<string, string>): RequestOptions & { url?: string } {
    const base = { method, headers: { authorization: `Bearer ${this.token}`, ...headers } };
    if (this.target.kind === 'socket') return { ...base, socketPath: this.target.path, path };
    const u = new URL(path, this.target.url);
    return { ...base, protocol: u.protocol, hostname: u.hostname, port: u.port, path: u.pathname + u.search };
  }

  /**
   * One request. A GET whose connection is reset before any answer is sent again (at most
   * GET_RESET_RETRIES times, after the pauses of GET_RESET_BACKOFF): under a connection flood the port closes
   * sockets that have not yet sent an authenticated request to make room (src/edge/connections.ts),
   * and a technician's fresh socket can be one of them. A POST is never sent twice: it may be an
   * action (a box opening) that the station already carried out.
   */
  private async send(method: string, path: string, body: unknown, accept: string): Promise<IncomingMessage> {
    const backoff = new Backoff(GET_RESET_BACKOFF);
    for (;;) {
      try {
        return await this.sendOnce(method, path, body, accept);
      } catch (e) {
        const reset = (e as NodeJS.ErrnoException).code === 'ECONNRESET';
        if (method !== 'GET' || !reset || backoff.failures >= GET_RESET_RETRIES) throw e;
        await backoff.pause();
      }
    }
  }

  private async sendOnce(method: string, path: string, body: unknown, accept: string): Promise<IncomingMessage> {
    // Each connection, a follow's reconnects too: the port may change hands while the station restarts.
    if (this.target.kind === 'url') await this.beforeConnect(this.target.url);
    const text = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { accept };
    if (text !== undefined) headers['content-type'] = 'application/json';
    return new Promise((resolve, reject) => {
      const req = request(this.options(method, path, headers), resolve);
      req.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code !== undefined && NOT_RUNNING.has(e.code))
          reject(new StationNotRunningError(`station not running at ${describeTarget(this.target)} (${e.code})`));
        else reject(e);
      });
      req.end(text);
    });
  }

  private static async readAll(res: IncomingMessage): Promise<string> {
    let text = '';
    for await (const chunk of res as AsyncIterable<Buffer>) text += chunk.toString('utf8');
    return text;
  }

  private static async check(res: IncomingMessage): Promise<void> {
    const status = res.statusCode ?? 0;
    if (status >= 200 && status < 300) return;
    const text = await PortClient.readAll(res);
    if (status === 401) throw new TokenRefusedError('token refused');
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // not JSON: keep the status
    }
    const message = typeof body['message'] === 'string' ? body['message'] : `HTTP ${status}`;
    throw new StationRefusedError(status, typeof body['error'] === 'string' ? body['error'] : 'http_error', message, body);
  }

  /** One JSON call; resolves with the parsed body of a 2xx answer. */
  async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const res = await this.send(method, path, body, 'application/json');
    await PortClient.check(res);
    return JSON.parse(await PortClient.readAll(res)) as T;
  }

  /**
   * Follow a server-sent event stream until it ends or `signal` aborts; `onEvent` gets each
   * event's name and parsed data, `onOpen` runs once the station accepted the stream. Comments
   * (keep-alives) are skipped. A stream the station ends (a restart) resolves or rejects as the
   * socket did; follow.ts decides what to do next.
   */
  async stream(path: string, onEvent: (event: string, data: unknown) => void, signal?: AbortSignal, onOpen?: () => void): Promise<void> {
    const res = await this.send('GET', path, undefined, 'text/event-stream');
    await PortClient.check(res);
    onOpen?.();
    const stop = (): void => void res.destroy();
    // Removed again when this stream ends: a follower reconnecting for hours must not pile up listeners.
    signal?.addEventListener('abort', stop, { once: true });
    const parser = new SseParser();
    try {
      for await (const chunk of res as AsyncIterable<Buffer>) {
        for (const e of parser.push(chunk.toString('utf8'))) onEvent(e.event, e.data);
      }
    } catch (e) {
      if (!signal?.aborted) throw e;
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  }
}
