/**
 * ISO 28560-2: library data elements encoded by the rules of ISO/IEC 15962 (object identifiers,
 * compaction), "no directory" access method, data format 6 (DSFID 0x06). User memory holds data
 * sets one after another, ended by a zero byte (or the end of memory):
 *
 *     precursor [OID extension] [offset] length data [padding]
 *
 * - precursor: bit 7 = an offset byte follows; bits 6–4 = compaction scheme; bits 3–0 = the
 *   relative OID (1 … 14; 15 = the OID is 15 + the next byte);
 * - offset: the number of padding bytes after the data (to align to a block);
 * - length: the compacted data's length in bytes (bit 7 set: another length byte follows, 7 bits each).
 *
 * Relative OIDs read here: 1 Primary Item Identifier, 2 content parameter (noted), 3 owner library
 * (ISIL), 4 set information, 5 type of usage (noted), 19 media format (other) — ISO 28560-2 clause
 * 6.19, one integer, the codes of ISO 28560-1's clarification (types.ts mediaFormatLabel). Every
 * other OID is skipped by its length and noted: a library may carry shelf location and more
 * without the station caring.
 *
 * Compaction schemes (ISO/IEC 15962):
 * | code | scheme             | decoded as                                                          |
 * |------|--------------------|---------------------------------------------------------------------|
 * | 0    | application-defined| the owner ISIL in 28560-2's own hybrid code; any other OID as octets |
 * | 1    | integer            | an unsigned big-endian integer, written in decimal                   |
 * | 2    | numeric            | the digits prefixed with 1 (keeping leading zeros) as an integer     |
 * | 3    | 5-bit code         | 5 bits per character, 0x40 + value (@ A–Z [ \ ] ^ _)                 |
 * | 4    | 6-bit code         | 6 bits per character: values below 0x20 are 0x40 + value, others as is |
 * | 5    | 7-bit code         | 7 bits per character, ISO/IEC 646                                    |
 * | 6    | octet string       | one byte per character, ISO/IEC 8859-1                               |
 * | 7    | UTF-8 string       | UTF-8                                                                |
 *
 * The 5-, 6- and 7-bit codes pack characters most significant bit first; the last byte's spare
 * bits are padding. Where the padding is a whole character's worth of zero bits, it is not a
 * character (nothing a library writes ends in '@' or NUL).
 *
 * Variant tolerated: memory that starts with the DSFID byte itself (tags without a DSFID register).
 */
import { isUsableIdentifier, unreadable, type DecodedTag, type SetInfo, type TagMemory } from './types.js';

/** The DSFID of ISO 28560-2 tags: no-directory access method, data format 6. */
export const DSFID_28560_2 = 0x06;

export const OID = { primaryItemId: 1, contentParameter: 2, ownerLibrary: 3, setInformation: 4, typeOfUsage: 5, mediaFormat: 19 } as const;

export type Compaction = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7;

/** Data sets read at most (64 is far more than any library tag holds). */
const MAX_DATA_SETS = 64;

export interface DataSet {
  readonly oid: number;
  readonly compaction: Compaction;
  readonly data: Uint8Array;
}

type Parsed =
  /** `terminated`: the data sets ended with a zero byte (rather than at the end of memory). */
  | { readonly kind: 'ok'; readonly sets: readonly DataSet[]; readonly terminated: boolean }
  | { readonly kind: 'truncated' | 'damaged'; readonly detail: string; readonly sets: readonly DataSet[] };

