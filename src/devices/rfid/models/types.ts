/**
 * What a library tag's memory says, as the station uses it: the item's Primary Item Identifier
 * (the number the library system knows the item by — its barcode number, not the tag's UID), the
 * set it belongs to, and its owner; or why it cannot be used. Every decoder returns one of these
 * and never throws: a blank, unknown, truncated or damaged tag is a value, not an exception.
 */

/** The library data models the station reads (hardware/RFID.md lists each, kept by its test). */
export const DATA_MODELS = ['iso28560-3', 'iso28560-2', '3m-rfid501', 'bibliotheca-dm11'] as const;
export type DataModel = (typeof DATA_MODELS)[number];

/** One part of an item in N parts (a CD and its booklet): part `part` of `of`. */
export interface SetInfo {
  readonly part: number;
  readonly of: number;
}

export interface ItemData {
  readonly kind: 'item';
  readonly model: DataModel;
  /** The Primary Item Identifier: printable, 1–128 characters. */
  readonly itemId: string;
  /** null: a single-part item (no set information, or "1 of 1"). */
  readonly set: SetInfo | null;
  /** The owner library (ISIL, with its country prefix where the model has one); null when the tag does not say. */
  readonly owner: string | null;
  /** ISO 28560-1's "media format (other)" code (mediaFormatLabel), where the tag carries one; null otherwise. */
  readonly mediaFormat: number | null;
  /** What the decoder noticed and tolerated: reversed blocks, swapped nibbles, skipped OIDs, the DSFID. */
  readonly notes: readonly string[];
}

/**
 * Why a tag cannot be used: `blank` (nothing written: new or erased stock), `unknown` (a format the
 * station does not read), `truncated` (its data runs past the memory that was read), `damaged`
 * (its own checks fail: a CRC, a length, a compaction that does not decode).
 */
export type TagProblem = 'blank' | 'unknown' | 'truncated' | 'damaged';

export interface UnreadableData {
  readonly kind: 'unreadable';
  readonly problem: TagProblem;
  /** For the log line: what exactly was wrong. */
  readonly detail: string;
}

export type DecodedTag = ItemData | UnreadableData;

/** A tag's user memory as read, in memory order, with what the reader told about it. */
export interface TagMemory {
  readonly bytes: Uint8Array;
  /** Bytes per block (4 on most library labels, 8 on some). */
  readonly blockSize: number;
  /** The tag's DSFID register; null when the reader did not report one. */
  readonly dsfid: number | null;
  /**
   * false: the tag holds more memory than `bytes` (the reader stopped at its limit), so data that
   * runs past `bytes` is `truncated` (read the rest), not `damaged`. Default true: `bytes` is the
   * whole user memory.
   */
  readonly complete?: boolean;
}

/**
 * ISO 28560-1's media format (other), as its editors' clarification of 2011 lists the codes
 * (biblstandard.dk/rfid/docs/clarification_28560-1.htm, 4.2.19): for the technician and the
 * librarian, never sent.
 */
export function mediaFormatLabel(code: number): string {
  const known = ['undefined', 'book', 'CD/DVD', 'magnetic tape', 'other', 'careful handling', 'small item'];
  return known[code] ?? (code < 128 ? `reserved code ${code}` : `library's code ${code}`);
}

export function unreadable(problem: TagProblem, detail: string): UnreadableData {
  return { kind: 'unreadable', problem, detail };
}

/** Identifiers go into a protocol body and a log line: printable ASCII or Latin-1, no control characters. */
export function isUsableIdentifier(s: string): boolean {
  // eslint-disable-next-line no-control-regex
  return s.length >= 1 && s.length <= 128 && !/[\u0000-\u001f\u007f-\u009f]/.test(s);
}

/** The memory with the bytes of each block in the opposite order (what some readers and writers do). */
export function reverseBlocks(bytes: Uint8Array, blockSize: number): Uint8Array {
  const out = new Uint8Array(bytes.length);
  const size = Math.max(1, blockSize);
  for (let start = 0; start < bytes.length; start += size) {
    const end = Math.min(bytes.length, start + size);
    for (let i = start; i < end; i++) out[i] = bytes[end - 1 - (i - start)] ?? 0;
  }
  return out;
}

export function hex(bytes: Uint8Array | readonly number[]): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
