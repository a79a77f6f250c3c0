/**
 * Board-profile sections of the input/output devices: `scanners`, `keypad`, `display`.
 * Every key has its default here; the doc comment of each key is its documentation.
 *
 * USB ids may be written as numbers (3118) or hex strings ("0x0c2e" or "0c2e").
 * Protocol strings (prefix, suffix, clear, …) are JSON strings; "\u0002" is the byte 0x02.
 */
import { edgeLimitKeys, headWithinRequest, KIOSK_EDGE } from '../../edge/limits-schema.js';
import * as z from '../../schema.js';
import { intIn } from '../../schema.js';
import { rfidReaderSchema } from '../rfid/schema.js';
import { devicePath, reconnectSchema, serialLine } from '../vocabulary/line-schema.js';
import { CLEAR_KEY_NAMES } from '../vocabulary/keys.js';

export { reconnectSchema, serialLine };

const ms = (dflt: number, min = 1, max = 600_000) => z._default(intIn(min, max), dflt);

export const usbId = z.union([
  intIn(0, 0xffff),
  z.pipe(
    z.string().check(z.regex(/^(0x)?[0-9a-fA-F]{1,4}$/, 'must be a USB id: a number or hex like "0x0c2e"')),
    z.transform((s) => parseInt(s.replace(/^0x/, ''), 16)),
  ),
]);

/**
 * A USB port as the kernel names it (sysfs, USBGuard's `via-port`): bus-port[.port...], e.g. "1-1.3".
 * A device built into the station is pinned to its port: the same ids on another port are not it.
 */
export const usbPort = z
  .string()
  .check(z.regex(/^[1-9][0-9]{0,2}-[1-9][0-9]?(\.[1-9][0-9]?){0,6}$/, 'must be a USB port like "1-1.3" (bus-port.port…, as /sys/bus/usb/devices names it)'));
/** One USB interface exactly: "cc:ss:pp" (class, subclass, protocol; two lower-case hex digits each). */
export const EXACT_INTERFACE = /^[0-9a-f]{2}:[0-9a-f]{2}:[0-9a-f]{2}$/;
export const exactInterfaces = z
  .array(z.string().check(z.regex(EXACT_INTERFACE, 'must be an exact interface like "03:01:01" (hex class:subclass:protocol, lower case, no *)')))
  .check(z.minLength(1), z.maxLength(16));

const identifierType = z.enum(['BAR_CODE', 'RFID']);
/** Longest identifier accepted (the station core accepts at most 128). */
const maxLength = z._default(intIn(1, 128), 128);

export const serialFramingSchema = z.strictObject({
  /** CR, LF, CRLF, any (CR or LF or CRLF) or none (frames end at an idle gap). */
  terminator: z._default(z.enum(['CR', 'LF', 'CRLF', 'any', 'none']), 'any'),
  /** Stripped from the start of a frame when present, e.g. "]C1" or "\u0002" (STX). */
  prefix: z._default(z.string().check(z.maxLength(16)), ''),
  /** Stripped from the end of a frame when present, e.g. "\u0003" (ETX). */
  suffix: z._default(z.string().check(z.maxLength(16)), ''),
  maxLength,
  /** With terminator none: a pause this long ends a frame. Otherwise a partial frame this stale is dropped. */
  idleGapMs: ms(200, 5, 10_000),
});

export const serialScannerSchema = z.strictObject({
  kind: z.literal('serial'),
  identifierType,
  ...serialLine,
  framing: z.prefault(serialFramingSchema, {}),
});

const hidDevice = {
  vendorId: usbId,
  productId: usbId,
  /** Pick one of several identical devices by USB serial number. */
  serialNumber: z._default(z.nullable(z.string().check(z.minLength(1))), null),
  /** Or by hidraw path (unstable across replugs; prefer serialNumber). */
  path: z._default(z.nullable(devicePath), null),
  /** Set when the device prefixes its input reports with a report id. */
  reportId: z._default(z.nullable(intIn(1, 255)), null),
  /**
   * The USB port it is wired to inside the station ("1-1.3"): USBGuard then allows these ids on that
   * port only (`via-port`), and only with `usbInterfaces`. null: on any port.
   */
  usbPort: z._default(z.nullable(usbPort), null),
  /** Its exact USB interfaces ("03:01:01", …: `lsusb -v`); null: any HID interface. Required with `usbPort`. */
  usbInterfaces: z._default(z.nullable(exactInterfaces), null),
  /** The device list is re-checked this often to notice an unplug that raised no error. */
  presenceCheckMs: ms(2_000, 50, 60_000),
  reconnect: z.prefault(reconnectSchema, {}),
  openTimeoutMs: ms(5_000, 10),
};

