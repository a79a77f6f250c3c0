/**
 * A tag's user memory, read as far as its data needs (docs/decisions/0143): a chunk of
 * `blocksPerRead` blocks at a time from block 0, each followed by a decode, until the decode is
 * final — a certain reading, or a failure or guess on memory that holds all it needs. A decode
 * that says `truncated` (the data runs on past what was read) asks for the next chunk: up to
 * `maxBlocks` at first, then on to the tag's end, so that no tag is judged on part of its data.
 *
 * The tag's size: from its system information, as candidates (ISO's n − 1 encoding first, then
 * the literal one) that a read of the last block decides when the reader says that block does not
 * exist; without one (no system information, or a size of 0x0000), chunks until the reader says a
 * block does not exist, that chunk then read block by block — never past ISO/IEC 15693's 256.
 */
import type { ReaderSession } from './family.js';
import { decodeTag, type DecodedTag } from './models/decode.js';

/** ISO/IEC 15693 addresses at most 256 blocks: the end of any tag's memory. */
const ISO15693_MAX_BLOCKS = 256;

export interface MemoryRead {
  readonly bytes: Uint8Array;
  readonly blockSize: number;
  /** The whole user memory was read. */
  readonly complete: boolean;
}

export interface ReadLimits {
  readonly blocksPerRead: number;
  /** Blocks read at most while the data does not run on past them. */
  readonly maxBlocks: number;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * The tag's memory and what it says. Rejects with the session's error when a read fails for any
 * other reason than a block that does not exist (the caller retries on its next round).
 */
export async function readTagData(
  session: ReaderSession,
  uid: string,
  counts: readonly number[] | null,
  dsfid: number | null,
  limits: ReadLimits,
): Promise<{ readonly memory: MemoryRead; readonly decoded: DecodedTag }> {
  const parts: Uint8Array[] = [];
  let blockSize = 0;
  let have = 0;
  const sizes = counts === null ? null : counts.filter((n) => n >= 1).map((n) => Math.min(n, ISO15693_MAX_BLOCKS));
  let limit = limits.maxBlocks;
  let complete = false;
  const take = (bytes: Uint8Array, size: number): void => {
    if (blockSize !== 0 && size !== blockSize) throw new Error(`blocks of ${size} bytes after blocks of ${blockSize}`);
    blockSize = size;
    parts.push(bytes);
    have += bytes.length / size;
  };
  const decode = (): { memory: MemoryRead; decoded: DecodedTag } => {
    const memory = { bytes: concat(parts), blockSize: Math.max(1, blockSize), complete };
    return { memory, decoded: decodeTag({ ...memory, dsfid }) };
  };
  for (;;) {
    const size = sizes === null ? ISO15693_MAX_BLOCKS : (sizes[0] ?? 0);
    const end = Math.min(have + limits.blocksPerRead, size, limit);
    if (end > have) {
      try {
        const read = await session.readBlocks(uid, have, end - have);
        take(read.bytes, read.blockSize);
      } catch (e) {
        if (!session.blockMissing(e)) throw e;
        if (sizes !== null && sizes.length > 1 && end === size) {
          // The other reading of MEM-SIZE: the tag is one block shorter.
          sizes.shift();
          continue;
        }
        if (sizes !== null) throw e;
        // No size known: this chunk block by block, to the first block that does not exist.
        for (let i = have; i < end; i++) {
          try {
            const one = await session.readBlocks(uid, i, 1);
            take(one.bytes, one.blockSize);
          } catch (e1) {
            if (!session.blockMissing(e1)) throw e1;
            break;
          }
        }
        complete = true;
        return decode();
      }
      complete = have >= size;
      const r = decode();
      if (complete || r.decoded.kind !== 'unreadable' || r.decoded.problem !== 'truncated') return r;
      continue;
    }
    // At the limit of the first reads: the data runs on, so on to the tag's end.
    if (limit < ISO15693_MAX_BLOCKS && have < size) {
      limit = ISO15693_MAX_BLOCKS;
      continue;
    }
    complete = have >= size;
    return decode();
  }
}
