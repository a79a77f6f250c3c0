/**
 * Messages between the soak (the station's process) and its server process (soak/server.ts) over
 * Node's IPC channel: one request, one reply, matched by id.
 */
import type { ChildProcess } from 'node:child_process';

export type SoakRequest =
  | { readonly op: 'start'; readonly stationFile: string }
  | { readonly op: 'apply'; readonly fault: string }
  | { readonly op: 'heal' }
  | { readonly op: 'deposit'; readonly box: number }
  | { readonly op: 'pickup'; readonly box: number }
  | { readonly op: 'report' };

export interface ServerReport {
  /** /state requests that reached the server (every attempt), and distinct ones (by eventId). */
  readonly stateRequests: number;
  readonly distinctStates: number;
  /** Door transitions per box number as the server saw them in the /state bodies it received. */
  readonly transitionsSeen: Readonly<Record<string, number>>;
  /** Each box's state in the last /state received. */
  readonly lastReported: Readonly<Record<string, string>>;
  readonly requests: number;
  /** Deposits stored and pickups done, from the server's history counters. */
  readonly depositsStored: number;
  readonly pickupsDone: number;
  readonly rssMiB: number;
}

export type SoakReply =
  | { readonly op: 'start'; readonly baseUrl: string; readonly caFile: string }
  | { readonly op: 'deposit'; readonly identifierValue: string }
  | { readonly op: 'pickup'; readonly pin: string }
  | { readonly op: 'report'; readonly report: ServerReport }
  | { readonly op: 'ok' };

export interface Envelope<T> {
  readonly id: number;
  readonly body: T;
  readonly error?: string;
}

/** Calls into the server process. */
export class ServerProcess {
  private next = 1;
  private readonly waiting = new Map<number, { resolve: (r: SoakReply) => void; reject: (e: Error) => void }>();

  constructor(readonly child: ChildProcess) {
    child.on('message', (m: Envelope<SoakReply>) => {
      const w = this.waiting.get(m.id);
      if (w === undefined) return;
      this.waiting.delete(m.id);
      if (m.error !== undefined) w.reject(new Error(`soak server: ${m.error}`));
      else w.resolve(m.body);
    });
    child.on('exit', (code) => {
      for (const w of this.waiting.values()) w.reject(new Error(`soak server exited (${code})`));
      this.waiting.clear();
    });
  }

  call<O extends SoakReply['op']>(request: SoakRequest, expect: O): Promise<Extract<SoakReply, { op: O }>> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, {
        resolve: (r) => (r.op === expect ? resolve(r as Extract<SoakReply, { op: O }>) : reject(new Error(`soak server answered ${r.op} to ${request.op}`))),
        reject,
      });
      this.child.send({ id, body: request } satisfies Envelope<SoakRequest>);
    });
  }
}
