/** What a scanner's framing produces: an identifier, or a frame dropped for a logged reason. */

export type DropReason = 'empty' | 'overlong' | 'non-printable' | 'incomplete' | 'unknown-key' | 'rollover';

export type FrameResult =
  | { readonly kind: 'frame'; readonly value: string }
  /** `preview` is escaped, masked and truncated: safe for a log line. */
  | { readonly kind: 'dropped'; readonly reason: DropReason; readonly length: number; readonly preview: string };

/** Identifiers are printable ASCII: library barcodes and RFID UIDs never contain anything else. */
export function isPrintableAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

/**
 * First characters of a frame for a log line: letters and digits as `*` (a dropped frame may still
 * be a whole card UID or item number), other printable ASCII as is, the rest as \xNN / \uNNNN —
 * what tells a wrong layout or a broken frame apart is kept, the identifier is not.
 */
export function preview(s: string, max = 16): string {
  let out = '';
  for (const ch of [...s].slice(0, max)) {
    const c = ch.codePointAt(0) ?? 0;
    if (/^[0-9A-Za-z]$/.test(ch)) out += '*';
    else if (c >= 0x20 && c <= 0x7e) out += ch;
    else if (c <= 0xff) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += `\\u${c.toString(16).padStart(4, '0')}`;
  }
  return [...s].length > max ? `${out}…` : out;
}

export function dropped(reason: DropReason, length: number, text: string): FrameResult {
  return { kind: 'dropped', reason, length, preview: preview(text) };
}
