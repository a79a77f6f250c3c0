/**
 * Assembles a real station (hardware.kind = "board") from its board profile: locks first (every
 * output OFF before anything else is opened), then doors, the cancel button, the GPIO matrix
 * keypad, then the serial/HID devices, then the power sources. If any step fails, what was
 * opened is closed again (locks OFF) and the error propagates.
 *
 * Scanners, the HID keypad and the display belong to the input drivers (src/devices/input/);
 * they come in through `createInputDevices` (see InputDevicesFactory).
 */
import type { StationConfig } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { BoardHardwareConfig, BoardProfile } from './board-config.js';
import { loadBoardProfile } from './board-profile.js';
import { openGpioBackend } from './gpio/backend.js';
import { GpioButton, GpioDoorSensors } from './gpio/inputs.js';
import { GpioLockBank } from './gpio/locks.js';
import { GpioMatrixKeypad } from './gpio/matrix-keypad.js';
import type { GpioBackend, InputSpec, OutputSpec } from './gpio/types.js';
import { ConfiguredPowerMonitor } from './power/monitor.js';
import type { Device, Display, IdentifierScanner, Keypad, PowerMonitor, PushButton, StationHardware, Unsubscribe } from './types.js';

/** What the input drivers build from the profile's `scanners`, `keypad` and `display` sections. */
export interface InputDevices {
  readonly scanners: readonly IdentifierScanner[];
  /** A HID keypad; when null, the profile's GPIO matrix keypad (if any) is used. */
  readonly keypad: Keypad | null;
  /** When null, lines are only logged (LogDisplay). */
  readonly display: Display | null;
}
export type InputDevicesFactory = (profile: BoardProfile, log: Logger) => Promise<InputDevices>;

/**
 * PLACEHOLDER until src/devices/input/index.ts exists: no scanners, no HID keypad, no display.
 * The input-driver engineer replaces the default of `BoardDeps.createInputDevices` with
 * `createInputDevices` imported from './input/index.js'.
 */
export const noInputDevices: InputDevicesFactory = () => Promise.resolve({ scanners: [], keypad: null, display: null });

// HOOK (input drivers): once src/devices/input/index.ts exports
//   createInputDevices(profile: BoardProfile, log: Logger): Promise<InputDevices>
// import it and use it here instead of the placeholder. Nothing else in this file changes.
const defaultInputDevices: InputDevicesFactory = noInputDevices;

/** Stand-in display while no display driver is configured: the lines go to the log. */
export class LogDisplay implements Display {
  readonly name = 'log display';
  private lines: readonly string[] = [];
  constructor(private readonly log: Logger) {}
  show(lines: readonly string[]): Promise<void> {
    this.lines = [...lines];
    this.log.info({ lines }, 'display');
    return Promise.resolve();
  }
  lastShown(): readonly string[] {
    return this.lines;
  }
  health(): { ok: boolean; detail: string | null } {
    return { ok: true, detail: null };
  }
  onHealthChange(): Unsubscribe {
    return () => undefined;
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

export interface BoardDeps {
  readonly createInputDevices?: InputDevicesFactory;
  readonly openBackend?: (profile: BoardProfile, log: Logger) => Promise<GpioBackend>;
}

export function lockSpecs(profile: BoardProfile): Map<number, OutputSpec> {
  return new Map(profile.boxes.map((b) => [b.number, b.lock]));
}

class BoardStation implements StationHardware {
  constructor(
    readonly locks: GpioLockBank,
    readonly doors: GpioDoorSensors,
    readonly scanners: readonly IdentifierScanner[],
    readonly keypad: Keypad | null,
    readonly cancelButton: PushButton | null,
    readonly display: Display,
    readonly power: PowerMonitor,
    private readonly extra: readonly Device[],
    private readonly backend: GpioBackend,
  ) {}

  devices(): readonly Device[] {
    const list: Device[] = [this.locks, this.doors, ...this.scanners, this.display, ...this.extra];
    if (this.keypad) list.push(this.keypad);
    if (this.cancelButton) list.push(this.cancelButton);
    return list;
  }

  async close(): Promise<void> {
    await this.locks.close();
    await Promise.allSettled(this.devices().filter((d) => d !== this.locks).map((d) => d.close()));
    await this.backend.close();
  }
}

/** Build the hardware of a `board` config. Profile problems throw ConfigError before any line is requested. */
export async function createBoardHardware(config: StationConfig, hw: BoardHardwareConfig, log: Logger, deps: BoardDeps = {}): Promise<StationHardware> {
  const boxNumbers = config.station.boxes.map((b) => b.number);
  const profile = loadBoardProfile(hw.profile, boxNumbers);
  const backend = await (deps.openBackend ?? ((p, l) => openGpioBackend(p.gpio.backend, l)))(profile, log);
  log.info({ profile: profile.name, backend: backend.kind }, 'gpio backend opened');
  const opened: Device[] = [];
  try {
    // Every lock of the profile, configured or not, is requested and held OFF.
    const locks = await GpioLockBank.open(backend, { locks: lockSpecs(profile), watchdogMarginMs: profile.gpio.pulseWatchdogMarginMs, log });
    opened.push(locks);
    const configured = new Set(boxNumbers);
    const doorSpecs = new Map<number, InputSpec>(profile.boxes.filter((b) => configured.has(b.number)).map((b) => [b.number, b.door]));
    const doors = await GpioDoorSensors.open(backend, { doors: doorSpecs, debounceMs: profile.gpio.debounceMs, log });
    opened.push(doors);
    const cancel = profile.cancelButton
      ? await GpioButton.open(backend, { name: 'cancel button', line: profile.cancelButton, debounceMs: profile.gpio.debounceMs, log })
      : null;
    if (cancel) opened.push(cancel);
    const mk = profile.matrixKeypad;
    const matrix = mk
      ? await GpioMatrixKeypad.open(backend, {
          rows: mk.rows,
          columns: mk.columns,
          keys: mk.keys,
          specialKeys: mk.specialKeys,
          settleMs: mk.scanSettleMs,
          debounceMs: profile.gpio.debounceMs,
          log,
        })
      : null;
    if (matrix) opened.push(matrix);
    const inputs = await (deps.createInputDevices ?? defaultInputDevices)(profile, log);
    opened.push(...inputs.scanners);
    if (inputs.keypad) opened.push(inputs.keypad);
    if (inputs.display) opened.push(inputs.display);
    // A HID keypad wins over the matrix; the matrix then stays open only to be released at close.
    const keypad = inputs.keypad ?? matrix;
    const extra = inputs.keypad && matrix ? [matrix] : [];
    return new BoardStation(locks, doors, inputs.scanners, keypad, cancel, inputs.display ?? new LogDisplay(log), new ConfiguredPowerMonitor(hw.power), extra, backend);
  } catch (e) {
    log.error({ error: errorMessage(e) }, 'opening the board failed: releasing what was opened (locks OFF)');
    for (const d of opened) await d.close().catch(() => undefined);
    await backend.close().catch(() => undefined);
    throw e;
  }
}
