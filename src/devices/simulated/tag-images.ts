/**
 * Library tags as memory images, for the model reader (feig-reader-model.ts): what a library's
 * tagging station would have written. Written from the data models' specifications on their own,
 * not with the station's decoders, so that the model and the decoders check each other.
 *
 * The demo places these on the simulated reader; the tests and the bench do too.
 */

export interface TagImage {
  /** 16 hex digits, most significant byte first. */
  readonly uid: string;
  readonly dsfid: number;
  readonly afi: number;
  readonly eas: boolean;
  readonly blockSize: number;
  /** User memory, blockSize × blocks bytes, in memory order. */
  readonly memory: Uint8Array;
}

/** ICODE SLIX: 28 blocks of 4 bytes (112 bytes of user memory), the common library label. */
const SLIX_BLOCKS = 28;
const BLOCK = 4;

let serial = 0;
/** A fresh UID of an NXP ICODE tag (E0 04 01 …), unique in this process. */
export function nextUid(): string {
  serial++;
  return `E0040100${serial.toString(16).toUpperCase().padStart(8, '0')}`;
}

function memory(blocks: number, blockSize: number, data: readonly number[]): Uint8Array {
  const m = new Uint8Array(blocks * blockSize);
  if (data.length > m.length) throw new RangeError(`${data.length} bytes of data do not fit ${m.length} bytes of memory`);
  m.set(data, 0);
  return m;
}

function ascii(s: string, width: number): number[] {
  const out = new Array<number>(width).fill(0);
  for (let i = 0; i < Math.min(width, s.length); i++) out[i] = s.charCodeAt(i) & 0xff;
  return out;
}

function reverseEachBlock(m: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(m.length);
  for (let b = 0; b < m.length; b += size) for (let i = 0; i < size; i++) out[b + i] = m[b + size - 1 - i] ?? 0;
  return out;
}

export interface Iso28560_3Tag {
  readonly uid?: string;
  /** Up to 16 characters in the basic block; a longer one goes to the library extension block (byte 3 = 0x01, `form` full). */
  readonly itemId: string;
  readonly part?: number;
  readonly of?: number;
  /** ISO 3166-1 alpha-2 of the owner library. */
  readonly country?: string;
  /** The owner library's ISIL without its country prefix: at most 9 characters (truncated form), 11 (full form). */
  readonly library?: string;
  readonly version?: 1 | 2;
  /** 1: circulating item. */
  readonly usage?: number;
  readonly afi: number;
  /**
   * `truncated` (default): the 32-byte block of the Danish data model, extension blocks from byte
   * 32; `full`: ISO 28560-3's 34-byte block, extension blocks from byte 34.
   */
  readonly form?: 'truncated' | 'full';
  /** A library extension block with this media format (5: careful handling, 6: small item). */
  readonly mediaFormat?: number;
  /** A title extension block. */
  readonly title?: string;
  /** Memory size in blocks of 4 bytes (default 28, an ICODE SLIX; 80 is an ICODE SLIX2). */
  readonly blocks?: number;
  /** Written with each block's bytes reversed (as one vendor's tagging stations do). */
  readonly blocksReversed?: boolean;
  /** Version in the low nibble of byte 0 (as another vendor writes it). */
  readonly nibblesSwapped?: boolean;
}

