/**
 * The serial scanner driver on a real pseudo-terminal pair (socat): the real serialport binding,
 * real termios, real disconnect. The test writes what a scanner would send into one end; the
 * driver reads the other by its link path, like /dev/serial/by-id/… on a station.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { FramingOptions } from '../../src/devices/serial/framing.js';
import { SerialScanner } from '../../src/devices/serial/scanner.js';
import { sleep, waitFor } from '../support/shared.js';
import { HAVE_SOCAT, PtyPair } from '../support/socat.js';

const logLines: Record<string, unknown>[] = [];
const log = pino({ level: 'debug' }, { write: (s: string) => logLines.push(JSON.parse(s) as Record<string, unknown>) });

describe.skipIf(!HAVE_SOCAT)('serial scanner over a socat pty pair', () => {
  let dir: string;
  let pty: PtyPair;
  let dev: FileHandle | null = null;
  let scanner: SerialScanner | null = null;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pickup-serial-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  afterEach(async () => {
    await scanner?.close();
    scanner = null;
    await dev?.close();
    dev = null;
    await pty.stop();
  });

  async function setup(framing: Partial<FramingOptions> = {}) {
    pty = new PtyPair(dir);
    await pty.start();
    dev = await open(pty.a, 'r+');
    scanner = new SerialScanner({
      identifierType: 'BAR_CODE',
      port: { path: pty.b, baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 },
      framing: { terminator: 'any', prefix: '', suffix: '', maxLength: 32, ...framing },
      idleGapMs: 200,
      reconnect: { initialMs: 50, maxMs: 400, factor: 2 },
      openTimeoutMs: 2000,
      log,
    });
    const scans: string[] = [];
    scanner.onScan((v) => scans.push(v));
    await scanner.start();
    expect(scanner.health()).toEqual({ ok: true, detail: null });
    return { scans, s: scanner };
  }
  const send = async (s: string) => {
    await dev!.write(Buffer.from(s, 'latin1'));
  };

  it('reads CR, LF and CRLF terminated codes and a line split over several writes', async () => {
    const { scans } = await setup();
    await send('3181234567890\r');
    await send('A-1\nB-2\r\n');
    await send('SPL');
    await sleep(30);
    await send('IT-');
    await sleep(30);
    await send('LINE\r');
    await waitFor('four scans', () => scans.length >= 4, 2000);
    expect(scans).toEqual(['3181234567890', 'A-1', 'B-2', 'SPLIT-LINE']);
  });

  it('exact CRLF framing with prefix/suffix strip', async () => {
    const { scans } = await setup({ terminator: 'CRLF', prefix: ']C1', suffix: '#' });
    await send(']C1ABC123#\r\nNOPREFIX\r\n');
    await waitFor('two scans', () => scans.length >= 2, 2000);
    expect(scans).toEqual(['ABC123', 'NOPREFIX']);
  });

  it('drops garbage, empty and overlong frames with a log line and keeps reading', async () => {
    logLines.length = 0;
    const { scans } = await setup({ maxLength: 8 });
    await send('\u0000\u0001\u00ff\r\r123456789\rGOOD\r');
    await waitFor('the good scan', () => scans.length >= 1, 2000);
    await sleep(50);
    expect(scans).toEqual(['GOOD']);
    const drops = logLines.filter((l) => l.msg === 'scanner frame dropped').map((l) => l.reason);
    expect(drops).toEqual(['non-printable', 'empty', 'overlong']);
  });

  it('RFID reader without terminator: STX…ETX and a pause', async () => {
    const { scans } = await setup({ terminator: 'none', prefix: '\u0002', suffix: '\u0003' });
    await send('\u00020415AB9C3F\u0003');
    await waitFor('the RFID scan', () => scans.length >= 1, 2000);
    expect(scans).toEqual(['0415AB9C3F']);
  });

  it('unplug (socat killed) → not ok naming the path; socat back → reconnects and reads again', async () => {
    const { scans, s } = await setup();
    await dev!.close();
    dev = null;
    await pty.stop();
    await waitFor('health not ok', () => !s.health().ok, 1000);
    expect(s.health().detail).toMatch(new RegExp(`^barcode scanner ${pty.b} missing`));

    await sleep(300); // a few failed reopen attempts while the device is gone
    await pty.start();
    // In order: ok again once the device is back (the schedule of the attempts is device-backoff's, on a fake clock).
    await waitFor('health ok again', () => s.health().ok, 2000);
    dev = await open(pty.a, 'r+');
    await send('AFTER-REPLUG\r');
    await waitFor('a scan after replug', () => scans.length >= 1, 2000);
    expect(scans).toEqual(['AFTER-REPLUG']);
  });
});
