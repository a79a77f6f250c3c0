/**
 * Every fault between a station and its library server that the fault matrix and the soak inject,
 * and the server side that injects them on real sockets:
 *
 *   station --TLS--> FaultGateway (127.0.0.1, fixed port) --> TlsTerminator --> ReferenceServer (HTTP)
 *
 * - `server` faults are the reference server's own (src/reference-server/faults.ts), armed per endpoint;
 * - `net` faults act below HTTP and hit every endpoint at once: the gateway refuses or stalls, or
 *   forwards to a terminator whose certificate is of an unknown CA, for another host name, or not
 *   yet valid (what a board whose clock is far in the past sees); DNS failure is the station
 *   agent's lookup asking for a name under .invalid (SwitchableLookup).
 *
 * Certificates are made by openssl for each run (certs.ts): the station trusts the private CA
 * through `server.caFile`, as a library with its own CA would configure it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Endpoint } from '../../src/protocol/types.js';
import { ReferenceServer } from '../../src/reference-server/server.js';
import type { FaultSpec, ReferenceServerOptions } from '../../src/reference-server/types.js';
import { makeCa, makeLeaf, type Ca, type Leaf } from './certs.js';
import { FaultGateway, SwitchableLookup, TlsTerminator } from './net-faults.js';

export type NetFault = 'refused' | 'dns' | 'tls-unknown-ca' | 'tls-other-host' | 'tls-stall' | 'clock-behind';

export interface FaultDef {
  /** Short name used in tables and test titles. */
  readonly name: string;
  /** What it is, for the matrix table. */
  readonly what: string;
  readonly fault: { readonly server: FaultSpec } | { readonly net: NetFault };
}

/**
 * The matrix's faults. `answerTimeoutMs` is the station's (a delay must exceed it); `huge` is a
 * real answer padded to 4 MiB.
 */
export function faultCatalogue(answerTimeoutMs: number): readonly FaultDef[] {
  return [
    { name: 'late-answer', what: 'answer after the timeout', fault: { server: { kind: 'delay', ms: answerTimeoutMs + 700 } } },
    { name: 'refused', what: 'connection refused', fault: { net: 'refused' } },
    { name: 'reset-mid-body', what: 'reset mid-body', fault: { server: 'reset' } },
    { name: 'dns', what: 'DNS failure (a name under .invalid)', fault: { net: 'dns' } },
    { name: 'tls-unknown-ca', what: 'TLS with an unknown CA', fault: { net: 'tls-unknown-ca' } },
    { name: 'tls-other-host', what: 'TLS for another host name', fault: { net: 'tls-other-host' } },
    { name: 'tls-stall', what: 'TLS handshake that stalls', fault: { net: 'tls-stall' } },
    { name: 'clock-behind', what: 'board clock far in the past (certificate not yet valid)', fault: { net: 'clock-behind' } },
    {
      name: '5xx-exception',
      what: '5xx with the exception body',
      fault: { server: { kind: 'exception500', displayMessages: ['Server error (500)', 'try again later'] } },
    },
    { name: '5xx-bare', what: '5xx without the exception body', fault: { server: { kind: 'status', status: 503 } } },
    {
      name: '4xx-exception',
      what: '4xx with the exception body',
      fault: { server: { kind: 'exception', status: 409, exceptionType: 'ActionInProgressException', displayMessages: ['Refused (409)', 'ask the staff'] } },
    },
    { name: 'html-502', what: 'HTML 502 from a proxy', fault: { server: 'html502' } },
    { name: 'non-json', what: 'non-JSON 200', fault: { server: 'non-json' } },
    { name: 'truncated-json', what: 'truncated JSON', fault: { server: 'truncated' } },
    { name: 'empty-200', what: 'empty 200', fault: { server: 'empty' } },
    { name: 'unknown-command', what: 'an unknown command', fault: { server: 'unknown-command' } },
    { name: 'foreign-box', what: 'a box of another station', fault: { server: 'foreign-box' } },
    { name: 'redirect', what: 'a redirect (307)', fault: { server: 'redirect' } },
    { name: 'huge-body', what: 'a multi-megabyte body (4 MiB)', fault: { server: 'huge' } },
  ];
}

