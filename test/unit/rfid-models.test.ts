/**
 * The library data models' decoders (src/devices/rfid/models/), each with vectors from a public
 * source — the source named at each — and the typed results for blank, unknown, truncated and
 * damaged tags. Round trips over random data are the fuzz tests' (test/fuzz/rfid-models.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { decodeTag } from '../../src/devices/rfid/models/decode.js';
import { decodeIsil, decodeIso28560_2, parseSetDigits } from '../../src/devices/rfid/models/iso28560-2.js';
import { basicBlockCrc, crc16Ccitt, decodeIso28560_3 } from '../../src/devices/rfid/models/iso28560-3.js';
import { decodeRfid501 } from '../../src/devices/rfid/models/rfid501.js';
import type { TagMemory } from '../../src/devices/rfid/models/types.js';
import { compact, danishBasicBlock, danishExtension, dataSet, hexBytes, isilCode, reverseBlocks, rfid501 } from '../support/library-tags.js';

const mem = (bytes: Uint8Array | readonly number[], dsfid: number | null = 0x00, blockSize = 4): TagMemory => ({
  bytes: bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes),
  blockSize,
  dsfid,
});
/** Memory of 28 blocks of 4 bytes with `data` at the start, as an ICODE SLIX label holds it. */
const slix = (data: readonly number[] | Uint8Array): Uint8Array => {
  const m = new Uint8Array(112);
  m.set(data, 0);
  return m;
};

describe('ISO 28560-3 (Danish data model)', () => {
  // GallusMax/libdanrfid, src/test/java/org/rfid/libdanrfid/DDMDataTest.java: barcode "11223344",
  // CRC 0x3e51 (bytes 19–20 = 51 3e), country "DE", ISIL "705".
  const LIBDANRFID = '11010131313232333334340000000000000000513e4445373035000000000000';

  it("CRC: libdanrfid's reference string and the CRC-16/CCITT-FALSE check value", () => {
    // GallusMax/libdanrfid, CRC.java: "RFID tag data model" -> 1aee.
    expect(crc16Ccitt(Buffer.from('RFID tag data model'))).toBe(0x1aee);
    // The CRC catalogue's check value of CRC-16/CCITT-FALSE ("123456789").
    expect(crc16Ccitt(Buffer.from('123456789'))).toBe(0x29b1);
    expect(basicBlockCrc(hexBytes(LIBDANRFID))).toBe(0x3e51);
  });

  it("libdanrfid's tag decodes to its barcode, owner and no set", () => {
    const r = decodeIso28560_3(mem(slix(hexBytes(LIBDANRFID))));
    expect(r).toMatchObject({ kind: 'item', model: 'iso28560-3', itemId: '11223344', set: null, owner: 'DE-705' });
  });

  it('blocks stored byte-reversed (libdanrfid TagData.reverseblocks) decode the same, noted', () => {
    const r = decodeTag(mem(slix(reverseBlocks(hexBytes(LIBDANRFID), 4))));
    expect(r).toMatchObject({ kind: 'item', itemId: '11223344' });
    expect(r.kind === 'item' && r.notes).toContain('blocks of 4 bytes stored reversed');
  });

  it('swapped version/usage nibbles (libdanrfid DDMData: 0x71 = discarded, version 1) decode, noted', () => {
    const block = danishBasicBlock({ version: 1, usage: 7, parts: 1, part: 1, pii: '5012345', country: 'DE', isil: '705', swapNibbles: true });
    expect(block[0]).toBe(0x71);
    const r = decodeTag(mem(slix(block)));
    expect(r).toMatchObject({ kind: 'item', itemId: '5012345' });
    expect(r.kind === 'item' && r.notes).toEqual(expect.arrayContaining(['version and usage nibbles swapped', 'version 1, type of usage 7']));
  });

  it('version 2 and a set: part 2 of 3', () => {
    const r = decodeTag(mem(slix(danishBasicBlock({ version: 2, usage: 1, parts: 3, part: 2, pii: '31234000000058', country: 'DK', isil: '710100' }))));
    expect(r).toMatchObject({ kind: 'item', itemId: '31234000000058', set: { part: 2, of: 3 }, owner: 'DK-710100' });
  });

  it('extension blocks after the basic block are walked and noted; a bad checksum there does not spoil the item', () => {
    const block = [...danishBasicBlock({ version: 1, usage: 1, parts: 1, part: 1, pii: '123', country: 'DK', isil: '7' }), ...danishExtension(1, [1, 2, 3, 4])];
    const bad = [...block, ...danishExtension(2, [9, 9]).map((b, i) => (i === 4 ? b ^ 1 : b))];
    const r = decodeTag(mem(slix(bad)));
    expect(r.kind === 'item' && r.notes).toEqual(expect.arrayContaining(['extension block id 1', 'extension block id 2 fails its checksum (ignored)']));
  });

  it('a wrong CRC is damaged (never an item)', () => {
    const b = hexBytes(LIBDANRFID);
    b[5] = (b[5] ?? 0) ^ 0x01;
    expect(decodeTag(mem(slix(b)))).toMatchObject({ kind: 'unreadable', problem: 'damaged' });
  });

  it('fewer than 32 bytes is truncated; a valid CRC with version 3 is unknown', () => {
    expect(decodeIso28560_3(mem(hexBytes(LIBDANRFID).subarray(0, 24)))).toMatchObject({ kind: 'unreadable', problem: 'truncated' });
    const v3 = danishBasicBlock({ version: 3, usage: 3, parts: 1, part: 1, pii: '1', country: 'DK', isil: '' });
    expect(decodeIso28560_3(mem(slix(v3)))).toMatchObject({ kind: 'unreadable', problem: 'unknown' });
  });
});

