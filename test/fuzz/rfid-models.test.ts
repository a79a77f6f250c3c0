/**
 * Properties (docs/decisions/0019, library tags and the reader's line): tags written by the
 * encoders of test/support/library-tags.ts — written from the data models' specifications, not
 * from the station's decoders — decode back to what was written, in every variant the field has
 * (reversed blocks, swapped nibbles, extension blocks, every compaction, skipped OIDs, offsets, a
 * DSFID or none); any bytes at all decode to a typed result and never throw, and never to an
 * identifier a protocol body cannot carry; FEIG frames come out of the parser whole however the
 * line chops them and whatever noise precedes them.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { decodeTag } from '../../src/devices/rfid/models/decode.js';
import { decodeIso28560_2 } from '../../src/devices/rfid/models/iso28560-2.js';
import { decodeRfid501 } from '../../src/devices/rfid/models/rfid501.js';
import { encodeFrame, FrameParser, MAX_FRAME_BYTES, type Frame } from '../../src/devices/rfid/feig/frame.js';
import type { DecodedTag } from '../../src/devices/rfid/models/types.js';
import { FUZZ_TIMEOUT_MS, check, must } from '../support/fuzz-runs.js';
import {
  COMPACTION_CODE,
  compact,
  compactionsFor,
  danishBasicBlock,
  danishExtension,
  dataSet,
  dm11Image,
  escapedExtension,
  fullBasicBlock,
  isilCode,
  libraryBlockData,
  reverseBlocks,
  rfid501,
  type CompactionName,
} from '../support/library-tags.js';

const printable = (min: number, max: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: min, maxLength: max });
const alnum = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'.split('')), minLength: min, maxLength: max });

/** Memory of whole blocks holding `data` (at least a SLIX label's 112 bytes). */
function memory(data: readonly number[] | Uint8Array, blockSize: number): Uint8Array {
  const size = Math.max(112, Math.ceil(data.length / blockSize) * blockSize);
  const m = new Uint8Array(size);
  m.set(data, 0);
  return m;
}

function expectItem(r: DecodedTag, itemId: string, set: { part: number; of: number } | null, what: () => string): void {
  must(r.kind === 'item', () => `${what()}: not an item: ${JSON.stringify(r)}`);
  must(r.itemId === itemId, () => `${what()}: item ${JSON.stringify(r.itemId)}, wrote ${JSON.stringify(itemId)}`);
  must(JSON.stringify(r.set) === JSON.stringify(set), () => `${what()}: set ${JSON.stringify(r.set)}, wrote ${JSON.stringify(set)}`);
}

