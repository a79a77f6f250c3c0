/**
 * Property (docs/decisions/0019, the input devices): whatever bytes a serial scanner sends and whatever reports a HID
 * scanner or keypad sends — noise, half frames, rollover errors, control characters, Czech letters
 * from a scanner in the wrong mode, a line that never ends — the drivers, fed at their hardware
 * boundary (the serial opener, node-hid's backend) and run on fake timers:
 *
 * - never throw;
 * - never deliver an identifier longer than the configured maximum or with a character outside
 *   printable ASCII;
 * - deliver only the keys a PIN pad has (a digit 0-9, Enter, Backspace, Clear), and never log a
 *   digit typed on the keypad.
 *
 * The pure framing is fuzzed on its own as well, with every terminator and affix, at a higher count.
 */
import fc from 'fast-check';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HidBackend, HidDeviceInfo, HidHandle } from '../../src/devices/hid/link.js';
import { HidKeypad } from '../../src/devices/hid/keypad.js';
import { HidScanner } from '../../src/devices/hid/scanner.js';
import { FrameDecoder, type FramingOptions, type Terminator } from '../../src/devices/serial/framing.js';
import type { SerialLink, SerialOpener } from '../../src/devices/serial/link.js';
import { SerialScanner } from '../../src/devices/serial/scanner.js';
import type { KeypadKey } from '../../src/devices/types.js';
import { typeReports } from '../support/hid-reports.js';
import { FUZZ_TIMEOUT_MS, check, checkAsync } from '../support/fuzz-runs.js';

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;
const logLines: string[] = [];
const log = pino({ level: 'trace' }, { write: (s: string) => logLines.push(s) });

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function expectIdentifier(value: string, maxLength: number): void {
  expect(value.length, JSON.stringify(value)).toBeGreaterThan(0);
  expect(value.length, JSON.stringify(value)).toBeLessThanOrEqual(maxLength);
  expect(value, JSON.stringify(value)).toMatch(PRINTABLE_ASCII);
}

// --- serial --------------------------------------------------------------------------------------

const affix = fc.oneof(fc.constant(''), fc.constantFrom('\u0002', ']C1', '\u0003', '\r'), fc.string({ maxLength: 3, unit: 'binary-ascii' }));
const framing: fc.Arbitrary<FramingOptions> = fc.record({
  terminator: fc.constantFrom<Terminator>('CR', 'LF', 'CRLF', 'any', 'none'),
  prefix: affix,
  suffix: affix,
  maxLength: fc.integer({ min: 1, max: 64 }),
});
/** Byte chunks: mostly plausible scanner output with terminators, sometimes pure noise or a flood. */
const chunk = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .array(fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) }, { weight: 1, arbitrary: fc.constantFrom(0x0d, 0x0a, 0x02, 0x03) }), {
        maxLength: 40,
      })
      .map((a) => Uint8Array.from(a)),
  },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 65, max: 600 }).map((n) => new Uint8Array(n).fill(0x41)) },
);
const pause = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 400 }));

describe('serial scanner', () => {
  it(
    'framing alone: no throw, frames within the limit and printable, for any bytes and options',
    () => {
      check(
        '8c serial framing (pure)',
        20_000,
        fc.property(framing, fc.array(chunk, { maxLength: 12 }), fc.array(fc.boolean(), { maxLength: 12 }), (o, chunks, flushes) => {
          const d = new FrameDecoder(o);
          const out = chunks.flatMap((c, i) => [...d.push(c), ...(flushes[i] ? [d.flush()].filter((r) => r !== null) : [])]);
          const last = d.flush();
          for (const r of last === null ? out : [...out, last]) if (r.kind === 'frame') expectIdentifier(r.value, o.maxLength);
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'the driver (SerialScanner) fed at its port: no throw, only printable identifiers within the limit',
    async () => {
      let delivered = 0;
      await checkAsync(
        '8c serial scanner driver',
        8_000,
        fc.asyncProperty(framing, fc.array(fc.tuple(chunk, pause), { maxLength: 10 }), async (o, feed) => {
          let onData: ((c: Buffer) => void) | null = null;
          const opener: SerialOpener = (_port, ev) => {
            onData = ev.onData;
            const link: SerialLink = { write: () => Promise.resolve(), close: () => Promise.resolve() };
            return Promise.resolve(link);
          };
          const s = new SerialScanner({
            identifierType: 'BAR_CODE',
            port: { path: '/dev/fuzz', baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 },
            framing: o,
            idleGapMs: 100,
            reconnect: { initialMs: 500, maxMs: 4000, factor: 2 },
            openTimeoutMs: 1000,
            log,
            opener,
          });
          const scans: string[] = [];
          s.onScan((v) => scans.push(v));
          await s.start();
          expect(onData).not.toBeNull();
          for (const [bytes, ms] of feed) {
            onData!(Buffer.from(bytes));
            await vi.advanceTimersByTimeAsync(ms);
          }
          await vi.advanceTimersByTimeAsync(1_000);
          await s.close();
          for (const v of scans) expectIdentifier(v, o.maxLength);
          delivered += scans.length;
        }),
      );
      expect(delivered).toBeGreaterThan(0);
    },
    FUZZ_TIMEOUT_MS,
  );
});

// --- HID -----------------------------------------------------------------------------------------

class FuzzHid implements HidBackend {
  private data: ((b: Buffer) => void) | null = null;
  readonly info: HidDeviceInfo = { path: '/dev/hidraw-fuzz', vendorId: 1, productId: 2, interface: 0, usagePage: 1, usage: 6, product: 'fuzz' };
  devices(): Promise<HidDeviceInfo[]> {
    return Promise.resolve([this.info]);
  }
  open(): HidHandle {
    return { onData: (l) => (this.data = l), onError: () => undefined, close: () => undefined };
  }
  send(r: Uint8Array): void {
    this.data?.(Buffer.from(r));
  }
}

const usage = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0x04, max: 0x38 }) }, // letters, digits, Enter, punctuation
  { weight: 2, arbitrary: fc.integer({ min: 0x54, max: 0x63 }) }, // keypad
  { weight: 1, arbitrary: fc.constantFrom(0x00, 0x01, 0x02, 0x03, 0x28, 0x2a, 0x29, 0x64) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }) },
);
/** A boot report (modifiers, reserved, 6 usages), a key-up, or raw bytes of any length. */
const report = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 255 }), fc.array(usage, { maxLength: 6 }))
      .map(([m, us]) => Uint8Array.from([m, 0, ...us, 0, 0, 0, 0, 0, 0].slice(0, 8))),
  },
  { weight: 3, arbitrary: fc.constant(new Uint8Array(8)) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 12 }) },
);
/** What a scanner types for a code (key down, all up, ..., Enter), so real frames are in the mix. */
const typedCode = (layout: 'us' | 'cz-qwertz'): fc.Arbitrary<Uint8Array[]> =>
  fc
    .string({ minLength: 1, maxLength: 20, unit: fc.constantFrom(...'ABCXYZabcxyz0123456789-./') })
    .map((code) => typeReports(layout, code).map((r) => Uint8Array.from(r)));

