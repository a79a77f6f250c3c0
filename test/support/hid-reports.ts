/**
 * Builds boot-keyboard input reports the way a keyboard-wedge scanner sends them: for each
 * character a "key down" report (modifiers + usage) and a "all up" report, then Enter.
 * Derived from the layout tables; the unit tests also check hand-written bytes so the tables
 * are not only tested against themselves.
 */
import { LAYOUTS, type LayoutName } from '../../src/devices/hid/layouts.js';
import { MOD } from '../../src/devices/hid/keyboard.js';

export const UP = [0, 0, 0, 0, 0, 0, 0, 0];

export function report(modifiers: number, ...usages: number[]): number[] {
  const r = [modifiers, 0, ...usages];
  while (r.length < 8) r.push(0);
  return r;
}

/**
 * The key (usage + modifiers) a scanner in `layout` presses for `ch`: the main block at any level
 * (plain, Shift, AltGr) before the keypad, as scanners type with the main block by default. So in
 * Czech mode a digit is Shift + digit row, not the plain keypad key that also gives it (searching
 * level by level across all keys picked keypad 8 = 0x60 over Shift + 0x25).
 */
export function keyFor(layout: LayoutName, ch: string): { usage: number; modifiers: number } {
  const levels = [0, MOD.leftShift, MOD.rightAlt];
  const entries = [...LAYOUTS[layout].entries()].sort(([a], [b]) => a - b);
  // The keypad and the 102nd key (0x64, absent from US scanners' pc104 keyboards) come last.
  const mainBlock = (usage: number) => usage < 0x54;
  for (const block of [entries.filter(([u]) => mainBlock(u)), entries.filter(([u]) => !mainBlock(u))]) {
    for (let level = 0; level < 3; level++) {
      for (const [usage, l] of block) if (l[level] === ch) return { usage, modifiers: levels[level]! };
    }
  }
  throw new Error(`no key for ${JSON.stringify(ch)} in ${layout}`);
}

/** Reports typing `text` then Enter, as a scanner in `layout` mode sends them. */
export function typeReports(layout: LayoutName, text: string, enter = true): number[][] {
  const out: number[][] = [];
  for (const ch of text) {
    const k = keyFor(layout, ch);
    out.push(report(k.modifiers, k.usage), UP);
  }
  if (enter) out.push(report(0, 0x28), UP);
  return out;
}
