/**
 * The sysfs backend: onoff on /sys/class/gpio. Outputs are created with direction "high"/"low",
 * which the kernel applies as a *raw* level in the same write that makes the line an output, and
 * activeLow is chosen so that this initial level is the inactive one: no glitch at start.
 * Inputs use edge "both" and onoff's watch() (epoll on the value file), never polling.
 */
import { DeviceError, errorMessage } from '../../errors.js';
import { listSysfsChips, resolveSysfsNumber, type SysfsChip } from './sysfs-chips.js';
import { lineName, type GpioBackend, type InputLine, type InputSpec, type OutputLine, type OutputSpec } from './types.js';

/** The part of onoff's Gpio this backend uses: the last hardware boundary, mocked in unit tests. */
export interface OnoffGpio {
  readSync(): 0 | 1;
  writeSync(value: 0 | 1): void;
  watch(callback: (err: Error | null | undefined, value: 0 | 1) => void): void;
  unwatchAll(): void;
  unexport(): void;
}
export type OnoffGpioCtor = new (
  gpio: number,
  direction: 'in' | 'out' | 'high' | 'low',
  edge?: 'none' | 'rising' | 'falling' | 'both',
  options?: { activeLow?: boolean; reconfigureDirection?: boolean },
) => OnoffGpio;

/** Loads onoff only when the sysfs backend is chosen: its epoll addon is compiled on the device. */
export async function loadOnoff(): Promise<OnoffGpioCtor> {
  const mod = await import('onoff');
  return mod.Gpio;
}

class SysfsOutput implements OutputLine {
  private closed = false;
  private pulseTimer: NodeJS.Timeout | undefined;
  private endPulse: ((why?: string) => void) | undefined;
  constructor(
    readonly name: string,
    private readonly gpio: OnoffGpio,
  ) {}

  write(active: boolean): Promise<void> {
    if (this.closed) return Promise.reject(new DeviceError(this.name, 'line closed'));
    try {
      this.gpio.writeSync(active ? 1 : 0);
      return Promise.resolve();
    } catch (e) {
      return Promise.reject(new DeviceError(this.name, `cannot write: ${errorMessage(e)}`, { cause: e }));
    }
  }

  pulse(ms: number): Promise<void> {
    if (this.closed) return Promise.reject(new DeviceError(this.name, 'line closed'));
    return new Promise<void>((resolve, reject) => {
      try {
        this.gpio.writeSync(1);
      } catch (e) {
        reject(new DeviceError(this.name, `cannot write: ${errorMessage(e)}`, { cause: e }));
        return;
      }
      // Registered synchronously, before the LockBank's watchdog: at equal deadlines this runs first.
      this.endPulse = (why) => {
        clearTimeout(this.pulseTimer);
        this.endPulse = undefined;
        try {
          this.gpio.writeSync(0);
          if (why) reject(new DeviceError(this.name, why));
          else resolve();
        } catch (e) {
          reject(new DeviceError(this.name, `cannot end pulse: ${errorMessage(e)}`, { cause: e }));
        }
      };
      this.pulseTimer = setTimeout(() => this.endPulse?.(), ms);
    });
  }

  endOfPulse(): void {
    try {
      if (!this.closed) this.gpio.writeSync(0);
    } catch {
      // The pulse's own error path reports it.
    }
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.endPulse?.('closed during the pulse');
    try {
      this.gpio.writeSync(0);
    } finally {
      // Lock outputs stay exported and driven inactive: unexporting would hand the pin back to
      // the kernel, which may float it (see hardware/README.md). onoff's fd is closed by exit.
      this.closed = true;
    }
    return Promise.resolve();
  }
}

class SysfsInput implements InputLine {
  private closed = false;
  constructor(
    readonly name: string,
    private readonly gpio: OnoffGpio,
  ) {}
  read(): Promise<boolean> {
    try {
      return Promise.resolve(this.gpio.readSync() === 1);
    } catch (e) {
      return Promise.reject(new DeviceError(this.name, `cannot read: ${errorMessage(e)}`, { cause: e }));
    }
  }
  onEdge(listener: () => void): void {
    this.gpio.watch(() => listener());
  }
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.gpio.unwatchAll();
    this.gpio.unexport();
    return Promise.resolve();
  }
}

export interface SysfsBackendOptions {
  readonly Gpio: OnoffGpioCtor;
  /** Chip list; defaults to reading /sys/class/gpio. */
  readonly chips?: readonly SysfsChip[];
}

export class SysfsBackend implements GpioBackend {
  readonly kind = 'sysfs' as const;
  private readonly chips: readonly SysfsChip[];
  private readonly lines: (OutputLine | InputLine)[] = [];

  constructor(private readonly opts: SysfsBackendOptions) {
    this.chips = opts.chips ?? listSysfsChips();
  }

  output(spec: OutputSpec): Promise<OutputLine> {
    const name = lineName(spec);
    try {
      const n = resolveSysfsNumber(spec, this.chips);
      // "high"/"low" is the raw initial level: the inactive one for this activeLow.
      const gpio = new this.opts.Gpio(n, spec.activeLow ? 'high' : 'low', 'none', { activeLow: spec.activeLow, reconfigureDirection: true });
      gpio.writeSync(0); // belt and braces: logical inactive, also if the line was exported before
      const line = new SysfsOutput(name, gpio);
      this.lines.push(line);
      return Promise.resolve(line);
    } catch (e) {
      return Promise.reject(e instanceof DeviceError ? e : new DeviceError(name, `cannot request output: ${errorMessage(e)}`, { cause: e }));
    }
  }

  input(spec: InputSpec): Promise<InputLine> {
    const name = lineName(spec);
    try {
      const n = resolveSysfsNumber(spec, this.chips);
      const gpio = new this.opts.Gpio(n, 'in', 'both', { activeLow: spec.activeLow });
      const line = new SysfsInput(name, gpio);
      this.lines.push(line);
      return Promise.resolve(line);
    } catch (e) {
      return Promise.reject(e instanceof DeviceError ? e : new DeviceError(name, `cannot request input: ${errorMessage(e)}`, { cause: e }));
    }
  }

  async forceOff(specs: readonly OutputSpec[]): Promise<void> {
    const failed: string[] = [];
    for (const spec of specs) {
      // Requesting the line sets it inactive (also if a killed process left it exported and ON).
      await this.output(spec).then(
        (l) => l.close(),
        (e: unknown) => void failed.push(`${lineName(spec)}: ${errorMessage(e)}`),
      );
    }
    if (failed.length > 0) throw new DeviceError('gpio sysfs', `cannot drive OFF: ${failed.join('; ')}`);
  }

  async close(): Promise<void> {
    const lines = this.lines.splice(0);
    const errors: unknown[] = [];
    for (const l of lines) await l.close().catch((e: unknown) => errors.push(e));
    if (errors.length > 0) throw errors[0];
  }
}
