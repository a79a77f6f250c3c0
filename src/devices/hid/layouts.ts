/**
 * Keyboard layouts a keyboard-wedge scanner can be configured for, as HID usage → characters.
 *
 * A wedge scanner "types" its code for a host whose keyboard layout it assumes: in US mode it
 * sends usage 0x1E for '1'; in Czech (QWERTZ) mode it sends Shift+0x1E, because on a Czech
 * keyboard the unshifted digit row gives `+ěščřžýáíé`. The layout configured here is the one the
 * *scanner* assumes, and decoding with it recovers the characters the scanner meant, so both
 * modes yield the same digits.
 *
 * Tables follow xkeyboard-config (symbols/us, symbols/cz "basic"); levels are [plain, Shift,
 * AltGr]. null = no character (dead keys, NoSymbol): a frame containing one is dropped.
 */

export type LayoutName = 'us' | 'cz-qwertz';
export type Levels = readonly [plain: string | null, shift: string | null, altGr: string | null];
export type Layout = ReadonlyMap<number, Levels>;

/** HID usage (Keyboard/Keypad page 0x07) of the letter `c` (a..z) on a US keyboard. */
const letter = (c: string): number => 0x04 + c.charCodeAt(0) - 0x61;

function build(rows: ReadonlyArray<readonly [number, Levels]>): Layout {
  return new Map(rows);
}

function letters(altGr: Readonly<Record<string, string>> = {}, swap: Readonly<Record<string, string>> = {}): Array<[number, Levels]> {
  const out: Array<[number, Levels]> = [];
  for (let i = 0; i < 26; i++) {
    const usKey = String.fromCharCode(0x61 + i);
    const ch = swap[usKey] ?? usKey;
    out.push([letter(usKey), [ch, ch.toUpperCase(), altGr[usKey] ?? null]]);
  }
  return out;
}

/** Keypad keys give the same characters on every layout (NumLock on: scanners assume it). */
const KEYPAD: Array<[number, Levels]> = [
  [0x54, ['/', '/', null]],
  [0x55, ['*', '*', null]],
  [0x56, ['-', '-', null]],
  [0x57, ['+', '+', null]],
  ...[...'1234567890'].map((d, i): [number, Levels] => [0x59 + i, [d, d, null]]),
  [0x63, ['.', '.', null]],
];

const SPACE: [number, Levels] = [0x2c, [' ', ' ', ' ']];

const US: Layout = build([
  ...letters(),
  ...[...'1234567890'].map((d, i): [number, Levels] => [0x1e + i, [d, '!@#$%^&*()'[i] ?? null, null]]),
  SPACE,
  [0x2d, ['-', '_', null]],
  [0x2e, ['=', '+', null]],
  [0x2f, ['[', '{', null]],
  [0x30, [']', '}', null]],
  [0x31, ['\\', '|', null]],
  [0x32, ['\\', '|', null]], // non-US # key: Linux maps it to the same key as 0x31
  [0x33, [';', ':', null]],
  [0x34, ["'", '"', null]],
  [0x35, ['`', '~', null]],
  [0x36, [',', '<', null]],
  [0x37, ['.', '>', null]],
  [0x38, ['/', '?', null]],
  [0x64, ['<', '>', null]], // the 102nd key (pc105)
  ...KEYPAD,
]);

/** Czech QWERTZ (xkb "cz"): Y/Z swapped, accented letters on the digit row, digits on Shift. */
const CZ: Layout = build([
  ...letters(
    { q: '\\', w: '|', e: '€', a: '~', s: 'đ', d: 'Đ', f: '[', g: ']', h: '`', j: "'", k: 'ł', l: 'Ł', z: '°', x: '#', c: '&', v: '@', b: '{', n: '}', m: '^' },
    { y: 'z', z: 'y' },
  ),
  [0x1e, ['+', '1', '!']],
  [0x1f, ['ě', '2', '@']],
  [0x20, ['š', '3', '#']],
  [0x21, ['č', '4', '$']],
  [0x22, ['ř', '5', '%']],
  [0x23, ['ž', '6', '^']],
  [0x24, ['ý', '7', '&']],
  [0x25, ['á', '8', '*']],
  [0x26, ['í', '9', '{']],
  [0x27, ['é', '0', '}']],
  SPACE,
  [0x2d, ['=', '%', null]],
  [0x2e, [null, null, null]], // dead acute / dead caron
  [0x2f, ['ú', '/', '[']],
  [0x30, [')', '(', ']']],
  [0x31, [null, "'", '\\']], // dead diaeresis
  [0x32, [null, "'", '\\']],
  [0x33, ['ů', '"', '$']],
  [0x34, ['§', '!', "'"]],
  [0x35, [';', null, '`']], // Shift: dead ring above
  [0x36, [',', '?', '<']],
  [0x37, ['.', ':', '>']],
  [0x38, ['-', '_', '*']],
  [0x64, ['\\', '|', '/']],
  ...KEYPAD,
]);

export const LAYOUTS: Readonly<Record<LayoutName, Layout>> = { us: US, 'cz-qwertz': CZ };
