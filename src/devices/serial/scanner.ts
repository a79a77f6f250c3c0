/**
 * A barcode or RFID reader on a serial port (USB-serial or a UART), implementing IdentifierScanner.
 *
 * Health: not ok from the moment the port is missing (at start or after an unplug) until it is
 * open again, with a detail naming the configured path; the runtime turns that into st DOWN.
 * Reconnection: ReconnectingDevice (capped exponential backoff).
 */
import type { Logger } from 'pino';
import type { IdentifierScanner, IdentifierType, Unsubscribe } from '../types.js';
import { Listeners } from '../device-base.js';
import type { BackoffOptions } from '../reconnect.js';
import { ReconnectingDevice } from '../reconnecting-device.js';
import type { FrameResult } from '../vocabulary/frames.js';
import { FrameDecoder, type FramingOptions } from './framing.js';
import { openSerialPort, type SerialLink, type SerialOpener, type SerialPortOptions } from './link.js';
import { describeLoss } from './loss.js';

export interface SerialScannerOptions {
  readonly identifierType: IdentifierType;
  readonly port: SerialPortOptions;
  readonly framing: FramingOptions;
  /** A pause this long ends a frame (terminator `none`) or drops a stale partial one. */
  readonly idleGapMs: number;
  readonly reconnect: BackoffOptions;
  readonly openTimeoutMs: number;
  readonly log: Logger;
  /** The hardware boundary; tests may replace it. */
  readonly opener?: SerialOpener;
}

export function scannerLabel(t: IdentifierType): string {
  return t === 'RFID' ? 'RFID reader' : 'barcode scanner';
}

export class SerialScanner extends ReconnectingDevice<SerialLink> implements IdentifierScanner {
  readonly identifierType: IdentifierType;
  private readonly scans = new Listeners<[string]>();
  private readonly decoder: FrameDecoder;
  private readonly opener: SerialOpener;
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly o: SerialScannerOptions) {
    super(`${scannerLabel(o.identifierType)} ${o.port.path}`, o);
    this.identifierType = o.identifierType;
    this.decoder = new FrameDecoder(o.framing);
    this.opener = o.opener ?? openSerialPort;
  }

  onScan(listener: (value: string) => void): Unsubscribe {
    return this.scans.add(listener);
  }

  protected openLink(lost: (reason: string) => void): Promise<SerialLink> {
    return this.opener(this.o.port, { onData: (c) => this.onData(c), lost: (loss) => lost(describeLoss(loss)) });
  }

  protected override linkDown(): void {
    this.discardPartial();
  }

  protected override onClose(): void {
    this.clearIdle();
    this.scans.clear();
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    for (const r of this.decoder.push(chunk)) this.deliver(r);
    this.clearIdle();
    if (this.decoder.hasPartial()) {
      this.idleTimer = setTimeout(() => {
        this.idleTimer = null;
        const r = this.decoder.flush();
        if (r) this.deliver(r);
      }, this.o.idleGapMs);
    }
  }

  private deliver(r: FrameResult): void {
    if (r.kind === 'frame') {
      this.scans.emit(r.value);
      return;
    }
    // Identifiers may be logged truncated; a scanner never carries a PIN.
    this.o.log.warn({ device: this.name, reason: r.reason, length: r.length, preview: r.preview }, 'scanner frame dropped');
  }

  private discardPartial(): void {
    this.clearIdle();
    const r = this.decoder.discard();
    if (r) this.deliver(r);
  }

  private clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }
}
