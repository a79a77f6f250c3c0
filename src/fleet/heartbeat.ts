/**
 * Heartbeat spacing per station: the time between consecutive /state of the same station, where
 * it is observed (sent by the station, or received at the server). Bounded memory for a run of
 * any length: per-station last time and largest gap, plus a fixed histogram for percentiles.
 */
import type { SimLogger } from '../reference-server/index.js';

export interface HeartbeatSummary {
  /** Stations with at least one /state since the window opened. */
  readonly seen: number;
  /** Expected stations with fewer than two /state since the window opened (no gap to judge). */
  readonly silent: number;
  readonly gaps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Stations whose largest gap exceeded the limit. */
  readonly late: number;
  readonly limitMs: number;
}

const BUCKETS = 2_000;

export class HeartbeatTracker {
  private readonly last = new Map<string, number>();
  private readonly maxGap = new Map<string, number>();
  private readonly sinceWindow = new Map<string, number>();
  private readonly histogram = new Uint32Array(BUCKETS + 1);
  private readonly bucketMs: number;
  private gapCount = 0;

  /** `intervalMs`: the heartbeat interval; the histogram spans two of them at 1/1000 resolution. */
  constructor(private readonly intervalMs: number) {
    this.bucketMs = Math.max(1, (2 * intervalMs) / BUCKETS);
  }

  record(stationId: string, at: number): void {
    const prev = this.last.get(stationId);
    this.last.set(stationId, at);
    const n = this.sinceWindow.get(stationId) ?? 0;
    this.sinceWindow.set(stationId, n + 1);
    // A gap counts only when both of its ends are inside the window.
    if (prev === undefined || n === 0) return;
    const gap = at - prev;
    this.maxGap.set(stationId, Math.max(this.maxGap.get(stationId) ?? 0, gap));
    const bucket = Math.min(BUCKETS, Math.floor(gap / this.bucketMs));
    this.histogram[bucket] = (this.histogram[bucket] ?? 0) + 1;
    this.gapCount++;
  }

  /** Forget gaps so far (e.g. the start-up ramp); a station's next gap counts from its next /state. */
  openWindow(): void {
    this.maxGap.clear();
    this.sinceWindow.clear();
    this.histogram.fill(0);
    this.gapCount = 0;
  }

  /** `tolerance`: a gap up to intervalMs × (1 + tolerance) is in time (request latency jitters). */
  summary(expected: Iterable<string>, tolerance = 0.1): HeartbeatSummary {
    const limitMs = this.intervalMs * (1 + tolerance);
    let silent = 0;
    for (const id of expected) if ((this.sinceWindow.get(id) ?? 0) < 2) silent++;
    let late = 0;
    let maxMs = 0;
    for (const g of this.maxGap.values()) {
      if (g > limitMs) late++;
      maxMs = Math.max(maxMs, g);
    }
    return { seen: this.sinceWindow.size, silent, gaps: this.gapCount, p50Ms: this.percentile(50), p99Ms: this.percentile(99), maxMs, late, limitMs };
  }

  private percentile(p: number): number {
    if (this.gapCount === 0) return Number.NaN;
    const rank = Math.ceil((p / 100) * this.gapCount);
    let seen = 0;
    for (let i = 0; i <= BUCKETS; i++) {
      seen += this.histogram[i] ?? 0;
      if (seen >= rank) return (i + 0.5) * this.bucketMs;
    }
    return Number.NaN;
  }
}

/** A reference-server logger that feeds answered /state requests into `tracker` (server-side spacing). */
export function heartbeatLogger(tracker: HeartbeatTracker, now: () => number = () => performance.now()): SimLogger {
  const onLine = (obj: object): void => {
    const r = obj as { endpoint?: unknown; station?: unknown; status?: unknown };
    if (r.endpoint === 'state' && r.status === 200 && typeof r.station === 'string') tracker.record(r.station, now());
  };
  return { info: onLine, warn: onLine };
}
