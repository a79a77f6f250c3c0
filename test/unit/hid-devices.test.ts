/**
 * HID scanner and keypad drivers under fake timers, with node-hid replaced at the last hardware
 * boundary (HidBackend): device selection, loss by `error` and by the periodic device-list
 * re-check, reconnection, frame timeout, keypad keys, and that keypad digits never reach a log.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import type { HidBackend, HidDeviceInfo, HidHandle } from '../../src/devices/hid/link.js';
import { selectDevice } from '../../src/devices/hid/link.js';
import { HidKeypad, keypadKeyOf } from '../../src/devices/hid/keypad.js';
import { HidScanner } from '../../src/devices/hid/scanner.js';
import type { KeypadKey } from '../../src/devices/types.js';
import { report, typeReports, UP } from '../support/hid-reports.js';

const VID = 0x0c2e;
const PID = 0x0b61;

class FakeHid implements HidBackend {
  list: HidDeviceInfo[] = [];
  opened: string[] = [];
  private data: ((b: Buffer) => void) | null = null;
  private error: ((e: Error) => void) | null = null;
  closed = 0;
  devices() {
    return Promise.resolve([...this.list]);
  }
  open(path: string): HidHandle {
    if (!this.list.some((d) => d.path === path)) throw new Error('could not open device');
    this.opened.push(path);
    return {
      onData: (l) => (this.data = l),
      onError: (l) => (this.error = l),
      close: () => {
        this.closed++;
      },
    };
  }
  plug(path = '/dev/hidraw0'): void {
    this.list = [{ path, vendorId: VID, productId: PID, interface: 0, usagePage: 1, usage: 6, serialNumber: 'S1', product: 'Fake' }];
  }
  send(reports: number[][]): void {
    for (const r of reports) this.data!(Buffer.from(r));
  }
  failWithError(): void {
    this.list = [];
    this.error!(new Error('could not read from HID device'));
  }
  vanishQuietly(): void {
    this.list = [];
  }
}

const logLines: string[] = [];
const log = pino({ level: 'trace' }, { write: (s: string) => logLines.push(s) });
const common = {
  match: { vendorId: VID, productId: PID },
  reportId: null,
  presenceCheckMs: 1000,
  reconnect: { initialMs: 200, maxMs: 2000, factor: 2 },
  openTimeoutMs: 1000,
  log,
};

beforeEach(() => {
  vi.useFakeTimers();
  logLines.length = 0;
});
afterEach(() => {
  vi.useRealTimers();
});

describe('selectDevice', () => {
  const d = (path: string, extra: Partial<HidDeviceInfo> = {}): HidDeviceInfo => ({ path, vendorId: VID, productId: PID, interface: 0, ...extra });
  it('matches vendor/product, then serial and path when given, prefers the keyboard interface', () => {
    const list = [
      d('/dev/hidraw3', { usagePage: 0x0c, usage: 1 }),
      d('/dev/hidraw2', { usagePage: 1, usage: 6, serialNumber: 'B' }),
      d('/dev/hidraw1', { serialNumber: 'A' }),
      { ...d('/dev/hidraw0'), productId: 1 },
    ];
    expect(selectDevice(list, { vendorId: VID, productId: PID })?.path).toBe('/dev/hidraw2');
    expect(selectDevice(list, { vendorId: VID, productId: PID, serialNumber: 'A' })?.path).toBe('/dev/hidraw1');
    expect(selectDevice(list, { vendorId: VID, productId: PID, path: '/dev/hidraw3' })?.path).toBe('/dev/hidraw3');
    expect(selectDevice(list, { vendorId: VID, productId: 2 })).toBeNull();
  });
});

describe('HidScanner', () => {
  function make(hid: FakeHid, layout: 'us' | 'cz-qwertz' = 'us') {
    const s = new HidScanner({ ...common, backend: hid, identifierType: 'BAR_CODE', layout, maxLength: 64, frameTimeoutMs: 300 });
    const scans: string[] = [];
    s.onScan((v) => scans.push(v));
    return { s, scans };
  }

  it('decodes a Czech-mode scan into digits', async () => {
    const hid = new FakeHid();
    hid.plug();
    const { s, scans } = make(hid, 'cz-qwertz');
    await s.start();
    expect(s.health().ok).toBe(true);
    hid.send(typeReports('cz-qwertz', '8594000123456'));
    await vi.advanceTimersByTimeAsync(0);
    expect(scans).toEqual(['8594000123456']);
    await s.close();
  });

  it('missing at start: not ok naming vendor:product, opens when plugged', async () => {
    const hid = new FakeHid();
    const { s } = make(hid);
    await s.start();
    expect(s.health()).toEqual({ ok: false, detail: 'HID barcode scanner 0c2e:0b61 missing (0c2e:0b61: not connected)' });
    hid.plug();
    await vi.advanceTimersByTimeAsync(200);
    expect(s.health().ok).toBe(true);
    await s.close();
  });

  it('loss by error event → not ok at once; replug → reconnects and reads', async () => {
    const hid = new FakeHid();
    hid.plug();
    const { s, scans } = make(hid);
    await s.start();
    hid.failWithError();
    expect(s.health().ok).toBe(false);
    expect(s.health().detail).toContain('I/O error');
    await vi.advanceTimersByTimeAsync(200 + 400);
    expect(hid.opened).toHaveLength(1);
    hid.plug('/dev/hidraw1');
    await vi.advanceTimersByTimeAsync(800);
    expect(s.health().ok).toBe(true);
    hid.send(typeReports('us', 'X1'));
    await vi.advanceTimersByTimeAsync(0);
    expect(scans).toEqual(['X1']);
    await s.close();
  });

  it('loss with no error event is found by the device-list re-check', async () => {
    const hid = new FakeHid();
    hid.plug();
    const { s } = make(hid);
    await s.start();
    hid.vanishQuietly();
    await vi.advanceTimersByTimeAsync(999);
    expect(s.health().ok).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.health()).toEqual({ ok: false, detail: 'HID barcode scanner 0c2e:0b61 missing (unplugged)' });
    await s.close();
  });

  it('a frame without Enter is dropped after frameTimeoutMs and does not prefix the next scan', async () => {
    const hid = new FakeHid();
    hid.plug();
    const { s, scans } = make(hid);
    await s.start();
    hid.send(typeReports('us', '12', false));
    await vi.advanceTimersByTimeAsync(300);
    // The timer was due and nothing was queued: the check phase after it (a fake immediate runs
    // on the next fake millisecond) drops the frame.
    await vi.advanceTimersByTimeAsync(1);
    expect(logLines.some((l) => l.includes('"reason":"incomplete"'))).toBe(true);
    hid.send(typeReports('us', '34'));
    await vi.advanceTimersByTimeAsync(0);
    expect(scans).toEqual(['34']);
    expect(logLines.some((l) => l.includes('"reason":"incomplete"'))).toBe(true);
    await s.close();
  });

  it('a frame timer due during a loop stall does not drop the frame when the rest of the burst was already read', async () => {
    const hid = new FakeHid();
    hid.plug();
    const { s, scans } = make(hid);
    await s.start();
    hid.send(typeReports('us', '0', false));
    // The loop stalls past frameTimeoutMs while the reader's burst waits in hidraw: on resuming,
    // Node runs the due frame timer first, then the poll phase delivers the queued reports.
    vi.advanceTimersToNextTimer();
    hid.send(typeReports('us', '04010012345678'));
    await vi.advanceTimersByTimeAsync(1);
    expect(scans).toEqual(['004010012345678']);
    expect(logLines.some((l) => l.includes('scanner frame dropped'))).toBe(false);
    await s.close();
  });

  it('close() closes the handle and stops presence checks and retries', async () => {
    const hid = new FakeHid();
    hid.plug();
    const { s } = make(hid);
    await s.start();
    await s.close();
    expect(hid.closed).toBe(1);
    hid.vanishQuietly();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(hid.opened).toHaveLength(1);
  });
});

describe('HidKeypad', () => {
  const clear = new Set([0x29, 0x53, 0x4c, 0x55, 0x54]);
  it('maps keypad and top-row digits, backspace, enter and clear keys', () => {
    const digits = [0x62, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x60, 0x61].map((u) => keypadKeyOf(u, clear));
    expect(digits).toEqual([...'0123456789'].map((d) => ({ kind: 'digit', digit: d })));
    expect([0x27, 0x1e, 0x26].map((u) => keypadKeyOf(u, clear))).toEqual([...'019'].map((d) => ({ kind: 'digit', digit: d })));
    expect(keypadKeyOf(0x2a, clear)).toEqual({ kind: 'backspace' });
    expect(keypadKeyOf(0x28, clear)).toEqual({ kind: 'enter' });
    expect(keypadKeyOf(0x58, clear)).toEqual({ kind: 'enter' });
    for (const u of clear) expect(keypadKeyOf(u, clear)).toEqual({ kind: 'clear' });
    expect(keypadKeyOf(0x56, clear)).toBeNull(); // KP minus not configured
    expect(keypadKeyOf(0x04, clear)).toBeNull();
  });

  it('emits keys from reports (NumLock pressed first, as some keypads do on plug) and never logs a digit', async () => {
    const hid = new FakeHid();
    hid.plug();
    const k = new HidKeypad({ ...common, backend: hid, clearKeys: ['escape', 'numlock'] });
    const keys: KeypadKey[] = [];
    k.onKey((key) => keys.push(key));
    await k.start();
    hid.send([
      report(0, 0x53),
      UP,
      report(0, 0x5f),
      report(0, 0x5f, 0x60),
      report(0, 0x1, 0x1, 0x1, 0x1, 0x1, 0x1),
      UP,
      report(0, 0x2a),
      UP,
      report(0, 0x58),
      UP,
    ]);
    await vi.advanceTimersByTimeAsync(0);
    expect(keys).toEqual([{ kind: 'clear' }, { kind: 'digit', digit: '7' }, { kind: 'digit', digit: '8' }, { kind: 'backspace' }, { kind: 'enter' }]);
    // Nothing logged carries a digit or a digit's usage code.
    expect(logLines.join('\n')).not.toMatch(/"digit"|0x5f|0x60|\b7\b.*\b8\b/);
    await k.close();
  });
});
