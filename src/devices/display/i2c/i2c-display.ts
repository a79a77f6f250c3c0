/**
 * What the I2C displays (HD44780 behind a PCF8574, SSD1306/SH1106 OLED) share: the bus kept open
 * with the reconnect backoff of every other device, the controller initialised on every (re)open,
 * and updates serialised and coalesced (a show() arriving while one is written makes one more
 * write of the latest lines, never a queue).
 *
 * A controller that does not answer (NACK: not connected, no power, wrong address) or a bus that
 * is missing is a device-health problem (`display i2c-1 0x27 (HD44780): no answer at this address
 * (EREMOTEIO …)`), never an exception out of show(): the lines are recorded, the bus is reopened
 * with backoff, and the controller is initialised and fully redrawn once it answers again (it may
 * have lost power, and with it its memory).
 */
import type { Logger } from 'pino';
import { DeviceBase, HEALTHY } from '../../device-base.js';
import { Reconnector, type BackoffOptions } from '../../input/reconnect.js';
import type { Display } from '../../types.js';
import { LatestWrite } from '../latest-write.js';
import { sleep } from '../../../time.js';
import { describeI2cError, openI2cBus, type I2cBus, type I2cBusOpener } from './bus.js';

export interface I2cDisplayOptions {
  /** N of /dev/i2c-N. */
  readonly bus: number;
  /** 7-bit address. */
  readonly address: number;
  readonly reconnect: BackoffOptions;
  /** Opening the bus and initialising the controller taking longer counts as failed. */
  readonly openTimeoutMs: number;
  readonly log: Logger;
  readonly opener?: I2cBusOpener;
  /** Waits the controllers' datasheet delays (tests pass one of fake timers). */
  readonly delay?: (ms: number) => Promise<void>;
}

interface I2cLink {
  readonly bus: I2cBus;
  readonly lost: (reason: string) => void;
  close(): Promise<void>;
}

export const hex2 = (n: number): string => `0x${n.toString(16).padStart(2, '0')}`;

export abstract class I2cDisplay extends DeviceBase implements Display {
  private last: readonly string[] = [];
  /** The controller's memory is unknown (just initialised): draw everything. */
  private full = true;
  private readonly writes = new LatestWrite(() => this.drawLatest());
  private readonly reconnector: Reconnector<I2cLink>;
  private closed = false;
  protected readonly delay: (ms: number) => Promise<void>;

  constructor(
    kind: string,
    protected readonly io: I2cDisplayOptions,
  ) {
    const name = `display i2c-${io.bus} ${hex2(io.address)} (${kind})`;
    super(name, { ok: false, detail: `${name} not opened yet` });
    this.delay = io.delay ?? ((ms) => sleep(ms));
    const opener = io.opener ?? openI2cBus;
    this.reconnector = new Reconnector<I2cLink>({
      name,
      backoff: io.reconnect,
      openTimeoutMs: io.openTimeoutMs,
      log: io.log,
      open: async (lost) => {
        let bus: I2cBus;
        try {
          bus = await opener(io.bus);
        } catch (e) {
          throw new Error(`/dev/i2c-${io.bus}: ${describeI2cError(e)}`);
        }
        try {
          await this.init(bus);
        } catch (e) {
          await bus.close().catch(() => undefined);
          throw new Error(describeI2cError(e));
        }
        return { bus, lost, close: () => bus.close() };
      },
      onUp: () => {
        this.setHealth(HEALTHY);
        this.full = true;
        this.flush().catch((e: unknown) => io.log.warn({ device: name, error: String(e) }, 'display refresh after reconnect failed'));
      },
      // The reconnector's own errors (an open timing out) already start with the name.
      onDown: (reason) => this.setHealth({ ok: false, detail: reason.startsWith(name) ? reason : `${name}: ${reason}` }),
    });
  }

  /** Bring the controller from power-on (or any) state to ready, display blank. */
  protected abstract init(bus: I2cBus): Promise<void>;
  /** Write `lines`; `full`: the controller's memory is unknown, write all of it. */
  protected abstract draw(bus: I2cBus, lines: readonly string[], full: boolean): Promise<void>;

  start(): Promise<void> {
    return this.reconnector.start();
  }

  /** Resolves once the lines reached the controller, or at once while it is missing. Never rejects. */
  show(lines: readonly string[]): Promise<void> {
    this.last = [...lines];
    return this.flush();
  }

  lastShown(): readonly string[] {
    return this.last;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onClose();
    this.clearHealthListeners();
    await this.writes.settled();
    await this.reconnector.stop();
  }

  /** Subclasses stop their timers here. */
  protected onClose(): void {}

  /** Write the latest lines (and whatever else draw() owes); calls meanwhile coalesce into one more write. */
  protected flush(): Promise<void> {
    return this.writes.request();
  }

  private async drawLatest(): Promise<boolean> {
    const link = this.reconnector.current();
    if (this.closed || !link) return false;
    try {
      await this.draw(link.bus, this.last, this.full);
      this.full = false;
      return true;
    } catch (e) {
      // The reconnector closes the bus, reports the device down and reopens with backoff.
      link.lost(describeI2cError(e));
      return false;
    }
  }
}