export const hidScannerSchema = z.strictObject({
  kind: z.literal('hid'),
  identifierType,
  ...hidDevice,
  /** The keyboard layout the scanner is configured for: us, or cz-qwertz (Czech QWERTZ). */
  layout: z._default(z.enum(['us', 'cz-qwertz']), 'us'),
  maxLength,
  /** Characters without Enter for this long are a broken frame and are dropped. */
  frameTimeoutMs: ms(500, 10, 10_000),
});

export const scannerSchema = z.discriminatedUnion('kind', [serialScannerSchema, hidScannerSchema, rfidReaderSchema]);

export const hidKeypadSchema = z.strictObject({
  kind: z.literal('hid'),
  ...hidDevice,
  /** Keys that clear the typed PIN. */
  clearKeys: z._default(z.array(z.enum(CLEAR_KEY_NAMES)), ['escape', 'numlock', 'delete', 'kp-asterisk', 'kp-slash']),
});

/** The GPIO matrix keypad belongs to the GPIO drivers (src/devices/board.ts validates it); accepted here as is. */
export const gpioMatrixKeypadPassThrough = z.looseObject({ kind: z.literal('gpio-matrix') });

export const keypadSchema = z.discriminatedUnion('kind', [hidKeypadSchema, gpioMatrixKeypadPassThrough]);

const displaySize = {
  columns: z._default(intIn(8, 80), 20),
  rows: z._default(intIn(1, 8), 4),
  /** wrap: word-wrap long lines (cut when wrapping would push given lines off); cut: cut each line. */
  overflow: z._default(z.enum(['wrap', 'cut']), 'wrap'),
};

export const serialDisplayProtocolSchema = z.strictObject({
  /** Sent first on every update: clears the display and homes the cursor (default form feed). */
  clear: z._default(z.string().check(z.maxLength(16)), '\f'),
  /** Between rows (not after the last). */
  lineEnd: z._default(z.string().check(z.maxLength(8)), '\r\n'),
  /** Per-row prefix, e.g. a set-cursor command; null = none. */
  rowStart: z._default(z.nullable(z.array(z.string().check(z.maxLength(16))).check(z.maxLength(8))), null),
  /** Pad every row with spaces to the full width (for displays that wrap by themselves: with lineEnd ""). */
  padLines: z._default(z.boolean(), false),
});

export const serialDisplaySchema = z.strictObject({
  kind: z.literal('serial'),
  ...serialLine,
  ...displaySize,
  /** What the display's font has: ascii (diacritics transliterated), latin1, utf8. */
  charset: z._default(z.enum(['ascii', 'latin1', 'utf8']), 'ascii'),
  protocol: z.prefault(serialDisplayProtocolSchema, {}),
  /** A display update not handed to the OS within this time fails (show() rejects). */
  writeTimeoutMs: ms(2_000, 10, 60_000),
});

export const terminalDisplaySchema = z.strictObject({
  kind: z.literal('terminal'),
  ...displaySize,
  /** The charset of the LCD being imitated; utf8 = show everything. */
  charset: z._default(z.enum(['ascii', 'latin1', 'utf8']), 'utf8'),
  frame: z._default(z.enum(['unicode', 'ascii']), 'unicode'),
});

/** A 7-bit I2C address: a number (39) or a hex string ("0x27"). */
const i2cAddress = (dflt: number) =>
  z._default(
    z.union([
      intIn(0x03, 0x77),
      z.pipe(
        z.string().check(z.regex(/^0x[0-9a-fA-F]{1,2}$/, 'must be an I2C address: a number or hex like "0x27"')),
        z.pipe(
          z.transform((s: string) => parseInt(s.slice(2), 16)),
          intIn(0x03, 0x77),
        ),
      ),
    ]),
    dflt,
  );

