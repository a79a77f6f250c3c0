/**
 * The base of every driver that keeps one hardware link open: the serial scanners and display, the
 * HID scanners and keypad, the I2C displays — and the next driver on serialport, hidraw or a bus.
 *
 * What it does for them, the same way for each:
 * - health: "<name> not opened yet" until the first open; HEALTHY while the link is up; "<name>
 *   missing (<reason>)" while it is down (`downDetail` may word it otherwise); listeners hear only
 *   changes;
 * - the link reopened with capped exponential backoff after a loss or a failed open (Reconnector:
 *   an open slower than `openTimeoutMs` counts as failed, "device missing" / "device reconnected"
 *   log lines);
 * - `start()`: the first attempt (a missing device is health, not an error); `close()`: once,
 *   `onClose()` (the subclass stops its timers), health listeners dropped, the link closed (waiting
 *   at most `openTimeoutMs` for a device that has gone away).
 *
 * A subclass says how to open its link (`openLink`), and may react to it coming up (`linkUp`) and
 * going down (`linkDown`: drop half-read input). The link calls `lost(reason)` when it goes away.
 */
import type { Logger } from 'pino';
import { DeviceBase, HEALTHY, faulty } from './device-base.js';
import { Reconnector, type BackoffOptions, type Link } from './reconnect.js';

/** What every reconnecting driver's options carry (the profile's `reconnect` and `openTimeoutMs`). */
export interface ReconnectingOptions {
  readonly reconnect: BackoffOptions;
  /** An open attempt (or the final close) taking longer than this counts as failed. */
  readonly openTimeoutMs: number;
  readonly log: Logger;
}

export abstract class ReconnectingDevice<L extends Link> extends DeviceBase {
  /** Set once close() is called: late reports and writes are ignored. */
  protected closed = false;
  protected readonly log: Logger;
  private readonly reconnector: Reconnector<L>;

  constructor(name: string, o: ReconnectingOptions) {
    super(name, { ok: false, detail: `${name} not opened yet` });
    this.log = o.log;
    this.reconnector = new Reconnector<L>({
      name,
      backoff: o.reconnect,
      openTimeoutMs: o.openTimeoutMs,
      log: o.log,
      open: (lost) => this.openLink(lost),
      onUp: (link) => {
        this.setHealth(HEALTHY);
        this.linkUp(link);
      },
      onDown: (reason) => {
        this.linkDown(reason);
        this.setHealth(faulty(this.downDetail(reason)));
      },
    });
  }

  /** Open the device; rejects when it cannot be opened. The link calls `lost` when it goes away. */
  protected abstract openLink(lost: (reason: string) => void): Promise<L>;
  /** The link is open (health is already HEALTHY). */
  protected linkUp(_link: L): void {}
  /** The link is gone or could not be opened (before health says so): drop half-read input. */
  protected linkDown(_reason: string): void {}
  /** close() was called: stop timers, drop listeners. */
  protected onClose(): void {}
  /** What is owed to the device before its link closes (a write under way), or null: nothing. */
  protected settleBeforeClose(): Promise<void> | null {
    return null;
  }
  /** The health detail while the device is missing. */
  protected downDetail(reason: string): string {
    return `${this.name} missing (${reason})`;
  }

  /** The open link, or null while the device is missing. */
  protected link(): L | null {
    return this.reconnector.current();
  }

  /** First open attempt; a missing device is not an error here (health says so, retries run). */
  start(): Promise<void> {
    return this.reconnector.start();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onClose();
    this.clearHealthListeners();
    const owed = this.settleBeforeClose();
    if (owed) await owed;
    await this.reconnector.stop();
  }
}