/** The data sets from `start` on: a structural walk, no decoding. Never reads past the memory. */
export function parseDataSets(bytes: Uint8Array, start = 0): Parsed {
  const sets: DataSet[] = [];
  let pos = start;
  while (pos < bytes.length) {
    if (sets.length >= MAX_DATA_SETS) return { kind: 'damaged', detail: `more than ${MAX_DATA_SETS} data sets`, sets };
    const precursor = bytes[pos] ?? 0;
    if (precursor === 0) return { kind: 'ok', sets, terminated: true };
    const at = pos;
    pos++;
    const hasOffset = (precursor & 0x80) !== 0;
    const compaction = ((precursor >> 4) & 0x07) as Compaction;
    let oid = precursor & 0x0f;
    if (oid === 0) return { kind: 'damaged', detail: `precursor 0x${precursor.toString(16)} at byte ${at} names no OID`, sets };
    if (oid === 0x0f) {
      if (pos >= bytes.length) return { kind: 'truncated', detail: `OID extension of the data set at byte ${at} missing`, sets };
      oid = 15 + (bytes[pos++] ?? 0);
    }
    let padding = 0;
    if (hasOffset) {
      if (pos >= bytes.length) return { kind: 'truncated', detail: `offset of the data set at byte ${at} missing`, sets };
      padding = bytes[pos++] ?? 0;
    }
    let length = 0;
    for (let n = 0; ; n++) {
      if (pos >= bytes.length) return { kind: 'truncated', detail: `length of the data set at byte ${at} missing`, sets };
      if (n >= 3) return { kind: 'damaged', detail: `length of the data set at byte ${at} longer than 3 bytes`, sets };
      const l = bytes[pos++] ?? 0;
      length = length * 128 + (l & 0x7f);
      if ((l & 0x80) === 0) break;
    }
    if (length === 0) return { kind: 'damaged', detail: `data set at byte ${at} (OID ${oid}) has length 0`, sets };
    if (pos + length > bytes.length) {
      return { kind: 'truncated', detail: `data set at byte ${at} (OID ${oid}) needs ${length} bytes, ${bytes.length - pos} left`, sets };
    }
    sets.push({ oid, compaction, data: bytes.subarray(pos, pos + length) });
    pos += length + padding;
  }
  return { kind: 'ok', sets, terminated: false };
}

/** The data elements ISO 28560-1 defines (relative OIDs 1–26); anything beyond is no library data. */
const LAST_DEFINED_OID = 26;

// --- compaction ---------------------------------------------------------------------------------

type Text = { readonly ok: true; readonly value: string } | { readonly ok: false; readonly why: string };
const ok = (value: string): Text => ({ ok: true, value });
const bad = (why: string): Text => ({ ok: false, why });

function bigEndian(data: Uint8Array): bigint {
  let v = 0n;
  for (const b of data) v = (v << 8n) | BigInt(b);
  return v;
}

/** Characters of `bits` bits each, most significant bit first; trailing all-zero padding dropped. */
function unpack(data: Uint8Array, bits: number): number[] {
  const total = data.length * 8;
  const count = Math.floor(total / bits);
  const values: number[] = [];
  for (let c = 0; c < count; c++) {
    let v = 0;
    for (let i = 0; i < bits; i++) {
      const bit = c * bits + i;
      v = (v << 1) | (((data[bit >> 3] ?? 0) >> (7 - (bit & 7))) & 1);
    }
    values.push(v);
  }
  // The fewest characters that need this many bytes: anything beyond is padding if it is all zero.
  const fewest = Math.floor((total - 8) / bits) + 1;
  while (values.length > fewest && values[values.length - 1] === 0) values.pop();
  return values;
}

export function decodeCompacted(compaction: Compaction, data: Uint8Array): Text {
  switch (compaction) {
    case 0:
    case 6:
      return ok(Array.from(data, (b) => String.fromCharCode(b)).join(''));
    case 1:
      return ok(bigEndian(data).toString(10));
    case 2: {
      const digits = bigEndian(data).toString(10);
      return digits.startsWith('1') && digits.length > 1 ? ok(digits.slice(1)) : bad('numeric compaction without its leading 1');
    }
    case 3:
      return ok(
        unpack(data, 5)
          .map((v) => String.fromCharCode(0x40 + v))
          .join(''),
      );
    case 4:
      return ok(
        unpack(data, 6)
          .map((v) => String.fromCharCode(v < 0x20 ? 0x40 + v : v))
          .join(''),
      );
    case 5: {
      const values = unpack(data, 7);
      return values.includes(0) ? bad('7-bit code with a NUL inside') : ok(values.map((v) => String.fromCharCode(v)).join(''));
    }
    case 7:
      try {
        return ok(new TextDecoder('utf-8', { fatal: true }).decode(data));
      } catch {
        return bad('not valid UTF-8');
      }
  }
}

// --- the owner library's ISIL: 28560-2's hybrid code ------------------------------------------------