describe('library data models', () => {
  it(
    'ISO 28560-3: what the encoder writes decodes back (both versions, sets, reversed blocks, swapped nibbles, extensions)',
    () => {
      const tag = fc
        .record({
          version: fc.constantFrom(1, 2),
          usage: fc.integer({ min: 0, max: 15 }),
          parts: fc.integer({ min: 1, max: 255 }),
          partSeed: fc.nat(),
          // No NUL inside: the identifier field is NUL-padded. A trailing space is data.
          pii: printable(1, 16),
          country: fc.constantFrom('DK', 'DE', 'CZ', 'SE', 'NO', 'FI'),
          isil: alnum(0, 9),
          swapNibbles: fc.boolean(),
          reversed: fc.boolean(),
          blockSize: fc.constantFrom(4, 8),
          // The library extension block (id 1) at most once: twice it is damaged by design.
          extensions: fc
            .array(fc.tuple(fc.integer({ min: 1, max: 0xfeff }), fc.array(fc.nat({ max: 255 }), { maxLength: 12 })), { maxLength: 3 })
            .filter((e) => e.filter(([id]) => id === 1).length <= 1),
        })
        .map((t) => ({ ...t, part: (t.partSeed % t.parts) + 1 }));
      check(
        'rfid: ISO 28560-3 round trip',
        8_000,
        fc.property(tag, (t) => {
          const bytes = [...danishBasicBlock(t), ...t.extensions.flatMap(([id, data]) => danishExtension(id, data))];
          const m = memory(bytes, t.blockSize);
          const r = decodeTag({ bytes: t.reversed ? reverseBlocks(m, t.blockSize) : m, blockSize: t.blockSize, dsfid: 0 });
          expectItem(r, t.pii, t.parts > 1 ? { part: t.part, of: t.parts } : null, () => JSON.stringify(t));
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'ISO 28560-3 is taken by its CRC alone: every image the encoder makes (empty, short, full item number) is that model or blank, whatever the DSFID and whatever another decoder reads',
    () => {
      const tag = fc
        .record({
          version: fc.constantFrom(1, 2),
          usage: fc.integer({ min: 0, max: 15 }),
          parts: fc.integer({ min: 1, max: 255 }),
          partSeed: fc.nat(),
          pii: fc.oneof(fc.constant(''), printable(1, 2), printable(3, 15), printable(16, 16)),
          country: fc.constantFrom('', 'DK', 'DE'),
          isil: alnum(0, 9),
          swapNibbles: fc.boolean(),
          reversed: fc.boolean(),
          blockSize: fc.constantFrom(4, 8),
          dsfid: fc.option(fc.constantFrom(0x00, 0x06, 0x3e), { nil: null }),
        })
        .map((t) => ({ ...t, part: (t.partSeed % t.parts) + 1 }));
      let blanks = 0;
      check(
        'rfid: ISO 28560-3 precedence by its CRC',
        8_000,
        fc.property(tag, (t) => {
          const m = memory(danishBasicBlock(t), t.blockSize);
          const r = decodeTag({ bytes: t.reversed ? reverseBlocks(m, t.blockSize) : m, blockSize: t.blockSize, dsfid: t.dsfid });
          const what = () => JSON.stringify(t);
          if (t.pii === '') {
            blanks++;
            must(r.kind === 'unreadable' && r.problem === 'blank', () => `${what()}: an empty item number read as ${JSON.stringify(r)}`);
            return;
          }
          must(r.kind === 'item' && r.model === 'iso28560-3', () => `${what()}: read as ${JSON.stringify(r)}`);
          expectItem(r, t.pii, t.parts > 1 ? { part: t.part, of: t.parts } : null, what);
        }),
      );
      must(blanks > 0, () => 'no empty item number was tried');
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    "ISO 28560-3's 34-byte block: what the encoder writes decodes back (owner institutions of up to 13 characters, identifiers of up to 60 in the library block, any other blocks, any tag size, read whole or in part)",
    () => {
      const isilRest = fc
        .string({ unit: fc.constantFrom(...'ABCMUSabc0123456789-:/'.split('')), minLength: 0, maxLength: 11 })
        .filter((r) => !r.startsWith('-'));
      const others = fc.array(
        fc.tuple(fc.oneof(fc.integer({ min: 2, max: 0xfeff }), fc.integer({ min: 0x10000, max: 0xffffff })), fc.array(fc.nat({ max: 255 }), { maxLength: 20 })),
        { maxLength: 4 },
      );
      const tag = fc
        .record({
          version: fc.constantFrom(1, 2),
          usage: fc.integer({ min: 0, max: 15 }),
          parts: fc.integer({ min: 1, max: 255 }),
          partSeed: fc.nat(),
          pii: fc.oneof(printable(1, 16), printable(17, 60)),
          country: fc.constantFrom('DK', 'DE', 'GB', 'SE'),
          rest: isilRest,
          mediaFormat: fc.option(fc.nat({ max: 255 }), { nil: null }),
          others,
          libraryAt: fc.nat(),
          reversed: fc.boolean(),
          blockSize: fc.constantFrom(4, 8),
          spare: fc.nat({ max: 64 }),
          cutSeed: fc.nat(),
        })
        .map((t) => ({ ...t, part: (t.partSeed % t.parts) + 1 }));
      let cutRead = 0;
      check(
        'rfid: ISO 28560-3 full block round trip',
        8_000,
        fc.property(tag, (t) => {
          const long = t.pii.length > 16;
          const isil = t.rest === '' ? t.country : `${t.country}-${t.rest}`;
          const blocks = t.others.map(([id, data]) => (id > 0xffff ? escapedExtension(id, data) : danishExtension(id, data)));
          if (long || t.mediaFormat !== null) {
            const lib = danishExtension(1, libraryBlockData({ mediaFormat: t.mediaFormat ?? 0, ...(long ? { itemId: t.pii } : {}) }));
            blocks.splice(t.libraryAt % (blocks.length + 1), 0, lib);
          }
          const data = [...fullBasicBlock({ ...t, pii: long ? null : t.pii, isil }), ...blocks.flat(), 0];
          const size = (Math.ceil(data.length / t.blockSize) + Math.floor(t.spare / t.blockSize)) * t.blockSize;
          const m = new Uint8Array(size);
          m.set(data, 0);
          const bytes = t.reversed ? reverseBlocks(m, t.blockSize) : m;
          const what = () => `${JSON.stringify(t)} bytes ${Buffer.from(data).toString('hex')}`;
          const r = decodeTag({ bytes, blockSize: t.blockSize, dsfid: 0 });
          expectItem(r, t.pii, t.parts > 1 ? { part: t.part, of: t.parts } : null, what);
          must(r.kind === 'item' && r.owner === (t.rest === '' ? null : isil), () => `${what()}: owner ${JSON.stringify(r)}`);
          must(r.kind === 'item' && r.mediaFormat === (t.mediaFormat === 0 ? null : t.mediaFormat), () => `${what()}: media ${JSON.stringify(r)}`);
          // Read only in part (the reader stopped at its limit): the item, or "read the rest" — never another item, never damaged.
          const cut = (t.cutSeed % (size / t.blockSize + 1)) * t.blockSize;
          const partial = decodeTag({ bytes: bytes.subarray(0, cut), blockSize: t.blockSize, dsfid: 0, complete: cut === size });
          if (partial.kind === 'item') {
            cutRead++;
            expectItem(partial, t.pii, r.set, () => `${what()} cut at ${cut}`);
          } else must(partial.problem === 'truncated', () => `${what()} cut at ${cut}: ${JSON.stringify(partial)}`);
        }),
      );
      must(cutRead > 0, () => 'no tag read in part was read whole');
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    "bibliotheca's DM11: digits the encoder writes decode back; other characters under a valid check are unknown, never an item",
    () => {
      const sixbit = fc.string({ unit: fc.integer({ min: 0x21, max: 0x5f }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 13 });
      const digits = fc.string({ unit: fc.constantFrom(...'0123456789'.split('')), minLength: 1, maxLength: 13 });
      check(
        'rfid: DM11 round trip',
        4_000,
        fc.property(fc.oneof(digits, sixbit), fc.option(fc.constantFrom(0x00, 0x06), { nil: null }), (chars, dsfid) => {
          const m = new Uint8Array(112);
          m.set(dm11Image(chars), 0);
          const r = decodeTag({ bytes: m, blockSize: 4, dsfid });
          if (/^[0-9]+$/.test(chars)) must(r.kind === 'item' && r.model === 'bibliotheca-dm11' && r.itemId === chars, () => `${chars}: ${JSON.stringify(r)}`);
          else must(r.kind === 'unreadable' && r.problem === 'unknown', () => `${chars}: ${JSON.stringify(r)}`);
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'the two guesses by structure never both read an item: 3M RFID 501 and ISO 28560-2 without its DSFID',
    () => {
      const bytes = fc.oneof(
        fc.uint8Array({ minLength: 20, maxLength: 120 }).map((b) => Uint8Array.from([0x04, b[0] ?? 0, 0x00, ...b.subarray(1)])),
        fc
          .record({ content: alnum(1, 16), total: fc.integer({ min: 1, max: 15 }), type: fc.nat({ max: 255 }) })
          .map((t) => rfid501({ ...t, set: 1, branch: 0, library: 0, custom: 0 })),
      );
      check(
        'rfid: 3M and 28560-2 guesses exclusive',
        4_000,
        fc.property(bytes, fc.constantFrom(0x00, null), (b, dsfid) => {
          const mem = { bytes: Uint8Array.from(b), blockSize: 4, dsfid };
          const threeM = decodeRfid501(mem);
          const iso2 = decodeIso28560_2(mem);
          must(!(threeM?.kind === 'item' && iso2?.kind === 'item'), () => `both read an item: ${Buffer.from(b).toString('hex')}`);
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'ISO 28560-2: what the encoder writes decodes back (every compaction, set, owner ISIL, skipped OIDs, offsets, DSFID or none)',
    () => {
      const letters = fc.constantFrom(...'ABCXYZ0123456789-:/ .@[]^_abcxyzáčŽ€'.split(''));
      const pii = fc.string({ unit: letters, minLength: 1, maxLength: 24 }).filter((s) => s.trim() === s || s.length > 0);
      const tag = fc
        .record({
          pii,
          pick: fc.nat(),
          parts: fc.integer({ min: 1, max: 99 }),
          partSeed: fc.nat(),
          owner: fc.option(
            fc.tuple(
              fc.constantFrom('DK', 'CZ', 'FI', 'DE', 'US'),
              fc.string({ unit: fc.constantFrom(...'AbcdEF0129:'.split('')), minLength: 1, maxLength: 8 }),
            ),
            {
              nil: null,
            },
          ),
          ownerHybrid: fc.boolean(),
          // Other elements, each at most once (the standard's rule): shelf location, media format, … and OIDs past 26.
          others: fc.uniqueArray(fc.tuple(fc.integer({ min: 5, max: 40 }), fc.array(fc.nat({ max: 255 }), { minLength: 1, maxLength: 10 })), {
            maxLength: 3,
            selector: ([oid]) => oid,
          }),
          offset: fc.integer({ min: 0, max: 3 }),
          dsfid: fc.boolean(),
          order: fc.nat(),
        })
        .map((t) => {
          const options = compactionsFor(t.pii).filter((c) => !((c === '5-bit' || c === '6-bit') && t.pii.endsWith('@')));
          const compaction: CompactionName = options[t.pick % options.length] ?? 'utf-8';
          return { ...t, compaction, part: (t.partSeed % t.parts) + 1 };
        });
      let exact = 0;
      let guessesRefused = 0;
      check(
        'rfid: ISO 28560-2 round trip',
        8_000,
        fc.property(tag, (t) => {
          const sets: number[][] = [dataSet(1, COMPACTION_CODE[t.compaction], compact(t.pii, t.compaction), t.offset)];
          if (t.parts > 1) {
            const w = String(t.parts).length;
            sets.push(dataSet(4, COMPACTION_CODE.numeric, compact(`${String(t.parts).padStart(w, '0')}${String(t.part).padStart(w, '0')}`, 'numeric')));
          }
          if (t.owner !== null) {
            const isil = `${t.owner[0]}-${t.owner[1]}`;
            sets.push(t.ownerHybrid ? dataSet(3, COMPACTION_CODE.application, isilCode(isil)) : dataSet(3, COMPACTION_CODE.octet, compact(isil, 'octet')));
          }
          // Other elements (shelf location, media format, …, and OIDs past 26 only when the DSFID says 28560-2).
          for (const [oid, data] of t.others) if (t.dsfid || oid <= 26) sets.push(dataSet(oid, COMPACTION_CODE.octet, data));
          const rotated = [...sets.slice(t.order % sets.length), ...sets.slice(0, t.order % sets.length)];
          const bytes = [...rotated.flat(), 0x00];
          const r = decodeTag({ bytes: memory(bytes, 4), blockSize: 4, dsfid: t.dsfid ? 0x06 : 0x00 });
          const what = () => `${JSON.stringify(t)} bytes ${Buffer.from(bytes).toString('hex')}`;
          // A tag without its DSFID carries no proof of its model: the decoder may refuse it
          // (damaged, ambiguous — or, read first as ISO 28560-3 with its certain CRC, that
          // model's), but it never names another item.
          if (!t.dsfid) {
            if (r.kind === 'unreadable' || (r.kind === 'item' && r.model !== 'iso28560-2')) {
              guessesRefused++;
              return;
            }
          }
          exact++;
          expectItem(r, t.pii, t.parts > 1 ? { part: t.part, of: t.parts } : null, what);
          if (t.owner !== null) must(r.kind === 'item' && r.owner === `${t.owner[0]}-${t.owner[1]}`, () => `${what()}: owner ${JSON.stringify(r)}`);
        }),
      );
      // Refusing is the exception: most tags, guesses included, read back exactly.
      must(exact > 4 * guessesRefused, () => `${exact} read back, ${guessesRefused} refused`);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    '3M RFID 501: what the encoder writes decodes back',
    () => {
      const tag = fc
        .record({
          content: alnum(1, 16),
          total: fc.integer({ min: 1, max: 15 }),
          setSeed: fc.nat(),
          type: fc.nat({ max: 255 }),
          branch: fc.nat({ max: 0xfff }),
          library: fc.nat({ max: 0xfffff }),
          custom: fc.integer({ min: -0x80000000, max: 0x7fffffff }),
        })
        .map((t) => ({ ...t, set: (t.setSeed % t.total) + 1 }));
      check(
        'rfid: 3M RFID 501 round trip',
        2_000,
        fc.property(tag, (t) => {
          const r = decodeTag({ bytes: rfid501(t), blockSize: 4, dsfid: 0 });
          if (r.kind === 'item' && r.model !== '3m-rfid501') return; // a Danish CRC that happens to match: that model's
          expectItem(r, t.content, t.total > 1 ? { part: t.set, of: t.total } : null, () => JSON.stringify(t));
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'any bytes: a typed result, never a throw, never an identifier a body cannot carry',
    () => {
      const memoryArb = fc.record({
        bytes: fc.oneof(
          fc.uint8Array({ maxLength: 300 }),
          // Mostly-valid starts: a precursor, a Danish version byte, the 3M marker, then noise.
          fc
            .tuple(fc.constantFrom(0x11, 0x21, 0x61, 0x71, 0x04, 0x06, 0x12, 0x8f, 0x0b), fc.uint8Array({ maxLength: 120 }))
            .map(([b, rest]) => Uint8Array.from([b, ...rest])),
        ),
        blockSize: fc.integer({ min: 1, max: 8 }),
        dsfid: fc.option(fc.constantFrom(0x00, 0x06, 0x3e, 0xff), { nil: null }),
      });
      check(
        'rfid: any bytes decode to a typed result',
        8_000,
        fc.property(memoryArb, (m) => {
          const r = decodeTag(m);
          must(r.kind === 'item' || r.kind === 'unreadable', () => `untyped result ${JSON.stringify(r)}`);
          if (r.kind === 'item') {
            const controls = [...r.itemId].some(
              (ch) => (ch.codePointAt(0) ?? 0) < 0x20 || ((ch.codePointAt(0) ?? 0) >= 0x7f && (ch.codePointAt(0) ?? 0) <= 0x9f),
            );
            must(r.itemId.length >= 1 && r.itemId.length <= 128 && !controls, () => `identifier ${JSON.stringify(r.itemId)}`);
            must(r.set === null || (r.set.part >= 1 && r.set.part <= r.set.of && r.set.of > 1), () => `set ${JSON.stringify(r.set)}`);
          }
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});

describe("the reader's line", () => {
  it(
    'FEIG frames come out whole and in order however the line chops them, after noise that starts no frame; any bytes never throw',
    () => {
      const frameArb = fc.record({
        type: fc.constantFrom<'standard' | 'advanced'>('standard', 'advanced'),
        address: fc.nat({ max: 255 }),
        command: fc.nat({ max: 255 }),
        status: fc.nat({ max: 255 }),
        data: fc.uint8Array({ maxLength: 240 }),
      });
      const lineArb = fc.record({
        frames: fc.array(frameArb, { minLength: 1, maxLength: 5 }),
        noise: fc.array(
          fc.uint8Array({ maxLength: 8 }).map((b) => b.map((x) => x & 0x01)),
          { minLength: 5, maxLength: 5 },
        ),
        cuts: fc.array(fc.integer({ min: 1, max: 64 }), { maxLength: 40 }),
        junk: fc.uint8Array({ maxLength: 600 }),
      });
      check(
        'rfid: FEIG frames through any chunking',
        4_000,
        fc.property(lineArb, ({ frames, noise, cuts, junk }) => {
          const wire = frames.flatMap((f, i) => [...(noise[i] ?? []), ...encodeFrame(f)]);
          const p = new FrameParser(true);
          const got: Frame[] = [];
          let at = 0;
          for (const n of [...cuts, wire.length]) {
            for (const e of p.push(Uint8Array.from(wire.slice(at, at + n)))) if (e.kind === 'frame') got.push(e.frame);
            at += n;
            if (at >= wire.length) break;
          }
          must(got.length === frames.length, () => `${got.length} frames out of ${frames.length}`);
          got.forEach((g, i) => {
            const f = frames[i]!;
            must(
              g.command === f.command && g.status === f.status && g.address === f.address && Buffer.from(g.data).equals(Buffer.from(f.data)),
              () => `frame ${i} differs`,
            );
          });
          const hostile = new FrameParser(true);
          hostile.push(junk);
          must(hostile.pending() <= MAX_FRAME_BYTES, () => `holds ${hostile.pending()} bytes`);
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});
