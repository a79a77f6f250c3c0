/**
 * Alarms, the buzzer and the PIN throttle through the runtime under fake timers, on simulated
 * hardware: door-ajar timing, tamper, buzzer patterns (timed, never over a lock pulse), and the PIN
 * throttle kept in its state file across a restart of the runtime.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { validateConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import type { ServerAnswer } from '../../src/protocol/types.js';
import { StationRuntime, type RuntimeEvent } from '../../src/station/runtime.js';
import { FilePinThrottleStore, MemoryPinThrottleStore } from '../../src/storage/pin-throttle-store.js';
import type { PinThrottleRecord, PinThrottleStore } from '../../src/storage/types.js';
import { ScriptedSender, waitForInput, type Script } from '../support/scripted-sender.js';
import { STATION } from '../support/shared.js';

// Captured before fake timers: waiting for real file I/O (the state file's fsync).
const realSetTimeout = setTimeout;
const realIo = (): Promise<void> => new Promise((r) => realSetTimeout(r, 20));

const BOX = (n: number) => `bbbbbbbb-bbbb-4bbb-8bbb-${String(n).padStart(12, '0')}`;
const wrongPin: ServerAnswer = { kind: 'exception', status: 404, exceptionType: 'InvalidPinException', displayMessages: ['Wrong PIN'] };
const boxOpen = (n: number): ServerAnswer => ({ kind: 'command', command: { type: 'box-open', boxes: [BOX(n)], displayMessages: [] } });

function config(overrides: Record<string, unknown> = {}): Config {
  const { config, problems } = validateConfig({
    station: { id: STATION.id, boxes: [1, 2, 3].map((n) => ({ number: n, id: BOX(n) })) },
    server: { baseUrl: 'http://127.0.0.1:1' },
    hardware: { kind: 'simulated', doorSpringMs: 100 },
    ...overrides,
  });
  if (!config) throw new Error(JSON.stringify(problems));
  return config;
}

async function started(cfg: Config, script: Script = () => waitForInput, store: PinThrottleStore = new MemoryPinThrottleStore()) {
  const hardware = new SimulatedHardware({ boxNumbers: [1, 2, 3], doorSpringMs: 100, inputVoltage: 12, internetSignalStrength: 100 });
  const sender = new ScriptedSender(script);
  const runtime = new StationRuntime({ config: cfg, hardware, client: sender, log: pino({ level: 'silent' }), pinThrottleStore: store });
  const events: (RuntimeEvent & { t: number })[] = [];
  runtime.onEvent((e) => events.push({ ...e, t: performance.now() }));
  await runtime.start();
  await vi.advanceTimersByTimeAsync(0);
  return { runtime, hardware, sender, events };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('door ajar through the runtime', () => {
  it('raised exactly doorAjarMs after the opening; reminder on the display and the buzzer every doorAjarReminderMs; cleared on closing', async () => {
    const { runtime, hardware, sender, events } = await started(config({ timing: { doorAjarMs: 120_000, doorAjarReminderMs: 30_000 } }), (e) =>
      e === 'pin-enter' ? boxOpen(2) : waitForInput,
    );
    hardware.typePin('123456');
    await vi.advanceTimersByTimeAsync(200); // pulse, the door springs open at 100 ms
    expect(runtime.snapshot().boxes[BOX(2)]).toBe('OPEN');
    const openedAt = events.find((e) => e.type === 'box')!.t;
    await vi.advanceTimersByTimeAsync(openedAt + 120_000 - performance.now() - 1);
    expect(runtime.snapshot().alarms).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(runtime.snapshot().alarms).toEqual([{ kind: 'door-ajar', boxId: BOX(2), detail: 'box 2 open for 120 s' }]);
    const raised = events.find((e) => e.type === 'alarm' && e.active);
    expect(raised && raised.t - openedAt).toBe(120_000);
    expect(sender.of('state').at(-1)).toMatchObject({ st: 'UP', errorMessage: 'box 2 open for 120 s' });
    expect(hardware.display.lastShown()).toEqual(['Please close box 2']);
    const reminderBeeps = () => hardware.buzzer.beeps.filter((b) => b.ms === 200).length;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(reminderBeeps()).toBe(2); // [200, 300, 200]
    await vi.advanceTimersByTimeAsync(30_000);
    expect(reminderBeeps()).toBe(4);

    hardware.closeDoor(2);
    await vi.advanceTimersByTimeAsync(0);
    expect(runtime.snapshot().alarms).toEqual([]);
    expect(events.filter((e) => e.type === 'alarm').map((e) => (e.type === 'alarm' ? e.active : null))).toEqual([true, false]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(reminderBeeps()).toBe(4);
    await runtime.stop();
  });
});

describe('tamper through the runtime', () => {
  it('the simulated tamper switch: /state DOWN "tamper", alarm pattern, a PIN typed is refused; closing clears it', async () => {
    const { runtime, hardware, sender } = await started(config());
    hardware.openTamper();
    await vi.advanceTimersByTimeAsync(0);
    expect(sender.of('state').at(-1)).toMatchObject({ st: 'DOWN', errorMessage: 'tamper' });
    expect(hardware.display.lastShown()).toEqual(['Station out of service', 'please ask the staff']);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(hardware.buzzer.beeps.map((b) => b.ms)).toEqual([400, 400, 400, 400]);
    hardware.typePin('123456');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sender.of('pin-enter')).toEqual([]);
    hardware.closeTamper();
    await vi.advanceTimersByTimeAsync(0);
    expect(sender.of('state').at(-1)).toMatchObject({ st: 'UP', errorMessage: null });
    await runtime.stop();
  });

  it('a tamper switch already open at start is in the first /state', async () => {
    const hardware = new SimulatedHardware({ boxNumbers: [1, 2, 3], doorSpringMs: 100, inputVoltage: 12, internetSignalStrength: 100 });
    hardware.openTamper();
    const sender = new ScriptedSender(() => waitForInput);
    const runtime = new StationRuntime({ config: config(), hardware, client: sender, log: pino({ level: 'silent' }) });
    await runtime.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(sender.of('state')[0]).toMatchObject({ st: 'DOWN', errorMessage: 'tamper' });
    await runtime.stop();
  });
});

describe('buzzer', () => {
  it('plays the configured patterns with timers: a short beep on a key, a double beep on a refusal', async () => {
    const { runtime, hardware } = await started(config({ buzzer: { patterns: { accepted: [50], refused: [70, 90, 70] } } }));
    const t0 = performance.now();
    hardware.pressKey({ kind: 'digit', digit: '1' });
    await vi.advanceTimersByTimeAsync(1_000);
    hardware.pressKey({ kind: 'enter' }); // one digit: "The PIN has 6 digits", a refusal
    await vi.advanceTimersByTimeAsync(1_000);
    const beeps = hardware.buzzer.beeps.map((b) => ({ ms: b.ms, on: b.startedAt - t0, off: (b.endedAt ?? NaN) - t0 }));
    expect(beeps).toEqual([
      { ms: 50, on: 0, off: 50 },
      { ms: 70, on: 1_000, off: 1_070 },
      { ms: 70, on: 1_160, off: 1_230 },
    ]);
    await runtime.stop();
  });

  it('never sounds while a lock is energized: a beep is cut when a pulse starts and the pattern waits for its end', async () => {
    const { runtime, hardware, events } = await started(config({ locks: { pulseMs: 500 }, buzzer: { patterns: { accepted: [300, 100, 300] } } }), (e) =>
      e === 'item-identify' ? boxOpen(1) : waitForInput,
    );
    hardware.scanBarcode('X1'); // accepted pattern starts; the box-open answer comes at once: the pulse
    await vi.advanceTimersByTimeAsync(3_000);
    const lockOn = events.find((e) => e.type === 'lock' && e.energized)!.t;
    const lockOff = events.find((e) => e.type === 'lock' && !e.energized)!.t;
    expect(lockOff - lockOn).toBe(500);
    const beeps = hardware.buzzer.beeps.map((b) => [b.startedAt, b.endedAt ?? Infinity] as const);
    expect(beeps.length).toBeGreaterThan(0);
    for (const [on, off] of beeps) expect(off <= lockOn || on >= lockOff).toBe(true);
    // The pattern went on after the pulse.
    expect(beeps.some(([on]) => on >= lockOff)).toBe(true);
    await runtime.stop();
  });

  it('an alarm is not interrupted by a key beep', async () => {
    const { runtime, hardware } = await started(config());
    hardware.forceOpen(3);
    await vi.advanceTimersByTimeAsync(100);
    hardware.pressKey({ kind: 'digit', digit: '1' }); // refused (a box is open): a quieter sound, dropped
    await vi.advanceTimersByTimeAsync(3_000);
    expect(hardware.buzzer.beeps.map((b) => b.ms)).toEqual([400, 400, 400, 400]);
    await runtime.stop();
  });
});

describe('PIN throttle across a restart (its own state file)', () => {
  it('5 wrong PINs lock the keypad; a new runtime on the same directory is still locked, in full; then unlocked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pin-throttle-'));
    const cfg = config();
    const first = await started(cfg, (e) => (e === 'pin-enter' ? wrongPin : waitForInput), new FilePinThrottleStore(dir));
    for (let i = 0; i < 5; i++) {
      first.hardware.typePin('123456');
      await vi.advanceTimersByTimeAsync(10);
      while (first.sender.of('pin-enter').length <= i || first.runtime.snapshot().inFlight !== null) {
        await realIo();
        await vi.advanceTimersByTimeAsync(0);
      }
      await realIo();
    }
    expect(first.sender.of('pin-enter')).toHaveLength(5);
    expect(first.hardware.display.lastShown()).toEqual(['Too many wrong PINs', 'try again in 0:30']);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(first.hardware.display.lastShown()).toEqual(['Too many wrong PINs', 'try again in 0:20']);
    await first.runtime.stop();
    expect(JSON.parse(readFileSync(join(dir, 'pin-throttle.json'), 'utf8'))).toEqual({ version: 1, failures: 5, lockoutMs: 30_000 });

    const second = await started(cfg, (e) => (e === 'pin-enter' ? wrongPin : waitForInput), new FilePinThrottleStore(dir));
    expect(second.runtime.snapshot().pinThrottle).toEqual({ failures: 5, lockout: { ms: 30_000, remainingMs: 30_000 } });
    expect(second.hardware.display.lastShown()).toEqual(['Too many wrong PINs', 'try again in 0:30']);
    second.hardware.typePin('123456');
    await vi.advanceTimersByTimeAsync(29_000);
    expect(second.sender.of('pin-enter')).toEqual([]); // nothing sent while locked
    await vi.advanceTimersByTimeAsync(1_000);
    expect(second.runtime.snapshot().pinThrottle.lockout).toBeNull();
    // The 6th failure in a row: 60 s.
    await realIo();
    await vi.advanceTimersByTimeAsync(0);
    second.hardware.typePin('123456');
    await vi.advanceTimersByTimeAsync(10);
    while (second.runtime.snapshot().inFlight !== null) {
      await realIo();
      await vi.advanceTimersByTimeAsync(0);
    }
    expect(second.hardware.display.lastShown()).toEqual(['Too many wrong PINs', 'try again in 1:00']);
    await second.runtime.stop();
    expect(JSON.parse(readFileSync(join(dir, 'pin-throttle.json'), 'utf8'))).toEqual({ version: 1, failures: 6, lockoutMs: 60_000 });
  });

  it('a damaged state file locks the keypad (never resets it) and is replaced by a good record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pin-throttle-'));
    writeFileSync(join(dir, 'pin-throttle.json'), '{"version":1,"failures":');
    const { runtime, hardware } = await started(config(), () => waitForInput, new FilePinThrottleStore(dir));
    expect(hardware.display.lastShown()).toEqual(['Too many wrong PINs', 'try again in 0:30']);
    await runtime.stop();
    expect(JSON.parse(readFileSync(join(dir, 'pin-throttle.json'), 'utf8'))).toEqual({ version: 1, failures: 5, lockoutMs: 30_000 });
  });

  it('a PIN goes out only once the failures before it are saved', async () => {
    let release: (() => void) | null = null;
    const saved: PinThrottleRecord[] = [];
    const slow: PinThrottleStore = {
      where: 'slow',
      load: () => Promise.resolve({ kind: 'none' }),
      save: (r) => new Promise((resolve) => (release = () => (saved.push(r), resolve()))),
    };
    const { runtime, hardware, sender } = await started(config(), (e) => (e === 'pin-enter' ? wrongPin : waitForInput), slow);
    hardware.typePin('123456');
    await vi.advanceTimersByTimeAsync(10);
    expect(sender.of('pin-enter')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(5_000); // the "wrong PIN" message ends
    hardware.typePin('654321');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sender.of('pin-enter')).toHaveLength(1); // waits for the save of failure 1
    release!();
    await vi.advanceTimersByTimeAsync(10);
    expect(saved).toEqual([{ failures: 1, lockoutMs: null }]);
    expect(sender.of('pin-enter')).toHaveLength(2);
    release!();
    await runtime.stop();
  });

  it('a failed save is a fault: /state DOWN naming it, until a save succeeds', async () => {
    let fail = true;
    const flaky: PinThrottleStore = {
      where: 'flaky',
      load: () => Promise.resolve({ kind: 'none' }),
      save: () => (fail ? Promise.reject(new Error('EROFS: read-only file system')) : Promise.resolve()),
    };
    const { runtime, hardware, sender } = await started(config(), (e) => (e === 'pin-enter' ? wrongPin : waitForInput), flaky);
    hardware.typePin('123456');
    await vi.advanceTimersByTimeAsync(10);
    expect(sender.of('state').at(-1)).toMatchObject({ st: 'DOWN', errorMessage: 'cannot save the PIN throttle: EROFS: read-only file system' });
    fail = false;
    await vi.advanceTimersByTimeAsync(5_000);
    hardware.typePin('123456');
    await vi.advanceTimersByTimeAsync(10);
    expect(sender.of('state').at(-1)).toMatchObject({ st: 'UP', errorMessage: null });
    await runtime.stop();
  });
});
