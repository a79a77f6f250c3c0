/**
 * A HD44780 character LCD (16×2, 20×4, …) behind a PCF8574 I2C backpack, implementing Display.
 *
 * The PCF8574 latches each byte it is sent onto its 8 pins; the backpack wires them to the LCD's
 * RS, RW, E, the backlight transistor and D4–D7 (4-bit mode). The common mapping (the blue
 * "FC-113"/"LCM1602" boards, addresses 0x27 or 0x3F) is P0=RS, P1=RW, P2=E, P3=backlight,
 * P4–P7=D4–D7; others are configured by `pins`. One nibble is clocked in with three bytes: data
 * with E low (RS settles), E high, E low (the controller latches on the falling edge). Every byte
 * carries the backlight bit, so no write ever flickers it.
 *
 * Initialisation by the datasheet (Hitachi HD44780U, figure 24, 4-bit interface): > 40 ms after
 * power-on, 0x3 (wait > 4.1 ms), 0x3 (> 100 µs), 0x3, 0x2 (now 4-bit), function set, display off,
 * clear (1.52 ms), entry mode, display on. It runs on every (re)open: from any state the three 0x3
 * nibbles bring the controller back to 8-bit mode first, then to 4-bit.
 *
 * Text: fitted by the serial LCD's rules (text.ts, wrap/cut). The ROM (A00) has ASCII only, so
 * other letters are transliterated (Vložte → Vlozte), or, with `czech: "custom-characters"`, drawn
 * as the controller's 8 custom characters (CGRAM): each screen's accented letters get a custom
 * character in the order they first appear, row by row; when a screen needs more than 8 different
 * ones, the first 8 are drawn and the rest of that screen's accented letters are transliterated.
 * A letter keeps its slot while it stays on screen, so redefining a slot never changes a row that
 * is not rewritten.
 *
 * Only rows whose characters changed are rewritten (set DDRAM address + the row's characters).
 */
import { fitLines, toCharset, type DisplaySize, type Overflow } from './text.js';
import { cellGlyph, needsCustomCell } from './font.js';
import type { I2cBus } from './i2c/bus.js';
import { I2cDisplay, type I2cDisplayOptions } from './i2c/i2c-display.js';

/** Which PCF8574 pin (0–7) drives which LCD signal. */
export interface Pcf8574Pins {
  readonly rs: number;
  readonly rw: number;
  readonly e: number;
  readonly backlight: number;
  readonly d4: number;
  readonly d5: number;
  readonly d6: number;
  readonly d7: number;
}

export const COMMON_BACKPACK_PINS: Pcf8574Pins = { rs: 0, rw: 1, e: 2, backlight: 3, d4: 4, d5: 5, d6: 6, d7: 7 };

export type CzechLetters = 'transliterate' | 'custom-characters';

export interface Hd44780Options extends I2cDisplayOptions {
  readonly size: DisplaySize;
  readonly overflow: Overflow;
  readonly pins: Pcf8574Pins;
  readonly backlight: boolean;
  readonly czech: CzechLetters;
}

/** Custom characters of the controller (CGRAM slots 0–7). */
export const CUSTOM_SLOTS = 8;

// Instructions (datasheet table 6).
const CLEAR = 0x01;
const ENTRY_INCREMENT = 0x06;
const DISPLAY_OFF = 0x08;
const DISPLAY_ON = 0x0c;
const FUNCTION_4BIT = 0x20;
const TWO_LINES = 0x08;
const SET_CGRAM = 0x40;
const SET_DDRAM = 0x80;

/** The three bytes that clock one nibble into the controller. */
export function nibbleBytes(nibble: number, rs: boolean, pins: Pcf8574Pins, backlight: boolean): number[] {
  let b = 0;
  if (nibble & 1) b |= 1 << pins.d4;
  if (nibble & 2) b |= 1 << pins.d5;
  if (nibble & 4) b |= 1 << pins.d6;
  if (nibble & 8) b |= 1 << pins.d7;
  if (rs) b |= 1 << pins.rs;
  if (backlight) b |= 1 << pins.backlight;
  const e = 1 << pins.e;
  return [b, b | e, b];
}

/** One instruction (rs false) or data byte (rs true): high nibble, then low. */
export function byteBytes(value: number, rs: boolean, pins: Pcf8574Pins, backlight: boolean): number[] {
  return [...nibbleBytes(value >> 4, rs, pins, backlight), ...nibbleBytes(value & 0x0f, rs, pins, backlight)];
}

/** DDRAM address of a row's first column: rows 2 and 3 continue rows 0 and 1 (20×4: 0x00, 0x40, 0x14, 0x54). */
export function rowAddress(row: number, columns: number): number {
  return (row % 2 === 0 ? 0 : 0x40) + (row >= 2 ? columns : 0);
}

/** A screen as the controller holds it: character codes per row (padded) and the letter of each custom slot. */
export interface LcdScreen {
  readonly rows: readonly (readonly number[])[];
  readonly slots: readonly (string | null)[];
}