/** CRC-16/CCITT (0x1021, preset 0xFFFF), the Danish data model's checksum. */
function ccitt(bytes: readonly number[]): number {
  let crc = 0xffff;
  for (const b of bytes) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** An extension block: length, id (least significant byte first), XOR checksum, data. */
function extensionBlock(id: number, data: readonly number[]): number[] {
  const block = [4 + data.length, id & 0xff, id >> 8, 0, ...data];
  block[3] = block.reduce((x, y) => x ^ y, 0);
  return block;
}

/**
 * An ISO 28560-3 tag: the basic block in either form (ISO 28560-3 tables 2 and 3), then a library
 * extension block (media format, the item identifier when it is longer than 16 characters) and a
 * title block when asked for, then the end block.
 */
export function iso28560_3Tag(o: Iso28560_3Tag): TagImage {
  const version = o.version ?? 1;
  const usage = o.usage ?? 1;
  const full = o.form === 'full';
  const size = full ? 34 : 32;
  const longId = o.itemId.length > 16;
  if (longId && !full) throw new RangeError('an item identifier of more than 16 characters needs the full (34-byte) basic block');
  const b = new Array<number>(size).fill(0);
  b[0] = o.nibblesSwapped ? (usage << 4) | version : (version << 4) | usage;
  b[1] = o.of ?? 1;
  b[2] = o.part ?? 1;
  if (longId) b[3] = 0x01;
  else ascii(o.itemId, 16).forEach((c, i) => (b[3 + i] = c));
  ascii(o.country ?? 'DK', 2).forEach((c, i) => (b[21 + i] = c));
  ascii(o.library ?? '', size - 23).forEach((c, i) => (b[23 + i] = c));
  const crc = ccitt([...b.slice(0, 19), ...b.slice(21, size), ...(full ? [] : [0, 0])]);
  b[19] = crc & 0xff;
  b[20] = crc >> 8;
  const ext: number[] = [];
  if (o.mediaFormat !== undefined || longId) ext.push(...extensionBlock(1, [o.mediaFormat ?? 0, ...(longId ? ascii(o.itemId, o.itemId.length) : [])]));
  if (o.title !== undefined) ext.push(...extensionBlock(4, ascii(o.title, o.title.length)));
  if (ext.length > 0) ext.push(0x00);
  const m = memory(o.blocks ?? SLIX_BLOCKS, BLOCK, [...b, ...ext]);
  return { uid: o.uid ?? nextUid(), dsfid: 0x00, afi: o.afi, eas: true, blockSize: BLOCK, memory: o.blocksReversed ? reverseEachBlock(m, BLOCK) : m };
}

export interface Iso28560_2Tag {
  readonly uid?: string;
  readonly itemId: string;
  readonly part?: number;
  readonly of?: number;
  /** The owner library's ISIL, e.g. "CZ-PrNK". */
  readonly owner?: string;
  readonly afi: number;
  /** Set the DSFID register to 0x06 (default true; some tagging stations leave it 0). */
  readonly dsfid?: boolean;
}

function bigEndianMinimal(v: bigint): number[] {
  const out: number[] = [];
  let x = v;
  do {
    out.unshift(Number(x & 0xffn));
    x >>= 8n;
  } while (x > 0n);
  return out;
}

/** A data set: precursor (no offset), length, data. */
function dataSet(oid: number, compaction: number, data: readonly number[]): number[] {
  if (oid < 1 || oid > 14 || data.length > 127) throw new RangeError(`data set OID ${oid} of ${data.length} bytes`);
  return [(compaction << 4) | oid, data.length, ...data];
}

/** Numeric compaction: the digits with a 1 in front (keeping leading zeros), as a big-endian integer. */
function numeric(digits: string): number[] {
  return bigEndianMinimal(BigInt(`1${digits}`));
}

/** An ISO 28560-2 tag: Primary Item Identifier, set information and owner as ISO/IEC 15962 data sets. */
export function iso28560_2Tag(o: Iso28560_2Tag): TagImage {
  const sets: number[] = [];
  const pii = /^[0-9]+$/.test(o.itemId) ? dataSet(1, 2, numeric(o.itemId)) : dataSet(1, 6, ascii(o.itemId, o.itemId.length));
  sets.push(...pii);
  const of = o.of ?? 1;
  if (of > 1) {
    const width = String(of).length;
    sets.push(...dataSet(4, 2, numeric(`${String(of).padStart(width, '0')}${String(o.part ?? 1).padStart(width, '0')}`)));
  }
  if (o.owner !== undefined) sets.push(...dataSet(3, 6, ascii(o.owner, o.owner.length)));
  sets.push(0x00);
  return { uid: o.uid ?? nextUid(), dsfid: o.dsfid === false ? 0x00 : 0x06, afi: o.afi, eas: true, blockSize: BLOCK, memory: memory(SLIX_BLOCKS, BLOCK, sets) };
}

/** A 3M "RFID 501" tag (seven 4-byte blocks used of eight). */
export function rfid501Tag(o: { uid?: string; itemId: string; part?: number; of?: number; itemType?: number; afi: number }): TagImage {
  const b = [0x04, (((o.part ?? 1) & 0x0f) << 4) | ((o.of ?? 1) & 0x0f), 0x00, o.itemType ?? 1, ...ascii(o.itemId, 16), 0, 0, 0, 0, 0, 0, 0, 0];
  return { uid: o.uid ?? nextUid(), dsfid: 0x00, afi: o.afi, eas: true, blockSize: BLOCK, memory: memory(8, BLOCK, b) };
}

/**
 * A tag in bibliotheca's DM11 coding (src/devices/rfid/models/dm11.ts has the layout and its
 * sources): the identifier's digits as 6-bit codes after a field of 1, least significant bit first,
 * the check over bytes 1–11, and the constant tail every public image carries.
 */
export function dm11Tag(o: { uid?: string; itemId: string; afi: number }): TagImage {
  if (!/^[0-9]{1,13}$/.test(o.itemId)) throw new RangeError('a DM11 item identifier here is 1–13 digits');
  const b = new Array<number>(32).fill(0);
  b[0] = 0x0b;
  const codes = [1, ...[...o.itemId].map((ch) => ch.charCodeAt(0) - 0x20)];
  codes.forEach((code, n) => {
    for (let i = 0; i < 6; i++) {
      const bit = n * 6 + i;
      if ((code >> i) & 1) b[1 + (bit >> 3)] = (b[1 + (bit >> 3)] ?? 0) | (1 << (bit & 7));
    }
  });
  let crc = 0x0001;
  for (let i = 1; i < 12; i++) {
    crc ^= b[i] ?? 0;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x8408 : crc >>> 1;
  }
  let stored = 0;
  for (let i = 0; i < 16; i++) if (crc & (1 << i)) stored |= 1 << (15 - i);
  b[14] = stored & 0xff;
  b[15] = stored >> 8;
  [0xa4, 0x84, 0xff, 0x4f, 0x42, 0x50, 0x44, 0x01, 0x50, 0x04, 0, 0, 0, 0, 0xf5, 0x55].forEach((x, i) => (b[16 + i] = x));
  return { uid: o.uid ?? nextUid(), dsfid: 0x00, afi: o.afi, eas: true, blockSize: BLOCK, memory: memory(SLIX_BLOCKS, BLOCK, b) };
}

/** New stock: nothing written. */
export function blankTag(o: { uid?: string; afi?: number } = {}): TagImage {
  return { uid: o.uid ?? nextUid(), dsfid: 0x00, afi: o.afi ?? 0x00, eas: false, blockSize: BLOCK, memory: new Uint8Array(SLIX_BLOCKS * BLOCK) };
}

/** The parts of an item in `of` parts: one ISO 28560-3 tag each, same identifier, part 1 … of. */
export function iso28560_3Set(o: Omit<Iso28560_3Tag, 'part' | 'of' | 'uid'> & { readonly of: number }): TagImage[] {
  return Array.from({ length: o.of }, (_, i) => iso28560_3Tag({ ...o, part: i + 1, of: o.of }));
}
