/**
 * Library RFID end to end: the built daemon as a process (simulated locks and doors), its host-mode
 * reader driver on a socat pseudo-terminal, the model reader on the other end in this process, the
 * reference server on 127.0.0.1. Tags are laid on the model as a librarian lays items on the reader:
 * a Danish-model tag and an ISO 28560-2 tag each produce /item-identify with the item's number, a
 * three-part set is reported once all three lie there, and the AFI the station writes after
 * box-open is verified (the model's tag holds the unsecured value, the technician status has no
 * failure).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FeigReaderModel } from '../../src/devices/simulated/feig-reader-model.js';
import { serveModel, type ServedModel } from '../../src/devices/simulated/model-port.js';
import { iso28560_2Tag, iso28560_3Set, iso28560_3Tag } from '../../src/devices/simulated/tag-images.js';
import { maskIdentifier } from '../../src/log.js';
import { DaemonRig, type DaemonProcess } from '../support/daemon.js';
import { box, STATION, waitFor } from '../support/shared.js';
import { HAVE_SOCAT, PtyPair } from '../support/socat.js';

const SECURED = 0x07;
const UNSECURED = 0xc2;
const DANISH = '31234000000033';
const ISO2 = '0012345678';
const SET = '31234000000058';

let dir = '';
let pty: PtyPair;
let model: FeigReaderModel;
let served: ServedModel;
let rig: DaemonRig;
let daemon: DaemonProcess;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rfid-daemon-'));
  pty = new PtyPair(dir);
  await pty.start();
  model = new FeigReaderModel();
  served = await serveModel(model, pty.a);
});
afterEach(async () => {
  daemon?.child.kill('SIGTERM');
  await daemon?.exited;
  await rig?.close();
  await served.close();
  model.close();
  await pty.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!HAVE_SOCAT)('the daemon with a host-mode RFID reader on a pty', () => {
  it('Danish and 28560-2 tags deposit by item number, a set of three once complete, the AFI written and verified', { timeout: 60_000 }, async () => {
    rig = await DaemonRig.create(
      {
        hardware: { kind: 'simulated', doorSpringMs: 20, rfidReader: { path: pty.b, inventoryIntervalMs: 50, answerTimeoutMs: 300 } },
        rfid: { security: { kind: 'afi', secured: SECURED, unsecured: UNSECURED } },
        timing: { heartbeatIntervalMs: 5_000 },
      },
      [DANISH, ISO2, SET].map((identifierValue, i) => ({ identifierValue, identifierType: 'RFID', stationId: STATION.id, boxId: box(i + 1) })),
    );
    daemon = rig.start();
    daemon.child.stdout?.on('data', (d: Buffer) => process.env['RFID_E2E_LOG'] && process.stderr.write(d));
    await rig.idle(20_000);
    await rig.statusUntil(
      (s) => (s['devices'] as { name: string; ok: boolean }[]).some((d) => d.name === `RFID reader ${pty.b}` && d.ok),
      'the reader up',
      20_000,
    );

    /** Lay `tags` on the reader; the /item-identify it causes; its box opened and closed again. */
    const deposit = async (tags: ReturnType<typeof iso28560_3Tag>[], itemId: string, boxNumber: number, note?: string): Promise<void> => {
      const seq = rig.server.lastSeq;
      for (const t of tags) model.place(t);
      const identify = await rig.server.waitForRequest((r) => r.endpoint === 'item-identify', 20_000, { afterSeq: seq });
      expect(identify.body).toMatchObject({ identifierType: 'RFID', identifierValue: itemId });
      expect(identify.response).toMatchObject({ type: 'box-open', boxes: [box(boxNumber)] });
      await waitFor('every tag unsecured', () => tags.every((t) => model.tag(t.uid)?.afi === UNSECURED), 20_000);
      await daemon.waitForLine((l) => l['msg'] === 'RFID: security bit cleared and verified' && l['itemId'] === maskIdentifier(itemId), 'verified', 20_000);
      await rig.simUntil((f) => f.doors[String(boxNumber)] === 'OPEN', `box ${boxNumber} open`);
      // The item's handling note stays under the box's screen while the librarian carries it there.
      const shown = await rig.statusUntil((s) => (s['display'] as string[]).length > 0, 'a screen', 20_000);
      if (note === undefined) expect(shown['display']).not.toContain('Small item');
      else await rig.statusUntil((s) => (s['display'] as string[]).at(-1) === note, `"${note}" under the open box's screen`, 20_000);
      for (const t of tags) model.remove(t.uid);
      rig.setDoor(boxNumber, 'CLOSED');
      await rig.idle(20_000);
      expect(rig.since(seq).filter((r) => r.endpoint === 'item-identify')).toHaveLength(1);
    };

    await deposit([iso28560_3Tag({ itemId: DANISH, afi: SECURED, library: '710100' })], DANISH, 1);
    await deposit([iso28560_2Tag({ itemId: ISO2, afi: SECURED, owner: 'CZ-PrNK' })], ISO2, 2);

    // Three parts in 34-byte blocks, each with a library extension block saying "small item".
    const [p1, p2, p3] = iso28560_3Set({ itemId: SET, of: 3, afi: SECURED, form: 'full', mediaFormat: 6 });
    const seq = rig.server.lastSeq;
    model.place(p1!);
    model.place(p2!);
    await rig.statusUntil((s) => (s['display'] as string[]).join(' ').includes('1 missing'), 'the display counting one missing part', 20_000);
    expect(rig.since(seq).filter((r) => r.endpoint === 'item-identify')).toHaveLength(0);
    await deposit([p1!, p2!, p3!], SET, 3, 'Small item');

    const status = await rig.tech('GET', '/api/status');
    expect(status.body['rfid']).toMatchObject({ securityPending: null, securityFailures: [] });
  });

  it(
    'presence, not a double read: laid while a box is open it is reported once the station is free; lifted and laid again it is reported again; a junk ISO flood is dropped and counted',
    { timeout: 60_000 },
    async () => {
      rig = await DaemonRig.create(
        {
          hardware: { kind: 'simulated', doorSpringMs: 20, rfidReader: { path: pty.b, inventoryIntervalMs: 50, answerTimeoutMs: 300 } },
          rfid: { security: { kind: 'off' } },
          // Far longer than the test: any second report of an item proves the window is not applied to RFID.
          timing: { heartbeatIntervalMs: 5_000, duplicateScanWindowMs: 600_000 },
        },
        [DANISH, ISO2].map((identifierValue, i) => ({ identifierValue, identifierType: 'RFID', stationId: STATION.id, boxId: box(i + 1) })),
      );
      daemon = rig.start();
      daemon.child.stdout?.on('data', (d: Buffer) => process.env['RFID_E2E_LOG'] && process.stderr.write(d));
      await rig.idle(20_000);
      await rig.statusUntil(
        (s) => (s['devices'] as { name: string; ok: boolean }[]).some((d) => d.name === `RFID reader ${pty.b}` && d.ok),
        'the reader up',
        20_000,
      );
      const identifies = (seq: number) => rig.since(seq).filter((r) => r.endpoint === 'item-identify');
      const seq = rig.server.lastSeq;

      // The Danish item: box 1 opens. While it is open, the next item is laid on the reader: refused (a box is open).
      const danish = iso28560_3Tag({ itemId: DANISH, afi: SECURED });
      model.place(danish);
      await rig.server.waitForRequest((r) => r.endpoint === 'item-identify', 20_000, { afterSeq: seq });
      await rig.simUntil((f) => f.doors['1'] === 'OPEN', 'box 1 open');
      model.remove(danish.uid);
      const iso2 = iso28560_2Tag({ itemId: ISO2, afi: SECURED });
      model.place(iso2);
      await daemon.waitForLine((l) => typeof l['msg'] === 'string' && l['msg'].startsWith('scan refused'), 'the item refused while the box is open', 20_000);
      expect(identifies(seq)).toHaveLength(1);
      // The box closes; once the server has heard so, the item still lying there is reported — never laid twice.
      rig.setDoor(1, 'CLOSED');
      const second = await rig.server.waitForRequest((r) => r.endpoint === 'item-identify' && r.seq > seq + 1, 20_000, { afterSeq: seq });
      expect(second.body).toMatchObject({ identifierType: 'RFID', identifierValue: ISO2 });
      await rig.simUntil((f) => f.doors['2'] === 'OPEN', 'box 2 open');
      rig.setDoor(2, 'CLOSED');
      await rig.idle(20_000);
      expect(identifies(seq)).toHaveLength(2);

      // Lifted and laid down again (well within the double-read window): a new arrival, reported again.
      const seq2 = rig.server.lastSeq;
      model.remove(iso2.uid);
      const rounds = model.seen.length;
      await waitFor('the reader has missed it for a few rounds', () => model.seen.length > rounds + 12, 20_000);
      model.place(iso2);
      const again = await rig.server.waitForRequest((r) => r.endpoint === 'item-identify', 20_000, { afterSeq: seq2 });
      expect(again.body).toMatchObject({ identifierValue: ISO2 });
      await rig.idle(20_000);

      // A flood of well-formed ISO frames with junk inside: none taken for an answer; a new tag still reads.
      model.remove(iso2.uid);
      model.startFlood(2, 'iso-junk');
      const seq3 = rig.server.lastSeq;
      // ISO 28560-3's 34-byte block: an owner institution of 14 characters, careful handling.
      const third = iso28560_3Tag({ itemId: SET, afi: SECURED, form: 'full', country: 'GB', library: 'UkOxU-12345', mediaFormat: 5 });
      model.place(third);
      const read = await rig.server.waitForRequest((r) => r.endpoint === 'item-identify', 20_000, { afterSeq: seq3 });
      expect(read.body).toMatchObject({ identifierValue: SET });
      const status = await rig.statusUntil(
        (s) => ((s['rfid'] as { readers: { answersDropped: number }[] }).readers[0]?.answersDropped ?? 0) > 0,
        'junk counted',
        20_000,
      );
      model.stopFlood();
      const reader = (status['rfid'] as { readers: { unreadable: Record<string, number>; lastTags: { uid: string; model: string | null }[] }[] }).readers[0]!;
      expect(Object.values(reader.unreadable).every((n) => n === 0)).toBe(true);
      expect(reader.lastTags.at(-1)).toEqual({
        uid: `…${third.uid.slice(-3)}`,
        model: 'iso28560-3',
        problem: null,
        owner: '***345 (14)',
        media: 'careful handling',
      });
      expect(JSON.stringify(status['rfid'])).not.toContain(third.uid);
      expect(JSON.stringify(status)).not.toContain('UkOxU');
    },
  );
});
