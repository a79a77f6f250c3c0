/**
 * Which data model a tag is in, and what it says. One entry for the reader drivers. Precedence is
 * by evidence, and evidence is final:
 *
 * 1. blank: nothing written (zeros, erased 0xFF, a 3M manufacturing blank of 0x55);
 * 2. ISO 28560-3 with a valid CRC (in either block order): the CRC makes it certain, and the tag
 *    is that model and nothing else — an empty item number there is blank, an unknown version
 *    unknown; no other decoder is asked (a Danish header also parses as a 28560-2 data set);
 * 3. ISO 28560-2 when the DSFID says so (0x06), item or failure;
 * 4. ISO 28560-3 that reads like a basic block but fails its CRC: damaged — before any guess by
 *    structure, so that a damaged Danish tag is never read as some other model's identifier;
 * 5. guesses by structure: 3M RFID 501 (its fixed marker bytes and a printable identifier), then
 *    ISO 28560-2 without its DSFID. These two never both read an item (3M's byte 2 is 0x00, which
 *    as 28560-2 is the first byte of set information that must be digits); within 28560-2, two
 *    readings with different item numbers are damaged (iso28560-2.ts) — a guess is never sent;
 * 6. what those two say when they fail, else unknown.
 *
 * Never throws: every byte string gets a DecodedTag (the fuzz tests feed it garbage).
 */
import { decodeIso28560_2, DSFID_28560_2 } from './iso28560-2.js';
import { BASIC_BLOCK_BYTES, readIso28560_3 } from './iso28560-3.js';
import { decodeRfid501 } from './rfid501.js';
import { hex, unreadable, type DecodedTag, type TagMemory } from './types.js';

export type { DataModel, DecodedTag, ItemData, SetInfo, TagMemory, TagProblem, UnreadableData } from './types.js';

function isBlank(b: Uint8Array): boolean {
  const head = b.subarray(0, Math.min(b.length, BASIC_BLOCK_BYTES));
  if (head.length === 0) return true;
  if (head.every((x) => x === 0x00) || head.every((x) => x === 0xff)) return true;
  // 3M's manufacturing blank: 0x55 in the first 24 bytes.
  const first = b.subarray(0, Math.min(b.length, 24));
  return first.length >= 4 && first.every((x) => x === 0x55);
}

export function decodeTag(mem: TagMemory): DecodedTag {
  try {
    return decode(mem);
  } catch (e) {
    // A decoder bug must not take the reader down: the tag counts as damaged, and the log says why.
    return unreadable('damaged', `decoder failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function decode(mem: TagMemory): DecodedTag {
  if (isBlank(mem.bytes)) return unreadable('blank', `no data written (${mem.bytes.length} bytes read)`);
  const danish = readIso28560_3(mem);
  if (danish?.certain === true) return danish.result;
  const iso2 = decodeIso28560_2(mem);
  if (mem.dsfid === DSFID_28560_2 && iso2 !== null) return iso2;
  if (danish !== null) return danish.result;
  const threeM = decodeRfid501(mem);
  if (threeM?.kind === 'item') return threeM;
  if (iso2?.kind === 'item') return iso2;
  if (threeM !== null) return threeM;
  if (iso2 !== null) return iso2;
  return unreadable(
    'unknown',
    `no library data model recognised (first bytes ${hex(mem.bytes.subarray(0, 8))}, DSFID ${mem.dsfid === null ? 'unknown' : `0x${mem.dsfid.toString(16).padStart(2, '0')}`})`,
  );
}
