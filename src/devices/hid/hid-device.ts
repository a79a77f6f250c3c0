/**
 * What the HID scanner and the HID keypad share: find the device by vendor/product (+serial or
 * path), keep it open with reconnection, decode boot reports into key presses, and report health
 * ("<name> missing") while it is gone.
 */
import type { Logger } from 'pino';
import { HEALTHY, DeviceBase } from '../device-base.js';
import { Reconnector, type BackoffOptions } from '../input/reconnect.js';
import { BootReportDecoder, type ReportResult } from './keyboard.js';
import { describeMatch, nodeHidBackend, openHidLink, type HidBackend, type HidLink, type HidMatch } from './link.js';

export interface HidDeviceOptions {
  readonly match: HidMatch;
  /** The report id prefixed to input reports, when the device uses one. */
  readonly reportId: number | null;
  readonly presenceCheckMs: number;
  readonly reconnect: BackoffOptions;
  readonly openTimeoutMs: number;
  readonly log: Logger;
  /** The hardware boundary; tests may replace it. */
  readonly backend?: HidBackend;
}

export abstract class HidInputDevice extends DeviceBase {
  private readonly decoder: BootReportDecoder;
  private readonly reconnector: Reconnector<HidLink>;
  protected closed = false;

  constructor(label: string, o: HidDeviceOptions) {
    const name = `${label} ${describeMatch(o.match)}`;
    super(name, { ok: false, detail: `${name} not opened yet` });
    this.decoder = new BootReportDecoder({ reportId: o.reportId });
    const backend = o.backend ?? nodeHidBackend;
    this.reconnector = new Reconnector<HidLink>({
      name,
      backoff: o.reconnect,
      openTimeoutMs: o.openTimeoutMs,
      log: o.log,
      open: (lost) =>
        openHidLink({
          backend,
          match: o.match,
          presenceCheckMs: o.presenceCheckMs,
          onReport: (r) => {
            if (!this.closed) this.onReport(this.decoder.push(r));
          },
          lost,
        }),
      onUp: (link) => {
        this.decoder.reset();
        o.log.info({ device: name, path: link.info.path, product: link.info.product }, 'HID device open');
        this.setHealth(HEALTHY);
      },
      onDown: (reason) => {
        this.onLinkDown();
        this.setHealth({ ok: false, detail: `${name} missing (${reason})` });
      },
    });
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
    await this.reconnector.stop();
  }

  /** One decoded input report. */
  protected abstract onReport(r: ReportResult): void;
  /** The device went away: drop any half-typed input. */
  protected abstract onLinkDown(): void;
  protected abstract onClose(): void;
}