type IsilMode = 'upper' | 'lower' | 'numeric';
const UPPER = '-ABCDEFGHIJKLMNOPQRSTUVWXYZ:';
const LOWER = '-abcdefghijklmnopqrstuvwxyz/';
const NUMERIC = '0123456789-:';
/** Codes 28–31 (5-bit) and 12–15 (4-bit) switch tables: [latch, shift] × two other tables. */
const SWITCHES: Readonly<Record<IsilMode, readonly { kind: 'latch' | 'shift'; to: IsilMode }[]>> = {
  upper: [
    { kind: 'latch', to: 'lower' },
    { kind: 'shift', to: 'lower' },
    { kind: 'latch', to: 'numeric' },
    { kind: 'shift', to: 'numeric' },
  ],
  lower: [
    { kind: 'latch', to: 'upper' },
    { kind: 'shift', to: 'upper' },
    { kind: 'latch', to: 'numeric' },
    { kind: 'shift', to: 'numeric' },
  ],
  numeric: [
    { kind: 'latch', to: 'upper' },
    { kind: 'shift', to: 'upper' },
    { kind: 'latch', to: 'lower' },
    { kind: 'shift', to: 'lower' },
  ],
};

/**
 * The ISIL code of ISO 28560-2 (application-defined compaction of OID 3): 5-bit upper- and
 * lower-case tables and a 4-bit numeric table, with latch and shift codes between them, starting
 * in upper case. Spare bits at the end (too few for a character, or a trailing switch) are padding.
 */
export function decodeIsil(data: Uint8Array): Text {
  let latched: IsilMode = 'upper';
  let shifted: IsilMode | null = null;
  let out = '';
  const total = data.length * 8;
  let bit = 0;
  const take = (n: number): number => {
    let v = 0;
    for (let i = 0; i < n; i++, bit++) v = (v << 1) | (((data[bit >> 3] ?? 0) >> (7 - (bit & 7))) & 1);
    return v;
  };
  for (let guard = 0; guard < 512; guard++) {
    const mode: IsilMode = shifted ?? latched;
    const width: number = mode === 'numeric' ? 4 : 5;
    if (total - bit < width) break;
    const v = take(width);
    shifted = null;
    const table = mode === 'numeric' ? NUMERIC : mode === 'upper' ? UPPER : LOWER;
    const switchAt: number = mode === 'numeric' ? 12 : 28;
    if (v < switchAt) {
      out += table[v] ?? '';
      continue;
    }
    const sw: { kind: 'latch' | 'shift'; to: IsilMode } | undefined = SWITCHES[mode][v - switchAt];
    if (sw === undefined) return bad(`ISIL code ${v} in ${mode} mode`);
    if (sw.kind === 'latch') latched = sw.to;
    else shifted = sw.to;
  }
  return ok(out);
}

// --- the tag ----------------------------------------------------------------------------------------

/** "0302" → 3 parts, this is part 2: number of parts first, then the ordinal part number, equal widths. */
export function parseSetDigits(digits: string): SetInfo | null {
  if (!/^[0-9]+$/.test(digits)) return null;
  const even = digits.length % 2 === 1 ? `0${digits}` : digits;
  const half = even.length / 2;
  const of = Number(even.slice(0, half));
  const part = Number(even.slice(half));
  return of >= 1 && part >= 1 && part <= of ? { part, of } : null;
}

type Candidate = { readonly result: DecodedTag; readonly score: number };

function decodeSets(sets: readonly DataSet[], notes: string[]): DecodedTag {
  let itemId: string | null = null;
  let owner: string | null = null;
  let set: SetInfo | null = null;
  let mediaFormat: number | null = null;
  for (const s of sets) {
    switch (s.oid) {
      case OID.primaryItemId: {
        const t = decodeCompacted(s.compaction, s.data);
        if (!t.ok) return unreadable('damaged', `Primary Item Identifier: ${t.why}`);
        if (!isUsableIdentifier(t.value)) return unreadable('damaged', 'the Primary Item Identifier is empty, too long or has control characters');
        itemId ??= t.value;
        break;
      }
      case OID.ownerLibrary: {
        const t = s.compaction === 0 ? decodeIsil(s.data) : decodeCompacted(s.compaction, s.data);
        if (t.ok && isUsableIdentifier(t.value)) owner = t.value;
        else notes.push('owner library not decodable (ignored)');
        break;
      }
      case OID.setInformation: {
        const t = decodeCompacted(s.compaction, s.data);
        const parsed = t.ok ? parseSetDigits(t.value) : null;
        if (parsed === null) return unreadable('damaged', `ISO 28560-2 set information is not "parts, part"${t.ok ? '' : ` (${t.why})`}`);
        set = parsed.of > 1 ? parsed : null;
        break;
      }
      case OID.contentParameter:
        notes.push('content parameter present');
        break;
      case OID.typeOfUsage:
        notes.push(`type of usage 0x${(s.data[0] ?? 0).toString(16).padStart(2, '0')}`);
        break;
      case OID.mediaFormat: {
        const t = decodeCompacted(s.compaction, s.data);
        const code = t.ok && /^[0-9]{1,3}$/.test(t.value) ? Number(t.value) : null;
        if (code !== null && code <= 255) mediaFormat = code === 0 ? null : code;
        else notes.push('media format not decodable (ignored)');
        break;
      }
      default:
        notes.push(`OID ${s.oid} skipped`);
    }
  }
  if (itemId === null) return unreadable('damaged', 'no Primary Item Identifier (OID 1)');
  return { kind: 'item', model: 'iso28560-2', itemId, set, owner, mediaFormat, notes };
}

