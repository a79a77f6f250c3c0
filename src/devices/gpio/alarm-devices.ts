/**
 * The tamper switch and the buzzer on GPIO lines, for either backend (sysfs or cdev).
 *
 * Tamper: an input, *active when open* (wire the cabinet or service-door switch so that a cut
 * cable reads open: hardware/WIRING.md), debounced by re-reading like the doors.
 *
 * Buzzer: an output; a beep is the backend's pulse (cdev: timed by gpioset in its own process, so
 * the beep ends even if the station dies mid-beep). Beeps never overlap on the line: a beep waits
 * for the previous pulse to settle (silent meanwhile), because a line's pulses must not overlap.
 */
import { DeviceError, errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import { DeviceBase, faulty, HEALTHY, Listeners } from '../device-base.js';
import { MAX_BEEP_MS, type Buzzer, type TamperSwitch, type Unsubscribe } from '../types.js';
import { Debouncer } from './debounce.js';
import { describeSpec, type GpioBackend, type InputLine, type InputSpec, type OutputLine, type OutputSpec } from './types.js';

export interface TamperOptions {
  readonly line: InputSpec;
  readonly debounceMs: number;
  readonly log: Logger;
}

export class GpioTamperSwitch extends DeviceBase implements TamperSwitch {
  private readonly changes = new Listeners<[boolean]>();
  private readonly debouncer: Debouncer;
  private closed = false;

  private constructor(
    private readonly line: InputLine,
    opts: TamperOptions,
    initial: boolean,
  ) {
    super(`tamper switch (${describeSpec(opts.line)})`);
    this.debouncer = new Debouncer(line, {
      ms: opts.debounceMs,
      initial,
      onChange: (open) => {
        opts.log.debug({ open }, 'tamper switch changed');
        this.changes.emit(open);
      },
      onError: (message) => this.setHealth(faulty(`${this.name}: ${message}`)),
    });
  }

  static async open(backend: GpioBackend, opts: TamperOptions): Promise<GpioTamperSwitch> {
    const line = await backend.input(opts.line);
    try {
      return new GpioTamperSwitch(line, opts, await line.read());
    } catch (e) {
      await line.close().catch(() => undefined);
      throw new DeviceError('tamper switch', `cannot read: ${errorMessage(e)}`, { cause: e });
    }
  }

  read(): Promise<boolean> {
    return Promise.resolve(this.debouncer.value);
  }

  onChange(listener: (open: boolean) => void): Unsubscribe {
    return this.changes.add(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.debouncer.stop();
    this.changes.clear();
    await this.line.close().catch(() => undefined);
    this.clearHealthListeners();
  }
}

export interface BuzzerOptions {
  readonly line: OutputSpec;
  readonly log: Logger;
}

export class GpioBuzzer extends DeviceBase implements Buzzer {
  /** The pulse on the line now (settled: the line is free for the next). */
  private pulse: Promise<void> = Promise.resolve();
  /** Ends the current beep's wait early (silence()). */
  private cutShort: (() => void) | null = null;
  private closed = false;

  private constructor(
    private readonly line: OutputLine,
    spec: OutputSpec,
  ) {
    super(`buzzer (${describeSpec(spec)})`);
  }

  /** Request the line at its inactive level (silent). */
  static async open(backend: GpioBackend, opts: BuzzerOptions): Promise<GpioBuzzer> {
    return new GpioBuzzer(await backend.output(opts.line), opts.line);
  }

  async beep(ms: number): Promise<void> {
    if (this.closed) throw new DeviceError(this.name, 'buzzer closed');
    const length = Math.max(1, Math.min(Math.round(ms), MAX_BEEP_MS));
    let silenced = false;
    // Armed before waiting for the line: a silence() meanwhile (a lock pulse starting) cancels the beep.
    const cut = new Promise<void>((resolve) => {
      this.cutShort = () => {
        silenced = true;
        resolve();
      };
    });
    try {
      await this.pulse;
      if (silenced || this.closed) return;
      const pulse = this.line.pulse(length);
      this.pulse = pulse.catch(() => undefined);
      await Promise.race([pulse, cut]);
      this.setHealth(HEALTHY);
    } catch (e) {
      // A pulse ended by silence() (the cdev helper replaced) is not a failure.
      if (silenced) return;
      this.setHealth(faulty(`${this.name}: ${errorMessage(e)}`));
      await this.line.write(false).catch(() => undefined);
      throw e;
    } finally {
      this.cutShort = null;
    }
  }

  async silence(): Promise<void> {
    const cut = this.cutShort;
    if (cut === null || this.closed) return;
    cut();
    await this.line.write(false);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.cutShort?.();
    this.closed = true;
    await this.line.close().catch(() => undefined);
    this.clearHealthListeners();
  }
}
