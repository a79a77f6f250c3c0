/**
 * Which data model a tag is in, and what it says. One entry for the reader drivers. Precedence is
 * by evidence, and evidence is final:
 *
 * 1. blank: nothing written (zeros, erased 0xFF, a 3M manufacturing blank of 0x55);
 * 2. ISO 28560-3 with a valid CRC (in either block order, either form of its basic block): the
 *    CRC makes it certain, and the tag is that model and nothing else — an empty item number
 *    there is blank, an unknown version unknown, a bad extension block damaged; no other decoder
 *    is asked (a Danish header also parses as a 28560-2 data set);
 * 3. bibliotheca's DM11 with its check holding: certain in the same way (docs/decisions/0142);
 * 4. ISO 28560-2 when the DSFID says so (0x06), item or failure;
 * 5. ISO 28560-3 that reads like a basic block but fails its CRC, or a DM11 tag whose check fails:
 *    damaged — before any guess by structure, so that a damaged tag is never read as some other
 *    model's identifier;
 * 6. guesses by structure: 3M RFID 501 (its fixed marker bytes and a printable identifier), then
 *    ISO 28560-2 without its DSFID. These two never both read an item (3M's byte 2 is 0x00, which
 *    as 28560-2 is the first byte of set information that must be digits); within 28560-2, two
 *    readings with different item numbers are damaged (iso28560-2.ts) — a guess is never sent;
 * 7. what those two say when they fail, else unknown.
 *
 * A reading that runs past memory the reader did not read (`TagMemory.complete` false) is
 * `truncated`, and so is anything less than certain (a failure, a guess) while part of the tag is
 * unread: the reader reads the rest of the tag and asks again.
 *
 * Never throws: every byte string gets a DecodedTag (the fuzz tests feed it garbage).
 */
import { readDm11 } from './dm11.js';
import { decodeIso28560_2, DSFID_28560_2 } from './iso28560-2.js';
import { readIso28560_3, TRUNCATED_BLOCK_BYTES } from './iso28560-3.js';
import { decodeRfid501 } from './rfid501.js';
import { unreadable, type DecodedTag, type TagMemory } from './types.js';

export type { DataModel, DecodedTag, ItemData, SetInfo, TagMemory, TagProblem, UnreadableData } from './types.js';
export { mediaFormatLabel } from './types.js';

function isBlank(b: Uint8Array): boolean {
  const head = b.subarray(0, Math.min(b.length, TRUNCATED_BLOCK_BYTES));
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
  if (isBlank(mem.bytes)) {
    if (mem.complete === false && mem.bytes.length < TRUNCATED_BLOCK_BYTES) return unreadable('truncated', `${mem.bytes.length} bytes read of a larger tag`);
    return unreadable('blank', `no data written (${mem.bytes.length} bytes read)`);
  }
  const danish = readIso28560_3(mem);
  if (danish?.certain === true) return danish.result;
  const dm11 = readDm11(mem);
  if (dm11?.certain === true) return dm11.result;
  const iso2 = decodeIso28560_2(mem);
  if (mem.dsfid === DSFID_28560_2 && iso2 !== null) return iso2;
  // Evidence may lie in the part not read (a basic block's CRC, the end of a data set list): no
  // failure and no guess by structure is final before the whole tag is read.
  if (mem.complete === false) return unreadable('truncated', `${mem.bytes.length} bytes read of a larger tag, and nothing in them certain`);
  if (danish !== null) return danish.result;
  if (dm11 !== null) return dm11.result;
  const threeM = decodeRfid501(mem);
  if (threeM?.kind === 'item') return threeM;
  if (iso2?.kind === 'item') return iso2;
  if (threeM !== null) return threeM;
  if (iso2 !== null) return iso2;
  // The detail names no bytes: the first ones may be the start of an item number.
  return unreadable('unknown', `no library data model recognised (DSFID ${mem.dsfid === null ? 'unknown' : `0x${mem.dsfid.toString(16).padStart(2, '0')}`})`);
}