/**
 * The tag read as ISO 28560-2, or null when nothing in it reads as this model. Read two ways — as
 * stored, and after a DSFID byte stored in memory (tags without a DSFID register) — and weighed,
 * because the model has no checksum to say which is right:
 *
 * - a reading is out when an element appears twice (28560-2 encodes each at most once);
 * - with the DSFID (0x06) the tag says it is this model: the first reading that yields an item is
 *   the tag's (the memory as stored is the standard's);
 * - without it, a reading must end its list with a zero byte and hold only OIDs ISO 28560-1
 *   defines, and two readings that name different items make the tag damaged (ambiguous).
 *
 * Blocks stored byte-reversed are not guessed at here (without a checksum a reversed reading can
 * look like another item): a reader that hands blocks over reversed is the driver's `blockOrder`.
 *
 * Failing that, the most telling failure (truncated or damaged) is returned.
 */
export function decodeIso28560_2(mem: TagMemory): DecodedTag | null {
  const tries: { bytes: Uint8Array; start: number; note: string | null }[] = [{ bytes: mem.bytes, start: 0, note: null }];
  if (mem.bytes[0] === DSFID_28560_2) tries.push({ bytes: mem.bytes, start: 1, note: 'DSFID stored in memory' });
  const withDsfid = mem.dsfid === DSFID_28560_2;
  const failures: Candidate[] = [];
  const items: (DecodedTag & { kind: 'item' })[] = [];
  for (const t of tries) {
    const parsed = parseDataSets(t.bytes, t.start);
    const notes: string[] = [];
    if (t.note !== null) notes.push(t.note);
    if (mem.dsfid !== null) notes.push(`DSFID 0x${mem.dsfid.toString(16).padStart(2, '0')}${withDsfid ? '' : ' (not 0x06)'}`);
    // Read only in part: data sets that run on, or no end yet, may say more in the part not read.
    if (mem.complete === false && (parsed.kind === 'truncated' || (parsed.kind === 'ok' && !parsed.terminated))) {
      return unreadable('truncated', 'ISO 28560-2: the data sets run on past the bytes read');
    }
    const hasPii = parsed.sets.some((s) => s.oid === OID.primaryItemId);
    if (parsed.kind !== 'ok') {
      // Without any whole data set, only the DSFID says this was meant to be ISO 28560-2.
      if (hasPii || parsed.sets.length > 0 || withDsfid) failures.push({ result: unreadable(parsed.kind, `ISO 28560-2: ${parsed.detail}`), score: 1 });
      continue;
    }
    if (!hasPii) {
      if (parsed.sets.length > 0) failures.push({ result: unreadable('damaged', 'ISO 28560-2 data without a Primary Item Identifier (OID 1)'), score: 0 });
      continue;
    }
    const oids = parsed.sets.map((d) => d.oid);
    if (new Set(oids).size !== oids.length) {
      failures.push({ result: unreadable('damaged', `ISO 28560-2: an element appears twice (OIDs ${oids.join(', ')})`), score: 1 });
      continue;
    }
    if (!withDsfid && (!parsed.terminated || oids.some((o) => o > LAST_DEFINED_OID))) continue;
    const result = decodeSets(parsed.sets, notes);
    if (result.kind === 'item' && withDsfid) return result;
    if (result.kind === 'item') items.push(result);
    else failures.push({ result, score: 2 });
  }
  const ids = new Set(items.map((i) => i.itemId));
  if (ids.size > 1)
    return unreadable('damaged', `ISO 28560-2 reads as ${ids.size} different items in different readings (with and without a DSFID byte in memory)`);
  if (items[0] !== undefined) return items[0];
  if (failures.length === 0) return null;
  return failures.reduce((a, b) => (b.score > a.score ? b : a)).result;
}
