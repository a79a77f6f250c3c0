/**
 * Which sockets a port keeps (the technician port, the kiosk page) when someone without a credential
 * holds many open.
 *
 * Node's own `maxConnections` refuses the *newest* connection once the cap is reached, which is
 * exactly the technician who arrives while an attacker (or a port scan, or a slowloris client)
 * holds the slots. Here the cap works the other way round: a socket that carries no authenticated
 * request — just connected, sending its headers slowly, idle between keep-alive requests — is
 * "pending", and a new connection that would pass a cap evicts the pending socket that was active
 * least recently. Authenticated requests in progress (a technician's call, a live stream) are
 * never evicted, nor is a socket the port trusts for its life (`trust`: the kiosk browser's own,
 * which it keeps alive between keys). So a client that connects and proves itself is always let
 * in; the caps only bound how many unauthenticated sockets one address (and everyone together)
 * can hold.
 *
 * Activity that counts is a complete request head (the 'request' event), not bytes: a slowloris
 * client trickling a header never looks fresh. Node's headersTimeout/requestTimeout end such
 * sockets anyway (http.ts); this bounds how many can be held meanwhile.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** All sockets of the port at once; pending ones are evicted to stay under it. */
  readonly maxConnections: number;
  /** Pending (unauthenticated) sockets per peer address. */
  readonly maxConnectionsPerAddress: number;
}

interface Tracked {
  readonly address: string;
  /** Authenticated requests in progress on this socket (>0: never evicted). */
  authenticated: number;
  /** Trusted for its life (never evicted) until `closeTrusted`. */
  trusted: boolean;
}

export class ConnectionGuard {
  /** Insertion order = least recently active first (a socket is moved to the end on each request). */
  private readonly sockets = new Map<Socket, Tracked>();
  private evictedCount = 0;

  constructor(
    private readonly limits: ConnectionLimits,
    /** Told about each socket evicted to make room (for the refusal summary). */
    private readonly onEvict: (address: string) => void = () => undefined,
  ) {}

  private readonly onConnection = (socket: Socket): void => this.admit(socket);
  private server: Server | null = null;

  /** Track every new connection of `server`. */
  attach(server: Server): void {
    this.server = server;
    server.on('connection', this.onConnection);
  }

  /** Stop tracking (the server outlives this guard: the kiosk's listener). */
  detach(): void {
    this.server?.off('connection', this.onConnection);
    this.server = null;
    this.sockets.clear();
  }

  /** Sockets evicted so far. */
  get evicted(): number {
    return this.evictedCount;
  }

  /** Open sockets: all, and those without an authenticated request in progress. */
  counts(): { open: number; pending: number } {
    let pending = 0;
    for (const t of this.sockets.values()) if (!held(t)) pending++;
    return { open: this.sockets.size, pending };
  }

  private admit(socket: Socket): void {
    // A unix socket has no peer address: every client of it counts as one.
    const address = socket.remoteAddress ?? 'unix';
    const own = [...this.sockets].filter(([, t]) => t.address === address && !held(t));
    if (own.length >= this.limits.maxConnectionsPerAddress) this.evict(own[0]?.[0]);
    if (this.sockets.size >= this.limits.maxConnections) this.evict(this.oldestPending());
    if (this.sockets.size >= this.limits.maxConnections) {
      // Every slot holds an authenticated request: the newcomer cannot be let in.
      socket.destroy();
      return;
    }
    this.sockets.set(socket, { address, authenticated: 0, trusted: false });
    socket.once('close', () => this.sockets.delete(socket));
  }

  /** A request head arrived on `socket`: it is the most recently active now. */
  active(socket: Socket): void {
    const t = this.sockets.get(socket);
    if (t === undefined) return;
    this.sockets.delete(socket);
    this.sockets.set(socket, t);
  }

  /** An authenticated request runs on `socket` until `release` is called (once). */
  authenticated(socket: Socket): () => void {
    const t = this.sockets.get(socket);
    if (t === undefined) return () => undefined;
    t.authenticated++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      t.authenticated--;
    };
  }

  /** `socket` proved itself with a credential that lasts: never evicted while it is open. */
  trust(socket: Socket): void {
    const t = this.sockets.get(socket);
    if (t !== undefined) t.trusted = true;
  }

  /** The credential the trusted sockets proved themselves with is no longer valid: close every one. */
  closeTrusted(): number {
    let closed = 0;
    for (const [socket, t] of [...this.sockets]) {
      if (!t.trusted) continue;
      this.sockets.delete(socket);
      socket.destroy();
      closed++;
    }
    return closed;
  }

  private oldestPending(): Socket | undefined {
    for (const [s, t] of this.sockets) if (!held(t)) return s;
    return undefined;
  }

  private evict(socket: Socket | undefined): void {
    if (socket === undefined) return;
    const t = this.sockets.get(socket);
    // Gone from the map at once, not at its 'close' (next tick): a burst of connections accepted
    // in one turn of the event loop must see the room it made.
    this.sockets.delete(socket);
    socket.destroy();
    this.evictedCount++;
    if (t !== undefined) this.onEvict(t.address);
  }
}

/** Never evicted to make room. */
function held(t: Tracked): boolean {
  return t.authenticated > 0 || t.trusted;
}
