/**
 * ISO 28560-3, fixed-length encoding: the Danish data model (versions 1 and 2) that most European
 * library stock carries. The basic block is the first 32 bytes of user memory:
 *
 * | byte  | field                                                                         |
 * |-------|-------------------------------------------------------------------------------|
 * | 0     | version (high nibble: 1 or 2) and type of usage (low nibble: 1 = circulating)  |
 * | 1     | number of parts in the item (1 = a single item)                                |
 * | 2     | ordinal part number (1 … parts)                                                |
 * | 3–18  | Primary Item Identifier, 16 bytes, left-aligned, NUL-padded                    |
 * | 19–20 | CRC, least significant byte first                                              |
 * | 21–22 | country of the owner library (ISO 3166-1 alpha-2)                              |
 * | 23–31 | owner library (ISIL without its country prefix), NUL-padded                    |
 *
 * The CRC is CRC-16/CCITT (polynomial 0x1021, preset 0xFFFF, most significant bit first, no final
 * XOR) over the 32 bytes of the block with bytes 19–20 left out and two zero bytes appended.
 * After the basic block, optional extension blocks each carry a length byte (counting the whole
 * block; 0 ends the list, 1 is a filler byte), a 16-bit block id (least significant byte first)
 * and an XOR checksum byte that makes the XOR of the block's bytes zero. The station needs only
 * the basic block; extension blocks are walked, checked and noted.
 *
 * Variants seen in the field and tolerated here: tags whose 4-byte (or 8-byte) blocks were written
 * byte-reversed (one vendor writes each block from its last byte), found by the CRC matching in the
 * other order; and tags with the version and usage nibbles swapped (version in the low nibble).
 */
import { hex, isUsableIdentifier, reverseBlocks, unreadable, type DecodedTag, type TagMemory } from './types.js';

export const BASIC_BLOCK_BYTES = 32;
const PII_START = 3;
const PII_END = 19;
const CRC_AT = 19;
const COUNTRY_AT = 21;
const ISIL_AT = 23;
/** Extension blocks walked at most (a tag's memory is a few hundred bytes). */
const MAX_EXTENSIONS = 64;