/** ROM A00 has ¥ at 0x5C and → at 0x7E. */
const ROM_SUBSTITUTES: Readonly<Record<string, string>> = { '\\': '/', '~': '-' };

function romChar(ch: string): string {
  return ROM_SUBSTITUTES[ch] ?? ch;
}

/**
 * The screen for `lines`. `previous` slots are kept for letters still on screen. Pure.
 */
export function layoutLcd(
  lines: readonly string[],
  o: Pick<Hd44780Options, 'size' | 'overflow' | 'czech'>,
  previous: readonly (string | null)[] = [],
): LcdScreen {
  const custom = o.czech === 'custom-characters';
  // Letters to be drawn stay one character; everything else is transliterated before fitting.
  const prepared = lines.map((l) => {
    let out = '';
    for (const ch of toCharset(l, 'utf8')) out += custom && needsCustomCell(ch) ? ch : toCharset(ch, 'ascii');
    return out;
  });
  const fitted = fitLines(prepared, o.size, o.overflow);
  const wanted: string[] = [];
  for (const row of fitted) for (const ch of row) if (needsCustomCell(ch) && !wanted.includes(ch) && wanted.length < CUSTOM_SLOTS) wanted.push(ch);
  const slots: (string | null)[] = Array.from({ length: CUSTOM_SLOTS }, (_, i) => {
    const letter = previous[i] ?? null;
    return letter !== null && wanted.includes(letter) ? letter : null;
  });
  for (const letter of wanted) {
    if (slots.includes(letter)) continue;
    slots[slots.indexOf(null)] = letter;
  }
  const rows: number[][] = [];
  for (let r = 0; r < o.size.rows; r++) {
    const codes: number[] = [];
    for (const ch of fitted[r] ?? '') {
      const slot = slots.indexOf(ch);
      codes.push(slot >= 0 ? slot : romChar(toCharset(ch, 'ascii')).charCodeAt(0));
    }
    while (codes.length < o.size.columns) codes.push(0x20);
    rows.push(codes);
  }
  return { rows, slots };
}

export class Hd44780Display extends I2cDisplay {
  /** What the controller holds now; null: unknown (after init). */
  private screen: LcdScreen | null = null;

  constructor(private readonly o: Hd44780Options) {
    super('HD44780', o);
  }

  private send(bus: I2cBus, bytes: readonly number[]): Promise<void> {
    return bytes.reduce<Promise<void>>((p, b) => p.then(() => bus.sendByte(this.o.address, b)), Promise.resolve());
  }

  private command(bus: I2cBus, value: number): Promise<void> {
    return this.send(bus, byteBytes(value, false, this.o.pins, this.o.backlight));
  }

  protected async init(bus: I2cBus): Promise<void> {
    const { pins, backlight } = this.o;
    this.screen = null;
    // The first transfer proves the backpack answers: all pins low but the backlight, E low.
    await this.send(bus, [nibbleBytes(0, false, pins, backlight)[0] ?? 0]);
    await this.delay(50);
    await this.send(bus, nibbleBytes(0x3, false, pins, backlight));
    await this.delay(5);
    await this.send(bus, nibbleBytes(0x3, false, pins, backlight));
    await this.delay(1);
    await this.send(bus, nibbleBytes(0x3, false, pins, backlight));
    await this.delay(1);
    await this.send(bus, nibbleBytes(0x2, false, pins, backlight));
    await this.delay(1);
    await this.command(bus, FUNCTION_4BIT | (this.o.size.rows > 1 ? TWO_LINES : 0));
    await this.command(bus, DISPLAY_OFF);
    await this.command(bus, CLEAR);
    await this.delay(2);
    await this.command(bus, ENTRY_INCREMENT);
    await this.command(bus, DISPLAY_ON);
  }

  protected async draw(bus: I2cBus, lines: readonly string[], full: boolean): Promise<void> {
    const before = full ? null : this.screen;
    const next = layoutLcd(lines, this.o, before?.slots ?? []);
    const { pins, backlight } = this.o;
    const bytes: number[] = [];
    next.slots.forEach((letter, slot) => {
      if (letter === null || before?.slots[slot] === letter) return;
      bytes.push(...byteBytes(SET_CGRAM | (slot << 3), false, pins, backlight));
      for (const row of cellGlyph(letter) ?? []) bytes.push(...byteBytes(row, true, pins, backlight));
    });
    next.rows.forEach((codes, r) => {
      const old = before?.rows[r];
      if (old && old.length === codes.length && old.every((c, i) => c === codes[i])) return;
      bytes.push(...byteBytes(SET_DDRAM | rowAddress(r, this.o.size.columns), false, pins, backlight));
      for (const c of codes) bytes.push(...byteBytes(c, true, pins, backlight));
    });
    // Unknown until written: a failure halfway leaves the controller in between (redrawn in full after reconnect).
    this.screen = null;
    await this.send(bus, bytes);
    this.screen = next;
  }
}