const hidOptions = {
  match: { vendorId: 1, productId: 2 },
  reportId: null,
  presenceCheckMs: 60_000,
  reconnect: { initialMs: 200, maxMs: 2000, factor: 2 },
  openTimeoutMs: 1000,
  log,
};

describe('HID scanner and keypad', () => {
  it(
    'HidScanner (US and Czech layouts): no throw, only printable identifiers within the limit',
    async () => {
      let delivered = 0;
      const layoutAndReports = fc.constantFrom('us' as const, 'cz-qwertz' as const).chain((layout) =>
        fc.tuple(
          fc.constant(layout),
          fc.integer({ min: 1, max: 48 }),
          fc.array(
            fc.tuple(
              fc.oneof(
                report.map((r) => [r]),
                typedCode(layout),
              ),
              pause,
            ),
            { maxLength: 12 },
          ),
        ),
      );
      await checkAsync(
        '8c HID scanner driver',
        8_000,
        fc.asyncProperty(layoutAndReports, async ([layout, maxLength, groups]) => {
          const hid = new FuzzHid();
          const s = new HidScanner({ ...hidOptions, backend: hid, identifierType: 'BAR_CODE', layout, maxLength, frameTimeoutMs: 300 });
          const scans: string[] = [];
          s.onScan((v) => scans.push(v));
          await s.start();
          for (const [reports, ms] of groups) {
            for (const r of reports) hid.send(r);
            if (ms > 0) await vi.advanceTimersByTimeAsync(ms);
          }
          await vi.advanceTimersByTimeAsync(1_000);
          await s.close();
          for (const v of scans) expectIdentifier(v, maxLength);
          delivered += scans.length;
        }),
      );
      // The property is about identifiers: it must have seen some.
      expect(delivered).toBeGreaterThan(0);
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'HidKeypad: only PIN-pad keys, and no typed digit in its log',
    async () => {
      await checkAsync(
        '8c HID keypad driver',
        4_000,
        fc.asyncProperty(fc.array(report, { maxLength: 30 }), async (reports) => {
          const hid = new FuzzHid();
          const k = new HidKeypad({ ...hidOptions, backend: hid, clearKeys: ['escape', 'kp-asterisk'] });
          const keys: KeypadKey[] = [];
          k.onKey((key) => keys.push(key));
          await k.start();
          const from = logLines.length;
          for (const r of reports) hid.send(r);
          await vi.advanceTimersByTimeAsync(0);
          await k.close();
          for (const key of keys) {
            if (key.kind === 'digit') expect(key.digit).toMatch(/^[0-9]$/);
            else expect(['enter', 'backspace', 'clear']).toContain(key.kind);
          }
          const typed = keys.flatMap((key) => (key.kind === 'digit' ? [key.digit] : [])).join('');
          // What the driver logged, without pino's level, time and pid and the device's name (digits
          // of their own): no digit may be left, whatever was typed.
          const logged = logLines.slice(from).map((l) => {
            const { level: _l, time: _t, pid: _p, hostname: _h, device: _d, ...rest } = JSON.parse(l) as Record<string, unknown>;
            return JSON.stringify(rest);
          });
          expect(logged.join(''), `typed ${typed}`).not.toMatch(/[0-9]/);
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});
