/**
 * 3M's "RFID 501" layout (the alphanumeric format of older 3M library systems), as documented by
 * Biblio-RFID (dpavlin): seven or eight 4-byte blocks.
 *
 * | byte  | field                                                                         |
 * |-------|-------------------------------------------------------------------------------|
 * | 0     | 0x04                                                                          |
 * | 1     | high nibble: this item's number in its set; low nibble: items in the set      |
 * | 2     | 0x00                                                                          |
 * | 3     | item type (1 book, 6 CD, …)                                                   |
 * | 4–19  | the item's identifier, 16 bytes, NUL-padded                                   |
 * | 20–23 | branch (12 bits) and library (20 bits), big-endian                            |
 * | 24–27 | a custom signed integer                                                       |
 *
 * A 3M manufacturing blank is 24 bytes of 0x55 (then zeros); the dispatcher calls it blank.
 * Security on these systems is the AFI byte (0xD7 secured, 0xDA unsecured in Biblio-RFID's
 * installation): a station config names its library's values, they are never assumed here.
 */
import { isUsableIdentifier, unreadable, type DecodedTag, type TagMemory } from './types.js';

const MARKER = 0x04;
const MIN_BYTES = 20;

export function decodeRfid501(mem: TagMemory): DecodedTag | null {
  const b = mem.bytes;
  if (b[0] !== MARKER || b[2] !== 0x00) return null;
  if (b.length < MIN_BYTES) return unreadable('truncated', `3M RFID 501: ${b.length} bytes read, the identifier needs ${MIN_BYTES}`);
  let end = 4;
  while (end < 20 && b[end] !== 0) end++;
  for (let i = end; i < 20; i++) if (b[i] !== 0) return null;
  let itemId = '';
  for (let i = 4; i < end; i++) itemId += String.fromCharCode(b[i] ?? 0);
  if (itemId === '' || !isUsableIdentifier(itemId)) return null;
  const part = (b[1] ?? 0) >> 4;
  const of = (b[1] ?? 0) & 0x0f;
  const notes = [`item type ${b[3] ?? 0}`];
  if (b.length >= 24) {
    const v = (((b[20] ?? 0) << 24) | ((b[21] ?? 0) << 16) | ((b[22] ?? 0) << 8) | (b[23] ?? 0)) >>> 0;
    notes.push(`branch ${v >>> 20}, library ${v & 0xfffff}`);
  }
  if (of > 1 && (part < 1 || part > of)) return unreadable('damaged', `3M RFID 501 set byte 0x${(b[1] ?? 0).toString(16)}: part ${part} of ${of}`);
  return { kind: 'item', model: '3m-rfid501', itemId, set: of > 1 ? { part, of } : null, owner: null, mediaFormat: null, notes };
}
