/**
 * Metrics of one running station: observes its runtime events from the start, loads prom-client
 * (registry.ts, a dynamic import) only once the first protocol event has finished or the first
 * scrape asks, then serves /metrics and writes the textfile.
 *
 * Why the delay: loading prom-client costs start-up time, and the first /state must not wait for
 * it. Events seen before the load are kept (only those metrics count, at most MAX_BUFFERED) and
 * counted when it completes, so nothing from the first seconds is lost.
 *
 * Metrics observe; they never sit on the scan path: an event costs a type check and a push (or a
 * few counter increments once loaded), and nothing the station does waits for them.
 */
import type { Logger } from 'pino';
import type { Unsubscribe } from '../devices/types.js';
import { errorMessage } from '../errors.js';
import type { RuntimeEvent } from '../station/runtime.js';
import type { ConsoleLoginLog } from '../service/console-logins.js';
import type { MetricsConfig } from './config.js';
import type { StationMetrics, StationRecorder } from './registry.js';
import { startTextfile, type TextfileWriter } from './textfile.js';
import { isCounted, type CountedEvent, type StationView } from './view.js';

/** Events kept while prom-client loads (a station produces a handful in that time). */
export const MAX_BUFFERED = 10_000;

export interface MetricsServiceOptions {
  readonly config: MetricsConfig;
  readonly view: StationView;
  /** The station's runtime events (the daemon: the technician port's observer, which follows reloads). */
  readonly subscribe: (listener: (e: RuntimeEvent | { readonly type: string }) => void) => Unsubscribe;
  readonly log: Logger;
  /** The process's reader of failed console logins; null or absent: not watched. */
  readonly consoleLogins?: ConsoleLoginLog | null;
  /** Monotonic clock, ms. */
  readonly now?: () => number;
}

export interface Scrape {
  readonly contentType: string;
  readonly body: string;
}

export class MetricsService {
  private buffered: CountedEvent[] = [];
  private dropped = 0;
  private recorder: StationRecorder | null = null;
  private loading: Promise<StationMetrics> | null = null;
  private textfile: TextfileWriter | null = null;
  private unsubscribe: Unsubscribe = () => undefined;
  private stopped = false;
  private readonly since: number;

  /** Only stores what it is given; start() subscribes. */
  constructor(private readonly opts: MetricsServiceOptions) {
    this.since = (opts.now ?? (() => performance.now()))();
  }

  start(): void {
    this.unsubscribe = this.opts.subscribe((e) => {
      if (!isCounted(e)) return;
      if (this.recorder !== null) return this.recorder.note(e);
      if (this.buffered.length < MAX_BUFFERED) this.buffered.push(e);
      else this.dropped++;
      // After the event's own work (setImmediate): the first answer is handled before the import.
      if (e.type === 'event-done' && this.loading === null) {
        setImmediate(() => {
          this.load().catch(() => undefined); // logged by load()
        });
      }
    });
  }

  /** prom-client and the registry, loaded once; the textfile starts with it. */
  load(): Promise<StationMetrics> {
    this.loading ??= (async () => {
      const [{ StationMetrics }, { readInstalledVersion }, { readInstallRecord }] = await Promise.all([
        import('./registry.js'),
        import('../service/release-status.js'),
        import('../service/install-record.js'),
      ]);
      const { config, view, log } = this.opts;
      const statusFile = config.installStatusFile;
      const logins = this.opts.consoleLogins ?? null;
      const metrics = new StationMetrics({
        processMetrics: true,
        eventLoopResolutionMs: config.eventLoopResolutionMs,
        ...(statusFile === null ? {} : { installedVersion: () => readInstalledVersion(statusFile), installRecord: () => readInstallRecord(statusFile) }),
        ...(logins === null ? {} : { consoleLogins: () => logins.read() }),
        ...(this.opts.now ? { now: this.opts.now } : {}),
      });
      const recorder = metrics.add(view, this.since);
      for (const e of this.buffered) recorder.note(e);
      if (this.dropped > 0) log.warn({ dropped: this.dropped }, 'metrics: events before prom-client loaded were dropped (not counted)');
      this.buffered = [];
      this.recorder = recorder;
      if (config.textfileDir !== null && !this.stopped) {
        this.textfile = startTextfile({ dir: config.textfileDir, intervalMs: config.textfileIntervalMs, render: () => metrics.render(), log });
        log.info({ path: this.textfile.path, intervalMs: config.textfileIntervalMs }, 'metrics textfile enabled');
      }
      return metrics;
    })().catch((e: unknown) => {
      this.opts.log.error({ error: errorMessage(e) }, 'metrics could not be loaded; the station runs without them');
      throw e;
    });
    return this.loading;
  }

  /** The current metrics in the Prometheus text format (loads prom-client on the first call). */
  async scrape(): Promise<Scrape> {
    const metrics = await this.load();
    return { contentType: metrics.contentType, body: await metrics.render() };
  }

  /** Stop observing; a textfile write in progress finishes. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe();
    this.unsubscribe = () => undefined;
    await this.textfile?.stop();
    this.textfile = null;
  }
}