/** Where an I2C display is: /dev/i2c-`bus` (1 on a Raspberry Pi's header: SDA pin 3, SCL pin 5). */
const i2cDevice = {
  bus: z._default(intIn(0, 255), 1),
  /** Capped exponential backoff for reopening after the display stopped answering. */
  reconnect: z.prefault(reconnectSchema, {}),
  /** Opening the bus and initialising the controller taking longer counts as failed. */
  openTimeoutMs: ms(5_000, 10),
};

const expanderPin = (dflt: number) => z._default(intIn(0, 7), dflt);

/** Which PCF8574 pin (P0–P7) drives which LCD signal; the default is the common backpack's. */
export const pcf8574PinsSchema = z
  .strictObject({
    rs: expanderPin(0),
    rw: expanderPin(1),
    e: expanderPin(2),
    backlight: expanderPin(3),
    d4: expanderPin(4),
    d5: expanderPin(5),
    d6: expanderPin(6),
    d7: expanderPin(7),
  })
  .check(z.refine((p) => new Set(Object.values(p)).size === 8, 'every signal needs its own pin (P0–P7 each once)'));

/** A HD44780 character LCD on a PCF8574 I2C backpack. */
export const hd44780DisplaySchema = z.strictObject({
  kind: z.literal('hd44780-i2c'),
  ...i2cDevice,
  /** 0x27 (PCF8574) or 0x3F (PCF8574A) on most backpacks, set by their A0–A2 jumpers. */
  address: i2cAddress(0x27),
  columns: z._default(intIn(8, 40), 20),
  rows: z._default(intIn(1, 4), 4),
  overflow: displaySize.overflow,
  /** The backlight on (its bit is kept in every byte sent). */
  backlight: z._default(z.boolean(), true),
  pins: z.prefault(pcf8574PinsSchema, {}),
  /** Letters the ROM lacks: transliterate (č → c), or custom-characters (up to 8 per screen, the rest transliterated). */
  czech: z._default(z.enum(['transliterate', 'custom-characters']), 'transliterate'),
});

/** A 128×64 SSD1306 or SH1106 OLED on I2C: 21 × 4 characters, Czech letters drawn. */
export const oledDisplaySchema = z.strictObject({
  kind: z.literal('oled-i2c'),
  controller: z._default(z.enum(['ssd1306', 'sh1106']), 'ssd1306'),
  ...i2cDevice,
  /** 0x3C on most modules (0x3D with the address jumper moved). */
  address: i2cAddress(0x3c),
  overflow: displaySize.overflow,
  /** 0–255. */
  contrast: z._default(intIn(0, 255), 0xcf),
  /** The module is mounted upside down. */
  rotate180: z._default(z.boolean(), false),
  /** Against burn-in: dimmed, then switched off, after this long without new lines or input (null = never). */
  idle: z.prefault(
    z.strictObject({
      dimAfterMs: z._default(z.nullable(intIn(1_000, 86_400_000)), 60_000),
      offAfterMs: z._default(z.nullable(intIn(1_000, 86_400_000)), 600_000),
      dimContrast: z._default(intIn(0, 255), 0x01),
    }),
    {},
  ),
});

/** The kiosk page's edge limits (src/edge/limits-schema.ts). */
const kioskEdge = edgeLimitKeys(KIOSK_EDGE);

/** Where pickup-station-kiosk.socket (systemd/kiosk-secret.sh) writes the hash of the kiosk's per-boot secret. */
export const KIOSK_SECRET_HASH_FILE = '/run/pickup-station-kiosk/secret.sha256';

/** The one command polkit lets the station's user run (systemd/polkit-kiosk.rules): the kiosk browser's unit restarted. */
export const KIOSK_BROWSER_RESTART = ['systemctl', '--no-ask-password', 'restart', 'pickup-station-kiosk.service'];

/**
 * The kiosk browser started again when its page is gone from the screen (src/devices/kiosk/browser-restart.ts;
 * docs/decisions/0138).
 */
export const kioskBrowserSchema = z.strictObject({
  /**
   * The command (argv, no shell, run as the station's user) that starts the kiosk browser again;
   * null: the station never does (a development setup without the kiosk unit).
   */
  restartCommand: z._default(z.nullable(z.array(z.nonEmpty()).check(z.minLength(1), z.maxLength(16))), KIOSK_BROWSER_RESTART),
  /** A browser started (with the station, or again) gets this long to show the page before it is started again. */
  startMs: ms(120_000, 1_000, 1_800_000),
  /** At most this many starts in a row without the page shown in between; then none, and the display fault stays. */
  restartLimit: z._default(intIn(0, 10), 3),
  /** The restart command must end within this (it is then stopped, and the start counts as failed). */
  commandTimeoutMs: ms(120_000, 1_000, 600_000),
});

