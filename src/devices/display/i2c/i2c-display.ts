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
import type { BackoffOptions } from '../../reconnect.js';
import { ReconnectingDisplay } from '../reconnecting-display.js';
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

export abstract class I2cDisplay extends ReconnectingDisplay<I2cLink> {
  /** The controller's memory is unknown (just initialised): draw everything. */
  private full = true;
  protected readonly delay: (ms: number) => Promise<void>;
  private readonly opener: I2cBusOpener;

  constructor(
    kind: string,
    protected readonly io: I2cDisplayOptions,
  ) {
    super(`display i2c-${io.bus} ${hex2(io.address)} (${kind})`, io);
    this.delay = io.delay ?? ((ms) => sleep(ms));
    this.opener = io.opener ?? openI2cBus;
  }

  /** Bring the controller from power-on (or any) state to ready, display blank. */
  protected abstract init(bus: I2cBus): Promise<void>;
  /** Write `lines`; `full`: the controller's memory is unknown, write all of it. */
  protected abstract draw(bus: I2cBus, lines: readonly string[], full: boolean): Promise<void>;

  protected async openLink(lost: (reason: string) => void): Promise<I2cLink> {
    let bus: I2cBus;
    try {
      bus = await this.opener(this.io.bus);
    } catch (e) {
      throw new Error(`/dev/i2c-${this.io.bus}: ${describeI2cError(e)}`);
    }
    try {
      await this.init(bus);
    } catch (e) {
      await bus.close().catch(() => undefined);
      throw new Error(describeI2cError(e));
    }
    return { bus, lost, close: () => bus.close() };
  }

  /** The controller may have lost power, and with it its memory: initialised (by openLink) and fully redrawn. */
  protected override linkUp(): void {
    this.full = true;
    this.refresh();
  }

  // The reconnector's own errors (an open timing out) already start with the name.
  protected override downDetail(reason: string): string {
    return reason.startsWith(this.name) ? reason : `${this.name}: ${reason}`;
  }

  /** A write under way finishes before the bus is closed under it. */
  protected override settleBeforeClose(): Promise<void> {
    return this.writesSettled();
  }

  protected async write(link: I2cLink, lines: readonly string[]): Promise<boolean> {
    try {
      await this.draw(link.bus, lines, this.full);
      this.full = false;
      return true;
    } catch (e) {
      // The reconnector closes the bus, reports the device down and reopens with backoff.
      link.lost(describeI2cError(e));
      return false;
    }
  }
}
