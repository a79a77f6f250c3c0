/**
 * A keyboard-wedge barcode scanner or USB RFID reader on hidraw, implementing IdentifierScanner.
 * Reports → key presses (BootReportDecoder) → characters in the scanner's layout (decodeKey) →
 * identifiers at Enter (WedgeAssembler). A frame without Enter within frameTimeoutMs is dropped.
 *
 * node-hid reads one report per round trip through the libuv thread pool, and a reader's burst
 * (a whole identifier and Enter within milliseconds) waits queued in hidraw until the event loop
 * takes it. When the loop stalls past frameTimeoutMs (GC, a slow disk, an emulated CPU), the
 * frame timer is due before the queued reports are delivered: Node runs due timers before it
 * polls for I/O. So the timeout does not decide by itself: it hands the verdict to the next check
 * phase (setImmediate, after the poll phase has delivered whatever was already read), and a report
 * that arrived in between keeps the frame alive.
 */
import type { IdentifierScanner, IdentifierType, Unsubscribe } from '../types.js';
import { Listeners } from '../device-base.js';
import type { FrameResult } from '../vocabulary/frames.js';
import { HidInputDevice, type HidDeviceOptions } from './hid-device.js';
import type { ReportResult } from './keyboard.js';
import { LAYOUTS, type Layout, type LayoutName } from './layouts.js';
import { decodeKey, WedgeAssembler } from './wedge.js';

export interface HidScannerOptions extends HidDeviceOptions {
  readonly identifierType: IdentifierType;
  /** The keyboard layout the scanner is configured for. */
  readonly layout: LayoutName;
  readonly maxLength: number;
  /** Characters without Enter for this long are a broken frame and are dropped. */
  readonly frameTimeoutMs: number;
}

export class HidScanner extends HidInputDevice implements IdentifierScanner {
  readonly identifierType: IdentifierType;
  private readonly scans = new Listeners<[string]>();
  private readonly layout: Layout;
  private readonly assembler: WedgeAssembler;
  private frameTimer: NodeJS.Timeout | null = null;
  private verdict: NodeJS.Immediate | null = null;

  constructor(private readonly o: HidScannerOptions) {
    super(o.identifierType === 'RFID' ? 'HID RFID reader' : 'HID barcode scanner', o);
    this.identifierType = o.identifierType;
    this.layout = LAYOUTS[o.layout];
    this.assembler = new WedgeAssembler(o.maxLength);
  }

  onScan(listener: (value: string) => void): Unsubscribe {
    return this.scans.add(listener);
  }

  protected onReport(r: ReportResult): void {
    if (r.kind === 'error') {
      if (r.reason === 'rollover') this.assembler.rollover();
      this.o.log.warn({ device: this.name, reason: r.reason }, 'HID report dropped');
    } else {
      for (const p of r.pressed) {
        const res = this.assembler.key(decodeKey(this.layout, p));
        if (res) this.deliver(res);
      }
    }
    this.rearm();
  }

  protected linkDown(): void {
    this.discard();
  }

  protected override onClose(): void {
    this.clearTimer();
    this.scans.clear();
  }

  private rearm(): void {
    this.clearTimer();
    if (this.assembler.hasPartial()) this.frameTimer = setTimeout(() => this.timedOut(), this.o.frameTimeoutMs);
  }

  /** The frame timer is due: drop the partial frame unless a report already read arrives first. */
  private timedOut(): void {
    this.frameTimer = null;
    this.verdict = setImmediate(() => {
      this.verdict = null;
      this.discard();
    });
  }

  private discard(): void {
    this.clearTimer();
    const r = this.assembler.discard();
    if (r) this.deliver(r);
  }

  private deliver(r: FrameResult): void {
    if (r.kind === 'frame') {
      this.scans.emit(r.value);
      return;
    }
    // Identifiers may be logged truncated; a scanner never carries a PIN.
    this.o.log.warn({ device: this.name, reason: r.reason, length: r.length, preview: r.preview, layout: this.o.layout }, 'scanner frame dropped');
  }

  private clearTimer(): void {
    if (this.frameTimer) clearTimeout(this.frameTimer);
    if (this.verdict) clearImmediate(this.verdict);
    this.frameTimer = null;
    this.verdict = null;
  }
}
