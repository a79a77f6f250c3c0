/** Display drivers without hardware: the exact serial bytes, the terminal box, lastShown, and show() while missing. */
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { renderSerialFrame, SerialDisplay, type DisplayProtocol } from '../../src/devices/display/serial-display.js';
import { renderBox, TerminalDisplay } from '../../src/devices/display/terminal-display.js';
import type { SerialEvents, SerialOpener } from '../../src/devices/serial/link.js';
import { DeviceError } from '../../src/errors.js';

const proto: DisplayProtocol = { clear: '\f', lineEnd: '\r\n', rowStart: null, padLines: false };
const size = { columns: 20, rows: 4 };

describe('renderSerialFrame', () => {
  it('form feed, then rows separated by CR LF, transliterated to ascii', () => {
    const b = renderSerialFrame(['Vložte knihu', 'do boxu č. 3'], { size, charset: 'ascii', overflow: 'wrap', protocol: proto });
    expect(b.toString('latin1')).toBe('\fVlozte knihu\r\ndo boxu c. 3');
  });
  it('latin1 sends one byte per character', () => {
    const b = renderSerialFrame(['Výdej'], { size, charset: 'latin1', overflow: 'wrap', protocol: proto });
    expect([...b]).toEqual([0x0c, 0x56, 0xfd, 0x64, 0x65, 0x6a]);
  });
  it('utf8 sends UTF-8', () => {
    const b = renderSerialFrame(['ů'], { size, charset: 'utf8', overflow: 'wrap', protocol: proto });
    expect([...b]).toEqual([0x0c, 0xc5, 0xaf]);
  });
  it('per-row cursor commands and padding, for displays that need them', () => {
    const p: DisplayProtocol = { clear: '\u00fe\u0058', lineEnd: '', rowStart: ['\u00feG\u0001\u0001', '\u00feG\u0001\u0002'], padLines: true };
    const b = renderSerialFrame(['AB', 'C'], { size: { columns: 4, rows: 2 }, charset: 'ascii', overflow: 'cut', protocol: p });
    expect([...b]).toEqual([0xfe, 0x58, 0xfe, 0x47, 1, 1, 0x41, 0x42, 0x20, 0x20, 0xfe, 0x47, 1, 2, 0x43, 0x20, 0x20, 0x20]);
  });
  it('no lines: only the clear sequence', () => {
    expect(renderSerialFrame([], { size, charset: 'ascii', overflow: 'wrap', protocol: proto }).toString('latin1')).toBe('\f');
  });
});

describe('TerminalDisplay', () => {
  it('draws a box of the display size with the fitted lines and keeps lastShown unfitted', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c: Buffer) => (text += c.toString()));
    const d = new TerminalDisplay({ size: { columns: 12, rows: 3 }, charset: 'ascii', overflow: 'wrap', frame: 'unicode', out });
    await d.show(['Vložte knihu do boxu']);
    expect(text).toBe(['┌────────────┐', '│Vlozte knihu│', '│do boxu     │', '│            │', '└────────────┘', ''].join('\n'));
    expect(d.lastShown()).toEqual(['Vložte knihu do boxu']);
    expect(d.health()).toEqual({ ok: true, detail: null });
  });
  it('ascii frame', () => {
    expect(renderBox(['x'], { size: { columns: 3, rows: 1 }, charset: 'utf8', overflow: 'cut', frame: 'ascii' })).toBe('+---+\n|x  |\n+---+\n');
  });
});

describe('SerialDisplay without its port', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('missing: health names the path, show() resolves and records; the latest lines go out on reconnect', async () => {
    let present = false;
    const written: string[] = [];
    let ev: SerialEvents | null = null;
    const opener: SerialOpener = (o, e) => {
      if (!present) return Promise.reject(new DeviceError(o.path, 'cannot open: No such file or directory'));
      ev = e;
      return Promise.resolve({
        write: (b) => {
          written.push(Buffer.from(b).toString('latin1'));
          return Promise.resolve();
        },
        close: () => Promise.resolve(),
      });
    };
    const d = new SerialDisplay({
      port: { path: '/dev/pickup-display', baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 },
      size,
      charset: 'ascii',
      overflow: 'wrap',
      protocol: proto,
      writeTimeoutMs: 500,
      reconnect: { initialMs: 100, maxMs: 1000, factor: 2 },
      openTimeoutMs: 500,
      log: pino({ level: 'silent' }),
      opener,
    });
    await d.start();
    expect(d.health().detail).toMatch(/^display \/dev\/pickup-display missing/);
    await d.show(['first']);
    await d.show(['Vložte knihu']);
    expect(d.lastShown()).toEqual(['Vložte knihu']);
    expect(written).toEqual([]);
    present = true;
    await vi.advanceTimersByTimeAsync(100);
    expect(d.health().ok).toBe(true);
    expect(written).toEqual(['\fVlozte knihu']);
    await d.show(['A']);
    expect(written).toEqual(['\fVlozte knihu', '\fA']);
    ev!.lost({ kind: 'disconnected' });
    expect(d.health().ok).toBe(false);
    await d.close();
  });
});