/** CRC-16/CCITT, MSB first, preset 0xFFFF, no final XOR (the "CCITT-FALSE" parameters). */
export function crc16Ccitt(data: Iterable<number>, preset = 0xffff): number {
  let crc = preset;
  for (const byte of data) {
    crc ^= (byte & 0xff) << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The basic block's CRC as this model defines it (the block's bytes 19–20 are ignored). */
export function basicBlockCrc(block: Uint8Array): number {
  const data: number[] = [];
  for (let i = 0; i < BASIC_BLOCK_BYTES; i++) if (i !== CRC_AT && i !== CRC_AT + 1) data.push(block[i] ?? 0);
  data.push(0, 0);
  return crc16Ccitt(data);
}

function storedCrc(block: Uint8Array): number {
  return (block[CRC_AT] ?? 0) | ((block[CRC_AT + 1] ?? 0) << 8);
}

/** Version and type of usage from byte 0, in the usual nibble order or swapped; null: neither reads as 1 or 2. */
function versionOf(b0: number): { version: number; usage: number; swapped: boolean } | null {
  const hi = b0 >> 4;
  const lo = b0 & 0x0f;
  if (hi === 1 || hi === 2) return { version: hi, usage: lo, swapped: false };
  if (lo === 1 || lo === 2) return { version: lo, usage: hi, swapped: true };
  return null;
}

/** A NUL-padded ASCII field: the text before the first NUL, or null when a byte after it is not padding. */
function paddedText(bytes: Uint8Array, from: number, to: number): string | null {
  let end = to;
  for (let i = from; i < to; i++) {
    if (bytes[i] === 0) {
      end = i;
      break;
    }
  }
  for (let i = end; i < to; i++) if (bytes[i] !== 0) return null;
  let s = '';
  for (let i = from; i < end; i++) s += String.fromCharCode(bytes[i] ?? 0);
  return s;
}

/**
 * Whether the first bytes read like this model at all (for telling "damaged" from "not mine"): a
 * version, a set, an ASCII identifier and, where the block reaches it, a country of two capital
 * letters (or none).
 */
function looksLikeBasicBlock(b: Uint8Array): boolean {
  const v = versionOf(b[0] ?? 0);
  const parts = b[1] ?? 0;
  const part = b[2] ?? 0;
  if (v === null || parts < 1 || part < 1 || part > parts) return false;
  const pii = paddedText(b, PII_START, PII_END);
  if (pii === null || pii.length === 0 || !/^[\x20-\x7e]+$/.test(pii)) return false;
  if (b.length < ISIL_AT) return true;
  const country = paddedText(b, COUNTRY_AT, ISIL_AT);
  return country === '' || (country !== null && /^[A-Z]{2}$/.test(country));
}

/**
 * A basic block whose fields could have been written (the version may be unknown to the station,
 * the item number may be empty: a tag made ready but not yet given an item).
 */
function plausibleBlock(b: Uint8Array): boolean {
  const parts = b[1] ?? 0;
  const part = b[2] ?? 0;
  const pii = paddedText(b, PII_START, PII_END);
  const country = paddedText(b, COUNTRY_AT, ISIL_AT);
  return (
    parts >= 1 &&
    part >= 1 &&
    part <= parts &&
    pii !== null &&
    /^[\x20-\x7e]*$/.test(pii) &&
    (country === '' || (country !== null && /^[A-Z]{2}$/.test(country)))
  );
}

/**
 * What this model says of the tag: `certain` when a basic block's CRC holds (in either block
 * order) — then the tag is this model and no other decoder's reading may be taken, whatever this
 * model makes of it (an item, a blank made ready without an item number, an unknown version) —
 * or a guess by structure alone (a block that looks like this model but fails its CRC, or is too
 * short to carry one). null: nothing here reads as this model.
 */
export function readIso28560_3(mem: TagMemory): { readonly certain: boolean; readonly result: DecodedTag } | null {
  const { bytes, blockSize } = mem;
  if (bytes.length < BASIC_BLOCK_BYTES) {
    return looksLikeBasicBlock(bytes)
      ? { certain: false, result: unreadable('truncated', `${bytes.length} bytes read, the basic block needs ${BASIC_BLOCK_BYTES}`) }
      : null;
  }
  const reversed = blockSize > 1 ? reverseBlocks(bytes, blockSize) : null;
  const orders: { block: Uint8Array; note: string | null }[] = [{ block: bytes, note: null }];
  if (reversed !== null) orders.push({ block: reversed, note: `blocks of ${blockSize} bytes stored reversed` });
  // A CRC that matches by chance (one in 65536) on bytes that are no basic block is not this model.
  const valid = orders.filter((o) => basicBlockCrc(o.block) === storedCrc(o.block) && plausibleBlock(o.block));
  const first = valid[0];
  if (first === undefined) {
    const seen = orders.find((o) => looksLikeBasicBlock(o.block));
    if (seen === undefined) return null;
    return {
      certain: false,
      result: unreadable(
        'damaged',
        `ISO 28560-3 CRC mismatch: stored ${hex([seen.block[CRC_AT] ?? 0, seen.block[CRC_AT + 1] ?? 0])}, computed ${basicBlockCrc(seen.block).toString(16).padStart(4, '0')} (lsb last)`,
      ),
    };
  }
  const readings = valid.map((o) => basicBlock(o.block, o.note));
  const second = readings[1];
  if (second !== undefined && says(second) !== says(readings[0])) {
    // Both block orders carry a valid CRC and say different things: which one is the tag's is a guess.
    return { certain: true, result: unreadable('damaged', 'ISO 28560-3 basic block valid in both block orders with different contents') };
  }
  return { certain: true, result: readings[0] ?? basicBlock(first.block, first.note) };
}

/**
 * The tag read as ISO 28560-3, or null when it is not this model (no valid CRC in either block
 * order, and nothing that reads like a basic block).
 */
export function decodeIso28560_3(mem: TagMemory): DecodedTag | null {
  return readIso28560_3(mem)?.result ?? null;
}

/** What a reading says, without how it was found (its notes). */
function says(r: DecodedTag | undefined): string {
  if (r === undefined) return '';
  return r.kind === 'item' ? JSON.stringify([r.itemId, r.set, r.owner]) : r.problem;
}

/** A basic block whose CRC holds, read. */
function basicBlock(b: Uint8Array, orderNote: string | null): DecodedTag {
  const notes: string[] = orderNote === null ? [] : [orderNote];
  const v = versionOf(b[0] ?? 0);
  if (v === null) return unreadable('unknown', `ISO 28560-3 basic block with an unknown version byte 0x${hex([b[0] ?? 0])}`);
  if (v.swapped) notes.push('version and usage nibbles swapped');
  notes.push(`version ${v.version}, type of usage ${v.usage}`);
  const parts = b[1] ?? 0;
  const part = b[2] ?? 0;
  if (parts < 1 || part < 1 || part > parts) return unreadable('damaged', `set information part ${part} of ${parts}`);
  const pii = paddedText(b, PII_START, PII_END);
  if (pii === null) return unreadable('damaged', 'the Primary Item Identifier field is not NUL-padded text');
  if (pii === '') return unreadable('blank', 'ISO 28560-3 basic block with a valid CRC and no Primary Item Identifier (made ready, no item yet)');
  if (!isUsableIdentifier(pii)) return unreadable('damaged', 'the Primary Item Identifier has control characters');
  const country = paddedText(b, COUNTRY_AT, ISIL_AT);
  const isil = paddedText(b, ISIL_AT, BASIC_BLOCK_BYTES);
  const owner = country && isil && isUsableIdentifier(country + isil) ? `${country}-${isil}` : null;
  notes.push(...extensionNotes(b));
  return { kind: 'item', model: 'iso28560-3', itemId: pii, set: parts > 1 ? { part, of: parts } : null, owner, notes };
}

/** The extension blocks after the basic block, each noted by id (or what is wrong with it). */
function extensionNotes(b: Uint8Array): string[] {
  const notes: string[] = [];
  let pos = BASIC_BLOCK_BYTES;
  for (let n = 0; n < MAX_EXTENSIONS && pos < b.length; n++) {
    const length = b[pos] ?? 0;
    if (length === 0) break;
    if (length === 1) {
      pos += 1;
      continue;
    }
    if (length < 4 || pos + length > b.length) {
      notes.push(`extension block at byte ${pos} runs past the memory read (length ${length})`);
      break;
    }
    let xor = 0;
    for (let i = pos; i < pos + length; i++) xor ^= b[i] ?? 0;
    const id = (b[pos + 1] ?? 0) | ((b[pos + 2] ?? 0) << 8);
    notes.push(xor === 0 ? `extension block id ${id}` : `extension block id ${id} fails its checksum (ignored)`);
    pos += length;
  }
  return notes;
}
