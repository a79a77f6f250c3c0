/**
 * The host-mode reader driver (src/devices/rfid/) on a real serial line: a socat pseudo-terminal
 * pair, the driver on one end through serialport and the kernel's tty layer, the model reader
 * (src/devices/simulated/feig-reader-model.ts, written from the FEIG protocol on its own) on the other.
 * What a reader in the field does to the driver, the model does here: several tags at once, every
 * data model, answers lost, late, garbled, with a wrong CRC or a lying length, a flood, an unplug.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { feigIsoHost } from '../../src/devices/rfid/feig/session.js';
import { openSerialPort } from '../../src/devices/serial/link.js';
import { HostModeReader, type HostModeReaderOptions } from '../../src/devices/rfid/reader.js';
import { FeigReaderModel, type FeigModelOptions } from '../../src/devices/simulated/feig-reader-model.js';
import { serveModel, type ServedModel } from '../../src/devices/simulated/model-port.js';
import { PUBLIC_TAG_IMAGES } from '../../src/devices/simulated/public-tag-images.js';
import { blankTag, dm11Tag, iso28560_2Tag, iso28560_3Set, iso28560_3Tag, nextUid, rfid501Tag, type TagImage } from '../../src/devices/simulated/tag-images.js';
import type { RfidTag } from '../../src/devices/types.js';
import { danishExtension, fullBasicBlock, hexBytes, libraryBlockData } from '../support/library-tags.js';
import { waitFor } from '../support/shared.js';
import { HAVE_SOCAT, PtyPair } from '../support/socat.js';

const log = pino({ level: process.env['RFID_LOG'] ?? 'silent' });

let dir = '';
let pty: PtyPair;
let model: FeigReaderModel;
let served: ServedModel | null = null;
const readers: HostModeReader[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rfid-reader-'));
});
afterEach(async () => {
  for (const r of readers.splice(0)) await r.close();
  await served?.close();
  served = null;
  model.close();
  await pty.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function plugIn(opts: FeigModelOptions = {}): Promise<void> {
  pty = new PtyPair(dir);
  await pty.start();
  model ??= new FeigReaderModel(opts);
  served = await serveModel(model, pty.a);
}

function reader(o: Partial<HostModeReaderOptions> = {}): { r: HostModeReader; fields: (readonly RfidTag[])[]; last: () => readonly RfidTag[] } {
  const fields: (readonly RfidTag[])[] = [];
  const r = new HostModeReader({
    family: feigIsoHost,
    port: { path: pty.b, ...feigIsoHost.line },
    opener: openSerialPort,
    busAddress: 0xff,
    frame: 'advanced',
    answerTimeoutMs: 150,
    blockOrder: 'reversed',
    blocksPerRead: 16,
    maxBlocks: 64,
    send: 'item-id',
    inventoryIntervalMs: 20,
    absentRounds: 2,
    readAttempts: 3,
    failuresBeforeReconnect: 3,
    reconnect: { initialMs: 50, maxMs: 200, factor: 2 },
    openTimeoutMs: 2_000,
    log,
    ...o,
  });
  r.onField((tags) => fields.push(tags));
  readers.push(r);
  return { r, fields, last: () => fields.at(-1) ?? [] };
}

const ids = (tags: readonly RfidTag[]): string[] => tags.map((t) => (t.data.kind === 'item' ? t.data.itemId : t.data.kind)).sort();

/** A tag of `blocks` blocks of 4 bytes holding `data` from block 0. */
const tagOf = (data: readonly number[] | Uint8Array, blocks: number): TagImage => {
  const memory = new Uint8Array(blocks * 4);
  memory.set(data, 0);
  return { uid: nextUid(), dsfid: 0, afi: 0x07, eas: true, blockSize: 4, memory };
};

/**
 * An ICODE SLIX2's 80 blocks holding a 34-byte block whose item identifier (byte 3 = 01) is in a
 * library block placed after a title block, so that it lies past byte 256: past the reader's first
 * `maxBlocks` (64) blocks.
 */
function farLibraryBlock(itemId: string): TagImage {
  const title = danishExtension(4, [...Buffer.from('T'.repeat(240))]);
  const lib = danishExtension(1, libraryBlockData({ mediaFormat: 6, itemId }));
  return tagOf([...fullBasicBlock({ version: 1, usage: 1, parts: 1, part: 1, pii: null, isil: 'DE-MUS-815718' }), ...title, ...lib, 0], 80);
}

