/**
 * The display of demo and bench boards without an LCD: each show() writes a framed box of the
 * display's size to a stream (stdout by default), fitted exactly as the LCD would fit it, so the
 * terminal shows what a station with that display would show.
 */
import type { Writable } from 'node:stream';
import type { Display } from '../types.js';
import { DeviceBase } from '../device-base.js';
import { fitLines, toCharset, type Charset, type DisplaySize, type Overflow } from './text.js';

export interface TerminalDisplayOptions {
  readonly size: DisplaySize;
  /** The charset of the LCD being imitated (utf8 = none). */
  readonly charset: Charset;
  readonly overflow: Overflow;
  /** Box drawn with ─│┌┐└┘ (unicode) or -|+ (ascii, for terminals without UTF-8). */
  readonly frame: 'unicode' | 'ascii';
  readonly out?: Writable;
}

/** The framed box for `lines`. Pure. */
export function renderBox(lines: readonly string[], o: Omit<TerminalDisplayOptions, 'out'>): string {
  const rows = fitLines(
    lines.map((l) => toCharset(l, o.charset)),
    o.size,
    o.overflow,
  );
  const [h, v, tl, tr, bl, br] = o.frame === 'unicode' ? ['─', '│', '┌', '┐', '└', '┘'] : ['-', '|', '+', '+', '+', '+'];
  const body: string[] = [];
  for (let i = 0; i < o.size.rows; i++) {
    const r = rows[i] ?? '';
    body.push(`${v}${r}${' '.repeat(o.size.columns - [...r].length)}${v}`);
  }
  const bar = h.repeat(o.size.columns);
  return [`${tl}${bar}${tr}`, ...body, `${bl}${bar}${br}`].join('\n') + '\n';
}

export class TerminalDisplay extends DeviceBase implements Display {
  private last: readonly string[] = [];
  private readonly out: Writable;

  constructor(private readonly o: TerminalDisplayOptions) {
    super(`terminal display ${o.size.columns}x${o.size.rows}`);
    this.out = o.out ?? process.stdout;
  }

  show(lines: readonly string[]): Promise<void> {
    this.last = [...lines];
    // A terminal never blocks the station: no waiting for the write callback.
    this.out.write(renderBox(lines, this.o));
    return Promise.resolve();
  }

  lastShown(): readonly string[] {
    return this.last;
  }

  close(): Promise<void> {
    this.clearHealthListeners();
    return Promise.resolve();
  }
}