describe('precedence by evidence: a valid 28560-3 CRC is that model and nothing else', () => {
  // GallusMax/libdanrfid, src/test/java/org/rfid/libdanrfid/DDMTagTest.java, UserEmptyHex: a new
  // LibTag (version 1, usage 1, part 1 of 1, no barcode, DE-705) with its CRC 0x9fca.
  const LIBDANRFID_EMPTY = '11010100000000000000000000000000000000ca9f4445373035000000000000';

  it('libdanrfid\'s empty tag is blank, though its header also parses as 28560-2 item "1"', () => {
    const bytes = slix(hexBytes(LIBDANRFID_EMPTY));
    // The trap: 0x11 is a 28560-2 precursor (integer compaction, OID 1), the set's 0x01 its length
    // and the part's 0x01 its one data byte — the Primary Item Identifier "1".
    expect(decodeIso28560_2(mem(bytes, 0x06))).toMatchObject({ kind: 'item', model: 'iso28560-2', itemId: '1' });
    for (const dsfid of [0x00, 0x06, 0x3e, null]) {
      expect(decodeTag(mem(bytes, dsfid))).toMatchObject({ kind: 'unreadable', problem: 'blank' });
      expect(decodeTag(mem(reverseBlocks(bytes, 4), dsfid))).toMatchObject({ kind: 'unreadable', problem: 'blank' });
    }
  });

  it('a short item number is that item, with the DSFID of 28560-2 or without', () => {
    const short = danishBasicBlock({ version: 2, usage: 1, parts: 1, part: 1, pii: '7', country: '', isil: '' });
    for (const dsfid of [0x00, 0x06]) expect(decodeTag(mem(slix(short), dsfid))).toMatchObject({ kind: 'item', model: 'iso28560-3', itemId: '7' });
  });

  it("a valid CRC with a version the station does not know is unknown, never another model's reading", () => {
    const v3 = danishBasicBlock({ version: 3, usage: 3, parts: 1, part: 1, pii: '', country: 'DK', isil: '' });
    expect(decodeTag(mem(slix(v3), 0x06))).toMatchObject({ kind: 'unreadable', problem: 'unknown' });
  });
});