/**
 * A touchscreen showing the kiosk page (src/devices/kiosk/): display, PIN keypad, cancel button and
 * help controls in one. Served on 127.0.0.1 only — on the socket pickup-station-kiosk.socket holds
 * when systemd passes it — for the kiosk browser on the same board (systemd/pickup-station-kiosk.service),
 * which proves itself with the per-boot secret whose hash is in `secretHashFile`.
 */
export const kioskDisplaySchema = z
  .strictObject({
    kind: z.literal('kiosk'),
    port: z._default(intIn(1, 65_535), 8091),
    /** The on-screen cancel button's text (shown only while a cancel is offered). */
    cancelLabel: z._default(z.string().check(z.minLength(1), z.maxLength(24)), 'Cancel'),
    /** Idle event streams get a keep-alive comment this often. */
    keepAliveMs: kioskEdge.keepAliveMs,
    /** The SHA-256 of the kiosk's per-boot secret ("sha256:<hex>"): keys and streams without the secret get 401. */
    secretHashFile: z._default(z.string().check(z.regex(/^\/\S+$/, 'must be an absolute path')), KIOSK_SECRET_HASH_FILE),
    /** Sockets open at once; a newcomer closes the least recently active one without the kiosk's stream. */
    maxConnections: kioskEdge.maxConnections,
    /** Event streams at once (the kiosk browser needs one); a new one replaces the oldest. */
    maxStreams: kioskEdge.maxStreams,
    /** A request head must come within this, the whole request within requestTimeoutMs (else 408, closed). */
    headersTimeoutMs: kioskEdge.headersTimeoutMs,
    requestTimeoutMs: kioskEdge.requestTimeoutMs,
    /** An idle keep-alive socket is closed after this. */
    idleTimeoutMs: kioskEdge.idleTimeoutMs,
    /**
     * What a stream may hold for a page that stops reading — unsent by the station plus unacknowledged
     * in the kernel's send buffer — before it is dropped.
     */
    streamBufferBytes: kioskEdge.streamBufferBytes,
    /** Refused requests are logged as one line per this interval, with their counts. */
    refusalLogIntervalMs: kioskEdge.refusalLogIntervalMs,
    /** Retry delays when the port cannot be listened on or the secret cannot be read. */
    reconnect: z.prefault(reconnectSchema, {}),
    /**
     * No page on the screen for this long — no event stream with the page's heartbeat (sent every
     * quarter of it) — is a display fault (docs/decisions/0137).
     */
    pageTimeoutMs: ms(20_000, 1_000, 60_000),
    browser: z.prefault(kioskBrowserSchema, {}),
    /**
     * Development only (the demo, tests, a developer's machine), never on a station: without the
     * socket systemd holds (pickup-station-kiosk.socket), bind the port in this process. Off, the
     * kiosk page is not served without it.
     */
    developmentOwnPort: z._default(z.boolean(), false),
  })
  .check(z.superRefine(headWithinRequest));

export const displaySchema = z.discriminatedUnion('kind', [
  serialDisplaySchema,
  terminalDisplaySchema,
  hd44780DisplaySchema,
  oledDisplaySchema,
  kioskDisplaySchema,
]);

/** The three sections; board-config.ts spreads `.shape` into its own object (then re-applies refineInputProfile). */
export const inputProfileObject = z.strictObject({
  /**
   * Barcode and RFID scanners that type an identifier (wedge and serial ones); none = a station
   * without scanners (PIN only). An entry of kind `rfid-reader` here is the key's old place: it is
   * read as one of `readers` with a warning.
   */
  scanners: z._default(z.array(scannerSchema).check(z.maxLength(8)), []),
  /** Host-mode RFID readers for library stock (src/devices/rfid/): they report their field, never type a string. */
  readers: z._default(z.array(rfidReaderSchema).check(z.maxLength(8)), []),
  /** The PIN keypad, or null for none. */
  keypad: z._default(z.nullable(keypadSchema), null),
  display: z.prefault(displaySchema, { kind: 'terminal' }),
});

