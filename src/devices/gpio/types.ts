/**
 * The line abstraction the GPIO devices are built on. A backend (sysfs via onoff, or the
 * character device via the libgpiod tools) turns a board profile's line reference into
 * requested lines; locks, doors, buttons and the matrix keypad only see these interfaces.
 *
 * Levels are *logical* everywhere above this file: `true` = active (lock energized, door open,
 * button pressed, keypad row driven). The backend applies the profile's activeLow.
 */

/** Where a line is: the chip's label (never its number or base) and the offset on that chip. */
export interface LineRef {
  readonly chip: string;
  readonly offset: number;
}

export interface OutputSpec extends LineRef {
  /** Physical low = active. The line is requested at its inactive level (no glitch). */
  readonly activeLow: boolean;
}

export type Bias = 'as-is' | 'pull-up' | 'pull-down' | 'disable';

export interface InputSpec extends LineRef {
  readonly activeLow: boolean;
  /** Only the cdev backend can set it; with sysfs the pull comes from the wiring (WIRING.md). */
  readonly bias: Bias;
}

/** An output line, requested at its inactive level. */
export interface OutputLine {
  /** "chip-label:offset", for logs and errors. */
  readonly name: string;
  /** Drive the logical level. Resolves once the line is at that level. */
  write(active: boolean): Promise<void>;
  /**
   * Active for `ms`, then inactive; resolves once inactive. Where the backend can, the end of the
   * pulse is timed outside this process (cdev: gpioset's own timer), so a crash mid-pulse still ends it.
   */
  pulse(ms: number): Promise<void>;
  /**
   * The LockBank's watchdog calls this when a pulse's time is up (a second, independent timer):
   * make sure the line is inactive without disturbing the backend's own ending of the pulse.
   */
  endOfPulse(): void;
  /** Drive inactive, then release. Idempotent. */
  close(): Promise<void>;
}

/** An input line with edge interrupts on both edges. */
export interface InputLine {
  readonly name: string;
  /** The logical level now. */
  read(): Promise<boolean>;
  /**
   * Called on every edge (both directions). The value is deliberately not passed: debouncing
   * re-reads the line once it has been quiet (see debounce.ts).
   */
  onEdge(listener: () => void): void;
  /** Stop watching and release. Idempotent. */
  close(): Promise<void>;
}

export type BackendKind = 'sysfs' | 'cdev';

/** A way to request lines. One per station; close() releases what it requested. */
export interface GpioBackend {
  readonly kind: BackendKind;
  output(spec: OutputSpec): Promise<OutputLine>;
  input(spec: InputSpec): Promise<InputLine>;
  /**
   * Drive these outputs inactive without keeping them (safe-state). Tries every line even if one
   * fails; rejects naming the lines that could not be driven OFF.
   */
  forceOff(specs: readonly OutputSpec[]): Promise<void>;
  close(): Promise<void>;
}

export function lineName(ref: LineRef): string {
  return `${ref.chip}:${ref.offset}`;
}

/** A line as a technician reads it: "gpiochip0:17, active high" (inputs also name their bias). */
export function describeSpec(spec: OutputSpec | InputSpec): string {
  const level = spec.activeLow ? 'active low' : 'active high';
  return 'bias' in spec && spec.bias !== 'as-is' ? `${lineName(spec)}, ${level}, ${spec.bias}` : `${lineName(spec)}, ${level}`;
}