describe('ISO 28560-2 (ISO/IEC 15962)', () => {
  // No public tag dump of ISO 28560-2 was found; this one is worked out by hand from the rules
  // (precursor = offset flag, compaction << 4, relative OID; numeric compaction = the digits with a
  // 1 in front as an integer): PII "0012345678" -> 10012345678 = 0x0254C8454E; set "0302"
  // (3 parts, this is part 2) -> 10302 = 0x283E; owner "CZ-PrNK" as an octet string.
  const HAND = '21 05 0254C8454E  24 02 283E  63 07 435A2D50724E4B  00';

  it('a hand-encoded tag: identifier with leading zeros, set, owner; DSFID 0x06 noted', () => {
    const r = decodeTag(mem(slix(hexBytes(HAND)), 0x06));
    expect(r).toMatchObject({ kind: 'item', model: 'iso28560-2', itemId: '0012345678', set: { part: 2, of: 3 }, owner: 'CZ-PrNK' });
    expect(r.kind === 'item' && r.notes).toContain('DSFID 0x06');
  });

  it('every compaction scheme carries the identifier', () => {
    const cases: [Parameters<typeof compact>[1], string][] = [
      ['integer', '31234000000017'],
      ['numeric', '0031234'],
      ['5-bit', 'ABCXYZ'],
      ['6-bit', 'AB-123 X'],
      ['7-bit', 'Lib-42/x'],
      ['octet', 'Kniha 7'],
      ['utf-8', 'Žluťoučký 1'],
    ];
    for (const [c, id] of cases) {
      const code = { integer: 1, numeric: 2, '5-bit': 3, '6-bit': 4, '7-bit': 5, octet: 6, 'utf-8': 7 }[c];
      const r = decodeIso28560_2(mem(slix([...dataSet(1, code, compact(id, c)), 0])));
      expect(r, c).toMatchObject({ kind: 'item', itemId: id });
    }
    // 6-bit by hand: A=000001 B=000010 C=000011 1=110001 -> 04 20 F1.
    expect(decodeIso28560_2(mem(slix(hexBytes('41 03 0420F1 00'))))).toMatchObject({ itemId: 'ABC1' });
  });

  it("the owner ISIL in 28560-2's 5/4-bit code with latches and shifts", () => {
    for (const isil of ['DK-710100', 'CZ-PrNK', 'FI-He', 'DE-Tue120', 'US-dlc']) {
      expect(decodeIsil(Uint8Array.from(isilCode(isil))), isil).toEqual({ ok: true, value: isil });
      expect(decodeIsil(Uint8Array.from(isilCode(isil, false))), `${isil} latched`).toEqual({ ok: true, value: isil });
    }
    const r = decodeTag(mem(slix([...dataSet(1, 6, compact('77', 'octet')), ...dataSet(3, 0, isilCode('FI-He')), 0]), 0x06));
    expect(r).toMatchObject({ kind: 'item', itemId: '77', owner: 'FI-He' });
  });

  it('unknown OIDs are skipped by their length (and noted), with offsets and extended OIDs', () => {
    const data = [
      ...dataSet(6, 6, compact('SHELF 12', 'octet'), 3),
      ...dataSet(20, 6, compact('x', 'octet')),
      ...dataSet(1, 2, compact('42', 'numeric'), 1),
      0,
    ];
    const r = decodeTag(mem(slix(data), 0x06));
    expect(r).toMatchObject({ kind: 'item', itemId: '42' });
    expect(r.kind === 'item' && r.notes).toEqual(expect.arrayContaining(['OID 6 skipped', 'OID 20 skipped']));
  });

  it('the DSFID in the first byte of memory; blocks stored reversed are not guessed at (no checksum says which order is right)', () => {
    const data = [...dataSet(1, 6, compact('A-1', 'octet')), 0];
    expect(decodeTag(mem(slix([0x06, ...data]), 0x00))).toMatchObject({ kind: 'item', itemId: 'A-1' });
    expect(decodeTag(mem(reverseBlocks(slix(data), 4), 0x06)).kind).toBe('unreadable');
  });

  it('a length that runs past the memory is truncated; length 0 or a bad numeric is damaged', () => {
    expect(decodeTag(mem([0x61, 0x20, 0x41, 0x42], 0x06, 1))).toMatchObject({ kind: 'unreadable', problem: 'truncated' });
    expect(decodeTag(mem(slix([0x61, 0x00, 0x00]), 0x06))).toMatchObject({ kind: 'unreadable', problem: 'damaged' });
    // Numeric compaction must start with its 1: 0x05 is "5".
    expect(decodeTag(mem(slix([0x21, 0x01, 0x05, 0x00]), 0x06))).toMatchObject({ kind: 'unreadable', problem: 'damaged' });
    // Data without OID 1.
    expect(decodeTag(mem(slix([...dataSet(3, 6, compact('DK-1', 'octet')), 0]), 0x06))).toMatchObject({ kind: 'unreadable', problem: 'damaged' });
  });

  it('set information: number of parts first, then the part, equal widths', () => {
    expect(parseSetDigits('32')).toEqual({ of: 3, part: 2 });
    expect(parseSetDigits('1203')).toEqual({ of: 12, part: 3 });
    expect(parseSetDigits('302')).toEqual({ of: 3, part: 2 });
    expect(parseSetDigits('23')).toBeNull();
  });
});

