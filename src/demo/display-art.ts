/**
 * The demo's display in the geometry of a real one (`--display`), so a vendor sees how the texts
 * come out before buying: a 16×2 or 20×4 HD44780 (transliterated, as its ROM shows them, or with
 * the Czech letters as custom characters), or the 128×64 OLED's pixels as text art (two pixel rows
 * per terminal line). The drivers' own fitting and rendering do it: what is drawn here is what the
 * display would show.
 */
import { layoutLcd } from '../devices/display/hd44780.js';
import { OLED_HEIGHT, OLED_WIDTH, renderOled } from '../devices/display/ssd1306.js';

export const DEMO_DISPLAYS = ['text', '16x2', '20x4', '20x4-czech', '128x64', 'kiosk'] as const;
export type DemoDisplay = (typeof DEMO_DISPLAYS)[number];

function frame(rows: readonly string[], width: number): string {
  const bar = '─'.repeat(width);
  return [`┌${bar}┐`, ...rows.map((r) => `│${r}│`), `└${bar}┘`].join('\n');
}

/** A HD44780's screen: custom characters drawn as the letters they show. */
function lcd(lines: readonly string[], columns: number, rows: number, czech: boolean): string {
  const s = layoutLcd(lines, { size: { columns, rows }, overflow: 'wrap', czech: czech ? 'custom-characters' : 'transliterate' });
  return frame(
    s.rows.map((codes) => codes.map((c) => (c < 8 ? (s.slots[c] ?? '?') : String.fromCharCode(c))).join('')),
    columns,
  );
}

/** The OLED's pixels, two rows per character: ▀ ▄ █ or a space. */
function oled(lines: readonly string[]): string {
  const pages = renderOled(lines, 'wrap');
  const px = (x: number, y: number): boolean => (((pages[y >> 3]?.[x] ?? 0) >> (y & 7)) & 1) === 1;
  const rows: string[] = [];
  for (let y = 0; y < OLED_HEIGHT; y += 2) {
    let r = '';
    for (let x = 0; x < OLED_WIDTH; x++) {
      const top = px(x, y);
      const bottom = px(x, y + 1);
      r += top && bottom ? '█' : top ? '▀' : bottom ? '▄' : ' ';
    }
    rows.push(r);
  }
  return frame(rows, OLED_WIDTH);
}

/** What the demo prints for `lines` on display `kind` (null: the caller's own framing). */
export function demoScreen(kind: Exclude<DemoDisplay, 'text' | 'kiosk'>, lines: readonly string[]): string {
  switch (kind) {
    case '16x2':
      return lcd(lines, 16, 2, false);
    case '20x4':
      return lcd(lines, 20, 4, false);
    case '20x4-czech':
      return lcd(lines, 20, 4, true);
    case '128x64':
      return oled(lines);
  }
}
