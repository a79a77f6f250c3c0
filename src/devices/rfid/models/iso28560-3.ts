/**
 * ISO 28560-3, fixed-length encoding (and the Danish data model it grew from). The basic block
 * comes in two forms (ISO 28560-3 tables 2 and 3; its editor's clarification of 2011,
 * biblstandard.dk/rfid/docs/clarification_28560-3.htm):
 *
 * | byte  | field                                                                              |
 * |-------|------------------------------------------------------------------------------------|
 * | 0     | version (high nibble: 1 or 2) and type of usage (low nibble: 1 = circulating)       |
 * | 1     | number of parts in the item (1 = a single item)                                     |
 * | 2     | ordinal part number (1 … parts)                                                     |
 * | 3–18  | primary item identifier, left-aligned, NUL-padded; 0x01 alone in byte 3: the       |
 * |       | identifier is longer than 16 bytes and is in the library extension block           |
 * | 19–20 | CRC, least significant byte first                                                   |
 * | 21–33 | owner institution: the ISIL without the hyphen after its country code, NUL-padded   |
 * |       | (the full, 34-byte block); 21–31 only in the truncated, 32-byte block of a 32-byte  |
 * |       | tag — the Danish data model's country (21–22) and library (23–31)                    |
 *
 * The CRC is CRC-16/CCITT (polynomial 0x1021, preset 0xFFFF, most significant bit first, no final
 * XOR) over every byte of the block but the CRC's own two: bytes 0–18 and 21–33 of the full
 * block; bytes 0–18, 21–31 and two zero bytes of the truncated one (as BibliothekTHWildau/ISO28560
 * computes both, `ISO28560_3_BasicBlock.TagCRC`). The two CRCs are equal exactly when bytes 32–33
 * are zero. Which form a tag holds is decided by evidence (docs/decisions/0140):
 *
 * 1. a tag of fewer than 34 bytes can only hold the truncated block;
 * 2. bytes 32–33 zero: both CRCs are one, both forms read the same block; extension blocks start
 *    at byte 34, the full block's end (a truncated block's list would have ended at byte 32);
 * 3. otherwise exactly one CRC can hold: the full form's (an owner institution of 12 or 13
 *    characters, extension blocks from 34), or the truncated form's — the Danish data model on a
 *    larger tag, its extension blocks from byte 32;
 * 4. neither holds: `damaged`, whatever another decoder would read (when the bytes look like a
 *    basic block at all).
 *
 * Variants seen in the field and tolerated here: tags whose 4-byte (or 8-byte) blocks were written
 * byte-reversed (one vendor writes each block from its last byte), found by the CRC matching in the
 * other order; and tags with the version and usage nibbles swapped (version in the low nibble).
 */
import { describeBlocks, libraryBlock, LIBRARY_BLOCK, walkExtensions, type ExtensionBlock } from './iso28560-3-extensions.js';
import { isUsableIdentifier, reverseBlocks, unreadable, type DecodedTag, type TagMemory } from './types.js';

/** The full basic block. */
export const BASIC_BLOCK_BYTES = 34;
/** The truncated basic block of a 32-byte tag (the Danish data model's mandatory block). */
export const TRUNCATED_BLOCK_BYTES = 32;
const PII_START = 3;
const PII_END = 19;
const CRC_AT = 19;
const OWNER_AT = 21;
const COUNTRY_END = 23;
/** byte 3 alone: the primary item identifier is in the library extension block. */
const PII_IN_EXTENSION = 0x01;

export type BlockForm = 'full' | 'truncated';

