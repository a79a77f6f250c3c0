/**
 * Library tag encoders written in the tests from the data models' specifications, on their own
 * (not the station's decoders, not the model reader's tag images), so that a round trip through the
 * station's decoder checks the decoder against the specification rather than against itself:
 *
 * - ISO 28560-3 / the Danish data model (RFID Data Model for Libraries, Danish Standard S24/u4,
 *   2009; ISO 28560-3): the 32-byte basic block, its CRC (CRC-16/CCITT, 0x1021, preset 0xFFFF,
 *   over bytes 0–18 and 21–31 and two zero bytes, stored least significant byte first), optional
 *   extension blocks (length, 16-bit id, XOR checksum), the reversed-block and swapped-nibble
 *   variants libdanrfid (GallusMax/libdanrfid, TagData.reverseblocks, DDMData) reads; ISO 28560-3's
 *   full 34-byte block (owner institution in bytes 21–33, the CRC over every byte but its own, as
 *   the standard's editor's clarification and BibliothekTHWildau/ISO28560 have it), the 24-bit
 *   block id escape (Danish data model 3.3.3), the library extension block (media format, item
 *   identifier, owner institution: ISO 28560-3 table 5);
 * - bibliotheca's DM11 as docs/decisions/0142 describes it (from libdanrfid's DM11 images);
 * - ISO 28560-2 / ISO/IEC 15962: data sets of precursor (offset flag, compaction, relative OID;
 *   15 = extended), optional offset, length, compacted data; the compaction schemes; the owner ISIL
 *   in 28560-2's own 5/4-bit code with latch and shift;
 * - 3M RFID 501 as dpavlin/Biblio-RFID documents it (lib/Biblio/RFID/RFID501.pm).
 */

// --- ISO 28560-3 ---------------------------------------------------------------------------------

/** CRC-16/CCITT by table (a different way to the same function than the station's bitwise loop). */
const CCITT_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n << 8;
  for (let k = 0; k < 8; k++) c = (c & 0x8000) !== 0 ? (c << 1) ^ 0x1021 : c << 1;
  return c & 0xffff;
});

export function crcCcitt(bytes: Iterable<number>): number {
  let crc = 0xffff;
  for (const b of bytes) crc = ((crc << 8) ^ (CCITT_TABLE[((crc >> 8) ^ b) & 0xff] ?? 0)) & 0xffff;
  return crc;
}

export interface DanishBlock {
  readonly version: number;
  readonly usage: number;
  readonly parts: number;
  readonly part: number;
  /** Up to 16 printable characters. */
  readonly pii: string;
  readonly country: string;
  readonly isil: string;
  readonly swapNibbles?: boolean;
}

export function danishBasicBlock(d: DanishBlock): Uint8Array {
  const b = new Uint8Array(32);
  b[0] = d.swapNibbles ? ((d.usage & 15) << 4) | (d.version & 15) : ((d.version & 15) << 4) | (d.usage & 15);
  b[1] = d.parts;
  b[2] = d.part;
  for (let i = 0; i < d.pii.length && i < 16; i++) b[3 + i] = d.pii.charCodeAt(i);
  for (let i = 0; i < d.country.length && i < 2; i++) b[21 + i] = d.country.charCodeAt(i);
  for (let i = 0; i < d.isil.length && i < 9; i++) b[23 + i] = d.isil.charCodeAt(i);
  const crc = crcCcitt([...b.subarray(0, 19), ...b.subarray(21, 32), 0, 0]);
  b[19] = crc & 0xff;
  b[20] = (crc >> 8) & 0xff;
  return b;
}

/** An extension block: length (whole block), id (LSB first), XOR checksum making the block XOR to 0, data. */
export function danishExtension(id: number, data: readonly number[]): number[] {
  const block = [4 + data.length, id & 0xff, (id >> 8) & 0xff, 0, ...data];
  block[3] = block.reduce((x, y) => x ^ y, 0);
  return block;
}

/** An extension block with a 24-bit id: low byte, 0xFF, middle, high, then the checksum at offset 5. */
export function escapedExtension(id: number, data: readonly number[]): number[] {
  const block = [6 + data.length, id & 0xff, 0xff, (id >> 8) & 0xff, (id >> 16) & 0xff, 0, ...data];
  block[5] = block.reduce((x, y) => x ^ y, 0);
  return block;
}

export interface FullBlock {
  readonly version: number;
  readonly usage: number;
  readonly parts: number;
  readonly part: number;
  /** Up to 16 printable characters; null: byte 3 = 0x01 (the identifier is in the library extension block). */
  readonly pii: string | null;
  /** The owner institution as an ISIL with a two-letter country prefix ("DE-MUS-815718"), or "". */
  readonly isil: string;
}

/**
 * ISO 28560-3's full basic block: 34 bytes, the owner institution in bytes 21–33 without the hyphen
 * after its country code, the CRC over bytes 0–18 and 21–33 (no zero bytes appended).
 */
