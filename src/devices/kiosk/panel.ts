/**
 * A touchscreen as the station's display, PIN keypad and cancel button at once: three devices
 * (Display, Keypad, PushButton) behind one kiosk page (server.ts). The keypad's keys reach the
 * core exactly as a hardware keypad's do, so masking, Enter, backspace, clear, the idle clear and
 * the PIN throttle are the core's, unchanged. The cancel button is shown only while the station
 * offers a cancel (the runtime tells it through PushButton.setAvailable).
 *
 * A port already taken is a health problem of the display (the page cannot be served), retried
 * with the reconnect backoff, not a crash.
 */
import type { Logger } from 'pino';
import { DeviceBase, HEALTHY, Listeners } from '../device-base.js';
import { backoffDelay, type BackoffOptions } from '../reconnect.js';
import type { DeviceHealth, Display, Keypad, KeypadKey, PushButton, Unsubscribe } from '../types.js';
import { errorMessage } from '../../errors.js';
import { KioskServer } from './server.js';

export interface KioskPanelOptions {
  /** Port on 127.0.0.1 (0: any free one). */
  readonly port: number;
  /** The cancel button's text. */
  readonly cancelLabel: string;
  readonly keepAliveMs: number;
  readonly reconnect: BackoffOptions;
  readonly log: Logger;
}

class KioskDisplay extends DeviceBase implements Display {
  private last: readonly string[] = [];
  constructor(
    name: string,
    private readonly panel: KioskPanel,
  ) {
    super(name, { ok: false, detail: `${name} not started yet` });
  }
  show(lines: readonly string[]): Promise<void> {
    this.last = [...lines];
    this.panel.publish();
    return Promise.resolve();
  }
  lastShown(): readonly string[] {
    return this.last;
  }
  set(health: DeviceHealth): void {
    this.setHealth(health);
  }
  close(): Promise<void> {
    this.clearHealthListeners();
    return this.panel.close();
  }
}

class KioskKeypad extends DeviceBase implements Keypad {
  readonly keys = new Listeners<[KeypadKey]>();
  onKey(listener: (key: KeypadKey) => void): Unsubscribe {
    return this.keys.add(listener);
  }
  close(): Promise<void> {
    this.keys.clear();
    this.clearHealthListeners();
    return Promise.resolve();
  }
}

class KioskCancelButton extends DeviceBase implements PushButton {
  readonly presses = new Listeners<[]>();
  available = false;
  constructor(
    name: string,
    private readonly panel: KioskPanel,
  ) {
    super(name);
  }
  onPress(listener: () => void): Unsubscribe {
    return this.presses.add(listener);
  }
  setAvailable(available: boolean): void {
    if (available === this.available) return;
    this.available = available;
    this.panel.publish();
  }
  close(): Promise<void> {
    this.presses.clear();
    this.clearHealthListeners();
    return Promise.resolve();
  }
}

export class KioskPanel {
  readonly display: KioskDisplay;
  readonly keypad: KioskKeypad;
  readonly cancelButton: KioskCancelButton;
  private readonly server: KioskServer;
  private retry: NodeJS.Timeout | null = null;
  private failures = 0;
  private closed = false;

  constructor(private readonly o: KioskPanelOptions) {
    const where = `kiosk page 127.0.0.1:${o.port}`;
    this.display = new KioskDisplay(`display (${where})`, this);
    this.keypad = new KioskKeypad(`keypad (${where})`);
    this.cancelButton = new KioskCancelButton(`cancel button (${where})`, this);
    this.server = new KioskServer({
      port: o.port,
      keepAliveMs: o.keepAliveMs,
      log: o.log,
      onKey: (key) => this.keypad.keys.emit(key),
      onCancel: () => {
        // A press that arrives after the button was hidden (a slow page) is still a press: the core refuses it if cancel is not allowed.
        this.cancelButton.presses.emit();
      },
    });
  }

  /** The port the page is served on (after start()). */
  get port(): number {
    return this.server.port;
  }

  /** Listen; a failure is health (retried with backoff), never a rejection. */
  async start(): Promise<void> {
    if (this.closed) return;
    try {
      await this.server.listen();
      this.failures = 0;
      this.display.set(HEALTHY);
      this.publish();
    } catch (e) {
      const delay = backoffDelay(this.failures++, this.o.reconnect);
      this.display.set({ ok: false, detail: `${this.display.name}: cannot listen (${errorMessage(e)})` });
      this.o.log.warn({ device: this.display.name, error: errorMessage(e), retryInMs: delay }, 'kiosk page cannot listen');
      this.retry = setTimeout(() => void this.start(), delay);
    }
  }

  publish(): void {
    this.server.update({ lines: this.display.lastShown(), cancel: this.cancelButton.available, cancelLabel: this.o.cancelLabel });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    await this.server.close();
  }
}
