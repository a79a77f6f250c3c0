/**
 * Config of real hardware: the `hardware: { kind: "board", ... }` variant of the station config,
 * and the board profile it points to (a JSON file under hardware/, installed to
 * /opt/pickup-station/current/hardware/). The profile describes the wiring (which line is which
 * box's lock and door, the cancel button, a matrix keypad); the config says which profile and
 * site-specific things (how to measure voltage and signal).
 *
 * Pure schemas (imported by src/config/schema.ts); board-profile.ts
 * reads the file.
 */
import * as z from '../schema.js';
import { intIn, nonEmpty } from '../schema.js';
import { gpioBackendSchema, inputLineSchema, outputLineSchema } from './gpio/line-schema.js';
import { hidKeypadSchema, inputProfileObject, reconnectSchema, refineInputProfile } from './input/schema.js';
import { usbPolicyOf } from './usb/policy.js';
import { usbProfileSchema } from './usb/schema.js';

export { inputLineSchema, outputLineSchema };

export const boardBoxSchema = z.strictObject({
  number: intIn(1, 999),
  lock: outputLineSchema,
  /** Active = door OPEN. */
  door: inputLineSchema,
});

/** `keypad: { "kind": "gpio-matrix", ... }`: a matrix keypad on GPIO lines (the HID keypad is the input drivers'). */
export const matrixKeypadSchema = z
  .strictObject({
    kind: z.literal('gpio-matrix'),
    rows: z.array(outputLineSchema).check(z.minLength(1), z.maxLength(8)),
    columns: z.array(inputLineSchema).check(z.minLength(1), z.maxLength(8)),
    keys: z.array(z.string()).check(z.minLength(1)),
    specialKeys: z._default(z.record(z.string().check(z.length(1)), z.enum(['backspace', 'clear', 'enter'])), { '*': 'backspace', '#': 'enter' }),
    /** Wait after driving a row before reading the columns (cdev reads come from gpiomon events). */
    scanSettleMs: z._default(intIn(0, 200), 5),
  })
  .check(
    z.superRefine((k, ctx) => {
      if (k.keys.length !== k.rows.length)
        ctx.addIssue({ code: 'custom', path: ['keys'], message: `needs one string per row (${k.rows.length})`, input: k.keys });
      k.keys.forEach((row, i) => {
        if ([...row].length !== k.columns.length)
          ctx.addIssue({ code: 'custom', path: ['keys', i], message: `needs one character per column (${k.columns.length})`, input: row });
      });
    }),
  );

/**
 * The board's audio output and the patron's help controls (speech: src/devices/speech/, the
 * controls: src/devices/gpio/assist.ts). Buttons are active while pressed; `headphones` is the
 * jack's detect switch, active = plugged in. Each line may be null.
 */
export const speechProfileSchema = z.strictObject({
  /** The ALSA PCM speech plays on: "plughw:CARD=Headphones" (a Pi 4's jack), a USB adapter's card, "default". */
  device: z._default(nonEmpty(), 'default'),
  /** Starts speech; pressed again, says the screen again. */
  button: z._default(z.nullable(inputLineSchema), null),
  volumeUp: z._default(z.nullable(inputLineSchema), null),
  volumeDown: z._default(z.nullable(inputLineSchema), null),
  /** Gives more time when a time limit is about to run out (any keypad key does too). */
  moreTime: z._default(z.nullable(inputLineSchema), null),
  /** The headphone jack's detect switch: speech while headphones are plugged in; null: the board cannot tell. */
  headphones: z._default(z.nullable(inputLineSchema), null),
  /** Probe delays while the audio output does not work (no sound card, the adapter unplugged). */
  reconnect: z.prefault(reconnectSchema, {}),
});
export type SpeechProfile = z.output<typeof speechProfileSchema>;

