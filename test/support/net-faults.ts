/**
 * Faults below HTTP, between a station and its server, on real sockets:
 *
 * - FaultGateway: a TCP front on a fixed 127.0.0.1 port that forwards to one of several backends
 *   (the server behind a TLS terminator with a good certificate, one of an unknown CA, one for
 *   another host name, one not yet valid), refuses connections (the port is closed), or accepts
 *   and never answers (a TLS handshake that stalls). Switching closes every open connection, so a
 *   pooled keep-alive socket cannot carry on past a fault.
 * - TlsTerminator: TLS with a given certificate in front of a plain-HTTP server.
 * - SwitchableLookup: the `lookup` of the station's HTTP agent; in `fail` mode it asks the system
 *   resolver for a name under `.invalid` (RFC 6761: never resolves) and hands back its error, so
 *   the station meets a real ENOTFOUND for the name it was configured with.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions, type LookupOptions } from 'node:dns';
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Pipe two sockets both ways; either end closing closes the other. */
function splice(a: Socket, b: Socket): void {
  a.pipe(b).pipe(a);
  const end = (): void => {
    a.destroy();
    b.destroy();
  };
  a.on('error', end).on('close', end);
  b.on('error', end).on('close', end);
}

/** TLS with one certificate, decrypted bytes forwarded to a plain TCP (HTTP) port. */
export class TlsTerminator {
  private readonly server: TlsServer;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(
    cert: { readonly key: string; readonly cert: string },
    private readonly backendPort: () => number,
  ) {
    this.server = createTlsServer({ key: cert.key, cert: cert.cert }, (clear) => {
      const upstream = createConnection({ host: '127.0.0.1', port: this.backendPort() });
      this.track(clear);
      this.track(upstream);
      splice(clear, upstream);
    });
    // A handshake that fails (the client refused the certificate) is the client's business.
    this.server.on('tlsClientError', () => undefined);
  }

  private track(s: Socket): void {
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
  }

  async start(): Promise<number> {
    this.port = await listen(this.server, 0);
    return this.port;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await close(this.server);
  }
}

export type GatewayMode =
  /** Forward every connection to this local port. */
  | { readonly kind: 'forward'; readonly port: number }
  /** Nothing listens: connection refused. */
  | { readonly kind: 'refuse' }
  /** Accept and never send a byte (a TLS handshake or a request that stalls). */
  | { readonly kind: 'stall' };

export class FaultGateway {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private mode: GatewayMode;
  private switching: Promise<void> = Promise.resolve();
  port = 0;

  constructor(initial: GatewayMode) {
    this.mode = initial;
  }

  private newServer(): Server {
    const server = createServer((client) => {
      this.track(client);
      const mode = this.mode;
      switch (mode.kind) {
        case 'forward': {
          const upstream = createConnection({ host: '127.0.0.1', port: mode.port });
          this.track(upstream);
          splice(client, upstream);
          return;
        }
        case 'stall':
          client.on('error', () => undefined);
          client.resume();
          return;
        case 'refuse':
          // Only between close() and the last connection it let through.
          client.destroy();
          return;
      }
    });
    return server;
  }

  private track(s: Socket): void {
    this.sockets.add(s);
    s.on('close', () => this.sockets.delete(s));
  }

  async start(): Promise<number> {
    this.server = this.newServer();
    this.port = await listen(this.server, 0);
    if (this.mode.kind === 'refuse') await this.closeListener();
    return this.port;
  }

  private async closeListener(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (s !== null) await close(s);
  }

  current(): GatewayMode {
    return this.mode;
  }

  /** Switch mode: every open connection is cut; `refuse` closes the port, leaving it reopens it. */
  set(mode: GatewayMode): Promise<void> {
    const run = async (): Promise<void> => {
      this.mode = mode;
      for (const s of this.sockets) s.destroy();
      if (mode.kind === 'refuse') await this.closeListener();
      else if (this.server === null) {
        this.server = this.newServer();
        await listen(this.server, this.port);
      }
    };
    this.switching = this.switching.then(run, run);
    return this.switching;
  }

  async stop(): Promise<void> {
    await this.switching;
    for (const s of this.sockets) s.destroy();
    await this.closeListener();
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type LookupFunction = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

export class SwitchableLookup {
  /** The name asked for while failing: under .invalid, which no resolver may answer. */
  static readonly FAILING_NAME = 'pickup-server.invalid';
  failing = false;

  /** For `new https.Agent({ lookup })`: the system resolver, or its error for a .invalid name. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    const name = this.failing ? SwitchableLookup.FAILING_NAME : hostname;
    if (options.all === true) dnsLookup(name, options as LookupAllOptions, callback as never);
    else dnsLookup(name, options as LookupOneOptions, callback as never);
  };
}