/** CRC-16/CCITT, MSB first, preset 0xFFFF, no final XOR (the "CCITT-FALSE" parameters). */
export function crc16Ccitt(data: Iterable<number>, preset = 0xffff): number {
  let crc = preset;
  for (const byte of data) {
    crc ^= (byte & 0xff) << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

function blockEnd(form: BlockForm): number {
  return form === 'full' ? BASIC_BLOCK_BYTES : TRUNCATED_BLOCK_BYTES;
}

/** The basic block's CRC in `form`: every byte but bytes 19–20; the truncated form two zero bytes after. */
export function basicBlockCrc(block: Uint8Array, form: BlockForm): number {
  const data: number[] = [];
  for (let i = 0; i < blockEnd(form); i++) if (i !== CRC_AT && i !== CRC_AT + 1) data.push(block[i] ?? 0);
  if (form === 'truncated') data.push(0, 0);
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

const PRINTABLE = /^[\x20-\x7e]*$/;
/** The characters an ISIL may hold (ISO 15511), the hyphen included. */
const ISIL_CHARS = /^[A-Za-z0-9/:-]*$/;

/** The owner institution field as country and the rest; null when it is no NUL-padded ISIL text. */
function ownerField(b: Uint8Array, form: BlockForm): { country: string; rest: string } | null {
  const country = paddedText(b, OWNER_AT, COUNTRY_END);
  const rest = paddedText(b, COUNTRY_END, blockEnd(form));
  if (country === null || rest === null || !ISIL_CHARS.test(country + rest)) return null;
  // A NUL inside the country code with text after it is no padding.
  if (country.length < 2 && rest !== '') return country === '' ? { country, rest } : null;
  return { country, rest };
}

/**
 * The owner as an ISIL: the country code, the hyphen the block leaves out, the rest; a writer that
 * kept the hyphen is read as it wrote. null: no owner, or no country code to make an ISIL of.
 */
function ownerIsil(f: { country: string; rest: string }): string | null {
  if (f.rest === '' || f.country === '') return null;
  return f.rest.startsWith('-') ? f.country + f.rest : `${f.country}-${f.rest}`;
}

/** Whether the first bytes read like this model at all (for telling "damaged" from "not mine"). */
function looksLikeBasicBlock(b: Uint8Array): boolean {
  const v = versionOf(b[0] ?? 0);
  const parts = b[1] ?? 0;
  const part = b[2] ?? 0;
  if (v === null || parts < 1 || part < 1 || part > parts) return false;
  const pii = paddedText(b, PII_START, PII_END);
  const piiOk = (pii !== null && pii.length > 0 && /^[\x20-\x7e]+$/.test(pii)) || piiInExtension(b);
  if (!piiOk) return false;
  if (b.length < COUNTRY_END) return true;
  const country = paddedText(b, OWNER_AT, COUNTRY_END);
  return country === '' || (country !== null && /^[A-Z]{2}$/.test(country));
}

function piiInExtension(b: Uint8Array): boolean {
  if (b[PII_START] !== PII_IN_EXTENSION) return false;
  for (let i = PII_START + 1; i < PII_END; i++) if (b[i] !== 0) return false;
  return true;
}

/**
 * A basic block whose fields could have been written (the version may be unknown to the station,
 * the item number may be empty: a tag made ready but not yet given an item).
 */
function plausibleBlock(b: Uint8Array, form: BlockForm): boolean {
  const parts = b[1] ?? 0;
  const part = b[2] ?? 0;
  const pii = paddedText(b, PII_START, PII_END);
  return parts >= 1 && part >= 1 && part <= parts && ((pii !== null && PRINTABLE.test(pii)) || piiInExtension(b)) && ownerField(b, form) !== null;
}

/** One way the memory reads: a block order and a form whose CRC holds. */
interface Reading {
  readonly block: Uint8Array;
  readonly form: BlockForm;
  readonly orderNote: string | null;
}

/**
 * What this model says of the tag: `certain` when a basic block's CRC holds (in either block
 * order) — then the tag is this model and no other decoder's reading may be taken, whatever this
 * model makes of it (an item, a blank made ready without an item number, an unknown version, a
 * damaged extension block) — or a guess by structure alone (a block that looks like this model but
 * fails its CRC, or too little memory to tell). null: nothing here reads as this model.
 */
export function readIso28560_3(mem: TagMemory): { readonly certain: boolean; readonly result: DecodedTag } | null {
  const { bytes, blockSize } = mem;
  const complete = mem.complete !== false;
  const orders: { block: Uint8Array; note: string | null }[] = [{ block: bytes, note: null }];
  if (blockSize > 1) orders.push({ block: reverseBlocks(bytes, blockSize), note: `blocks of ${blockSize} bytes stored reversed` });
  const seen = orders.find((o) => looksLikeBasicBlock(o.block));
  const short = bytes.length < TRUNCATED_BLOCK_BYTES || (!complete && bytes.length < BASIC_BLOCK_BYTES);
  if (short) {
    if (seen === undefined) return null;
    return {
      certain: false,
      result: unreadable('truncated', `ISO 28560-3: ${bytes.length} bytes read, the basic block needs ${complete ? TRUNCATED_BLOCK_BYTES : BASIC_BLOCK_BYTES}`),
    };
  }
  const readings: Reading[] = [];
  for (const o of orders) {
    const forms: BlockForm[] = bytes.length >= BASIC_BLOCK_BYTES ? ['full', 'truncated'] : ['truncated'];
    // Both hold only when bytes 32–33 are zero: then the full form is the one (its extension blocks from byte 34).
    const form = forms.find((f) => basicBlockCrc(o.block, f) === storedCrc(o.block) && plausibleBlock(o.block, f));
    if (form !== undefined) readings.push({ block: o.block, form, orderNote: o.note });
  }
  const first = readings[0];
  if (first === undefined) {
    if (seen === undefined) return null;
    const forms = bytes.length >= BASIC_BLOCK_BYTES ? 'neither the 34-byte nor the 32-byte block' : 'the 32-byte block';
    return { certain: false, result: unreadable('damaged', `ISO 28560-3 CRC mismatch: ${forms}'s CRC holds`) };
  }
  const results = readings.map((r) => basicBlock(r, complete));
  const second = results[1];
  if (second !== undefined && says(second) !== says(results[0])) {
    // Both block orders carry a valid CRC and say different things: which one is the tag's is a guess.
    return { certain: true, result: unreadable('damaged', 'ISO 28560-3 basic block valid in both block orders with different contents') };
  }
  return { certain: true, result: results[0] ?? basicBlock(first, complete) };
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
  return r.kind === 'item' ? JSON.stringify([r.itemId, r.set, r.owner, r.mediaFormat]) : r.problem;
}

function text(bytes: Uint8Array): string {
  return Array.from(bytes, (c) => String.fromCharCode(c)).join('');
}

/** A basic block whose CRC holds, read with its extension blocks. */
function basicBlock(r: Reading, complete: boolean): DecodedTag {
  const b = r.block;
  const notes: string[] = r.orderNote === null ? [] : [r.orderNote];
  notes.push(r.form === 'full' ? '34-byte basic block' : '32-byte basic block (truncated form)');
  const v = versionOf(b[0] ?? 0);
  if (v === null) return unreadable('unknown', `ISO 28560-3 basic block with an unknown version byte 0x${(b[0] ?? 0).toString(16).padStart(2, '0')}`);
  if (v.swapped) notes.push('version and usage nibbles swapped');
  notes.push(`version ${v.version}, type of usage ${v.usage}`);
  const parts = b[1] ?? 0;
  const part = b[2] ?? 0;
  if (parts < 1 || part < 1 || part > parts) return unreadable('damaged', `ISO 28560-3 set information part ${part} of ${parts}`);
  const walk = walkExtensions(b, blockEnd(r.form), complete);
  if (walk.kind !== 'ok') return unreadable(walk.kind, walk.detail);
  const lib = libraryBlockOf(walk.blocks);
  if (walk.blocks.length > 0) notes.push(`extension blocks: ${describeBlocks(walk.blocks).join(', ')}`);
  let itemId: string;
  if (piiInExtension(b)) {
    if (r.form === 'truncated')
      return unreadable('damaged', 'ISO 28560-3 byte 3 is 01 (identifier in the library extension block) in a 32-byte basic block, which has no such block');
    if (lib === null)
      return unreadable('damaged', 'ISO 28560-3 byte 3 is 01 (identifier in the library extension block) and the tag has no library extension block');
    if (lib.itemId === null) return unreadable('damaged', 'ISO 28560-3 byte 3 is 01 and the library extension block carries no item identifier');
    itemId = text(lib.itemId);
    if (!PRINTABLE.test(itemId) || !isUsableIdentifier(itemId))
      return unreadable('damaged', 'ISO 28560-3 item identifier in the library extension block is not printable ASCII of 1–128 characters');
    notes.push('primary item identifier from the library extension block');
  } else {
    const pii = paddedText(b, PII_START, PII_END);
    if (pii === null) return unreadable('damaged', 'ISO 28560-3 primary item identifier field is not NUL-padded text');
    if (pii === '') return unreadable('blank', 'ISO 28560-3 basic block with a valid CRC and no primary item identifier (made ready, no item yet)');
    if (!isUsableIdentifier(pii)) return unreadable('damaged', 'ISO 28560-3 primary item identifier has control characters');
    itemId = pii;
  }
  const field = ownerField(b, r.form);
  const basicOwner = field === null ? null : ownerIsil(field);
  const extOwner = lib?.owner === null || lib?.owner === undefined ? null : text(lib.owner);
  // The basic block's owner is the tag's; the library extension block's field holds it only when
  // the basic block has none (it did not fit), else an alternative owner institution.
  let owner = basicOwner;
  if (extOwner !== null) {
    if (!ISIL_CHARS.test(extOwner) || extOwner.length > 16) notes.push('owner institution in the library extension block is no ISIL (ignored)');
    else if (owner === null) owner = extOwner;
    else if (extOwner !== owner) notes.push('the library extension block names another (alternative) owner institution');
  }
  return { kind: 'item', model: 'iso28560-3', itemId, set: parts > 1 ? { part, of: parts } : null, owner, mediaFormat: lib?.mediaFormat ?? null, notes };
}

function libraryBlockOf(blocks: readonly ExtensionBlock[]): ReturnType<typeof libraryBlock> | null {
  const lib = blocks.find((x) => x.id === LIBRARY_BLOCK);
  return lib === undefined ? null : libraryBlock(lib.data);
}
