/**
 * Config of real hardware: the `hardware: { kind: "board", ... }` variant of the station config,
 * and the board profile it points to (a JSON file under hardware/, installed to
 * /opt/pickup-station/current/hardware/). The profile describes the wiring (which line is which
 * box's lock and door, the cancel button, a matrix keypad); the config says which profile and
 * site-specific things (how to measure voltage and signal).
 *
 * Pure schemas (imported by src/config/schema.ts); board-profile.ts reads the file.
 */
import { z } from 'zod';
import { hidKeypadSchema, inputProfileObject, refineInputProfile } from './input/schema.js';

const chipLabel = z.string().min(1, 'chip label required (see `gpiodetect` or /sys/class/gpio/gpiochip*/label)');
const offset = z.number().int().min(0).max(1023);

/** A lock output or keypad row. activeLow: the line is driven *low* to energize. */
export const outputLineSchema = z.strictObject({ chip: chipLabel, offset, activeLow: z.boolean().default(false) });
/** A door, button or keypad column. bias is applied by the cdev backend; with sysfs it must be wired. */
export const inputLineSchema = z.strictObject({
  chip: chipLabel,
  offset,
  activeLow: z.boolean().default(false),
  bias: z.enum(['as-is', 'pull-up', 'pull-down', 'disable']).default('as-is'),
});

export const boardBoxSchema = z.strictObject({
  number: z.number().int().min(1).max(999),
  lock: outputLineSchema,
  /** Active = door OPEN. */
  door: inputLineSchema,
});

/** `keypad: { "kind": "gpio-matrix", ... }`: a matrix keypad on GPIO lines (the HID keypad is the input drivers'). */
export const matrixKeypadSchema = z
  .strictObject({
    kind: z.literal('gpio-matrix'),
    rows: z.array(outputLineSchema).min(1).max(8),
    columns: z.array(inputLineSchema).min(1).max(8),
    keys: z.array(z.string()).min(1),
    specialKeys: z.record(z.string().length(1), z.enum(['backspace', 'clear', 'enter'])).default({ '*': 'backspace', '#': 'enter' }),
    /** Wait after driving a row before reading the columns (cdev reads come from gpiomon events). */
    scanSettleMs: z.number().int().min(0).max(200).default(5),
  })
  .superRefine((k, ctx) => {
    if (k.keys.length !== k.rows.length) ctx.addIssue({ code: 'custom', path: ['keys'], message: `needs one string per row (${k.rows.length})`, input: k.keys });
    k.keys.forEach((row, i) => {
      if ([...row].length !== k.columns.length)
        ctx.addIssue({ code: 'custom', path: ['keys', i], message: `needs one character per column (${k.columns.length})`, input: row });
    });
  });

export const boardProfileSchema = z
  .strictObject({
    /** Shown in logs, e.g. "Raspberry Pi 4, 12 boxes in 2 columns". */
    name: z.string().min(1),
    gpio: z
      .strictObject({
        /** auto: sysfs when /sys/class/gpio exists and onoff loads, else the character device. */
        backend: z.enum(['auto', 'sysfs', 'cdev']).default('auto'),
        /** Doors, buttons and keypad columns must be quiet this long before a change counts. */
        debounceMs: z.number().int().min(1).max(1000).default(30),
        /** Time the backend gets past the pulse end before the watchdog forces the lock OFF. */
        pulseWatchdogMarginMs: z.number().int().min(10).max(2000).default(500),
      })
      .prefault({}),
    boxes: z.array(boardBoxSchema).min(1).max(999),
    cancelButton: inputLineSchema.nullable().default(null),
    /** The cabinet's or service door's switch, active = open (a cut cable must read open); null: none. */
    tamper: inputLineSchema.nullable().default(null),
    /** A buzzer's output, active = sounding; null: none. Patterns are in the station config (`buzzer`). */
    buzzer: outputLineSchema.nullable().default(null),
    // scanners, keypad (HID) and display: the input drivers' sections (src/devices/input/schema.ts).
    ...inputProfileObject.shape,
    keypad: z.discriminatedUnion('kind', [hidKeypadSchema, matrixKeypadSchema]).nullable().default(null),
  })
  .superRefine((p, ctx) => {
    refineInputProfile(p, ctx);
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
    if (p.keypad?.kind === 'gpio-matrix') {
      p.keypad.rows.forEach((r, i) => claim(r, ['keypad', 'rows', i]));
      p.keypad.columns.forEach((c, i) => claim(c, ['keypad', 'columns', i]));
    }
  });

export type BoardProfile = z.output<typeof boardProfileSchema>;
export type BoardProfileInput = z.input<typeof boardProfileSchema>;

/** Where `inputVoltage` comes from. */
export const voltageSourceSchema = z.discriminatedUnion('kind', [
  /** Mains-powered: a fixed value (or null: not reported). */
  z.strictObject({ kind: z.literal('fixed'), volts: z.number().min(0).max(400).nullable() }),
  /** A sysfs number (hwmon in0_input in mV: scale 0.001; power_supply voltage_now in uV: 1e-6). */
  z.strictObject({ kind: z.literal('file'), path: z.string().min(1), scale: z.number().positive() }),
]);

/** Where `internetSignalStrength` comes from. */
export const signalSourceSchema = z.discriminatedUnion('kind', [
  /** 100 while /sys/class/net/<interface>/operstate is "up", else 0. */
  z.strictObject({ kind: z.literal('wired'), interface: z.string().min(1).default('eth0') }),
  /** Link quality of the interface in /proc/net/wireless, as percent of `maxQuality`. */
  z.strictObject({ kind: z.literal('wifi'), interface: z.string().min(1).default('wlan0'), maxQuality: z.number().int().min(1).default(70) }),
  /** A command (argv, no shell) printing a percent, or an AT "+CSQ: rssi,ber" answer. */
  z.strictObject({ kind: z.literal('command'), command: z.array(z.string().min(1)).min(1), timeoutMs: z.number().int().min(100).max(30_000).default(5_000) }),
]);

export const powerSchema = z.strictObject({
  voltage: voltageSourceSchema.default({ kind: 'fixed', volts: null }),
  signal: signalSourceSchema.default({ kind: 'wired', interface: 'eth0' }),
});
export type PowerConfig = z.output<typeof powerSchema>;

/** `hardware: { kind: "board", ... }` in the station config. */
export const boardHardwareSchema = z.strictObject({
  kind: z.literal('board'),
  /** Path of the board profile JSON, e.g. /opt/pickup-station/current/hardware/rpi4-12-boxes.json. */
  profile: z.string().min(1),
  power: powerSchema.prefault({}),
});
export type BoardHardwareConfig = z.output<typeof boardHardwareSchema>;
