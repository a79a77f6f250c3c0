/**
 * The technician port: a node:http server on loopback (or a unix socket) in front of the station.
 *
 * Order of a request: /healthz (no auth, no data) -> the page at / and its script and style (no
 * auth, no data) -> a token in
 * the query string is refused -> Authorization: Bearer checked (401 without detail) -> route
 * (404/405) -> scope (403) -> handler. Nothing secret is logged: the request log line has the
 * method, the path without its query, the status, the duration and the token's name.
 *
 * Bounded before authentication (anyone on the network can reach it once it listens on every
 * interface) by the edge every port shares (src/edge/): a short head and request time-out,
 * connection caps that close idle unauthenticated sockets rather than refuse a newcomer, refusals
 * logged as a summary per kind and interval, live streams dropped when their client stops reading.
 * Only authenticated requests get a log line each. No Host check: a technician reaches the port by
 * whatever name or address their network gives it, and every answer but the data-free page and
 * /healthz needs a token, which a page elsewhere does not have.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { chmod, lstat, unlink } from 'node:fs/promises';
import { errorMessage } from '../errors.js';
import type { Logger, LogRing } from '../log.js';
import { actionRoutes } from './actions.js';
import { bearerToken, scopeAllows, type Technician } from '../tokens/tokens.js';
import type { TechnicianTokens } from './auth.js';
import type { DebugConfig } from '../config/technician.js';
import { ConnectionGuard } from '../edge/connections.js';
import { COMMON_HEADERS, serverTimeouts } from '../edge/http.js';
import { RefusalLog } from '../edge/refusals.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import { HttpError, httpErrorOf, sendError, sendJson } from './http.js';
import { metricsRoutes } from './metrics-route.js';
import type { MetricsService } from '../metrics/service.js';
import { loadPage, type Page } from './page.js';
import { readRoutes } from './read.js';
import { TECHNICIAN_REFUSALS } from './refusals.js';
import { matchRoute, type Route } from './router.js';
import type { ConsoleLoginLog } from '../systemd/console-logins.js';

/** Query parameters that look like a credential: refused, so a token never sits in a URL (or a proxy's log). */
const TOKEN_PARAMS = ['token', 'access_token', 'auth', 'authorization', 'bearer', 'key'];

export interface TechnicianPort {
  /** Where it listens: "http://127.0.0.1:8470" or "unix:/run/…/technician.sock". */
  readonly address: string;
  /** The URL to reach it over TCP (null on a unix socket). */
  readonly url: string | null;
  close(): Promise<void>;
}

export interface PortOptions {
  readonly supervisor: Supervisor;
  /** The technician tokens of the config the supervisor runs. */
  readonly tokens: TechnicianTokens;
  readonly ring: LogRing;
  readonly log: Logger;
  /** The station's metrics (GET /metrics); null or absent: metrics are off. */
  readonly metrics?: MetricsService | null;
  /** The process's reader of failed console logins (shown on the status); null or absent: not watched. */
  readonly consoleLogins?: ConsoleLoginLog | null;
}

