/**
 * What the HID scanner and the HID keypad share: find the device by vendor/product (+serial or
 * path), keep it open with reconnection, decode boot reports into key presses, and report health
 * ("<name> missing") while it is gone.
 */
import type { Logger } from 'pino';
import type { BackoffOptions } from '../reconnect.js';
import { ReconnectingDevice } from '../reconnecting-device.js';
import type { InputNodesView } from '../types.js';
import { describeInputNodes } from './input-nodes.js';
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
  private input: InputNodesView | null = null;

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
      inputNodesChanged: (nodes) => {
        if (this.closed) return;
        this.input = describeInputNodes(nodes);
        this.logInputNodes('HID device input nodes changed', this.input);
      },
    });
  }

  /** Its input nodes as last seen (the technician status); null before its first open. */
  inputNodes(): InputNodesView | null {
    return this.input;
  }

  protected override linkUp(link: HidLink): void {
    this.decoder.reset();
    this.input = link.inputNodes === null ? null : describeInputNodes(link.inputNodes);
    this.log.info({ device: this.name, path: link.info.path, product: link.info.product, input: this.input?.text }, 'HID device open');
    if (this.input?.problem != null) this.logInputNodes('HID device input nodes', this.input);
  }

  /** A node that is a keyboard beyond the station is a warning: a card number or PIN would reach it too. */
  private logInputNodes(msg: string, view: InputNodesView): void {
    const fields = { device: this.name, inputNodes: view.nodes };
    if (view.problem !== null) this.log.warn(fields, `${msg}: ${view.problem}`);
    else this.log.info(fields, `${msg}: ${view.text}`);
  }

  /** The device went away: drop any half-typed input. */
  protected abstract override linkDown(reason: string): void;
  /** One decoded input report. */
  protected abstract onReport(r: ReportResult): void;
}
