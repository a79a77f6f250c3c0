/**
 * Where the kiosk page listens, for the life of the process: the listening socket systemd hands
 * over (`pickup-station-kiosk.socket` holds 127.0.0.1:8091 for as long as the station runs; the
 * daemon takes it from LISTEN_FDS), and nothing else. Without it the kiosk is not served
 * (KioskPortNotHeld says why): a port the process bound itself would be free while the station
 * restarts, for any local process to take and be the page the kiosk browser posts the next
 * patron's PIN to. Only a development setup (the demo, tests, a developer's machine) may let the
 * process bind it itself (`developmentOwnPort`).
 *
 * The listening socket outlives the station: a reload restarts the station (and its kiosk server)
 * in-process, and the port stays held meanwhile. A server is attached to the listener and detached
 * from it; while none is attached, requests get 503 (the page retries).
 *
 * systemd's sockets are read by src/edge/listen-fds.ts (`FileDescriptorName=kiosk` in the socket unit).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serverTimeouts, type TimeoutLimits } from '../../edge/http.js';
import { activatedSocket } from '../../edge/listen-fds.js';
import { KIOSK_REFUSAL_REASONS, type KioskRefusalReason } from '../types.js';

/** The name the socket unit gives the kiosk's socket (FileDescriptorName=). */
export const KIOSK_FD_NAME = 'kiosk';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** One listening socket and the server attached to it now (if any). */
export class KioskListener {
  private handler: Handler | null = null;
  /** Requests refused on this socket, by reason: counted for its whole life, across the servers attached to it. */
  private readonly refused = Object.fromEntries(KIOSK_REFUSAL_REASONS.map((r) => [r, 0])) as Record<KioskRefusalReason, number>;

  constructor(
    readonly server: Server,
    /** Handed over by systemd (never closed by this process), or bound here. */
    readonly activated: boolean,
  ) {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (this.handler) return this.handler(req, res);
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '1', connection: 'close' });
      res.end('station restarting\n');
    });
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get host(): string {
    return (this.server.address() as AddressInfo).address;
  }

  countRefusal(reason: KioskRefusalReason): void {
    this.refused[reason] += 1;
  }

  refusals(): Readonly<Record<KioskRefusalReason, number>> {
    return { ...this.refused };
  }

  attach(handler: Handler): void {
    this.handler = handler;
  }

  /** The station's server lets go: its connections are closed, the socket stays. */
  detach(handler: Handler): void {
    if (this.handler !== handler) return;
    this.handler = null;
    this.server.closeAllConnections();
  }
}

const held = new Map<number, KioskListener>();

function listening(server: Server, listen: (done: () => void) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    listen(() => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** systemd passed no kiosk socket, and this process may not bind the port itself. */
export class KioskPortNotHeld extends Error {
  override readonly name = 'KioskPortNotHeld';
  constructor(port: number) {
    super(
      `the kiosk page is not served: systemd passed no socket named "${KIOSK_FD_NAME}" for 127.0.0.1:${port} ` +
        '(enable pickup-station-kiosk.socket and restart the station); the station does not bind the port itself, ' +
        'as any local process could take it while the station restarts',
    );
  }
}

export interface AcquireOptions {
  /** Without systemd's socket, bind the port here (development only). */
  readonly ownPort: boolean;
  /** The time-outs, given when the server is made (Node reads the checking interval then). */
  readonly timeouts: TimeoutLimits;
}

/**
 * The listener for `port` on 127.0.0.1: systemd's socket named "kiosk" if it passed one. Without
 * it: KioskPortNotHeld, unless `ownPort` — then the one this process bound earlier for the port,
 * else a new one bound now (port 0: a fresh, private one each time, closed by `release`); rejects
 * when the port cannot be bound (taken).
 */
export async function acquireKioskListener(port: number, o: AcquireOptions): Promise<{ listener: KioskListener; note: string | null }> {
  const socket = activatedSocket(KIOSK_FD_NAME);
  if (socket !== null) {
    let listener = held.get(-socket.fd);
    if (listener === undefined) {
      const server = createServer(serverTimeouts(o.timeouts));
      await listening(server, (done) => server.listen({ fd: socket.fd }, done));
      // Held for the process's life, but never what keeps it alive.
      server.unref();
      listener = new KioskListener(server, true);
      held.set(-socket.fd, listener);
    }
    const where = `${listener.host}:${listener.port}`;
    if (!isLoopback(listener.host)) throw new Error(`the kiosk socket systemd passed listens on ${where}, not on loopback: refused`);
    const note = listener.port === port ? null : `the kiosk socket systemd passed listens on ${where}, the profile says port ${port}: using systemd's`;
    return { listener, note };
  }
  if (!o.ownPort) throw new KioskPortNotHeld(port);
  if (port !== 0) {
    const listener = held.get(port);
    if (listener) return { listener, note: null };
  }
  const server = createServer(serverTimeouts(o.timeouts));
  await listening(server, (done) => server.listen(port, '127.0.0.1', done));
  const listener = new KioskListener(server, false);
  if (port !== 0) {
    server.unref();
    held.set(port, listener);
  }
  return { listener, note: null };
}

/** A private listener (port 0) is closed with its server; a held one stays for the process's life. */
export async function releaseKioskListener(listener: KioskListener): Promise<void> {
  if ([...held.values()].includes(listener)) return;
  listener.server.closeAllConnections();
  await new Promise<void>((resolve) => listener.server.close(() => resolve()));
}

function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host.startsWith('127.') || host === '::ffff:127.0.0.1';
}