export function createTechnicianServer({ supervisor, tokens, ring, log, metrics = null, consoleLogins = null }: PortOptions): Server {
  const page: Page = loadPage();
  const routes: Route[] = [
    ...readRoutes({ supervisor, ring, streams: { open: 0 }, log, consoleLogins }),
    ...actionRoutes({ supervisor, log }),
    ...metricsRoutes(metrics),
  ];
  // Fixed for the life of the server (a change of these needs a process restart: supervisor.reload says so).
  const limits = supervisor.config.debug;
  const refusals = new RefusalLog(log, limits.refusalLogIntervalMs, TECHNICIAN_REFUSALS);
  const guard = new ConnectionGuard(limits, (address) => refusals.refused('evicted', address));

  const handle = async (req: IncomingMessage, res: ServerResponse, url: URL, done: (who: Technician) => void): Promise<void> => {
    const method = req.method ?? 'GET';
    if (url.pathname === '/healthz' && (method === 'GET' || method === 'HEAD')) return sendJson(res, 200, { ok: true });
    const file = method === 'GET' ? page.files.get(url.pathname) : undefined;
    if (file !== undefined) {
      res.writeHead(200, { ...COMMON_HEADERS, 'content-type': file.type, 'content-security-policy': page.csp, 'x-frame-options': 'DENY' });
      res.end(file.body);
      return;
    }
    if (TOKEN_PARAMS.some((p) => url.searchParams.has(p))) {
      refusals.refused('token-in-url', req.socket.remoteAddress);
      throw new HttpError(400, 'token_in_url', 'credentials go in the Authorization header, never in the URL');
    }
    const token = bearerToken(req.headers.authorization);
    const who = token === null ? null : tokens.of(supervisor.config).verify(token);
    if (who === null) {
      refusals.refused(token === null ? 'no-token' : 'wrong-token', req.socket.remoteAddress);
      throw new HttpError(401, 'unauthorized', 'unauthorized', {}, { 'www-authenticate': 'Bearer' });
    }
    // From here until the answer is done, this socket is never closed to make room.
    res.once('close', guard.authenticated(req.socket));
    done(who);
    const m = matchRoute(routes, method, url.pathname);
    if (m.kind === 'none') throw new HttpError(404, 'not_found', `no such route: ${method} ${url.pathname}`);
    if (m.kind === 'method') throw new HttpError(405, 'method_not_allowed', `${url.pathname} takes ${m.allow.join(', ')}`, {}, { allow: m.allow.join(', ') });
    if (!scopeAllows(who.scope, m.route.scope)) throw new HttpError(403, 'forbidden', `this needs a token with the ${m.route.scope} scope`);
    await m.route.handle({ req, res, url, params: m.params, who });
  };

  const server = createServer(serverTimeouts(limits), (req, res) => {
    guard.active(req.socket);
    const started = performance.now();
    let who: Technician | null = null;
    // A request target that is no URL ("//", "http://[") must be a 400, never a throw here: an
    // exception in this callback would take the station down.
    const url = URL.canParse(req.url ?? '/', 'http://station') ? new URL(req.url ?? '/', 'http://station') : null;
    if (url === null) {
      refusals.refused('bad-target', req.socket.remoteAddress);
      return sendJson(res, 400, { error: 'bad_request', message: 'the request target is not a URL' });
    }
    // One line per authenticated request (only the path: a query may carry what must not be
    // logged); requests without a token are counted by `refusals`, so a flood writes no lines.
    res.on('finish', () => {
      if (who === null) return;
      log.debug(
        { method: req.method, path: url.pathname, status: res.statusCode, ms: Math.round(performance.now() - started), technician: who.name },
        'technician port request',
      );
    });
    handle(req, res, url, (w) => (who = w)).catch((e: unknown) => {
      const err = httpErrorOf(e);
      if (err === null) log.error({ error: errorMessage(e), path: url.pathname }, 'technician port handler failed');
      if (res.headersSent) {
        res.destroy();
        return;
      }
      // (A 413 carries Connection: close: node discards the rest of the body and closes gracefully.)
      sendError(res, err ?? new HttpError(500, 'internal', 'internal error'));
    });
  });
  guard.attach(server);
  server.on('close', () => refusals.close());
  return server;
}

/**
 * Remove a socket file left by a previous run, but never one a running process answers on, and
 * never anything that is not a socket (a mistyped path must not delete a file).
 */
async function clearStaleSocket(path: string): Promise<void> {
  const st = await lstat(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
  if (st === null) return;
  if (!st.isSocket()) throw new Error(`${path} exists and is not a socket; not touching it`);
  const alive = await new Promise<boolean>((resolve) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
  if (alive) throw new Error(`${path}: another process is listening on it`);
  await unlink(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code !== 'ENOENT') throw e;
  });
}

/** Start the technician port as `config.listen` says. Rejects when it cannot listen. */
export async function listenTechnicianPort(server: Server, config: DebugConfig): Promise<TechnicianPort> {
  const listen = config.listen;
  if ('socket' in listen) await clearStaleSocket(listen.socket);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const ready = (): void => {
      server.off('error', reject);
      resolve();
    };
    if ('socket' in listen) server.listen(listen.socket, ready);
    else server.listen(listen.port, listen.host, ready);
  });
  let address: string;
  let url: string | null = null;
  if ('socket' in listen) {
    // Owner only (0600): tokens are still required; this keeps other local users from even connecting.
    await chmod(listen.socket, 0o600);
    address = `unix:${listen.socket}`;
  } else {
    const a = server.address();
    const port = typeof a === 'object' && a !== null ? a.port : listen.port;
    const h = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
    url = `http://${h}:${port}`;
    address = url;
  }
  return {
    address,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        // Live streams would hold close() open for ever: end every connection.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
