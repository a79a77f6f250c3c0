/**
 * Assembles a real station (hardware.kind = "board") from its board profile: locks first (every
 * output OFF before anything else is opened), then doors, the cancel button, the tamper switch and
 * the buzzer, the GPIO matrix keypad, then the serial/HID devices, then the power sources. If any step fails, what was
 * opened is closed again (locks OFF) and the error propagates.
 *
 * Scanners, the HID keypad and the display belong to the input drivers (src/devices/input/);
 * they come in through their `createInputDevices`. `keypad.kind = "gpio-matrix"` is built here.
 */
import type { Config } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { BoardHardwareConfig, BoardProfile } from './board-config.js';
import { loadBoardProfile } from '../config/board-profile.js';
import { openGpioBackend } from './gpio/backend.js';
import { GpioBuzzer, GpioTamperSwitch } from './gpio/alarm-devices.js';
import { GpioButton, GpioDoorSensors } from './gpio/inputs.js';
import { GpioLockBank } from './gpio/locks.js';
import { GpioMatrixKeypad } from './gpio/matrix-keypad.js';
import { GpioAssistControls } from './gpio/assist.js';
import { EspeakSpeech } from './speech/espeak.js';
import { EitherKeypad } from './combined.js';
import type { GpioBackend, InputSpec, OutputSpec } from './gpio/types.js';
import { ConfiguredPowerMonitor } from './power/monitor.js';
import { DEFAULT_USB_DEVICES_DIR, DEFAULT_USB_MONITOR, UsbWatch } from './usb/watch.js';
import { UsbGuardWatch } from './usb/guard.js';
import { createInputDevices, type InputDevices, type InputStation } from './input/index.js';
import type {
  AssistControls,
  Buzzer,
  Device,
  Display,
  IdentifierScanner,
  Keypad,
  KioskPortView,
  PowerMonitor,
  PushButton,
  RfidReader,
  SpeechOutput,
  StationHardware,
  TamperSwitch,
} from './types.js';

/** Builds scanners, the HID keypad and the display from the profile (src/devices/input/index.ts). */
export type InputDevicesFactory = (profile: BoardProfile, log: Logger, station: InputStation) => Promise<InputDevices>;

export interface BoardDeps {
  /** Defaults to the input drivers' createInputDevices; tests inject fakes. */
  readonly createInputDevices?: InputDevicesFactory;
  readonly openBackend?: (profile: BoardProfile, log: Logger) => Promise<GpioBackend>;
  /** Where the USB watch reads devices and uevents (default: /sys/bus/usb/devices, udevadm monitor); tests point it at a fake sysfs. */
  readonly usbWatch?: { readonly devicesDir: string; readonly monitor: readonly string[] };
  /** Where USBGuard's state and the kernel's default are read (tests); null: not watched. Default: the profile's `usb.guard`. */
  readonly usbGuard?: { readonly stateFile: string; readonly bootDefaultFile: string } | null;
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
    private readonly backend: GpioBackend,
    readonly tamper: TamperSwitch | null,
    readonly buzzer: Buzzer | null,
    readonly rfidReaders: readonly RfidReader[],
    readonly speech: SpeechOutput | null,
    readonly assist: readonly AssistControls[],
    /** The keypads behind `keypad` (a touchscreen's and a tactile one may be two). */
    private readonly keypads: readonly Keypad[],
    readonly usb: UsbWatch,
    /** A kiosk touchscreen beside a tactile keypad (HID or matrix): PINs are taken without the screen. */
    readonly servesWithoutDisplay: boolean,
    readonly kiosk: KioskPortView | null,
    readonly usbGuard: UsbGuardWatch | null,
  ) {}

  devices(): readonly Device[] {
    const list: Device[] = [this.locks, this.doors, ...this.scanners, ...this.rfidReaders, this.display];
    list.push(...this.keypads);
    if (this.cancelButton) list.push(this.cancelButton);
    if (this.tamper) list.push(this.tamper);
    if (this.buzzer) list.push(this.buzzer);
    if (this.speech) list.push(this.speech);
    list.push(...this.assist);
    list.push(this.usb);
    if (this.usbGuard) list.push(this.usbGuard);
    return list;
  }

  async close(): Promise<void> {
    await this.locks.close();
    await Promise.allSettled(
      this.devices()
        .filter((d) => d !== this.locks)
        .map((d) => d.close()),
    );
    await this.backend.close();
  }
}

