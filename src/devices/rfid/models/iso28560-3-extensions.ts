/**
 * ISO 28560-3's extension blocks: what follows the basic block, up to an end block or the end of
 * the tag's memory. Each block is framed (ISO 28560-3 clause 7.4.2; the Danish data model of 2009,
 * 3.3.2–3.3.5, which it took over):
 *
 * | offset | field                                                                                  |
 * |--------|----------------------------------------------------------------------------------------|
 * | 0      | length of the whole block, these bytes included; 0 ends the list, 1 is a filler byte    |
 * | 1–2    | block id, least significant byte first; a high byte of 0xFF escapes to a 24-bit id in    |
 * |        | offsets 1–4 (low, 0xFF, middle, high), and the checksum moves to offset 5               |
 * | 3      | checksum: the XOR of every byte of the block (checksum included) is zero                |
 * | 4 …    | the block's data fields, in their order; an empty field is one 0x00; a block may end     |
 * |        | before its last fields (those are then absent)                                         |
 *
 * Block ids (ISO 28560-3 table 4, named as BibliothekTHWildau/ISO28560 names them): 1 the library
 * extension block, 2 acquisition, 3 library supplement, 4 title, 5 interlibrary loan; any other id
 * is skipped by its length. The library extension block (table 5) holds media format (one byte, 0:
 * undefined), then the primary item identifier when the basic block's byte 3 says it is here
 * (0x01) — else an alternative item identifier, not the item's — then the owner institution (ISIL,
 * hyphen included; the tag's owner when the basic block has none, else an alternative one), the
 * text fields ended by 0x00.
 *
 * What the station refuses (`damaged`, the block named by id and byte, never its content): a
 * checksum that fails, a length that runs past the tag's memory, a length too short for the frame,
 * and the library extension block twice — it names the item and its owner, and two of them leave
 * which one is the tag's a guess. Other ids may repeat (clause 7.4.1 allows two blocks of one type).
 */

/** One framed block as found: where, its id, its data fields (after the frame). */
export interface ExtensionBlock {
  readonly at: number;
  readonly id: number;
  readonly data: Uint8Array;
}

export type Walk = { readonly kind: 'ok'; readonly blocks: readonly ExtensionBlock[] } | { readonly kind: 'damaged' | 'truncated'; readonly detail: string };

export const LIBRARY_BLOCK = 1;
const BLOCK_NAMES: Readonly<Record<number, string>> = { 1: 'library', 2: 'acquisition', 3: 'library supplement', 4: 'title', 5: 'interlibrary loan' };

export function blockName(id: number): string {
  return `${BLOCK_NAMES[id] ?? 'unknown'} block (id ${id})`;
}

/**
 * The blocks from `start` to an end block or the end of `bytes`. `complete`: `bytes` is the whole
 * memory, so a block running past it is damaged; otherwise it is truncated (the rest is unread).
 */
export function walkExtensions(bytes: Uint8Array, start: number, complete: boolean): Walk {
  const blocks: ExtensionBlock[] = [];
  let pos = start;
  while (pos < bytes.length) {
    const length = bytes[pos] ?? 0;
    if (length === 0) break;
    if (length === 1) {
      pos++;
      continue;
    }
    const escaped = (bytes[pos + 2] ?? 0) === 0xff;
    const frame = escaped ? 6 : 4;
    const id = escaped
      ? (bytes[pos + 1] ?? 0) | ((bytes[pos + 3] ?? 0) << 8) | ((bytes[pos + 4] ?? 0) << 16)
      : (bytes[pos + 1] ?? 0) | ((bytes[pos + 2] ?? 0) << 8);
    if (length < frame)
      return { kind: 'damaged', detail: `ISO 28560-3 extension block at byte ${pos} has length ${length}, shorter than its ${frame}-byte frame` };
    if (pos + length > bytes.length) {
      const what = `ISO 28560-3 ${blockName(id)} at byte ${pos} (length ${length})`;
      return complete
        ? { kind: 'damaged', detail: `${what} runs past the tag's memory of ${bytes.length} bytes` }
        : { kind: 'truncated', detail: `${what} runs past the ${bytes.length} bytes read` };
    }
    let xor = 0;
    for (let i = pos; i < pos + length; i++) xor ^= bytes[i] ?? 0;
    if (xor !== 0) return { kind: 'damaged', detail: `ISO 28560-3 ${blockName(id)} at byte ${pos} fails its XOR checksum` };
    if (id === LIBRARY_BLOCK && blocks.some((b) => b.id === LIBRARY_BLOCK)) {
      return { kind: 'damaged', detail: `ISO 28560-3 ${blockName(id)} appears a second time at byte ${pos}` };
    }
    blocks.push({ at: pos, id, data: bytes.subarray(pos + frame, pos + length) });
    pos += length;
  }
  // The memory read ended before an end block: the list may go on in the part not read.
  if (pos >= bytes.length && !complete) return { kind: 'truncated', detail: `ISO 28560-3 extension blocks run on past the ${bytes.length} bytes read` };
  return { kind: 'ok', blocks };
}

/** What the library extension block says; each field null when absent or empty. */
export interface LibraryBlock {
  readonly mediaFormat: number | null;
  /** Raw bytes of the item identifier field (checked by the caller, which knows whether it is the tag's item). */
  readonly itemId: Uint8Array | null;
  readonly owner: Uint8Array | null;
}

/** The library extension block's fields: media format, then text fields each ended by 0x00 (the last one may end with the block). */
export function libraryBlock(data: Uint8Array): LibraryBlock {
  const media = data.length >= 1 ? (data[0] ?? 0) : 0;
  const fields: Uint8Array[] = [];
  let from = 1;
  for (let i = 1; i <= data.length && fields.length < 2; i++) {
    if (i === data.length || data[i] === 0x00) {
      fields.push(data.subarray(from, i));
      from = i + 1;
    }
  }
  const field = (f: Uint8Array | undefined): Uint8Array | null => (f === undefined || f.length === 0 ? null : f);
  return { mediaFormat: media === 0 ? null : media, itemId: field(fields[0]), owner: field(fields[1]) };
}

/** For the log line: the blocks by name, a repeated id with its count. */
export function describeBlocks(blocks: readonly ExtensionBlock[]): string[] {
  const counts = new Map<number, number>();
  for (const b of blocks) counts.set(b.id, (counts.get(b.id) ?? 0) + 1);
  return [...counts].map(([id, n]) => (n > 1 ? `${blockName(id)} ×${n}` : blockName(id)));
}
