/**
 * createInputDevices end to end on this host: a serial barcode scanner and a serial display on
 * socat ptys, plus a HID scanner that is not plugged in (real node-hid, hidraw build: the list
 * is empty here) — which must make the call resolve with that scanner not ok, not fail.
 */
import { ASSIST_TEXTS } from '../../src/config/messages.js';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createInputDevices, inputProfileSchema } from '../../src/devices/input/index.js';
import { waitFor } from '../support/shared.js';
import { HAVE_SOCAT, PtyPair } from '../support/socat.js';

describe.skipIf(!HAVE_SOCAT)('createInputDevices', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pickup-input-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('builds and opens everything; a missing HID scanner only makes its health not ok', async () => {
    const scanPty = new PtyPair(join(dir));
    await scanPty.start();
    const dispDir = mkdtempSync(join(dir, 'd'));
    const dispPty = new PtyPair(dispDir);
    await dispPty.start();
    // A udev-style symlink to the pty, as /dev/pickup-barcode would be on a station.
    const barcodeLink = join(dir, 'pickup-barcode');
    symlinkSync(scanPty.b, barcodeLink);
    const profile = inputProfileSchema.parse({
      scanners: [
        { kind: 'serial', identifierType: 'BAR_CODE', path: barcodeLink, framing: { terminator: 'CR' } },
        { kind: 'hid', identifierType: 'RFID', vendorId: '0x16c0', productId: '0x27db', layout: 'cz-qwertz', reconnect: { initialMs: 60_000 } },
      ],
      keypad: null,
      display: { kind: 'serial', path: dispPty.b, columns: 16, rows: 2 },
    });

    const dev = await createInputDevices(profile, pino({ level: 'silent' }), { lang: 'en', words: ASSIST_TEXTS.en.kiosk, holdMs: 2_000 });
    try {
      expect(dev.scanners.map((s) => [s.name, s.identifierType, s.health().ok])).toEqual([
        [`barcode scanner ${barcodeLink}`, 'BAR_CODE', true],
        ['HID RFID reader 16c0:27db', 'RFID', false],
      ]);
      expect(dev.scanners[1]!.health().detail).toBe('HID RFID reader 16c0:27db missing (16c0:27db: not connected)');
      expect(dev.keypad).toBeNull();
      expect(dev.display.health().ok).toBe(true);

      const scans: string[] = [];
      dev.scanners[0]!.onScan((v) => scans.push(v));
      const fh = await open(scanPty.a, 'r+');
      await fh.write('9788025710101\r');
      await waitFor('a scan', () => scans.length > 0, 2000);
      expect(scans).toEqual(['9788025710101']);
      await fh.close();
    } finally {
      await Promise.all([...dev.scanners, dev.display].map((d) => d.close()));
      await scanPty.stop();
      await dispPty.stop();
    }
  });
});
