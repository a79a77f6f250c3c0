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
import { connect, createServer as createNetServer, type Server as NetServer } from 'node:net';
import { chmod, lstat, unlink } from 'node:fs/promises';
import { errorMessage } from '../errors.js';
import type { Logger, LogRing } from '../log.js';
import { actionRoutes } from './actions.js';
import { bearerToken, scopeAllows, type Technician } from '../tokens/tokens.js';
import type { TechnicianTokens } from './auth.js';
import type { TechnicianConfig } from '../config/technician.js';
import { ConnectionGuard } from '../edge/connections.js';
import type { ActivatedSocket } from '../edge/listen-fds.js';
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
import type { ConsoleLoginLog } from '../service/console-logins.js';

/** Query parameters that look like a credential: refused, so a token never sits in a URL (or a proxy's log). */
const TOKEN_PARAMS = ['token', 'access_token', 'auth', 'authorization', 'bearer', 'key'];

export interface TechnicianPort {
  /**
   * Where it listens, first the TCP port when it has one (the installer's health check asks it
   * there): "http://127.0.0.1:8470" or "unix:/run/…/technician.sock".
   */
  readonly address: string;
  /** Every place it answers: systemd's socket and the config's `listen`. */
  readonly addresses: readonly string[];
  /** The URL to reach it over TCP (null when it has no TCP port). */
  readonly url: string | null;
  close(): Promise<void>;
}

/** The name the socket unit gives the technician port's socket (FileDescriptorName=). */
export const TECHNICIAN_FD_NAME = 'technician';

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
  const limits = supervisor.config.technician;
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

function urlOf(a: ReturnType<Server['address']>, fallbackHost: string, fallbackPort: number): string {
  const host = typeof a === 'object' && a !== null ? a.address : fallbackHost;
  const port = typeof a === 'object' && a !== null ? a.port : fallbackPort;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

function listening(target: Server | NetServer, listen: (done: () => void) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    target.once('error', reject);
    listen(() => {
      target.off('error', reject);
      resolve();
    });
  });
}

/**
 * Start the technician port: on the socket systemd passed (`pickup-station-technician.socket`, named
 * "technician"), when it passed one, and as `config.listen` says — a unix socket by default; TCP only
 * when the config asks for it (then never the address systemd's socket holds: that one is served from
 * systemd's). One server answers both: systemd's socket's connections are handed to it. Rejects when
 * it cannot listen.
 */
export async function listenTechnicianPort(server: Server, config: TechnicianConfig, activated: ActivatedSocket | null = null): Promise<TechnicianPort> {
  const listen = config.listen;
  const addresses: string[] = [];
  let url: string | null = null;
  let held: NetServer | null = null;
  if (activated !== null) {
    held = createNetServer({ pauseOnConnect: false }, (socket) => server.emit('connection', socket));
    await listening(held, (done) => held?.listen({ fd: activated.fd }, done));
    // Held for the process's life by systemd, never what keeps the process alive.
    held.unref();
    url = urlOf(held.address(), '127.0.0.1', 0);
    addresses.push(url);
  }
  const sameAsHeld = (host: string, port: number): boolean => {
    const a = held?.address();
    return typeof a === 'object' && a !== null && a.port === port && (a.address === host || (host === 'localhost' && a.address === '127.0.0.1'));
  };
  if ('socket' in listen) {
    await clearStaleSocket(listen.socket);
    await listening(server, (done) => server.listen(listen.socket, done));
    // Owner only (0600): tokens are still required; this keeps other local users from even connecting.
    await chmod(listen.socket, 0o600);
    addresses.push(`unix:${listen.socket}`);
  } else if (!sameAsHeld(listen.host, listen.port)) {
    await listening(server, (done) => server.listen(listen.port, listen.host, done));
    const own = urlOf(server.address(), listen.host, listen.port);
    url ??= own;
    addresses.push(own);
  }
  return {
    address: addresses[0] ?? 'nowhere',
    addresses,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        held?.close();
        // Live streams would hold close() open for ever: end every connection.
        server.closeAllConnections();
        if (!server.listening) return resolve();
        server.close(() => resolve());
      }),
  };
}