export function fullBasicBlock(d: FullBlock): Uint8Array {
  const b = new Uint8Array(34);
  b[0] = ((d.version & 15) << 4) | (d.usage & 15);
  b[1] = d.parts;
  b[2] = d.part;
  if (d.pii === null) b[3] = 0x01;
  else b.set(Buffer.from(d.pii, 'latin1').subarray(0, 16), 3);
  const owner = d.isil.replace(/^([A-Z]{2})-/, '$1');
  if (owner.length > 13) throw new RangeError(`owner institution "${owner}" does not fit 13 bytes`);
  b.set(Buffer.from(owner, 'latin1'), 21);
  const crc = crcCcitt([...b.subarray(0, 19), ...b.subarray(21, 34)]);
  b[19] = crc & 0xff;
  b[20] = crc >> 8;
  return b;
}

/** The library extension block's data: media format, then item identifier and owner institution, each ended by 0x00 (the last may end with the block). */
export function libraryBlockData(o: { mediaFormat: number; itemId?: string; owner?: string }): number[] {
  const out = [o.mediaFormat];
  if (o.itemId === undefined && o.owner === undefined) return out;
  out.push(...Buffer.from(o.itemId ?? '', 'latin1'));
  if (o.owner === undefined) return out;
  out.push(0x00, ...Buffer.from(o.owner, 'latin1'));
  return out;
}

// --- bibliotheca DM11 -----------------------------------------------------------------------------

/**
 * A DM11 image: byte 0 0x0B; bytes 1–11 a bit string least significant bit first: 1 in six bits,
 * then each character's code (ASCII − 0x20) in six bits; the check in bytes 14–15; the constant tail.
 */
export function dm11Image(chars: string): Uint8Array {
  const bits: number[] = [];
  const put = (v: number): void => {
    for (let i = 0; i < 6; i++) bits.push((v >> i) & 1);
  };
  put(1);
  for (const ch of chars) put(ch.charCodeAt(0) - 0x20);
  if (bits.length > 88) throw new RangeError(`${chars.length} characters do not fit bytes 1–11`);
  const b = new Uint8Array(32);
  b[0] = 0x0b;
  bits.forEach((bit, k) => (b[1 + Math.floor(k / 8)] = (b[1 + Math.floor(k / 8)] ?? 0) | (bit << (k % 8))));
  // The check: CRC-16 0x1021 bit-reversed (0x8408), preset 1, over bytes 1–11, stored bit-reversed, LSB first.
  let reg = 1;
  for (const byte of b.subarray(1, 12)) {
    reg ^= byte;
    for (let k = 0; k < 8; k++) reg = (reg & 1) === 1 ? (reg >>> 1) ^ 0x8408 : reg >>> 1;
  }
  const check = parseInt(reg.toString(2).padStart(16, '0').split('').reverse().join(''), 2);
  b[14] = check & 0xff;
  b[15] = check >> 8;
  b.set(hexBytes('A484FF4F42504401500400000000F555'), 16);
  return b;
}

/** Each block of `size` bytes with its bytes in the opposite order. */
export function reverseBlocks(bytes: Uint8Array, size: number): Uint8Array {
  const out = Uint8Array.from(bytes);
  for (let at = 0; at + size <= out.length; at += size) out.subarray(at, at + size).reverse();
  return out;
}

// --- ISO 28560-2 / ISO/IEC 15962 ---------------------------------------------------------------------

export type CompactionName = 'integer' | 'numeric' | '5-bit' | '6-bit' | '7-bit' | 'octet' | 'utf-8';
export const COMPACTION_CODE: Readonly<Record<CompactionName | 'application', number>> = {
  application: 0,
  integer: 1,
  numeric: 2,
  '5-bit': 3,
  '6-bit': 4,
  '7-bit': 5,
  octet: 6,
  'utf-8': 7,
};

function minimalBigEndian(v: bigint): number[] {
  const hex = v.toString(16);
  const padded = hex.length % 2 === 1 ? `0${hex}` : hex;
  return (padded.match(/../g) ?? ['00']).map((h) => parseInt(h, 16));
}

/** Values packed `bits` wide, most significant bit first; spare bits of the last byte are zero. */
function packBits(values: readonly number[], bits: number, pad = 0): number[] {
  let acc = '';
  for (const v of values) acc += v.toString(2).padStart(bits, '0');
  while (acc.length % 8 !== 0) acc += String(pad);
  return (acc.match(/.{8}/g) ?? []).map((byte) => parseInt(byte, 2));
}

/** Which compactions can carry `s` at all. */
export function compactionsFor(s: string): CompactionName[] {
  const out: CompactionName[] = ['utf-8'];
  const codes = [...s].map((ch) => ch.codePointAt(0) ?? 0);
  if (codes.every((c) => c <= 0xff)) out.push('octet');
  if (codes.every((c) => c >= 0x01 && c <= 0x7f)) out.push('7-bit');
  if (/^[\x20-\x5f]*$/.test(s)) out.push('6-bit');
  if (/^[\x40-\x5f]*$/.test(s)) out.push('5-bit');
  if (/^[0-9]+$/.test(s)) out.push('numeric');
  if (/^[1-9][0-9]*$/.test(s)) out.push('integer');
  return out;
}