/** Build the hardware of a `board` config. Profile problems throw ConfigError before any line is requested. */
export async function createBoardHardware(config: Config, hw: BoardHardwareConfig, log: Logger, deps: BoardDeps = {}): Promise<StationHardware> {
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
    const tamper = profile.tamper ? await GpioTamperSwitch.open(backend, { line: profile.tamper, debounceMs: profile.gpio.debounceMs, log }) : null;
    if (tamper) opened.push(tamper);
    const buzzer = profile.buzzer ? await GpioBuzzer.open(backend, { line: profile.buzzer, log }) : null;
    if (buzzer) opened.push(buzzer);
    const mk = profile.keypad?.kind === 'gpio-matrix' ? profile.keypad : null;
    const keypadMatrix = mk
      ? await GpioMatrixKeypad.open(backend, {
          rows: mk.rows,
          columns: mk.columns,
          keys: mk.keys,
          specialKeys: mk.specialKeys,
          settleMs: mk.scanSettleMs,
          debounceMs: profile.gpio.debounceMs,
          holdMs: config.speech.holdMs,
          log,
        })
      : null;
    if (keypadMatrix) opened.push(keypadMatrix);
    const sp = profile.speech;
    const wired = sp
      ? await GpioAssistControls.open(backend, {
          lines: { button: sp.button, volumeUp: sp.volumeUp, volumeDown: sp.volumeDown, moreTime: sp.moreTime, headphones: sp.headphones },
          debounceMs: profile.gpio.debounceMs,
          log,
        })
      : null;
    if (wired) opened.push(wired);
    // The audio output: probed in the background (its two short processes must not delay the first
    // /state); a missing one is its health, never a failed start.
    const speech = sp
      ? new EspeakSpeech({
          device: sp.device,
          rateWpm: config.speech.rateWpm,
          killGraceMs: config.speech.killGraceMs,
          espeak: 'espeak-ng',
          aplay: 'aplay',
          reconnect: sp.reconnect,
          log: log.child({ component: 'speech' }),
        })
      : null;
    if (speech) {
      opened.push(speech);
      void speech.start();
    }
    // Scanners, a HID keypad (null when the keypad is the GPIO matrix) and the display.
    const station: InputStation = { lang: config.messages.locale, words: config.messages.assist.kiosk, holdMs: config.speech.holdMs };
    const inputs = await (deps.createInputDevices ?? createInputDevices)(profile, log, station);
    opened.push(...inputs.scanners, ...(inputs.rfidReaders ?? []), inputs.display);
    const inputKeypads = inputs.keypads ?? (inputs.keypad ? [inputs.keypad] : []);
    opened.push(...inputKeypads);
    const keypads = [...inputKeypads, ...(keypadMatrix ? [keypadMatrix] : [])];
    if (inputs.cancelButton) opened.push(inputs.cancelButton);
    if (inputs.assist) opened.push(inputs.assist);
    // A kiosk's touchscreen keypad and a tactile matrix keypad beside it both type.
    const keypad = inputs.keypad && keypadMatrix ? new EitherKeypad(inputs.keypad, keypadMatrix) : (inputs.keypad ?? keypadMatrix);
    // A wired cancel button wins over the kiosk's on-screen one.
    const cancelButton = cancel ?? inputs.cancelButton ?? null;
    const assist = [wired, inputs.assist ?? null].filter((c): c is AssistControls => c !== null);
    const where = deps.usbWatch ?? { devicesDir: DEFAULT_USB_DEVICES_DIR, monitor: DEFAULT_USB_MONITOR };
    const usb = new UsbWatch({ ...where, reconnect: profile.usb.reconnect, openTimeoutMs: profile.usb.openTimeoutMs, log });
    opened.push(usb);
    await usb.start();
    const guardAt = deps.usbGuard === undefined ? profile.usb.guard : deps.usbGuard;
    const usbGuard = guardAt === null ? null : new UsbGuardWatch({ ...guardAt, log });
    if (usbGuard) {
      opened.push(usbGuard);
      usbGuard.start();
    }
    return new BoardStation(
      locks,
      doors,
      inputs.scanners,
      keypad,
      cancelButton,
      inputs.display,
      new ConfiguredPowerMonitor(hw.power),
      backend,
      tamper,
      buzzer,
      inputs.rfidReaders ?? [],
      speech,
      assist,
      keypads,
      usb,
      profile.display.kind === 'kiosk' && profile.keypad !== null,
      inputs.kiosk ?? null,
      usbGuard,
    );
  } catch (e) {
    log.error({ error: errorMessage(e) }, 'opening the board failed: releasing what was opened (locks OFF)');
    for (const d of opened) await d.close().catch(() => undefined);
    await backend.close().catch(() => undefined);
    throw e;
  }
}