type ProfileSections = z.output<typeof inputProfileObject>;

/** A HID section's choice of device: its ids, and the serial number or hidraw path that narrow it (null: any). */
interface HidChoice {
  readonly vendorId: number;
  readonly productId: number;
  readonly serialNumber: string | null;
  readonly path: string | null;
}

/**
 * Whether two HID sections can open the same device: the same ids, and neither serial number nor
 * path tells them apart (one left null matches every unit, as the driver picks: src/devices/hid/link.ts).
 * Both would read every report: a card scanned would also be typed as PIN keys.
 */
function sameHidDevice(a: HidChoice, b: HidChoice): boolean {
  const apart = (x: string | null, y: string | null): boolean => x !== null && y !== null && x !== y;
  return a.vendorId === b.vendorId && a.productId === b.productId && !apart(a.serialNumber, b.serialNumber) && !apart(a.path, b.path);
}

const hex = (n: number): string => n.toString(16).padStart(4, '0');

/**
 * Checks across devices: no serial path used twice, no two HID sections that can open the same
 * device (the second naming is the problem, with the first's path), one rowStart entry per display
 * row. Usable as `.check(z.superRefine(refineInputProfile))` on any object schema that contains the
 * three sections.
 */
export function refineInputProfile(
  p: { scanners: ProfileSections['scanners']; readers?: ProfileSections['readers']; display: ProfileSections['display']; keypad: unknown },
  ctx: z.core.$RefinementCtx,
): void {
  const serialPaths = new Map<string, string>();
  const claim = (path: string, where: (string | number)[]): void => {
    const other = serialPaths.get(path);
    if (other !== undefined) ctx.addIssue({ code: 'custom', path: where, message: `${path} is already used by ${other}`, input: path });
    else serialPaths.set(path, where.join('.'));
  };
  const hid: { choice: HidChoice; where: string }[] = [];
  const claimHid = (choice: HidChoice, where: (string | number)[]): void => {
    const other = hid.find((h) => sameHidDevice(h.choice, choice));
    if (other !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: where,
        message: `names the HID device ${hex(choice.vendorId)}:${hex(choice.productId)} of ${other.where} a second time: both would read it (give each a serialNumber or path)`,
      });
    else hid.push({ choice, where: where.join('.') });
  };
  p.scanners.forEach((s, i) => {
    if (s.kind === 'serial' || s.kind === 'rfid-reader') return claim(s.path, ['scanners', i, 'path']);
    claimHid(s, ['scanners', i]);
    pinned(s, ['scanners', i], ctx);
  });
  p.readers?.forEach((r, i) => claim(r.path, ['readers', i, 'path']));
  if (p.display.kind === 'serial') {
    claim(p.display.path, ['display', 'path']);
    const rs = p.display.protocol.rowStart;
    if (rs && rs.length < p.display.rows)
      ctx.addIssue({ code: 'custom', path: ['display', 'protocol', 'rowStart'], message: `needs one entry per row (${p.display.rows})` });
  }
  const kp = p.keypad;
  if (isHidKeypad(kp)) {
    claimHid(kp, ['keypad']);
    pinned(kp, ['keypad'], ctx);
  }
}

/** A HID device pinned to its port is named by its exact interfaces too: the port alone would let any HID function of those ids in. */
function pinned(d: { usbPort: string | null; usbInterfaces: readonly string[] | null }, at: (string | number)[], ctx: z.core.$RefinementCtx): void {
  if (d.usbPort !== null && d.usbInterfaces === null)
    ctx.addIssue({
      code: 'custom',
      path: [...at, 'usbInterfaces'],
      message: `a device pinned to its port (usbPort ${d.usbPort}) is named by its exact interfaces too`,
    });
}

function isHidKeypad(k: unknown): k is z.output<typeof hidKeypadSchema> {
  return typeof k === 'object' && k !== null && (k as { kind?: unknown }).kind === 'hid';
}

export const inputProfileSchema = inputProfileObject.check(z.superRefine(refineInputProfile));

/** The sections as written in a profile (defaults optional). */
export type InputProfileInput = z.input<typeof inputProfileSchema>;
/** The validated sections with every default filled in. */
export type InputProfile = z.output<typeof inputProfileSchema>;