export function compact(s: string, c: CompactionName): number[] {
  switch (c) {
    case 'integer':
      return minimalBigEndian(BigInt(s));
    case 'numeric':
      return minimalBigEndian(BigInt(`1${s}`));
    case '5-bit':
      return packBits(
        [...s].map((ch) => ch.charCodeAt(0) - 0x40),
        5,
      );
    case '6-bit':
      return packBits(
        [...s].map((ch) => ch.charCodeAt(0) & 0x3f),
        6,
      );
    case '7-bit':
      return packBits(
        [...s].map((ch) => ch.charCodeAt(0)),
        7,
      );
    case 'octet':
      return [...s].map((ch) => ch.charCodeAt(0));
    case 'utf-8':
      return [...Buffer.from(s, 'utf8')];
  }
}

/** One data set. `offset`: padding bytes after the data (precursor bit 7 set). */
export function dataSet(oid: number, compaction: number, data: readonly number[], offset = 0): number[] {
  const rel = oid >= 15 ? 15 : oid;
  const head = [(offset > 0 ? 0x80 : 0) | ((compaction & 7) << 4) | rel];
  if (oid >= 15) head.push(oid - 15);
  if (offset > 0) head.push(offset);
  // Length: 7 bits per byte, bit 7 = another byte follows.
  const length: number[] = [];
  let n = data.length;
  do {
    length.unshift(n & 0x7f);
    n >>= 7;
  } while (n > 0);
  for (let i = 0; i < length.length - 1; i++) length[i] = (length[i] ?? 0) | 0x80;
  return [...head, ...length, ...data, ...new Array<number>(offset).fill(0)];
}

const ISIL_UPPER = '-ABCDEFGHIJKLMNOPQRSTUVWXYZ:';
const ISIL_LOWER = '-abcdefghijklmnopqrstuvwxyz/';
const ISIL_DIGITS = '0123456789-:';
type Table = 'upper' | 'lower' | 'digits';
const TABLES: Readonly<Record<Table, string>> = { upper: ISIL_UPPER, lower: ISIL_LOWER, digits: ISIL_DIGITS };
/** The latch (+0) and shift (+1) codes from one table to another: 28–31 in the 5-bit tables, 12–15 in the 4-bit one. */
const SWITCH: Readonly<Record<Table, Readonly<Partial<Record<Table, number>>>>> = {
  upper: { lower: 28, digits: 30 },
  lower: { upper: 28, digits: 30 },
  digits: { upper: 12, lower: 14 },
};

/** The owner ISIL in 28560-2's code, starting in upper case; `shiftSingles`: a lone character of another table is shifted, not latched. */
export function isilCode(isil: string, shiftSingles = true): number[] {
  const bits: string[] = [];
  let table: Table = 'upper';
  const put = (v: number, t: Table): void => {
    bits.push(v.toString(2).padStart(t === 'digits' ? 4 : 5, '0'));
  };
  const chars = [...isil];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] ?? '';
    if (TABLES[table].includes(ch)) {
      put(TABLES[table].indexOf(ch), table);
      continue;
    }
    const target: Table | undefined = (['upper', 'lower', 'digits'] as const).find((t) => TABLES[t].includes(ch));
    if (target === undefined) throw new RangeError(`"${ch}" is not in the ISIL code`);
    const next = chars[i + 1];
    const single = shiftSingles && (next === undefined || !TABLES[target].includes(next) || TABLES[table].includes(next));
    put((SWITCH[table][target] ?? 0) + (single ? 1 : 0), table);
    put(TABLES[target].indexOf(ch), target);
    if (!single) table = target;
  }
  let acc = bits.join('');
  // Spare bits are ones: too few for a character, or a trailing switch code that switches to nothing.
  while (acc.length % 8 !== 0) acc += '1';
  return (acc.match(/.{8}/g) ?? []).map((b) => parseInt(b, 2));
}

// --- 3M RFID 501 --------------------------------------------------------------------------------------

export function rfid501(o: { set: number; total: number; type: number; content: string; branch: number; library: number; custom: number }): Uint8Array {
  const b = new Uint8Array(32);
  b[0] = 0x04;
  b[1] = ((o.set & 15) << 4) | (o.total & 15);
  b[2] = 0x00;
  b[3] = o.type;
  for (let i = 0; i < o.content.length && i < 16; i++) b[4 + i] = o.content.charCodeAt(i);
  new DataView(b.buffer).setUint32(20, ((o.branch << 20) | (o.library & 0xfffff)) >>> 0);
  new DataView(b.buffer).setInt32(24, o.custom);
  return b;
}

export function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from((hex.replace(/\s+/g, '').match(/../g) ?? []).map((h) => parseInt(h, 16)));
}
