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
  readonly itemId: string;
  readonly part?: number;
  readonly of?: number;
  /** ISO 3166-1 alpha-2 of the owner library. */
  readonly country?: string;
  /** The owner library's ISIL without its country prefix (at most 9 characters). */
  readonly library?: string;
  readonly version?: 1 | 2;
  /** 1: circulating item. */
  readonly usage?: number;
  readonly afi: number;
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

/** An ISO 28560-3 (Danish data model) tag: the 32-byte basic block, nothing after it. */
export function iso28560_3Tag(o: Iso28560_3Tag): TagImage {
  const version = o.version ?? 1;
  const usage = o.usage ?? 1;
  const b = new Array<number>(32).fill(0);
  b[0] = o.nibblesSwapped ? (usage << 4) | version : (version << 4) | usage;
  b[1] = o.of ?? 1;
  b[2] = o.part ?? 1;
  ascii(o.itemId, 16).forEach((c, i) => (b[3 + i] = c));
  ascii(o.country ?? 'DK', 2).forEach((c, i) => (b[21 + i] = c));
  ascii(o.library ?? '', 9).forEach((c, i) => (b[23 + i] = c));
  const crc = ccitt([...b.slice(0, 19), ...b.slice(21, 32), 0, 0]);
  b[19] = crc & 0xff;
  b[20] = crc >> 8;
  const m = memory(SLIX_BLOCKS, BLOCK, b);
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

/** New stock: nothing written. */
export function blankTag(o: { uid?: string; afi?: number } = {}): TagImage {
  return { uid: o.uid ?? nextUid(), dsfid: 0x00, afi: o.afi ?? 0x00, eas: false, blockSize: BLOCK, memory: new Uint8Array(SLIX_BLOCKS * BLOCK) };
}

/** The parts of an item in `of` parts: one ISO 28560-3 tag each, same identifier, part 1 … of. */
export function iso28560_3Set(o: Omit<Iso28560_3Tag, 'part' | 'of' | 'uid'> & { readonly of: number }): TagImage[] {
  return Array.from({ length: o.of }, (_, i) => iso28560_3Tag({ ...o, part: i + 1, of: o.of }));
}
