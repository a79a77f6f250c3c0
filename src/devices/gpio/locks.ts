/**
 * LockBank on GPIO output lines. Safety rules, in the order they are enforced:
 * - every output is requested at its inactive level and driven OFF again before open() returns;
 * - a pulse is clamped to HARD_MAX_PULSE_MS here, whatever the caller passes;
 * - pulses never overlap (a solenoid draws amps; two at once can brown out the board);
 * - a pulse is ended by the backend's timer (sysfs: ours; cdev: gpioset's, in its own process)
 *   AND by a watchdog timer at the same deadline (line.endOfPulse()); a pulse not confirmed OFF
 *   `watchdogMarginMs` later is forced OFF and reported as a lock fault;
 * - a door that reads OPEN never stops a pulse: this file does not look at doors at all.
 */
import { DeviceError, errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import { HARD_MAX_PULSE_MS, type LockBank } from '../types.js';
import { DeviceBase, faulty, HEALTHY } from '../device-base.js';
import { describeSpec, type GpioBackend, type OutputLine, type OutputSpec } from './types.js';

export interface LockBankOptions {
  /** box number -> its lock output. */
  readonly locks: ReadonlyMap<number, OutputSpec>;
  /** Extra time the backend gets to end a pulse before the watchdog forces it OFF. */
  readonly watchdogMarginMs: number;
  readonly log: Logger;
}

export function clampPulse(ms: number): number {
  if (!Number.isFinite(ms)) return 0;
  return Math.max(0, Math.min(Math.round(ms), HARD_MAX_PULSE_MS));
}

export class GpioLockBank extends DeviceBase implements LockBank {
  readonly boxNumbers: readonly number[];
  private readonly energized = new Set<number>();
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    private readonly lines: ReadonlyMap<number, OutputLine>,
    private readonly opts: LockBankOptions,
  ) {
    super(`locks (${[...lines.values()].map((l) => l.name).join(', ')})`);
    this.boxNumbers = [...lines.keys()];
  }

  /** Request every lock output OFF. If one fails, those already requested are closed (OFF) again. */
  static async open(backend: GpioBackend, opts: LockBankOptions): Promise<GpioLockBank> {
    const lines = new Map<number, OutputLine>();
    try {
      for (const [box, spec] of opts.locks) lines.set(box, await backend.output(spec));
    } catch (e) {
      for (const l of lines.values()) await l.close().catch(() => undefined);
      throw e;
    }
    const bank = new GpioLockBank(lines, opts);
    await bank.allOff();
    return bank;
  }

  isEnergized(box: number): boolean {
    return this.energized.has(box);
  }

  describeLine(box: number): string | null {
    const spec = this.opts.locks.get(box);
    return spec === undefined ? null : describeSpec(spec);
  }

  pulse(box: number, ms: number): Promise<void> {
    const line = this.lines.get(box);
    if (!line) return Promise.reject(new DeviceError(this.name, `no lock for box ${box}`));
    const clamped = clampPulse(ms);
    const run = this.chain.then(() => this.energize(box, line, clamped));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async energize(box: number, line: OutputLine, ms: number): Promise<void> {
    if (this.closed) throw new DeviceError(this.name, 'locks closed');
    this.energized.add(box);
    const pulse = line.pulse(ms);
    pulse.catch(() => undefined); // if the overrun check wins the race, a later rejection is expected
    // Watchdog 1: at the pulse's end, independently of the backend's timer, the line goes OFF.
    const deadline = setTimeout(() => line.endOfPulse(), ms);
    // Watchdog 2: a pulse not confirmed OFF within the margin is forced OFF and reported.
    let overrun: NodeJS.Timeout | undefined;
    const overran = new Promise<true>((resolve) => {
      overrun = setTimeout(() => resolve(true), ms + this.opts.watchdogMarginMs);
    });
    try {
      if ((await Promise.race([pulse, overran])) === true) {
        this.opts.log.error({ box, line: line.name, ms }, 'lock pulse not confirmed OFF in time: forcing it OFF');
        await line.write(false);
        throw new DeviceError(line.name, `pulse of box ${box} not confirmed OFF within ${this.opts.watchdogMarginMs} ms of its end; forced OFF`);
      }
      this.setHealth(HEALTHY);
    } catch (e) {
      this.setHealth(faulty(`lock of box ${box} (${line.name}): ${errorMessage(e)}`));
      // Whatever went wrong, the line must end OFF.
      await line.write(false).catch(() => undefined);
      throw e;
    } finally {
      clearTimeout(deadline);
      clearTimeout(overrun);
      this.energized.delete(box);
    }
  }

  async allOff(): Promise<void> {
    const errors: string[] = [];
    for (const [box, line] of this.lines) {
      await line.write(false).catch((e: unknown) => errors.push(`box ${box}: ${errorMessage(e)}`));
    }
    if (errors.length > 0) {
      this.setHealth(faulty(`cannot drive locks OFF: ${errors.join('; ')}`));
      throw new DeviceError(this.name, `cannot drive locks OFF: ${errors.join('; ')}`);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // OFF first, then release; a failure on one line does not skip the others.
    for (const line of this.lines.values())
      await line.close().catch((e: unknown) => this.opts.log.error({ line: line.name, error: errorMessage(e) }, 'closing lock output failed'));
    this.energized.clear();
    this.clearHealthListeners();
  }
}
