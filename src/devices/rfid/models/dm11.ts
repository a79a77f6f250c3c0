/**
 * bibliotheca's "DM11" coding, as far as public tag images tell it. The description is the one
 * worked out in docs/decisions/0142 from the ten images in GallusMax/libdanrfid's DM11 branch
 * (DM11DataTest: eight of a test series whose barcodes its tests name, two from the field), not
 * from libdanrfid's code (its decoder reads eight characters of four bits and cannot check a tag):
 *
 * | byte  | field                                                                                |
 * |-------|--------------------------------------------------------------------------------------|
 * | 0     | 0x0B in every image                                                                   |
 * | 1–11  | a bit string, each byte's least significant bit first: a 6-bit field that is 1 in     |
 * |       | every image, then the item's characters, 6 bits each (the code plus 0x20 is ASCII:    |
 * |       | '0' is 0x10), ended by a zero code; every bit after it zero                           |
 * | 12–13 | zero in every image                                                                   |
 * | 14–15 | the check, below                                                                      |
 * | 16–31 | A4 84 FF 4F 42 50 44 01 50 04 00 00 00 00 F5 55 in every image (not known)            |
 *
 * The check: CRC-16 with polynomial 0x1021 taken bit-reversed (0x8408), each byte's least
 * significant bit first, register preset 0x0001, no final XOR, over bytes 1–11; bytes 14–15 hold
 * it least significant byte first with its 16 bits in reverse order. It holds on all ten images
 * and is the only CRC-16 that does (the record says how that was searched). Byte 0 is outside it:
 * the station takes only 0x0B there, the one value seen (with 0x0B the check could as well cover
 * byte 0 from another preset).
 *
 * Only digits are read: every public image holds digits, and what other characters look like is
 * inferred, not seen. A tag whose check holds with another character is `unknown`, never guessed.
 */
import { unreadable, type DecodedTag, type TagMemory } from './types.js';

/** Bytes the coding needs: up to its check. */
const DM11_BYTES = 16;
const MARKER = 0x0b;
const FIELD_FROM = 1;
const FIELD_TO = 12;
const CHECK_AT = 14;
const FIELD_BITS = (FIELD_TO - FIELD_FROM) * 8;

function bitAt(b: Uint8Array, k: number): number {
  return ((b[FIELD_FROM + (k >> 3)] ?? 0) >> (k & 7)) & 1;
}

function sixBits(b: Uint8Array, field: number): number {
  let v = 0;
  for (let i = 0; i < 6; i++) v |= bitAt(b, field * 6 + i) << i;
  return v;
}

function reverse16(x: number): number {
  let r = 0;
  for (let i = 0; i < 16; i++) if (x & (1 << i)) r |= 1 << (15 - i);
  return r;
}

/** The DM11 check over bytes 1–11, as stored in bytes 14–15 (least significant byte first). */
export function dm11Check(b: Uint8Array): number {
  let crc = 0x0001;
  for (let i = FIELD_FROM; i < FIELD_TO; i++) {
    crc ^= b[i] ?? 0;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x8408 : crc >>> 1;
  }
  return reverse16(crc);
}

/** The characters' codes up to the zero code; null when a bit after it is set (no padding). */
function codes(b: Uint8Array): number[] | null {
  const out: number[] = [];
  let field = 1;
  while ((field + 1) * 6 <= FIELD_BITS) {
    const c = sixBits(b, field);
    if (c === 0) break;
    out.push(c);
    field++;
  }
  for (let k = field * 6; k < FIELD_BITS; k++) if (bitAt(b, k) !== 0) return null;
  return out;
}

/**
 * What this coding says of the tag: `certain` when its check holds on its layout (then no other
 * decoder's reading is taken), or a guess: a tag with the coding's marks whose check fails is
 * damaged. null: nothing here reads as DM11.
 */
export function readDm11(mem: TagMemory): { readonly certain: boolean; readonly result: DecodedTag } | null {
  const b = mem.bytes;
  const marked = b[0] === MARKER && ((b[FIELD_FROM] ?? 0) & 0x3f) === 1;
  if (!marked) return null;
  if (b.length < DM11_BYTES) {
    return mem.complete === false
      ? { certain: false, result: unreadable('truncated', `bibliotheca DM11: ${b.length} bytes read, its check needs ${DM11_BYTES}`) }
      : null;
  }
  const stored = (b[CHECK_AT] ?? 0) | ((b[CHECK_AT + 1] ?? 0) << 8);
  const chars = codes(b);
  if (stored !== dm11Check(b) || chars === null) {
    // Only a tag with the coding's constant tail is called a damaged DM11 tag; anything else is not this coding.
    const tail = b[30] === 0xf5 && b[31] === 0x55;
    return tail ? { certain: false, result: unreadable('damaged', 'bibliotheca DM11 check mismatch') } : null;
  }
  const notes = ['bibliotheca DM11'];
  if ((b[12] ?? 0) !== 0 || (b[13] ?? 0) !== 0) notes.push('bytes 12–13 not zero');
  if (chars.length === 0) return { certain: true, result: unreadable('blank', 'bibliotheca DM11 with a valid check and no item identifier') };
  if (!chars.every((c) => c >= 0x10 && c <= 0x19)) {
    return { certain: true, result: unreadable('unknown', 'bibliotheca DM11 item identifier with characters other than digits (not publicly documented)') };
  }
  const itemId = chars.map((c) => String.fromCharCode(c + 0x20)).join('');
  return { certain: true, result: { kind: 'item', model: 'bibliotheca-dm11', itemId, set: null, owner: null, mediaFormat: null, notes } };
}
