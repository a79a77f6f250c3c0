/**
 * The one entry the board assembly (src/devices/board.ts) calls for the input/output devices:
 * scanners (serial, HID), the HID PIN keypad and the display (serial character LCD/VFD, HD44780
 * LCD on an I2C backpack, SSD1306/SH1106 OLED on I2C, or the terminal), built from the profile sections validated by `inputProfileSchema`.
 *
 * createInputDevices opens every device once and resolves; a device that is missing at start is
 * NOT an error: its health() is not ok (→ /state DOWN with its errorMessage) and it keeps
 * retrying in the background until it appears. It rejects only for a programming error while
 * constructing (then everything already built is closed).
 *
 * `keypad.kind === "gpio-matrix"` is not built here: the result's `keypad` is then null and
 * board.ts builds the matrix keypad from that same section.
 *
 * Validation: use `inputProfileSchema` for the three sections alone, or compose them into the
 * board profile: `z.strictObject({ ...boardKeys, ...inputProfileObject.shape, keypad: <hid |
 * own matrix schema> }).superRefine(refineInputProfile)` (see test/unit/input-profile.test.ts).
 */
import type { Logger } from 'pino';
import { Hd44780Display } from '../display/hd44780.js';
import { SerialDisplay } from '../display/serial-display.js';
import { OledDisplay } from '../display/ssd1306.js';
import { KioskPanel } from '../kiosk/panel.js';
import { TerminalDisplay } from '../display/terminal-display.js';
import { HidKeypad } from '../hid/keypad.js';
import { HidScanner } from '../hid/scanner.js';
import type { HidMatch } from '../hid/link.js';
import type { SerialPortOptions } from '../serial/link.js';
import { SerialScanner } from '../serial/scanner.js';
import { createRfidReader } from '../rfid/create.js';
import { EitherKeypad } from '../combined.js';
import type { AssistControls, Display, IdentifierScanner, Keypad, KioskPortView, PushButton, RfidReader } from '../types.js';
import type { KioskWords } from '../kiosk/page.js';
import type { InputProfile } from './schema.js';

export {
  inputProfileSchema,
  inputProfileObject,
  refineInputProfile,
  scannerSchema,
  keypadSchema,
  displaySchema,
  hidKeypadSchema,
  type InputProfile,
  type InputProfileInput,
} from './schema.js';

export interface InputDevices {
  readonly scanners: IdentifierScanner[];
  /** Host-mode RFID readers (`scanners[]` of kind `rfid-reader`, src/devices/rfid/); absent: none. */
  readonly rfidReaders?: RfidReader[];
  /** null when the profile has no keypad, or a gpio-matrix keypad (board.ts builds that one). */
  readonly keypad: Keypad | null;
  readonly display: Display;
  /** The kiosk's on-screen cancel button (a GPIO cancel button in the profile takes precedence). */
  readonly cancelButton?: PushButton | null;
  /** The kiosk page's help controls (speech, volume, contrast, more time). */
  readonly assist?: AssistControls | null;
  /** Each keypad built here as a device of its own (for health), when `keypad` combines two. */
  readonly keypads?: readonly Keypad[];
  /** The kiosk page's port (its refusals, for the metrics); absent: no kiosk page. */
  readonly kiosk?: KioskPortView | null;
}

/** What the input devices need of the station's config: its locale and words (the kiosk page), the key hold time. */
export interface InputStation {
  readonly lang: string;
  readonly words: KioskWords;
  readonly holdMs: number;
}

/** A device (or a panel of devices) this module opens at start and closes on failure. */
export type Startable = { start(): Promise<void>; close(): Promise<void> };

/** Scanners that type a string; a host-mode RFID reader (`rfid-reader`) is no IdentifierScanner (below). */
type ScannerSection = Exclude<InputProfile['scanners'][number], { kind: 'rfid-reader' }>;
type KeypadSection = NonNullable<InputProfile['keypad']>;
type DisplaySection = InputProfile['display'];

/** One constructor per `kind` of a profile section: the section of that kind in, the device out. */
type KindTable<S extends { kind: string }, D> = { readonly [K in S['kind']]: (section: Extract<S, { kind: K }>, log: Logger, station: InputStation) => D };

/** What a display kind builds: the display, and for a touchscreen also the keypad and cancel button it is. */
interface BuiltDisplay {
  readonly display: Display;
  /** Opened at start, closed on failure (a display that needs neither has none). */
  readonly startable: Startable | null;
  readonly keypad?: Keypad;
  readonly cancelButton?: PushButton;
  readonly assist?: AssistControls;
  readonly kiosk?: KioskPortView;
}

/**
 * The scanner kinds. A new kind is a schema in schema.ts (`scannerSchema`'s union) and one line
 * here; the driver takes the section's keys as its options where the names agree.
 */
export const SCANNER_KINDS: KindTable<ScannerSection, IdentifierScanner & Startable> = {
  serial: (s, log) =>
    new SerialScanner({ ...s, port: serialPort(s, 'scanners', log), idleGapMs: s.framing.idleGapMs, log: log.child({ component: 'scanner' }) }),
  hid: (s, log) => new HidScanner({ ...s, match: hidMatch(s), log: log.child({ component: 'scanner' }) }),
};

