/**
 * Pure assembly of keyboard-wedge key presses into identifiers: characters up to Enter.
 *
 * Garbage never reaches the station: a frame with a key that has no character in the configured
 * layout (Ctrl/Alt chords, dead keys, unknown usages), a rollover error, non-ASCII characters
 * (typically a scanner in Czech mode decoded as US or vice versa), more than maxLength
 * characters, or nothing at all before Enter is dropped whole, with its reason.
 */
import { dropped, isPrintableAscii, type DropReason, type FrameResult } from '../vocabulary/frames.js';
import { isModifierUsage, MOD, USAGE, type KeyPress } from './keyboard.js';
import type { Layout } from './layouts.js';

export type WedgeKey =
  | { readonly kind: 'char'; readonly char: string }
  | { readonly kind: 'enter' }
  /** Keys that carry no character and do not spoil a frame (modifiers, Caps/Num Lock). */
  | { readonly kind: 'ignore' }
  | { readonly kind: 'unknown'; readonly usage: number };

/** The character a key press stands for in `layout`, as the scanner meant it. */
export function decodeKey(layout: Layout, p: KeyPress): WedgeKey {
  const u = p.usage;
  if (u === USAGE.enter || u === USAGE.kpEnter) return { kind: 'enter' };
  if (isModifierUsage(u) || u === USAGE.capsLock || u === USAGE.numLock) return { kind: 'ignore' };
  // Ctrl, left Alt and GUI chords are control input, not text.
  if (p.modifiers & (MOD.leftCtrl | MOD.rightCtrl | MOD.leftAlt | MOD.leftGui | MOD.rightGui)) return { kind: 'unknown', usage: u };
  const shift = (p.modifiers & (MOD.leftShift | MOD.rightShift)) !== 0;
  const altGr = (p.modifiers & MOD.rightAlt) !== 0;
  const levels = layout.get(u);
  if (!levels || (shift && altGr)) return { kind: 'unknown', usage: u };
  const ch = levels[altGr ? 2 : shift ? 1 : 0];
  return ch === null ? { kind: 'unknown', usage: u } : { kind: 'char', char: ch };
}

export class WedgeAssembler {
  private text = '';
  private count = 0;
  private bad: DropReason | null = null;

  constructor(private readonly maxLength: number) {}

  /** Feed one decoded key; returns a result when Enter ends a frame. */
  key(k: WedgeKey): FrameResult | null {
    switch (k.kind) {
      case 'ignore':
        return null;
      case 'enter':
        return this.end();
      case 'unknown':
        this.bad ??= 'unknown-key';
        this.add(`\u00bf${k.usage.toString(16).padStart(2, '0')}`); // shows as \xbfNN in a preview
        return null;
      case 'char':
        this.add(k.char);
        return null;
    }
  }

  /** A rollover/error report arrived mid-frame: keys may have been lost, so the frame is unusable. */
  rollover(): void {
    this.bad ??= 'rollover';
    this.count++;
  }

  hasPartial(): boolean {
    return this.count > 0;
  }

  /** Drop an unfinished frame (no Enter within the timeout, or device lost). */
  discard(): FrameResult | null {
    if (this.count === 0) return null;
    const r = dropped('incomplete', this.count, this.text);
    this.reset();
    return r;
  }

  private add(s: string): void {
    this.count++;
    if (this.text.length <= this.maxLength) this.text += s;
  }

  private end(): FrameResult {
    const { text, count, bad } = this;
    this.reset();
    if (count === 0) return dropped('empty', 0, '');
    if (bad) return dropped(bad, count, text);
    if (count > this.maxLength) return dropped('overlong', count, text);
    if (!isPrintableAscii(text)) return dropped('non-printable', count, text);
    return { kind: 'frame', value: text };
  }

  private reset(): void {
    this.text = '';
    this.count = 0;
    this.bad = null;
  }
}
