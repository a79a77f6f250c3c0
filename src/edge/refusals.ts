/**
 * Refusals before authentication, summarised: anyone who can reach a port can make it refuse
 * requests as fast as the network allows, and one log line per refusal would let them write the
 * station's log (and push the station's own warnings out of the in-memory tail that /api/logs
 * shows). So each kind of refusal is logged at most once per interval: the first one at once (so a
 * technician who mistyped a token sees why), then, while they keep coming, one line per interval
 * with the count. Each port names its kinds and their lines (the technician port's below, the
 * kiosk page's in its server); the cadence is this one.
 *
 * Transitions per kind: quiet -> (refusal) logged now, window open -> (refusals) counted ->
 * (window ends, count > 0) one summary line, next window open -> (window ends, count 0) quiet.
 */
import type { Logger } from '../log.js';

/** How a kind of refusal is logged. */
export interface RefusalText {
  readonly level: 'info' | 'warn';
  readonly text: string;
}

interface Window {
  count: number;
  readonly timer: NodeJS.Timeout;
}

export class RefusalLog<K extends string> {
  private readonly windows = new Map<K, Window>();
  private closed = false;

  constructor(
    private readonly log: Logger,
    /** The port's refusalLogIntervalMs. */
    private readonly intervalMs: number,
    /** The port's kinds of refusal and their lines. */
    private readonly texts: Readonly<Record<K, RefusalText>>,
  ) {}

  /** One refusal of `kind`; `from` is the peer address (logged with the first of a window). */
  refused(kind: K, from: string | undefined): void {
    if (this.closed) return;
    const w = this.windows.get(kind);
    if (w !== undefined) {
      w.count++;
      return;
    }
    const { level, text } = this.texts[kind];
    this.log[level]({ refusal: kind, from: from ?? null }, text);
    this.open(kind);
  }

  private open(kind: K): void {
    const timer = setTimeout(() => this.endWindow(kind), this.intervalMs);
    timer.unref();
    this.windows.set(kind, { count: 0, timer });
  }

  private endWindow(kind: K): void {
    const w = this.windows.get(kind);
    this.windows.delete(kind);
    if (w === undefined || w.count === 0 || this.closed) return;
    const { level, text } = this.texts[kind];
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