/** The certificates of one run: the private CA the station trusts, and the server's bad ones. */
export interface FaultCerts {
  readonly ca: Ca;
  readonly good: Leaf;
  readonly unknownCa: Leaf;
  readonly otherHost: Leaf;
  /** Valid from a year from now: to the station that is a board clock a year behind. */
  readonly notYetValid: Leaf;
}

/** Made once per test file or soak (openssl, well under a second). Server name: localhost. */
export function makeFaultCerts(dir = mkdtempSync(join(tmpdir(), 'fault-certs-'))): FaultCerts {
  const ca = makeCa(dir, 'Library Private CA');
  const stranger = makeCa(dir, 'Unknown CA');
  const names = ['DNS:localhost', 'IP:127.0.0.1'];
  const year = 365 * 24 * 3600_000;
  return {
    ca,
    good: makeLeaf(ca, 'server', { altNames: names }),
    unknownCa: makeLeaf(stranger, 'server', { altNames: names }),
    otherHost: makeLeaf(ca, 'other-host', { altNames: ['DNS:other-library.example'] }),
    notYetValid: makeLeaf(ca, 'not-yet-valid', { altNames: names, notBefore: new Date(Date.now() + year) }),
  };
}

/** The reference server behind the gateway and its terminators; `apply` and `heal` switch faults. */
export class FaultyServer {
  readonly server: ReferenceServer;
  readonly lookup = new SwitchableLookup();
  private readonly terminators: Record<'good' | 'unknownCa' | 'otherHost' | 'notYetValid', TlsTerminator>;
  private gateway: FaultGateway | null = null;

  constructor(
    readonly certs: FaultCerts,
    options: ReferenceServerOptions,
  ) {
    this.server = new ReferenceServer(options);
    const backend = (): number => Number(new URL(this.server.url).port);
    this.terminators = {
      good: new TlsTerminator(certs.good, backend),
      unknownCa: new TlsTerminator(certs.unknownCa, backend),
      otherHost: new TlsTerminator(certs.otherHost, backend),
      notYetValid: new TlsTerminator(certs.notYetValid, backend),
    };
  }

  /** Starts everything; returns the base URL the station is configured with (https://localhost:PORT). */
  async start(): Promise<string> {
    await this.server.start();
    for (const t of Object.values(this.terminators)) await t.start();
    this.gateway = new FaultGateway({ kind: 'forward', port: this.terminators.good.port });
    const port = await this.gateway.start();
    return `https://localhost:${port}`;
  }

  private get gw(): FaultGateway {
    if (this.gateway === null) throw new Error('FaultyServer not started');
    return this.gateway;
  }

  /**
   * Arm a fault: a server fault on `endpoint` (or '*'), a net fault for every endpoint. Until heal();
   * a server fault with `times` hits only that many requests.
   */
  async apply(def: FaultDef, endpoint: Endpoint | '*', opts: { times?: number } = {}): Promise<void> {
    if ('server' in def.fault) {
      this.server.setFault(endpoint, def.fault.server, opts);
      return;
    }
    switch (def.fault.net) {
      case 'refused':
        return this.gw.set({ kind: 'refuse' });
      case 'tls-stall':
        return this.gw.set({ kind: 'stall' });
      case 'tls-unknown-ca':
        return this.gw.set({ kind: 'forward', port: this.terminators.unknownCa.port });
      case 'tls-other-host':
        return this.gw.set({ kind: 'forward', port: this.terminators.otherHost.port });
      case 'clock-behind':
        return this.gw.set({ kind: 'forward', port: this.terminators.notYetValid.port });
      case 'dns':
        // Pooled connections were made with the old answer: a new lookup happens on a new connection.
        this.lookup.failing = true;
        return this.gw.set({ kind: 'forward', port: this.terminators.good.port });
    }
  }

  /** Every fault off; open connections cut (so none carries a fault's state over). */
  async heal(): Promise<void> {
    this.server.clearFaults();
    this.lookup.failing = false;
    const healthy = { kind: 'forward', port: this.terminators.good.port } as const;
    const now = this.gw.current();
    if (now.kind !== 'forward' || now.port !== healthy.port) await this.gw.set(healthy);
  }

  async stop(): Promise<void> {
    await this.gateway?.stop();
    for (const t of Object.values(this.terminators)) await t.stop();
    await this.server.stop();
  }
}
