/**
 * What the HID scanner and the HID keypad share: find the device by vendor/product (+serial or
 * path), keep it open with reconnection, decode boot reports into key presses, and report health
 * ("<name> missing") while it is gone.
 */
import type { Logger } from 'pino';
import type { BackoffOptions } from '../reconnect.js';
import { ReconnectingDevice } from '../reconnecting-device.js';
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

export abstract class HidInputDevice extends ReconnectingDevice<HidLink> {
  private readonly decoder: BootReportDecoder;
  private readonly backend: HidBackend;

  constructor(
    label: string,
    private readonly hid: HidDeviceOptions,
  ) {
    super(`${label} ${describeMatch(hid.match)}`, hid);
    this.decoder = new BootReportDecoder({ reportId: hid.reportId });
    this.backend = hid.backend ?? nodeHidBackend;
  }

  protected openLink(lost: (reason: string) => void): Promise<HidLink> {
    return openHidLink({
      backend: this.backend,
      match: this.hid.match,
      presenceCheckMs: this.hid.presenceCheckMs,
      onReport: (r) => {
        if (!this.closed) this.onReport(this.decoder.push(r));
      },
      lost,
    });
  }

  protected override linkUp(link: HidLink): void {
    this.decoder.reset();
    this.log.info({ device: this.name, path: link.info.path, product: link.info.product }, 'HID device open');
  }

  /** The device went away: drop any half-typed input. */
  protected abstract override linkDown(reason: string): void;
  /** One decoded input report. */
  protected abstract onReport(r: ReportResult): void;
}
