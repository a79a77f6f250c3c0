/**
 * Door sensors and the cancel button on GPIO inputs, debounced by re-reading (debounce.ts).
 * A door line is *active when the door is OPEN* (wire the reed switch so that a broken cable
 * reads open: see hardware/WIRING.md); a button line is active while pressed.
 */
import { DeviceError, errorMessage } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { DoorSensors, DoorState, PushButton, Unsubscribe } from '../types.js';
import { Debouncer } from './debounce.js';
import { DeviceBase, faulty, Listeners } from '../device-base.js';
import { describeSpec, type GpioBackend, type InputLine, type InputSpec } from './types.js';

async function openInputs<K>(backend: GpioBackend, specs: ReadonlyMap<K, InputSpec>): Promise<Map<K, InputLine>> {
  const lines = new Map<K, InputLine>();
  try {
    for (const [key, spec] of specs) lines.set(key, await backend.input(spec));
  } catch (e) {
    for (const l of lines.values()) await l.close().catch(() => undefined);
    throw e;
  }
  return lines;
}

export interface DoorOptions {
  readonly doors: ReadonlyMap<number, InputSpec>;
  readonly debounceMs: number;
  readonly log: Logger;
}

export class GpioDoorSensors extends DeviceBase implements DoorSensors {
  private readonly changes = new Listeners<[number, DoorState]>();
  private readonly debouncers = new Map<number, Debouncer>();
  private closed = false;

  private constructor(
    private readonly lines: ReadonlyMap<number, InputLine>,
    private readonly opts: DoorOptions,
    initial: ReadonlyMap<number, boolean>,
  ) {
    super(`door sensors (${[...lines.values()].map((l) => l.name).join(', ')})`);
    for (const [box, line] of lines) {
      this.debouncers.set(
        box,
        new Debouncer(line, {
          ms: opts.debounceMs,
          initial: initial.get(box) ?? true,
          onChange: (open) => {
            opts.log.debug({ box, open }, 'door changed');
            this.changes.emit(box, open ? 'OPEN' : 'CLOSED');
          },
          onError: (message) => this.setHealth(faulty(`door of box ${box} (${line.name}): ${message}`)),
        }),
      );
    }
  }

  static async open(backend: GpioBackend, opts: DoorOptions): Promise<GpioDoorSensors> {
    const lines = await openInputs(backend, opts.doors);
    const initial = new Map<number, boolean>();
    try {
      for (const [box, line] of lines) initial.set(box, await line.read());
    } catch (e) {
      for (const l of lines.values()) await l.close().catch(() => undefined);
      throw e;
    }
    return new GpioDoorSensors(lines, opts, initial);
  }

  describeLine(box: number): string | null {
    const spec = this.opts.doors.get(box);
    return spec === undefined ? null : describeSpec(spec);
  }

  /** The debounced state: what the station has been (or is about to be) told. */
  read(box: number): Promise<DoorState> {
    const d = this.debouncers.get(box);
    if (!d) return Promise.reject(new DeviceError(this.name, `no door sensor for box ${box}`));
    return Promise.resolve(d.value ? 'OPEN' : 'CLOSED');
  }

  onChange(listener: (box: number, state: DoorState) => void): Unsubscribe {
    return this.changes.add(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const d of this.debouncers.values()) d.stop();
    this.changes.clear();
    for (const l of this.lines.values()) await l.close().catch(() => undefined);
    this.clearHealthListeners();
  }
}

export interface ButtonOptions {
  readonly name: string;
  readonly line: InputSpec;
  readonly debounceMs: number;
  readonly log: Logger;
}

export class GpioButton extends DeviceBase implements PushButton {
  private readonly presses = new Listeners<[]>();
  private readonly debouncer: Debouncer;
  private closed = false;

  private constructor(
    private readonly line: InputLine,
    opts: ButtonOptions,
    initial: boolean,
  ) {
    super(`${opts.name} (${line.name})`);
    this.debouncer = new Debouncer(line, {
      ms: opts.debounceMs,
      initial,
      // A press is the debounced change to active; the release is not an event.
      onChange: (pressed) => {
        if (pressed) this.presses.emit();
      },
      onError: (message) => this.setHealth(faulty(`${this.name}: ${message}`)),
    });
  }

  static async open(backend: GpioBackend, opts: ButtonOptions): Promise<GpioButton> {
    const line = await backend.input(opts.line);
    try {
      return new GpioButton(line, opts, await line.read());
    } catch (e) {
      await line.close().catch(() => undefined);
      throw new DeviceError(opts.name, `cannot read: ${errorMessage(e)}`, { cause: e });
    }
  }

  onPress(listener: () => void): Unsubscribe {
    return this.presses.add(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.debouncer.stop();
    this.presses.clear();
    await this.line.close().catch(() => undefined);
    this.clearHealthListeners();
  }
}
