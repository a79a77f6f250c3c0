/**
 * The host-mode RFID reader driver through the guest kernel's tty layer (the VM rig): a socat
 * pseudo-terminal pair inside the guest, the driver on one end through serialport (termios, the
 * line discipline, the kernel's buffers, as on a USB-serial adapter), the model reader on the other.
 * Proves on a real kernel: tags of each data model read from their memory, a set, the AFI written and
 * read back, the line pulled away (DOWN naming it) and plugged back (UP, the tag that stayed not
 * reported again).
 *
 * Runs only in the rig VM (scripts/rig/ writes /etc/rig-tests there); self-skips on the host, where
 * test/integration/rfid-reader.test.ts drives the same driver over the host's ptys. JS runs ~15×
 * slower under TCG emulation, hence the generous times.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { feigIsoHost } from '../../src/devices/rfid/feig/session.js';
import { openSerialPort } from '../../src/devices/serial/link.js';
import { HostModeReader } from '../../src/devices/rfid/reader.js';
import { FeigReaderModel } from '../../src/devices/simulated/feig-reader-model.js';
import { serveModel, type ServedModel } from '../../src/devices/simulated/model-port.js';
import { iso28560_2Tag, iso28560_3Set, iso28560_3Tag } from '../../src/devices/simulated/tag-images.js';
import type { RfidTag } from '../../src/devices/types.js';
import { HAVE_SOCAT, PtyPair } from '../support/socat.js';
import { report, silentLog, waitFor } from './sim.js';

const IN_RIG = existsSync('/etc/rig-tests') && HAVE_SOCAT;

describe.skipIf(!IN_RIG)('RFID reader through the guest kernel tty layer', () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it('reads each data model and a set, writes and verifies the AFI, survives the line going away', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rig-rfid-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const model = new FeigReaderModel({ baudRate: 115_200 });
    cleanup.push(() => model.close());
    let pty = new PtyPair(dir);
    await pty.start(30_000);
    let served: ServedModel | null = await serveModel(model, pty.a);
    cleanup.push(async () => {
      await served?.close();
      await pty.stop();
    });

    let last: readonly RfidTag[] = [];
    let reports = 0;
    const reader = new HostModeReader({
      family: feigIsoHost,
      port: { path: pty.b, ...feigIsoHost.line, baudRate: 115_200 },
      opener: openSerialPort,
      busAddress: 0xff,
      frame: 'advanced',
      answerTimeoutMs: 1_500,
      blockOrder: 'reversed',
      blocksPerRead: 16,
      maxBlocks: 64,
      send: 'item-id',
      inventoryIntervalMs: 50,
      absentRounds: 2,
      readAttempts: 3,
      failuresBeforeReconnect: 2,
      reconnect: { initialMs: 200, maxMs: 1_000, factor: 2 },
      openTimeoutMs: 20_000,
      log: silentLog,
    });
    reader.onField((tags) => {
      last = tags;
      reports++;
    });
    cleanup.push(() => reader.close());
    await reader.start();
    expect(reader.health()).toEqual({ ok: true, detail: null });

    const t0 = performance.now();
    const danish = iso28560_3Tag({ itemId: '31234000000033', afi: 0x07 });
    model.place(danish);
    model.place(iso28560_2Tag({ itemId: '0012345678', afi: 0x07 }));
    for (const t of iso28560_3Set({ itemId: 'SET-3', of: 3, afi: 0x07 })) model.place(t);
    await waitFor('five tags read', () => last.length === 5, 60_000);
    report(`rig rfid: five tags (each model, a set of 3) read through the guest tty in ${Math.round(performance.now() - t0)} ms`);
    const ids = last.map((t) => (t.data.kind === 'item' ? `${t.data.itemId}${t.data.set ? ` ${t.data.set.part}/${t.data.set.of}` : ''}` : t.data.kind)).sort();
    expect(ids).toEqual(['0012345678', '31234000000033', 'SET-3 1/3', 'SET-3 2/3', 'SET-3 3/3']);

    expect(await reader.writeSecurity([danish.uid], { kind: 'afi', value: 0xc2 })).toEqual([{ uid: danish.uid, ok: true }]);
    expect(model.tag(danish.uid)?.afi).toBe(0xc2);

    const before = reports;
    await served.close();
    served = null;
    await pty.stop();
    await waitFor('DOWN with the line gone', () => !reader.health().ok, 60_000);
    report(`rig rfid: line gone -> ${reader.health().detail ?? ''}`);
    expect(reader.health().detail).toContain(`RFID reader ${pty.b}: `);
    pty = new PtyPair(dir);
    await pty.start(30_000);
    served = await serveModel(model, pty.a);
    await waitFor('UP again', () => reader.health().ok, 60_000);
    const rounds = model.seen.length;
    await waitFor('inventories after the replug', () => model.seen.length > rounds + 5, 60_000);
    expect(reports).toBe(before);
  });
});