describe.skipIf(!HAVE_SOCAT)('host-mode reader on a pseudo-terminal against the model reader', () => {
  it('reads every tag in the field (more than one answer holds), each data model, and notices a tag leave', async () => {
    model = new FeigReaderModel({ maxTagsPerAnswer: 2 });
    await plugIn();
    const { r, last } = reader();
    await r.start();
    expect(r.health().ok).toBe(true);
    const danish = iso28560_3Tag({ itemId: '31234000000033', afi: 0x07, library: '710100' });
    model.place(danish);
    model.place(iso28560_2Tag({ itemId: '0012345678', afi: 0x07 }));
    model.place(rfid501Tag({ itemId: '1302003767', afi: 0xd7 }));
    model.place(blankTag());
    model.place(iso28560_3Tag({ itemId: 'REV-1', afi: 0x07, blocksReversed: true, nibblesSwapped: true, usage: 7 }));
    await waitFor('five tags read', () => last().length === 5);
    expect(ids(last())).toEqual(['0012345678', '1302003767', '31234000000033', 'REV-1', 'unreadable']);
    expect(last().find((t) => t.uid === danish.uid)).toMatchObject({ afi: 0x07, data: { model: 'iso28560-3', owner: 'DK-710100' } });
    model.remove(danish.uid);
    await waitFor('the tag left', () => last().length === 4);
  });

  it('tag images written by other hands (public tools, their tests) read through the driver as their sources say', async () => {
    model = new FeigReaderModel({ maxTagsPerAnswer: 8 });
    await plugIn();
    const { r, last } = reader({ absentRounds: 5 });
    await r.start();
    const laid = PUBLIC_TAG_IMAGES.map((t) => ({ t, image: tagOf(hexBytes(t.hex), t.blocks) }));
    for (const { image } of laid) model.place(image);
    await waitFor('every public image read', () => last().length === laid.length, 20_000);
    for (const { t, image } of laid) {
      const got = last().find((x) => x.uid === image.uid)?.data;
      if ('problem' in t.reading) expect(got, t.name).toMatchObject({ kind: 'unreadable', problem: t.reading.problem });
      else expect(got, t.name).toEqual({ kind: 'item', ...t.reading });
    }
  });

  it('a tag whose data runs past the blocks read at first is read to its end: by its own size, and block by block without one', async () => {
    for (const memSize of ['iso', 'literal', 'none'] as const) {
      model = new FeigReaderModel({ memSize });
      await plugIn();
      const { r, last } = reader({ maxBlocks: 64 });
      await r.start();
      const far = farLibraryBlock(`FAR-${memSize}-0000000000000001`);
      model.place(far);
      model.place(dm11Tag({ itemId: '51793943090', afi: 0x07 }));
      await waitFor(`both read (MEM-SIZE ${memSize})`, () => last().length === 2);
      expect(last().find((t) => t.uid === far.uid)?.data, memSize).toEqual({
        kind: 'item',
        model: 'iso28560-3',
        itemId: `FAR-${memSize}-0000000000000001`,
        set: null,
        owner: 'DE-MUS-815718',
        mediaFormat: 6,
      });
      expect(ids(last())).toContain('51793943090');
      await r.close();
      readers.splice(readers.indexOf(r), 1);
      await served?.close();
      served = null;
      model.close();
      await pty.stop();
    }
    model = new FeigReaderModel();
    await plugIn();
  });

  it('reads only as far as the data needs: one read of 16 blocks for a Danish block on a SLIX, two for a 34-byte block with 71 bytes of extension blocks on a SLIX2', async () => {
    model = new FeigReaderModel();
    await plugIn();
    const { r, last } = reader({ blocksPerRead: 16 });
    await r.start();
    const reads = (): number => model.seen.filter((x) => x.command === 0xb0 && x.sub === 0x23).length;
    const before = reads();
    model.place(iso28560_3Tag({ itemId: 'ONE-READ', afi: 0x07, library: '710100' }));
    await waitFor('the Danish tag read', () => last().length === 1);
    expect(reads() - before).toBe(1);
    const between = reads();
    model.place(iso28560_3Tag({ itemId: 'TWO-READS', afi: 0x07, form: 'full', mediaFormat: 1, title: 'Atlas of the world, 2nd ed.', blocks: 80 }));
    await waitFor('the SLIX2 tag read', () => last().length === 2);
    expect(reads() - between).toBe(2);
    expect(ids(last())).toEqual(['ONE-READ', 'TWO-READS']);
  });

  it('bad extension blocks through the driver: a checksum, a length past the tag, the library block twice, byte 3 = 01 without it — each damaged, never an item', async () => {
    model = new FeigReaderModel();
    await plugIn();
    const { r, last } = reader();
    await r.start();
    const base = (pii: string | null): number[] => [...fullBasicBlock({ version: 1, usage: 1, parts: 1, part: 1, pii, isil: 'DK-710100' })];
    const lib = danishExtension(1, libraryBlockData({ mediaFormat: 1, itemId: 'BAD-0000000000000000001' }));
    const badSum = [...lib];
    badSum[6] = (badSum[6] ?? 0) ^ 0x01;
    const tags = [
      tagOf([...base(null), ...badSum, 0], 28),
      // A title block whose length runs 10 bytes past the tag's 128.
      tagOf([...base('PAST-END'), ...danishExtension(4, new Array<number>(100).fill(0x41))].slice(0, 128), 32),
      tagOf([...base(null), ...lib, ...lib, 0], 28),
      tagOf([...base(null), 0], 28),
    ];
    for (const t of tags) model.place(t);
    await waitFor('four tags judged', () => last().length === 4);
    expect(last().map((t) => (t.data.kind === 'unreadable' ? t.data.problem : t.data.kind))).toEqual(['damaged', 'damaged', 'damaged', 'damaged']);
    expect(r.stats().tagsRead).toBe(0);
    expect(r.stats().unreadable.damaged).toBe(4);
  });

  it('standard frames and blocks handed over in memory order', async () => {
    model = new FeigReaderModel({ blockOrder: 'memory' });
    await plugIn();
    const { r, last } = reader({ frame: 'standard', blockOrder: 'memory', blocksPerRead: 8 });
    await r.start();
    for (const t of iso28560_3Set({ itemId: 'SET-3', of: 3, afi: 0x07 })) model.place(t);
    await waitFor('three parts', () => last().length === 3);
    expect(last().map((t) => (t.data.kind === 'item' ? t.data.set : null))).toEqual(
      expect.arrayContaining([
        { part: 1, of: 3 },
        { part: 2, of: 3 },
        { part: 3, of: 3 },
      ]),
    );
  });

  it('security: AFI written and read back; a write that fails, that half-succeeds, that lies; EAS reset and verified', async () => {
    model = new FeigReaderModel();
    await plugIn();
    const { r, last } = reader();
    await r.start();
    const t = iso28560_3Tag({ itemId: 'A1', afi: 0x07 });
    model.place(t);
    await waitFor('tag read', () => last().length === 1);
    expect(await r.writeSecurity([t.uid], { kind: 'afi', value: 0xc2 })).toEqual([{ uid: t.uid, ok: true }]);
    expect(model.tag(t.uid)?.afi).toBe(0xc2);
    model.faults.failWrites = 1;
    const failed = await r.writeSecurity([t.uid], { kind: 'afi', value: 0x07 });
    expect(failed[0]).toMatchObject({
      ok: false,
      reason: expect.stringContaining('read-back shows AFI 0xC2, not 0x07; the write answered: AFI write') as string,
    });
    model.faults.writeErrorButApplied = 1;
    expect(await r.writeSecurity([t.uid], { kind: 'afi', value: 0x07 })).toEqual([{ uid: t.uid, ok: true }]);
    model.faults.writeOkNotApplied = 1;
    expect((await r.writeSecurity([t.uid], { kind: 'afi', value: 0xc2 }))[0]).toMatchObject({ ok: false, reason: 'read-back shows AFI 0x07, not 0xC2' });
    expect(model.tag(t.uid)?.eas).toBe(true);
    expect(await r.writeSecurity([t.uid], { kind: 'eas', enabled: false })).toEqual([{ uid: t.uid, ok: true }]);
    expect(model.tag(t.uid)?.eas).toBe(false);
    model.remove(t.uid);
    expect((await r.writeSecurity([t.uid], { kind: 'eas', enabled: false }))[0]).toMatchObject({
      ok: false,
      reason: expect.stringContaining('no transponder') as string,
    });
  });

  it('health: silence, a wrong CRC, garbage, a lying length and late answers each take it DOWN with words naming the reader; it comes back UP', async () => {
    model = new FeigReaderModel();
    await plugIn();
    // A limit a loaded 2-core machine keeps (at 150 ms a pty write alone once ran past it).
    const { r } = reader({ answerTimeoutMs: 400 });
    await r.start();
    const down = async (what: string, detail: RegExp): Promise<void> => {
      await waitFor(`DOWN after ${what}`, () => !r.health().ok);
      expect(r.health().detail).toMatch(new RegExp(`^RFID reader ${pty.b}: `));
      expect(r.health().detail).toMatch(detail);
    };
    const up = (what: string) => waitFor(`UP after ${what}`, () => r.health().ok);
    model.faults.silent = true;
    await down('silence', /no answer within 400 ms \(3 requests in a row\)|no answer to its first request/);
    model.faults.silent = false;
    await up('silence');
    model.faults.corruptCrc = 1_000;
    await down('a wrong CRC', /wrong CRC/);
    model.faults.corruptCrc = 0;
    await up('a wrong CRC');
    model.faults.garbageBefore = 3;
    model.faults.lyingLength = 1_000;
    await down('a lying length', /incomplete|garbage|length may lie/);
    model.faults.lyingLength = 0;
    model.faults.garbageBefore = 0;
    await up('a lying length');
    model.faults.delayMs = 1_000;
    await down('slow answers', /answers too late \(after more than 400 ms\) \(3 requests in a row\)/);
    model.faults.delayMs = 0;
    await up('slow answers');
  });

  it('unplugged and plugged back: DOWN "disconnected", UP again, and the tag that stayed is not reported anew', async () => {
    model = new FeigReaderModel();
    await plugIn();
    const { r, fields, last } = reader();
    await r.start();
    model.place(iso28560_3Tag({ itemId: 'STAYS', afi: 0x07 }));
    await waitFor('tag read', () => last().length === 1);
    const reports = fields.length;
    await served?.close();
    served = null;
    await pty.stop();
    await waitFor('DOWN on unplug', () => !r.health().ok);
    expect(r.health().detail).toMatch(/disconnected|closed|cannot open|I\/O error/);
    await plugIn();
    await waitFor('UP after replug', () => r.health().ok, 10_000);
    await waitFor('rounds after replug', () => model.seen.filter((s) => s.sub === 0x01).length > 10);
    expect(fields.length).toBe(reports);
  });

  it('a flood of unsolicited frames does not stop it reading', async () => {
    model = new FeigReaderModel();
    await plugIn();
    const { r, last } = reader();
    await r.start();
    model.startFlood(2);
    model.place(iso28560_2Tag({ itemId: 'FLOOD-1', afi: 0x07 }));
    await waitFor('tag read through the flood', () => ids(last()).includes('FLOOD-1'));
    expect(r.health().ok).toBe(true);
  });

  it('a flood of ISO answers with a valid CRC and junk inside: none is taken for an answer, each is counted, every tag reads', async () => {
    model = new FeigReaderModel();
    await plugIn();
    const { r, last } = reader({ readAttempts: 1 });
    await r.start();
    model.startFlood(1, 'iso-junk');
    model.place(iso28560_3Tag({ itemId: 'JUNK-FLOOD-1', afi: 0x07 }));
    model.place(iso28560_2Tag({ itemId: 'JUNK-FLOOD-2', afi: 0x07 }));
    await waitFor('both read through the flood', () => ids(last()).length === 2);
    expect(ids(last())).toEqual(['JUNK-FLOOD-1', 'JUNK-FLOOD-2']);
    await waitFor('junk counted', () => r.stats().answersDropped > 10);
    expect(r.stats().unreadable).toEqual({ blank: 0, unknown: 0, truncated: 0, damaged: 0, 'read-failed': 0 });
    expect(r.health().ok).toBe(true);
  });

  it('readers as in the field: standard-only (frame auto), MEM-SIZE literal, a tag without system information, status 0xF1', async () => {
    model = new FeigReaderModel({ requestFrames: 'standard', answerFrame: 'advanced', memSize: 'literal' });
    await plugIn();
    const { r, last } = reader({ frame: 'auto', answerTimeoutMs: 100 });
    await r.start();
    await waitFor('up in standard frames', () => r.health().ok);
    model.place(iso28560_3Tag({ itemId: 'LITERAL-1', afi: 0x07 }));
    model.placeWithout(iso28560_2Tag({ itemId: 'NO-SYSINFO-2', afi: 0x07 }));
    await waitFor('both read', () => ids(last()).length === 2);
    expect(ids(last())).toEqual(['LITERAL-1', 'NO-SYSINFO-2']);
    const stats = r.stats();
    expect(stats.tagsRead).toBe(2);
    // Masked UIDs only.
    expect(stats.lastTags.every((t) => /^…[0-9A-F]{3}$/.test(t.uid))).toBe(true);
    // The reader's own error: never the tag's fault, the reader goes DOWN saying so.
    model.faults.readerError = 1_000;
    model.place(iso28560_3Tag({ itemId: 'F1-3', afi: 0x07 }));
    await waitFor('down with the reader error', () => !r.health().ok && /firmware does not fit the hardware/.test(r.health().detail ?? ''));
    expect(r.stats().unreadable['read-failed']).toBe(0);
    model.faults.readerError = 0;
    await waitFor('back up and the third read', () => r.health().ok && ids(last()).includes('F1-3'));
    expect(r.stats().reconnects).toBeGreaterThan(0);
  });
});
