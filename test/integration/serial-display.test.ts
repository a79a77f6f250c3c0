/**
 * The serial character display on a real pseudo-terminal pair (socat): the bytes the device end
 * receives are exactly the documented protocol; after the port disappears and comes back, the
 * latest lines are sent again.
 *
 * The driver opens a symlink the test creates only once the device end is open, as udev creates
 * /dev/pickup-display on plug: bytes written into a pty pair before its other end is open are
 * lost (measured), so this keeps the test free of that race.
 */
import { mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { SerialPort } from 'serialport';
import { SerialDisplay } from '../../src/devices/display/serial-display.js';
import { waitFor } from '../support/shared.js';
import { HAVE_SOCAT, PtyPair } from '../support/socat.js';

/** The display's side of the wire: collects every byte received. */
async function deviceEnd(path: string): Promise<{ port: SerialPort; bytes: () => Buffer; reset: () => void }> {
  const port = new SerialPort({ path, baudRate: 9600, autoOpen: false });
  await new Promise<void>((res, rej) => port.open((e) => (e ? rej(e) : res())));
  let got: Buffer[] = [];
  port.on('data', (c: Buffer) => got.push(c));
  return { port, bytes: () => Buffer.concat(got), reset: () => (got = []) };
}
const closePort = (p: SerialPort) => new Promise<void>((r) => (p.isOpen ? p.close(() => r()) : r()));

describe.skipIf(!HAVE_SOCAT)('serial display over a socat pty pair', () => {
  let dir: string;
  let pty: PtyPair;
  let display: SerialDisplay | null = null;
  let dev: SerialPort | null = null;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pickup-display-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(async () => {
    await display?.close();
    display = null;
    if (dev) await closePort(dev);
    dev = null;
    await pty.stop();
  });

  it('sends clear + fitted, transliterated rows; re-sends the latest lines after the port comes back', async () => {
    pty = new PtyPair(dir);
    await pty.start();
    const end = await deviceEnd(pty.a);
    dev = end.port;
    const path = join(dir, 'pickup-display');
    symlinkSync(pty.b, path);
    display = new SerialDisplay({
      port: { path, baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 },
      size: { columns: 20, rows: 4 },
      charset: 'ascii',
      overflow: 'wrap',
      protocol: { clear: '\f', lineEnd: '\r\n', rowStart: null, padLines: false },
      writeTimeoutMs: 1000,
      reconnect: { initialMs: 50, maxMs: 400, factor: 2 },
      openTimeoutMs: 2000,
      log: pino({ level: 'silent' }),
    });
    await display.start();
    expect(display.health().ok).toBe(true);

    await display.show(['Vložte knihu do boxu číslo 12', 'Děkujeme']);
    const expected = '\fVlozte knihu do boxu\r\ncislo 12\r\nDekujeme';
    await waitFor('display bytes', () => end.bytes().length >= expected.length, 2000);
    expect(end.bytes().toString('latin1')).toBe(expected);
    expect(display.lastShown()).toEqual(['Vložte knihu do boxu číslo 12', 'Děkujeme']);

    // Unplug: health not ok; a show() meanwhile resolves and is remembered.
    await closePort(dev);
    dev = null;
    await pty.stop();
    unlinkSync(path);
    await waitFor('display not ok', () => !display!.health().ok, 1000);
    expect(display.health().detail).toMatch(new RegExp(`^display ${path} missing`));
    await display.show(['Stanice mimo provoz']);

    await pty.start();
    const end2 = await deviceEnd(pty.a);
    dev = end2.port;
    symlinkSync(pty.b, path);
    await waitFor('display ok again', () => display!.health().ok, 2000);
    await waitFor('the re-sent frame', () => end2.bytes().length >= 20, 2000);
    expect(end2.bytes().toString('latin1')).toBe('\fStanice mimo provoz');
  });
});
