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

/** The key (usage + modifiers) a scanner in `layout` presses for `ch`; the first match wins. */
export function keyFor(layout: LayoutName, ch: string): { usage: number; modifiers: number } {
  const levels = [0, MOD.leftShift, MOD.rightAlt];
  // Prefer the main block over the keypad (scanners type with the main block by default).
  const entries = [...LAYOUTS[layout].entries()].sort(([a], [b]) => (a >= 0x54 ? 1 : 0) - (b >= 0x54 ? 1 : 0) || a - b);
  for (let level = 0; level < 3; level++) {
    for (const [usage, l] of entries) if (l[level] === ch) return { usage, modifiers: levels[level]! };
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