export const boardProfileSchema = z
  .strictObject({
    /** Shown in logs, e.g. "Raspberry Pi 4, 12 boxes in 2 columns". */
    name: nonEmpty(),
    gpio: z.prefault(
      z.strictObject({
        /** auto: sysfs when /sys/class/gpio exists and onoff loads, else the character device. */
        backend: gpioBackendSchema,
        /** Doors, buttons and keypad columns must be quiet this long before a change counts. */
        debounceMs: z._default(intIn(1, 1000), 30),
        /** Time the backend gets past the pulse end before the watchdog forces the lock OFF. */
        pulseWatchdogMarginMs: z._default(intIn(10, 2000), 500),
      }),
      {},
    ),
    boxes: z.array(boardBoxSchema).check(z.minLength(1), z.maxLength(999)),
    cancelButton: z._default(z.nullable(inputLineSchema), null),
    /** The cabinet's or service door's switch, active = open (a cut cable must read open); null: none. */
    tamper: z._default(z.nullable(inputLineSchema), null),
    /** A buzzer's output, active = sounding; null: none. Patterns are in the station config (`buzzer`). */
    buzzer: z._default(z.nullable(outputLineSchema), null),
    /** The audio output speech goes to and the patron's help controls; null: the board has no voice. */
    speech: z._default(z.nullable(speechProfileSchema), null),
    // scanners, keypad (HID) and display: the input drivers' sections (src/devices/input/schema.ts).
    ...inputProfileObject.shape,
    keypad: z._default(z.nullable(z.discriminatedUnion('kind', [hidKeypadSchema, matrixKeypadSchema])), null),
    /** The USB devices the kernel may authorise besides the HID scanners and keypad (src/devices/usb/). */
    usb: z.prefault(usbProfileSchema, {}),
  })
  .check(
    z.superRefine((p, ctx) => {
      refineInputProfile(p, ctx);
      for (const problem of usbPolicyOf(p).problems) ctx.addIssue({ code: 'custom', path: problem.path, message: problem.message, input: problem.device });
      // One physical line, one use: two boxes on one lock line would open both.
      const used = new Map<string, string>();
      const claim = (line: { chip: string; offset: number }, path: (string | number)[]): void => {
        const key = `${line.chip}:${line.offset}`;
        const other = used.get(key);
        if (other !== undefined) ctx.addIssue({ code: 'custom', path, message: `line ${key} is already used by ${other}`, input: line });
        else used.set(key, path.join('.'));
      };
      const numbers = new Set<number>();
      p.boxes.forEach((b, i) => {
        if (numbers.has(b.number)) ctx.addIssue({ code: 'custom', path: ['boxes', i, 'number'], message: 'duplicate box number', input: b.number });
        numbers.add(b.number);
        claim(b.lock, ['boxes', i, 'lock']);
        claim(b.door, ['boxes', i, 'door']);
      });
      if (p.cancelButton) claim(p.cancelButton, ['cancelButton']);
      if (p.tamper) claim(p.tamper, ['tamper']);
      if (p.buzzer) claim(p.buzzer, ['buzzer']);
      for (const key of ['button', 'volumeUp', 'volumeDown', 'moreTime', 'headphones'] as const) {
        const line = p.speech?.[key];
        if (line) claim(line, ['speech', key]);
      }
      if (p.keypad?.kind === 'gpio-matrix') {
        p.keypad.rows.forEach((r, i) => claim(r, ['keypad', 'rows', i]));
        p.keypad.columns.forEach((c, i) => claim(c, ['keypad', 'columns', i]));
      }
    }),
  );

export type BoardProfile = z.output<typeof boardProfileSchema>;
export type BoardProfileInput = z.input<typeof boardProfileSchema>;

/** Where `inputVoltage` comes from. */
export const voltageSourceSchema = z.discriminatedUnion('kind', [
  /** Mains-powered: a fixed value (or null: not reported). */
  z.strictObject({ kind: z.literal('fixed'), volts: z.nullable(z.number().check(z.minimum(0), z.maximum(400))) }),
  /** A sysfs number (hwmon in0_input in mV: scale 0.001; power_supply voltage_now in uV: 1e-6). */
  z.strictObject({ kind: z.literal('file'), path: nonEmpty(), scale: z.number().check(z.positive()) }),
]);

/** Where `internetSignalStrength` comes from. */
export const signalSourceSchema = z.discriminatedUnion('kind', [
  /** 100 while /sys/class/net/<interface>/operstate is "up", else 0. */
  z.strictObject({ kind: z.literal('wired'), interface: z._default(nonEmpty(), 'eth0') }),
  /** Link quality of the interface in /proc/net/wireless, as percent of `maxQuality`. */
  z.strictObject({ kind: z.literal('wifi'), interface: z._default(nonEmpty(), 'wlan0'), maxQuality: z._default(z.number().check(z.int(), z.minimum(1)), 70) }),
  /** A command (argv, no shell) printing a percent, or an AT "+CSQ: rssi,ber" answer. */
  z.strictObject({ kind: z.literal('command'), command: z.array(nonEmpty()).check(z.minLength(1)), timeoutMs: z._default(intIn(100, 30_000), 5_000) }),
]);

export const powerSchema = z.strictObject({
  voltage: z._default(voltageSourceSchema, { kind: 'fixed', volts: null }),
  signal: z._default(signalSourceSchema, { kind: 'wired', interface: 'eth0' }),
});
export type PowerConfig = z.output<typeof powerSchema>;

/** `hardware: { kind: "board", ... }` in the station config. */
export const boardHardwareSchema = z.strictObject({
  kind: z.literal('board'),
  /** Path of the board profile JSON, e.g. /opt/pickup-station/current/hardware/rpi4-12-boxes.json. */
  profile: nonEmpty(),
  power: z.prefault(powerSchema, {}),
});
export type BoardHardwareConfig = z.output<typeof boardHardwareSchema>;
