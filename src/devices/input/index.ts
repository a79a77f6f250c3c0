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
import { EitherKeypad } from '../combined.js';
import { KioskPanel } from '../kiosk/panel.js';
import { TerminalDisplay } from '../display/terminal-display.js';
import { HidKeypad } from '../hid/keypad.js';
import { HidScanner } from '../hid/scanner.js';
import { SerialScanner } from '../serial/scanner.js';
import type { AssistControls, Display, IdentifierScanner, Keypad, PushButton } from '../types.js';
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
  /** null when the profile has no keypad, or a gpio-matrix keypad (board.ts builds that one). */
  readonly keypad: Keypad | null;
  readonly display: Display;
  /** The kiosk's on-screen cancel button (a GPIO cancel button in the profile takes precedence). */
  readonly cancelButton?: PushButton | null;
  /** The kiosk page's help controls (speech, volume, contrast, more time). */
  readonly assist?: AssistControls | null;
  /** Each keypad built here as a device of its own (for health), when `keypad` combines two. */
  readonly keypads?: readonly Keypad[];
}

/** What the input devices need of the station's config: its locale and words (the kiosk page), the key hold time. */
export interface InputStation {
  readonly lang: string;
  readonly words: KioskWords;
  readonly holdMs: number;
}

type Startable = { start(): Promise<void>; close(): Promise<void> };

/** Kernel names that change with plug order; a profile should use /dev/serial/by-id/… or a udev symlink. */
const UNSTABLE_SERIAL = /^\/dev\/tty(USB|ACM)\d+$/;

function warnUnstable(path: string, where: string, log: Logger): void {
  if (UNSTABLE_SERIAL.test(path)) log.warn({ path, where }, 'serial path is not stable across replugs: use /dev/serial/by-id/… or a udev symlink');
}

export async function createInputDevices(profile: InputProfile, log: Logger, station: InputStation): Promise<InputDevices> {
  const built: Startable[] = [];
  const keep = <T extends Startable>(d: T): T => {
    built.push(d);
    return d;
  };
  try {
    const scanners = profile.scanners.map((s): IdentifierScanner & Startable => {
      const dlog = log.child({ component: 'scanner' });
      switch (s.kind) {
        case 'serial':
          warnUnstable(s.path, 'scanners', log);
          return keep(
            new SerialScanner({
              identifierType: s.identifierType,
              port: { path: s.path, baudRate: s.baudRate, dataBits: s.dataBits, parity: s.parity, stopBits: s.stopBits },
              framing: { terminator: s.framing.terminator, prefix: s.framing.prefix, suffix: s.framing.suffix, maxLength: s.framing.maxLength },
              idleGapMs: s.framing.idleGapMs,
              reconnect: s.reconnect,
              openTimeoutMs: s.openTimeoutMs,
              log: dlog,
            }),
          );
        case 'hid':
          return keep(
            new HidScanner({
              identifierType: s.identifierType,
              match: { vendorId: s.vendorId, productId: s.productId, serialNumber: s.serialNumber, path: s.path },
              reportId: s.reportId,
              presenceCheckMs: s.presenceCheckMs,
              reconnect: s.reconnect,
              openTimeoutMs: s.openTimeoutMs,
              layout: s.layout,
              maxLength: s.maxLength,
              frameTimeoutMs: s.frameTimeoutMs,
              log: dlog,
            }),
          );
      }
    });

    let keypad: Keypad | null = null;
    const keypads: Keypad[] = [];
    if (profile.keypad?.kind === 'hid') {
      const k = profile.keypad;
      keypad = keep(
        new HidKeypad({
          match: { vendorId: k.vendorId, productId: k.productId, serialNumber: k.serialNumber, path: k.path },
          reportId: k.reportId,
          presenceCheckMs: k.presenceCheckMs,
          reconnect: k.reconnect,
          openTimeoutMs: k.openTimeoutMs,
          clearKeys: k.clearKeys,
          holdMs: station.holdMs,
          // Never logs digits (see HidKeypad); the child logger only tags the lines.
          log: log.child({ component: 'keypad' }),
        }),
      );
      keypads.push(keypad);
    }

    const d = profile.display;
    let display: Display;
    let cancelButton: PushButton | null = null;
    let assist: AssistControls | null = null;
    switch (d.kind) {
      case 'serial':
        warnUnstable(d.path, 'display', log);
        display = keep(
          new SerialDisplay({
            port: { path: d.path, baudRate: d.baudRate, dataBits: d.dataBits, parity: d.parity, stopBits: d.stopBits },
            size: { columns: d.columns, rows: d.rows },
            charset: d.charset,
            overflow: d.overflow,
            protocol: d.protocol,
            writeTimeoutMs: d.writeTimeoutMs,
            reconnect: d.reconnect,
            openTimeoutMs: d.openTimeoutMs,
            log: log.child({ component: 'display' }),
          }),
        );
        break;
      case 'terminal':
        display = new TerminalDisplay({ size: { columns: d.columns, rows: d.rows }, charset: d.charset, overflow: d.overflow, frame: d.frame });
        break;
      case 'hd44780-i2c':
        display = keep(
          new Hd44780Display({
            bus: d.bus,
            address: d.address,
            size: { columns: d.columns, rows: d.rows },
            overflow: d.overflow,
            pins: d.pins,
            backlight: d.backlight,
            czech: d.czech,
            reconnect: d.reconnect,
            openTimeoutMs: d.openTimeoutMs,
            log: log.child({ component: 'display' }),
          }),
        );
        break;
      case 'oled-i2c':
        display = keep(
          new OledDisplay({
            controller: d.controller,
            bus: d.bus,
            address: d.address,
            overflow: d.overflow,
            contrast: d.contrast,
            rotate180: d.rotate180,
            idle: d.idle,
            reconnect: d.reconnect,
            openTimeoutMs: d.openTimeoutMs,
            log: log.child({ component: 'display' }),
          }),
        );
        break;
      case 'kiosk': {
        const panel = keep(
          new KioskPanel({
            port: d.port,
            cancelLabel: d.cancelLabel,
            lang: station.lang,
            words: station.words,
            holdMs: station.holdMs,
            secret: { kind: 'file', path: d.secretHashFile },
            limits: d,
            reconnect: d.reconnect,
            log: log.child({ component: 'kiosk' }),
          }),
        );
        display = panel.display;
        // The touchscreen is a keypad; a tactile one beside it (a blind patron's) types too.
        keypad = keypad === null ? panel.keypad : new EitherKeypad(panel.keypad, keypad);
        keypads.push(panel.keypad);
        cancelButton = panel.cancelButton;
        assist = panel.assist;
        break;
      }
    }

    await Promise.all(built.map((b) => b.start()));
    return { scanners, keypad, display, cancelButton, assist, keypads };
  } catch (e) {
    await Promise.all(built.map((b) => b.close().catch(() => undefined)));
    throw e;
  }
}
