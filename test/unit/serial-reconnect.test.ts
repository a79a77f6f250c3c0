/**
 * Reconnection and idle-gap logic of the serial scanner under fake timers. The serial port itself
 * is replaced at the last hardware boundary (the SerialOpener); the real port is exercised by
 * test/integration/serial-scanner.test.ts over socat ptys.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pino } from 'pino';
import { backoffDelay, Reconnector } from '../../src/devices/reconnect.js';
import { describeLoss, lossOfClose } from '../../src/devices/serial/loss.js';
import type { SerialEvents, SerialLink, SerialOpener } from '../../src/devices/serial/link.js';
import { SerialScanner } from '../../src/devices/serial/scanner.js';
import { DeviceError } from '../../src/errors.js';
import type { DeviceHealth } from '../../src/devices/types.js';

/** A fake port: present or not; the test feeds bytes and unplugs it. */
class FakePort {
  present = false;
  opens = 0;
  ev: SerialEvents | null = null;
  hangOpen = false;
  readonly opener: SerialOpener = (o, ev) => {
    this.opens++;
    if (this.hangOpen) return new Promise(() => undefined);
    if (!this.present) return Promise.reject(new DeviceError(o.path, 'cannot open: No such file or directory'));
    this.ev = ev;
    const link: SerialLink = { write: () => Promise.resolve(), close: () => Promise.resolve() };
    return Promise.resolve(link);
  };
  feed(s: string): void {
    this.ev!.onData(Buffer.from(s, 'latin1'));
  }
  unplug(): void {
    this.present = false;
    this.ev!.lost({ kind: 'disconnected' });
  }
}

const PATH = '/dev/serial/by-id/usb-Acme_Scanner-if00';
const lines: Record<string, unknown>[] = [];
const log = pino({ level: 'debug' }, { write: (s: string) => lines.push(JSON.parse(s) as Record<string, unknown>) });

function scanner(port: FakePort, terminator: 'any' | 'none' = 'any') {
  const s = new SerialScanner({
    identifierType: 'BAR_CODE',
    port: { path: PATH, baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 },
    framing: { terminator, prefix: '', suffix: '', maxLength: 32 },
    idleGapMs: 100,
    reconnect: { initialMs: 500, maxMs: 4000, factor: 2 },
    openTimeoutMs: 1000,
    log,
    opener: port.opener,
  });
  const scans: string[] = [];
  const healths: DeviceHealth[] = [];
  s.onScan((v) => scans.push(v));
  s.onHealthChange((h) => healths.push(h));
  return { s, scans, healths };
}

beforeEach(() => {
  vi.useFakeTimers();
  lines.length = 0;
});
afterEach(() => {
  vi.useRealTimers();
});

describe('backoffDelay', () => {
  it('doubles from initialMs and stops at maxMs', () => {
    const o = { initialMs: 250, maxMs: 5000, factor: 2 };
    expect([0, 1, 2, 3, 4, 5, 10, 100].map((n) => backoffDelay(n, o))).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
  });
});

describe('SerialScanner reconnect', () => {
  it('missing at start: health not ok naming the path, retries with capped backoff, then ok', async () => {
    const port = new FakePort();
    const { s, healths } = scanner(port);
    await s.start();
    expect(s.health()).toEqual({ ok: false, detail: `barcode scanner ${PATH} missing (${PATH}: cannot open: No such file or directory)` });
    expect(port.opens).toBe(1);
    // Retries at +500, +1000, +2000, +4000, +4000 (cap).
    for (const [wait, opens] of [
      [499, 1],
      [1, 2],
      [1000, 3],
      [2000, 4],
      [4000, 5],
      [3999, 5],
      [1, 6],
    ] as const) {
      await vi.advanceTimersByTimeAsync(wait);
      expect(port.opens).toBe(opens);
    }
    port.present = true;
    await vi.advanceTimersByTimeAsync(4000);
    expect(s.health()).toEqual({ ok: true, detail: null });
    // Listeners heard each real change once, not once per retry.
    expect(healths.map((h) => h.ok)).toEqual([false, true]);
    await s.close();
  });

  it('unplug: not ok at once, first retry after initialMs, reads again after replug', async () => {
    const port = new FakePort();
    port.present = true;
    const { s, scans, healths } = scanner(port);
    await s.start();
    expect(s.health().ok).toBe(true);
    port.feed('111\r');
    await vi.advanceTimersByTimeAsync(0);
    port.unplug();
    expect(s.health()).toEqual({ ok: false, detail: `barcode scanner ${PATH} missing (disconnected)` });
    port.present = true;
    await vi.advanceTimersByTimeAsync(499);
    expect(s.health().ok).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.health().ok).toBe(true);
    port.feed('222\r');
    await vi.advanceTimersByTimeAsync(0);
    expect(scans).toEqual(['111', '222']);
    expect(healths.map((h) => h.ok)).toEqual([true, false, true]);
    expect(lines.find((l) => l.msg === 'device reconnected')).toMatchObject({ downForMs: 500 });
    await s.close();
  });

  it('an open that hangs counts as failed after openTimeoutMs', async () => {
    const port = new FakePort();
    port.hangOpen = true;
    const { s } = scanner(port);
    const started = s.start();
    await vi.advanceTimersByTimeAsync(1000);
    await started;
    expect(s.health().detail).toContain('open timed out after 1000 ms');
    await s.close();
  });

  it('a partial frame is dropped on unplug, never glued to the next scan', async () => {
    const port = new FakePort();
    port.present = true;
    const { s, scans } = scanner(port);
    await s.start();
    port.feed('12');
    port.unplug();
    port.present = true;
    await vi.advanceTimersByTimeAsync(500);
    port.feed('345\r');
    await vi.advanceTimersByTimeAsync(0);
    expect(scans).toEqual(['345']);
    expect(lines.find((l) => l.msg === 'scanner frame dropped')).toMatchObject({ reason: 'incomplete', length: 2 });
    await s.close();
  });

  it('close() stops the retries', async () => {
    const port = new FakePort();
    const { s } = scanner(port);
    await s.start();
    await s.close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(port.opens).toBe(1);
  });
});

