/**
 * Keeps one hardware link open: opens it, notices when it is lost, and reopens it with capped
 * exponential backoff until stopped. Drivers use it through ReconnectingDevice
 * (reconnecting-device.ts): unplug/replug is a normal event in the field (a technician swaps a scanner).
 *
 * Timing: delays are setTimeout-based (fake timers drive them in tests); "down for" durations
 * are measured with the monotonic clock (performance.now()), never Date.
 */
import type { Logger } from 'pino';
import { DeviceError, errorMessage } from '../errors.js';
import { Backoff, settlesWithin, type BackoffOptions } from '../time.js';

/**
 * The retry schedule is the code base's one (src/time.ts), named here too because every driver's
 * options carry it as `reconnect`.
 */
export { Backoff, backoffDelay, type BackoffOptions } from '../time.js';

/** An open link to a device. close() must not wait on a device that has gone away. */
export interface Link {
  close(): Promise<void>;
}

export interface ReconnectorOptions<L extends Link> {
  /** For log lines, e.g. "barcode scanner /dev/pickup-barcode". */
  readonly name: string;
  readonly backoff: BackoffOptions;
  /** An open attempt that takes longer than this counts as failed (its late success is closed). */
  readonly openTimeoutMs: number;
  /**
   * Open the device. The link calls `lost(reason)` when it goes away (the reconnector ignores
   * calls from links it has already given up). Rejects when the device cannot be opened.
   */
  readonly open: (lost: (reason: string) => void) => Promise<L>;
  readonly onUp: (link: L) => void;
  /** The device is (still) missing; `reason` says why in words a technician can act on. */
  readonly onDown: (reason: string) => void;
  readonly log: Logger;
  readonly now?: () => number;
}

export class Reconnector<L extends Link> {
  private link: L | null = null;
  private generation = 0;
  private readonly backoff: Backoff;
  private stopped = false;
  private downSince: number | null = null;
  /** A loss reported by a link while its open() was still pending. */
  private earlyLoss: string | null = null;
  private readonly now: () => number;

  constructor(private readonly o: ReconnectorOptions<L>) {
    this.now = o.now ?? (() => performance.now());
    this.backoff = new Backoff(o.backoff);
  }

  /** The open link, or null while the device is missing. */
  current(): L | null {
    return this.link;
  }

  /** Make the first attempt; resolves when it has succeeded or failed (failure schedules retries). */
  start(): Promise<void> {
    return this.attempt();
  }

  /** Stop retrying and close the link (waiting at most openTimeoutMs for it). Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.generation++;
    this.backoff.cancel();
    const l = this.link;
    this.link = null;
    if (!l) return;
    await settlesWithin(l.close(), this.o.openTimeoutMs);
  }

  private async attempt(): Promise<void> {
    if (this.stopped) return;
    const gen = ++this.generation;
    this.earlyLoss = null;
    let link: L;
    try {
      link = await this.openWithTimeout(gen);
    } catch (e) {
      if (this.stopped || gen !== this.generation) return;
      this.down(errorMessage(e));
      return;
    }
    if (this.stopped || gen !== this.generation) {
      await link.close().catch(() => undefined);
      return;
    }
    if (this.earlyLoss !== null) {
      void link.close().catch(() => undefined);
      this.down(this.earlyLoss);
      return;
    }
    this.link = link;
    this.backoff.reset();
    if (this.downSince !== null) {
      this.o.log.info({ device: this.o.name, downForMs: Math.round(this.now() - this.downSince) }, 'device reconnected');
    }
    this.downSince = null;
    this.o.onUp(link);
  }

  private openWithTimeout(gen: number): Promise<L> {
    return new Promise<L>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        reject(new DeviceError(this.o.name, `open timed out after ${this.o.openTimeoutMs} ms`));
      }, this.o.openTimeoutMs);
      this.o
        .open((reason) => this.lost(gen, reason))
        .then(
          (link) => {
            clearTimeout(timer);
            if (settled) void link.close().catch(() => undefined);
            else resolve(link);
            settled = true;
          },
          (e: unknown) => {
            clearTimeout(timer);
            if (!settled) reject(e instanceof Error ? e : new Error(String(e)));
            settled = true;
          },
        );
    });
  }

  private lost(gen: number, reason: string): void {
    if (this.stopped || gen !== this.generation) return;
    if (this.link === null) {
      this.earlyLoss ??= reason;
      return;
    }
    const l = this.link;
    this.link = null;
    this.backoff.reset();
    // Close without awaiting: after an unplug a close may never complete (see driver-rig notes).
    void l.close().catch(() => undefined);
    this.down(reason);
  }

  private down(reason: string): void {
    const delay = this.backoff.nextDelay();
    if (this.downSince === null) {
      this.downSince = this.now();
      this.o.log.warn({ device: this.o.name, reason, retryInMs: delay }, 'device missing');
    } else {
      this.o.log.debug({ device: this.o.name, reason, retryInMs: delay }, 'device still missing');
    }
    this.o.onDown(reason);
    this.backoff.retry(() => {
      this.attempt().catch((e: unknown) => this.o.log.error({ device: this.o.name, error: errorMessage(e) }, 'reconnect attempt failed'));
    });
  }
}
