/**
 * A USB numeric keypad (or any HID keyboard) as the PIN keypad, implementing Keypad.
 *
 * Digits come from the keypad block (0x59–0x62) or the top row (0x1E–0x27) regardless of
 * modifiers and layout (a keypad has no layout; NumLock state lives in the host, which we are).
 * Backspace → backspace; Enter / keypad Enter → enter; the configured clear keys → clear.
 * Other keys are ignored. Nothing here logs a digit or a usage that would reveal one. A key still
 * down `holdMs` after it went down is reported once more as held (speech on: core/assist.ts).
 */
import type { Keypad, KeypadKey, Unsubscribe } from '../types.js';
import { Listeners } from '../device-base.js';
import { HidInputDevice, type HidDeviceOptions } from './hid-device.js';
import { USAGE, type ReportResult } from './keyboard.js';
import type { ClearKeyName } from '../vocabulary/keys.js';

/** The HID usage of each key the profile may name in `clearKeys`. */
export const CLEAR_KEY_USAGES: Readonly<Record<ClearKeyName, number>> = {
  escape: USAGE.escape,
  numlock: USAGE.numLock,
  delete: USAGE.delete,
  'kp-asterisk': USAGE.kpAsterisk,
  'kp-slash': USAGE.kpSlash,
  'kp-minus': USAGE.kpMinus,
  'kp-period': USAGE.kpPeriod,
};

export interface HidKeypadOptions extends HidDeviceOptions {
  readonly clearKeys: readonly ClearKeyName[];
  /** A key down this long is reported as held (null: never). */
  readonly holdMs?: number | null;
}

/** The keypad meaning of a HID usage, or null for keys a PIN pad ignores. Pure. */
export function keypadKeyOf(usage: number, clearUsages: ReadonlySet<number>): KeypadKey | null {
  if (usage >= USAGE.kp1 && usage <= USAGE.kp0) return { kind: 'digit', digit: String((usage - USAGE.kp1 + 1) % 10) };
  if (usage >= 0x1e && usage <= 0x27) return { kind: 'digit', digit: String((usage - 0x1e + 1) % 10) };
  if (usage === USAGE.backspace) return { kind: 'backspace' };
  if (usage === USAGE.enter || usage === USAGE.kpEnter) return { kind: 'enter' };
  if (clearUsages.has(usage)) return { kind: 'clear' };
  return null;
}

export class HidKeypad extends HidInputDevice implements Keypad {
  private readonly keys = new Listeners<[KeypadKey]>();
  private readonly holds = new Listeners<[KeypadKey]>();
  /** Keys down and waiting for their hold time, by usage. */
  private readonly holding = new Map<number, NodeJS.Timeout>();
  private readonly clearUsages: ReadonlySet<number>;

  constructor(private readonly o: HidKeypadOptions) {
    super('HID keypad', o);
    this.clearUsages = new Set(o.clearKeys.map((k) => CLEAR_KEY_USAGES[k]));
  }

  onKey(listener: (key: KeypadKey) => void): Unsubscribe {
    return this.keys.add(listener);
  }

  onHold(listener: (key: KeypadKey) => void): Unsubscribe {
    return this.holds.add(listener);
  }

  protected onReport(r: ReportResult): void {
    if (r.kind === 'error') {
      // A rollover report carries no keys; a PIN digit may have been lost, which the user sees.
      this.o.log.warn({ device: this.name, reason: r.reason }, 'HID keypad report dropped');
      return;
    }
    // A key released before its hold time is not held.
    for (const [usage, timer] of this.holding) {
      if (r.down.includes(usage)) continue;
      clearTimeout(timer);
      this.holding.delete(usage);
    }
    for (const p of r.pressed) {
      const k = keypadKeyOf(p.usage, this.clearUsages);
      if (!k) continue;
      this.keys.emit(k);
      const ms = this.o.holdMs ?? null;
      if (ms === null) continue;
      this.holding.set(
        p.usage,
        setTimeout(() => {
          this.holding.delete(p.usage);
          this.holds.emit(k);
        }, ms),
      );
    }
  }

  private forgetHolds(): void {
    for (const t of this.holding.values()) clearTimeout(t);
    this.holding.clear();
  }

  protected linkDown(): void {
    // Nothing buffered here: the core owns the typed PIN and clears it on its idle timeout.
    this.forgetHolds();
  }

  protected override onClose(): void {
    this.forgetHolds();
    this.keys.clear();
    this.holds.clear();
  }
}