/** The keypad kinds built here; `gpio-matrix` is board.ts's (null: not built here). */
export const KEYPAD_KINDS: KindTable<KeypadSection, (Keypad & Startable) | null> = {
  // Never logs digits (see HidKeypad); the child logger only tags the lines.
  hid: (k, log, station) => new HidKeypad({ ...k, match: hidMatch(k), holdMs: station.holdMs, log: log.child({ component: 'keypad' }) }),
  'gpio-matrix': () => null,
};

export const DISPLAY_KINDS: KindTable<DisplaySection, BuiltDisplay> = {
  serial: (d, log) => started(new SerialDisplay({ ...d, port: serialPort(d, 'display', log), size: sizeOf(d), log: log.child({ component: 'display' }) })),
  terminal: (d) => ({ display: new TerminalDisplay({ ...d, size: sizeOf(d) }), startable: null }),
  'hd44780-i2c': (d, log) => started(new Hd44780Display({ ...d, size: sizeOf(d), log: log.child({ component: 'display' }) })),
  'oled-i2c': (d, log) => started(new OledDisplay({ ...d, log: log.child({ component: 'display' }) })),
  kiosk: (d, log, station) => {
    const panel = new KioskPanel({
      ...d,
      ...station,
      secret: { kind: 'file', path: d.secretHashFile },
      ownPort: d.developmentOwnPort,
      limits: d,
      log: log.child({ component: 'kiosk' }),
    });
    return { display: panel.display, startable: panel, keypad: panel.keypad, cancelButton: panel.cancelButton, assist: panel.assist, kiosk: panel };
  },
};

/** The table's entry for the section's kind, applied to it. */
function build<S extends { kind: string }, D>(table: KindTable<S, D>, section: S, log: Logger, station: InputStation): D {
  const make = table[section.kind as S['kind']] as (section: S, log: Logger, station: InputStation) => D;
  return make(section, log, station);
}

const started = (display: Display & Startable): BuiltDisplay => ({ display, startable: display });

/** Kernel names that change with plug order; a profile should use /dev/serial/by-id/… or a udev symlink. */
const UNSTABLE_SERIAL = /^\/dev\/tty(USB|ACM)\d+$/;

/** The port settings of a serial section (warning about a path that is not stable across replugs). */
function serialPort(s: SerialPortOptions, where: string, log: Logger): SerialPortOptions {
  if (UNSTABLE_SERIAL.test(s.path)) log.warn({ path: s.path, where }, 'serial path is not stable across replugs: use /dev/serial/by-id/… or a udev symlink');
  return { path: s.path, baudRate: s.baudRate, dataBits: s.dataBits, parity: s.parity, stopBits: s.stopBits };
}

const hidMatch = (s: HidMatch): HidMatch => ({ vendorId: s.vendorId, productId: s.productId, serialNumber: s.serialNumber, path: s.path });
const sizeOf = (d: { readonly columns: number; readonly rows: number }) => ({ columns: d.columns, rows: d.rows });

type ReaderSection = InputProfile['readers'][number];

/**
 * The profile's scanners and readers, each in its own list. A reader under `scanners` (the key's
 * old place) is read as one of `readers`, with a warning naming where it is, as renamed settings
 * are kept: the profile goes on working until it is moved.
 */
function byJob(profile: InputProfile, log: Logger): { scanners: ScannerSection[]; readers: { section: ReaderSection; where: string }[] } {
  const scanners: ScannerSection[] = [];
  const readers = profile.readers.map((section, i) => ({ section, where: `readers[${i}]` }));
  profile.scanners.forEach((s, i) => {
    if (s.kind !== 'rfid-reader') return void scanners.push(s);
    log.warn({ where: `scanners[${i}]`, path: s.path }, 'an RFID reader under "scanners" is read as one of "readers": move it there (the old place will go)');
    readers.push({ section: s, where: `scanners[${i}]` });
  });
  return { scanners, readers };
}

export async function createInputDevices(profile: InputProfile, log: Logger, station: InputStation): Promise<InputDevices> {
  const built: Startable[] = [];
  try {
    const sections = byJob(profile, log);
    // Host-mode RFID readers report their field rather than type a string (src/devices/rfid/).
    const rfidReaders = sections.readers.map((r) => createRfidReader(r.section, log.child({ component: 'rfid' }), serialPort(r.section, r.where, log)));
    built.push(...rfidReaders);
    const scanners = sections.scanners.map((s) => {
      const scanner = build(SCANNER_KINDS, s, log, station);
      built.push(scanner);
      return scanner;
    });
    const keypad = profile.keypad ? build(KEYPAD_KINDS, profile.keypad, log, station) : null;
    if (keypad) built.push(keypad);
    const d = build(DISPLAY_KINDS, profile.display, log, station);
    if (d.startable) built.push(d.startable);
    await Promise.all(built.map((b) => b.start()));
    // A touchscreen is a keypad; a tactile one beside it (a blind patron's) types too.
    const keypads = [d.keypad, keypad].filter((k): k is Keypad => k !== undefined && k !== null);
    const both = d.keypad && keypad ? new EitherKeypad(d.keypad, keypad) : (d.keypad ?? keypad);
    return {
      scanners,
      rfidReaders,
      keypad: both,
      display: d.display,
      cancelButton: d.cancelButton ?? null,
      assist: d.assist ?? null,
      keypads,
      kiosk: d.kiosk ?? null,
    };
  } catch (e) {
    await Promise.all(built.map((b) => b.close().catch(() => undefined)));
    throw e;
  }
}
