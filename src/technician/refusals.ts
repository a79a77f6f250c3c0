/**
 * Refusals before authentication, summarised: anyone who can reach the technician port can make it
 * refuse requests as fast as the network allows, and one log line per refusal would let them
 * write the station's log (and push the station's own warnings out of the in-memory tail that
 * /api/logs shows). So each kind of refusal is logged at most once per interval: the first one at
 * once (so a technician who mistyped a token sees why), then, while they keep coming, one line per
 * interval with the count.
 *
 * Transitions per kind: quiet -> (refusal) logged now, window open -> (refusals) counted ->
 * (window ends, count > 0) one summary line, next window open -> (window ends, count 0) quiet.
 */
import type { Logger } from '../log.js';

/** What was refused before a token was accepted. */
export type RefusalKind =
  /** No Authorization: Bearer header (401). */
  | 'no-token'
  /** A token the station does not know (401). */
  | 'wrong-token'
  /** A credential in the query string (400; the token, if real, should be revoked). */
  | 'token-in-url'
  /** A request target that is no URL (400). */
  | 'bad-target'
  /** A socket without an authenticated request closed to make room (connection caps). */
  | 'evicted';

const WHAT: Record<RefusalKind, { level: 'info' | 'warn'; text: string }> = {
  'no-token': { level: 'info', text: 'technician port: a request without a token was refused (401)' },
  'wrong-token': { level: 'warn', text: 'technician port: a request with a wrong token was refused (401)' },
  'token-in-url': { level: 'warn', text: 'technician port: a credential in a URL was refused (if it was a real token, revoke it: URLs end up in logs)' },
  'bad-target': { level: 'info', text: 'technician port: a request target that is no URL was refused (400)' },
  evicted: { level: 'warn', text: 'technician port: an unauthenticated connection was closed to make room (too many open from one address, or in all)' },
};

interface Window {
  count: number;
  readonly timer: NodeJS.Timeout;
}

export class RefusalLog {
  private readonly windows = new Map<RefusalKind, Window>();
  private closed = false;

  constructor(
    private readonly log: Logger,
    /** debug.refusalLogIntervalMs */
    private readonly intervalMs: number,
  ) {}

  /** One refusal of `kind`; `from` is the peer address (logged with the first of a window). */
  refused(kind: RefusalKind, from: string | undefined): void {
    if (this.closed) return;
    const w = this.windows.get(kind);
    if (w !== undefined) {
      w.count++;
      return;
    }
    const { level, text } = WHAT[kind];
    this.log[level]({ refusal: kind, from: from ?? null }, text);
    this.open(kind);
  }

  private open(kind: RefusalKind): void {
    const timer = setTimeout(() => this.endWindow(kind), this.intervalMs);
    timer.unref();
    this.windows.set(kind, { count: 0, timer });
  }

  private endWindow(kind: RefusalKind): void {
    const w = this.windows.get(kind);
    this.windows.delete(kind);
    if (w === undefined || w.count === 0 || this.closed) return;
    const { level, text } = WHAT[kind];
    const seconds = Number((this.intervalMs / 1000).toFixed(this.intervalMs < 10_000 ? 1 : 0));
    this.log[level]({ refusal: kind, count: w.count, seconds }, `${text}: ${w.count} more in the last ${seconds} s`);
    this.open(kind);
  }

  /** Stop: pending counts are dropped, no timer is left behind. */
  close(): void {
    this.closed = true;
    for (const w of this.windows.values()) clearTimeout(w.timer);
    this.windows.clear();
  }
}
