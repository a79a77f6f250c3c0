/**
 * A fake of onoff's Gpio (the last hardware boundary of the sysfs backend): lines with a raw
 * (physical) level, activeLow applied like the kernel does, edge listeners, and a history of
 * every raw level each line had, to prove there was never an ON glitch.
 */
import type { OnoffGpio, OnoffGpioCtor } from '../../src/devices/gpio/sysfs.js';
import type { SysfsChip } from '../../src/devices/gpio/sysfs-chips.js';

export const FAKE_CHIPS: SysfsChip[] = [
  { label: 'pinctrl-bcm2711', base: 512, ngpio: 58 },
  { label: 'raspberrypi-exp-gpio', base: 570, ngpio: 8 },
];

interface FakeLine {
  raw: 0 | 1;
  direction: 'in' | 'out';
  activeLow: boolean;
  listeners: ((err: Error | null | undefined, value: 0 | 1) => void)[];
  history: (0 | 1)[];
  exported: boolean;
}

export class FakeGpioWorld {
  readonly lines = new Map<number, FakeLine>();
  /** Raw level an input reads; for outputs use raw(). */
  private readonly inputs = new Map<number, 0 | 1>();
  failWrites = false;
  /** Computes an input's raw level from the world (e.g. a keypad matrix); overrides setInput. */
  wire: ((n: number) => 0 | 1 | undefined) | undefined;

  line(n: number): FakeLine {
    const l = this.lines.get(n);
    if (!l) throw new Error(`gpio ${n} not constructed`);
    return l;
  }
  raw(n: number): 0 | 1 {
    return this.line(n).raw;
  }
  history(n: number): (0 | 1)[] {
    return this.line(n).history;
  }
  /** Drive an input's physical level; fires edge listeners when it changes. */
  setInput(n: number, raw: 0 | 1): void {
    this.inputs.set(n, raw);
    this.refresh(n);
  }
  /** Re-evaluate an input (after `wire` inputs changed) and fire an edge if it changed. */
  refresh(n: number): void {
    const l = this.lines.get(n);
    if (!l || l.direction !== 'in') return;
    const now = this.wire?.(n) ?? this.inputs.get(n) ?? 0;
    if (now === l.raw) return;
    l.raw = now;
    l.history.push(now);
    for (const cb of [...l.listeners]) cb(null, (now ^ (l.activeLow ? 1 : 0)) as 0 | 1);
  }

  readonly Gpio: OnoffGpioCtor = (() => {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const world = this;
    return class FakeGpio implements OnoffGpio {
      private readonly l: FakeLine;
      constructor(
        private readonly n: number,
        direction: 'in' | 'out' | 'high' | 'low',
        _edge?: string,
        options?: { activeLow?: boolean },
      ) {
        const existing = world.lines.get(n);
        const activeLow = options?.activeLow ?? false;
        // Like the kernel: "high"/"low" are raw levels set together with the direction.
        const raw: 0 | 1 = direction === 'high' ? 1 : direction === 'low' ? 0 : (world.wire?.(n) ?? world.inputs.get(n) ?? existing?.raw ?? 0);
        this.l = existing ?? { raw, direction: 'in', activeLow, listeners: [], history: [], exported: true };
        this.l.direction = direction === 'in' ? 'in' : 'out';
        this.l.activeLow = activeLow;
        this.l.exported = true;
        if (this.l.history.length === 0 || this.l.raw !== raw) this.l.history.push(raw);
        this.l.raw = raw;
        world.lines.set(n, this.l);
      }
      readSync(): 0 | 1 {
        if (this.l.direction === 'in') this.l.raw = world.wire?.(this.n) ?? world.inputs.get(this.n) ?? this.l.raw;
        return (this.l.raw ^ (this.l.activeLow ? 1 : 0)) as 0 | 1;
      }
      writeSync(value: 0 | 1): void {
        if (world.failWrites) throw new Error('EIO: i/o error, write');
        const raw = (value ^ (this.l.activeLow ? 1 : 0)) as 0 | 1;
        if (raw !== this.l.raw) this.l.history.push(raw);
        this.l.raw = raw;
        // Wired inputs (a keypad matrix) follow the outputs at once, like copper.
        if (world.wire) for (const k of world.lines.keys()) world.refresh(k);
      }
      watch(callback: (err: Error | null | undefined, value: 0 | 1) => void): void {
        this.l.listeners.push(callback);
      }
      unwatchAll(): void {
        this.l.listeners = [];
      }
      unexport(): void {
        this.l.exported = false;
      }
    };
  })();
}