describe('3M RFID 501', () => {
  // dpavlin/Biblio-RFID, t/05-RFID501.t: the two tags of its round-trip test.
  const BIBLIO_RFID_1 = [
    ...Buffer.from('\x04\x11\x00\x00', 'latin1'),
    ...Buffer.from('200901010123'),
    0,
    0,
    0,
    0,
    0xff,
    0xff,
    0xff,
    0xff,
    0x7f,
    0xff,
    0xff,
    0xff,
    0,
    0,
    0,
    0,
  ];
  const BIBLIO_RFID_2 = [
    ...Buffer.from('\x04\x11\x00\x01', 'latin1'),
    ...Buffer.from('130200376700'.slice(0, 10)),
    0x36,
    0x37,
    0,
    0,
    0,
    0,
    ...new Array<number>(16).fill(0),
  ];

  it("Biblio-RFID's tags decode to their content", () => {
    expect(decodeRfid501(mem(BIBLIO_RFID_1))).toMatchObject({ kind: 'item', model: '3m-rfid501', itemId: '200901010123', set: null });
    expect(decodeTag(mem(BIBLIO_RFID_2))).toMatchObject({ kind: 'item', model: '3m-rfid501', itemId: '130200376767' });
    const r = decodeTag(mem(BIBLIO_RFID_1));
    expect(r.kind === 'item' && r.notes).toEqual(expect.arrayContaining(['item type 0', 'branch 4095, library 1048575']));
  });

  it('a set and a manufacturing blank (Biblio-RFID blank_3m)', () => {
    const set = rfid501({ set: 2, total: 3, type: 9, content: 'B77', branch: 1, library: 2, custom: 0 });
    expect(decodeTag(mem(set))).toMatchObject({ kind: 'item', itemId: 'B77', set: { part: 2, of: 3 } });
    expect(decodeTag(mem([...new Array<number>(24).fill(0x55), 0, 0, 0, 0]))).toMatchObject({ kind: 'unreadable', problem: 'blank' });
  });
});

describe('what no model reads', () => {
  it('blank (zeros, erased), unknown, and never a throw', () => {
    expect(decodeTag(mem(new Uint8Array(112)))).toMatchObject({ kind: 'unreadable', problem: 'blank' });
    expect(decodeTag(mem(new Uint8Array(112).fill(0xff)))).toMatchObject({ kind: 'unreadable', problem: 'blank' });
    expect(decodeTag(mem(new Uint8Array(0)))).toMatchObject({ kind: 'unreadable', problem: 'blank' });
    expect(decodeTag(mem(slix([0xde, 0xad, 0xbe, 0xef, 0x01]), null))).toMatchObject({ kind: 'unreadable', problem: 'unknown' });
  });
});