describe('SerialScanner idle gap', () => {
  it('terminator none: a pause of idleGapMs ends the frame, bytes within it join', async () => {
    const port = new FakePort();
    port.present = true;
    const { s, scans } = scanner(port, 'none');
    await s.start();
    port.feed('\u0002AB');
    await vi.advanceTimersByTimeAsync(99);
    port.feed('CD');
    await vi.advanceTimersByTimeAsync(99);
    expect(scans).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(scans).toEqual([]); // STX is not stripped (no prefix configured): dropped as non-printable
    expect(lines.find((l) => l.msg === 'scanner frame dropped')).toMatchObject({ reason: 'non-printable', preview: '\\x02****' });
    port.feed('EF');
    await vi.advanceTimersByTimeAsync(100);
    expect(scans).toEqual(['EF']);
    await s.close();
  });

  it('with a terminator, a stale partial frame is dropped after the gap', async () => {
    const port = new FakePort();
    port.present = true;
    const { s, scans } = scanner(port);
    await s.start();
    port.feed('AB');
    await vi.advanceTimersByTimeAsync(100);
    port.feed('CD\r');
    await vi.advanceTimersByTimeAsync(0);
    expect(scans).toEqual(['CD']);
    await s.close();
  });
});

describe('Reconnector edge cases', () => {
  it('a link lost while its open() is still pending is treated as down, and stale losses are ignored', async () => {
    const events: string[] = [];
    let opens = 0;
    const losses: Array<(r: string) => void> = [];
    const r = new Reconnector({
      name: 'x',
      backoff: { initialMs: 100, maxMs: 100, factor: 2 },
      openTimeoutMs: 1000,
      log,
      open: (lost) => {
        opens++;
        losses.push(lost);
        if (opens === 1) lost('gone during open'); // e.g. close fired before open's callback
        return Promise.resolve({ close: () => Promise.resolve() });
      },
      onUp: () => events.push('up'),
      onDown: (reason) => events.push(`down: ${reason}`),
    });
    await r.start();
    expect(events).toEqual(['down: gone during open']);
    await vi.advanceTimersByTimeAsync(100);
    expect(events).toEqual(['down: gone during open', 'up']);
    losses[0]!('late loss of the first link'); // stale generation: ignored
    expect(events).toHaveLength(2);
    losses[1]!('unplugged');
    losses[1]!('unplugged twice'); // one loss per link
    expect(events).toEqual(['down: gone during open', 'up', 'down: unplugged']);
    await r.stop();
  });
});

describe('a serial port lost, as a type', () => {
  it("serialport's close with `disconnected` is a disconnect, one without is a close, an error keeps its words", () => {
    const unplugged = Object.assign(new Error('Port is not open'), { disconnected: true });
    expect(lossOfClose(unplugged)).toEqual({ kind: 'disconnected' });
    expect(lossOfClose(null)).toEqual({ kind: 'closed' });
    expect(lossOfClose(new Error('closed'))).toEqual({ kind: 'closed' });
    expect(describeLoss({ kind: 'disconnected' })).toBe('disconnected');
    expect(describeLoss({ kind: 'io-error', message: 'EIO' })).toBe('I/O error: EIO');
  });
});
