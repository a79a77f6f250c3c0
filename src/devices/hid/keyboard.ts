/**
 * Pure decoding of HID boot-keyboard input reports (what keyboard-wedge scanners, USB RFID
 * readers and USB numeric keypads send).
 *
 * A boot report is 8 bytes: modifier bits, a reserved byte, then up to 6 usages of the keys held
 * down now. A key press is a usage that was not in the previous report (a scanner typing "11"
 * releases in between; with rollover several keys can be down at once and only the new one
 * counts). A report whose keys are all 0x01 (ErrorRollOver) says "too many keys": it carries no
 * key information and is ignored without changing the pressed set.
 */

export const MOD = {
  leftCtrl: 0x01,
  leftShift: 0x02,
  leftAlt: 0x04,
  leftGui: 0x08,
  rightCtrl: 0x10,
  rightShift: 0x20,
  /** Right Alt = AltGr on European layouts. */
  rightAlt: 0x40,
  rightGui: 0x80,
} as const;

/** Usages of the Keyboard/Keypad page that are not characters. */
export const USAGE = {
  errorRollOver: 0x01,
  postFail: 0x02,
  errorUndefined: 0x03,
  enter: 0x28,
  escape: 0x29,
  backspace: 0x2a,
  tab: 0x2b,
  capsLock: 0x39,
  delete: 0x4c,
  numLock: 0x53,
  kpSlash: 0x54,
  kpAsterisk: 0x55,
  kpMinus: 0x56,
  kpPlus: 0x57,
  kpEnter: 0x58,
  kp1: 0x59,
  kp0: 0x62,
  kpPeriod: 0x63,
  /** Modifier keys, when a device also lists them as usages. */
  firstModifier: 0xe0,
  lastModifier: 0xe7,
} as const;

export interface KeyPress {
  readonly usage: number;
  /** The modifier byte of the report in which the key went down. */
  readonly modifiers: number;
}

export type ReportResult =
  /** The keys that went down with this report, and every key down now. */
  | { readonly kind: 'keys'; readonly pressed: readonly KeyPress[]; readonly down: readonly number[] }
  /** Not a usable boot report (too short, rollover or POST error): no key information. */
  | { readonly kind: 'error'; readonly reason: 'short' | 'rollover' };

export interface BootReportOptions {
  /** When the device prefixes reports with a report id, that id (the byte is then skipped). */
  readonly reportId: number | null;
}

export class BootReportDecoder {
  private held = new Set<number>();

  constructor(private readonly o: BootReportOptions = { reportId: null }) {}

  push(raw: Uint8Array): ReportResult {
    let r = raw;
    if (this.o.reportId !== null && r.length >= 9 && r[0] === this.o.reportId) r = r.subarray(1);
    if (r.length < 8) return { kind: 'error', reason: 'short' };
    const modifiers = r[0] ?? 0;
    const keys: number[] = [];
    for (const u of r.subarray(2, 8)) {
      if (u === 0) continue;
      if (u === USAGE.errorRollOver || u === USAGE.postFail || u === USAGE.errorUndefined) return { kind: 'error', reason: 'rollover' };
      keys.push(u);
    }
    const pressed = keys.filter((u) => !this.held.has(u)).map((usage) => ({ usage, modifiers }));
    this.held = new Set(keys);
    return { kind: 'keys', pressed, down: keys };
  }

  /** Forget held keys (after a reconnect the device starts from "nothing pressed"). */
  reset(): void {
    this.held.clear();
  }
}

export function isModifierUsage(u: number): boolean {
  return u >= USAGE.firstModifier && u <= USAGE.lastModifier;
}
