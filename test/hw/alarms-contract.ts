/**
 * The tamper switch and the buzzer of a real board profile on gpio-sim, through the whole station:
 * board assembly, runtime, HTTP client and the reference server, all inside the rig VM. Written
 * once, run by alarms-sysfs.test.ts and alarms-cdev.test.ts against their own chip. The scanner and
 * the display are the simulated ones (no serial/HID device in this test); every GPIO line is real.
 *
 * Measured on the lines (sampled every ~2 ms, reported in the rig log): the alarm pattern of the
 * tamper switch and of a forced door, and a beep cut by a lock pulse — buzzer and lock are never
 * high at the same time.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startStation, type Station } from '../../src/app.js';
import { validateConfig } from '../../src/config/load.js';
import { createBoardHardware } from '../../src/devices/board.js';
import type { BoardProfileInput } from '../../src/devices/board-config.js';
import type { GpioBackend } from '../../src/devices/gpio/types.js';
import { SimDisplay, SimKeypad, SimScanner } from '../../src/devices/sim/inputs.js';
import { ReferenceServer, defaultSeed, SEED_BARCODES, type RequestRecord, type SimStation } from '../../src/sim/index.js';
import { recordLevel, report, silentLog, type SimChip, simChip, sleep, waitFor } from './sim.js';

// Under TCG the cdev backend's helpers start slowly: the lock bank's OFF confirmation gets its maximum.
const WATCHDOG_MARGIN_MS = 2_000;

const STATION: SimStation = {
  id: 'd3b07384-d9a0-4c9b-8f3e-2b8c1a0e5f11',
  password: 'TestStationPassw0rd1',
  boxes: Array.from({ length: 6 }, (_, i) => `a1b2c3d4-0000-4000-8000-${String(i + 1).padStart(12, '0')}`),
};
// Lines on the test's chip: locks 0-5, doors 6-11 (active = OPEN), tamper 12 (active = open), buzzer 13.
const LOCK = (n: number): number => n - 1;
const DOOR = (n: number): number => 5 + n;
const TAMPER = 12;
const BUZZER = 13;
const PULSE_MS = 300;

type StateBody = { st: string; errorMessage: string | null };

/**
 * Sample two lines in the same loop (every ~2 ms) until `until` settles: each line's intervals at
 * level 1, and how many samples saw both at 1 at once.
 */
async function recordBoth(chip: SimChip, a: number, b: number, until: Promise<unknown>): Promise<{ a: [number, number][]; b: [number, number][]; both: number; samples: number }> {
  const t0 = performance.now();
  let done = false;
  void until.finally(() => (done = true));
  const out = { a: [] as [number, number][], b: [] as [number, number][], both: 0, samples: 0 };
  let startA: number | null = null;
  let startB: number | null = null;
  while (!done) {
    const now = performance.now() - t0;
    const va = chip.value(a) === 1;
    const vb = chip.value(b) === 1;
    out.samples += 1;
    if (va && vb) out.both += 1;
    if (va && startA === null) startA = now;
    if (!va && startA !== null) {
      out.a.push([startA, now]);
      startA = null;
    }
    if (vb && startB === null) startB = now;
    if (!vb && startB !== null) {
      out.b.push([startB, now]);
      startB = null;
    }
    await sleep(2);
  }
  const end = performance.now() - t0;
  if (startA !== null) out.a.push([startA, end]);
  if (startB !== null) out.b.push([startB, end]);
  return out;
}
const fmt = (xs: [number, number][]): string => JSON.stringify(xs.map(([a, b]) => [Math.round(a), Math.round(b - a)]));

/**
 * @param slackMs how much a level may look longer or shorter than asked from the ~2 ms sampler
 *   under QEMU TCG (the cdev backend also pays a process start per beep).
 */
export function alarmsOnBoard(label: string, open: () => Promise<GpioBackend>, slackMs: number): void {
  let chip: SimChip;
  let server: ReferenceServer;
  let station: Station;
  let scanner: SimScanner;

  const states = (after: number, pred: (b: StateBody) => boolean): Promise<RequestRecord> =>
    server.waitForRequest((r) => r.endpoint === 'state' && pred(r.body as StateBody), 30_000, { afterSeq: after });

  beforeAll(async () => {
    chip = simChip(label);
    // What released lines float to (the wiring's resistors): locks and buzzer OFF, doors and tamper closed.
    for (let o = 0; o < 14; o++) chip.pull(o, 'down');
    server = new ReferenceServer({ stations: [STATION], ...defaultSeed(STATION) });
    const url = await server.start();
    const profile: BoardProfileInput = {
      name: `rig ${label}`,
      gpio: { pulseWatchdogMarginMs: WATCHDOG_MARGIN_MS },
      boxes: STATION.boxes.map((_, i) => ({ number: i + 1, lock: { chip: label, offset: LOCK(i + 1) }, door: { chip: label, offset: DOOR(i + 1) } })),
      tamper: { chip: label, offset: TAMPER },
      buzzer: { chip: label, offset: BUZZER },
    };
    const profileFile = join(mkdtempSync(join(tmpdir(), 'rig-alarms-')), 'profile.json');
    writeFileSync(profileFile, JSON.stringify(profile));
    const { config, problems } = validateConfig({
      station: { id: STATION.id, boxes: STATION.boxes.map((id, i) => ({ number: i + 1, id })) },
      server: { baseUrl: new URL(url).origin, answerTimeoutMs: 10_000 },
      timing: { doorOpenTimeoutMs: 10_000 },
      locks: { pulseMs: PULSE_MS },
      // A long accepted beep, so that the box-open's lock pulse surely comes while it sounds.
      buzzer: { patterns: { accepted: [800, 100, 200] } },
      hardware: { kind: 'board', profile: profileFile },
      storage: { directory: null },
      log: { level: 'silent' },
    });
    if (!config) throw new Error(JSON.stringify(problems));
    const hw = config.hardware;
    if (hw.kind !== 'board') throw new Error('board config expected');
    scanner = new SimScanner('BAR_CODE');
    const hardware = await createBoardHardware(config, hw, silentLog, {
      openBackend: open,
      createInputDevices: () => Promise.resolve({ scanners: [scanner], keypad: new SimKeypad(), display: new SimDisplay() }),
    });
    station = await startStation({ config, password: STATION.password, log: silentLog, hardware });
    try {
      await waitFor('idle', () => station.runtime.snapshot().mode.kind === 'idle' && station.runtime.snapshot().inFlight === null, 60_000);
    } catch (e) {
      const s = station.runtime.snapshot();
      report(`[${label}] not idle: mode ${s.mode.kind}, in flight ${s.inFlight}, events ${JSON.stringify(station.runtime.events())}, server saw ${server.requests.length} requests`);
      throw e;
    }
  });

  afterAll(async () => {
    await station?.stop();
    await server?.stop();
  });

  it('tamper open: /state DOWN "tamper" and the alarm pattern on the buzzer line; closed: UP', async () => {
    const seq = server.lastSeq;
    const listening = sleep(5_000);
    const buzzer = recordLevel(chip, BUZZER, 1, listening);
    chip.pull(TAMPER, 'up');
    const down = await states(seq, (b) => b.st === 'DOWN');
    expect((down.body as StateBody).errorMessage).toBe('tamper');
    const { intervals } = await buzzer;
    report(`[${label}] tamper alarm pattern (asked [400, 150, 400, 150, 400, 150, 400]): [start, ms high] ${fmt(intervals)}`);
    expect(intervals).toHaveLength(4);
    for (const [a, b] of intervals) expect(Math.abs(b - a - 400)).toBeLessThan(slackMs);
    for (let i = 1; i < intervals.length; i++) expect(intervals[i]![0] - intervals[i - 1]![1]).toBeGreaterThanOrEqual(150 - 5);
    chip.pull(TAMPER, 'down');
    const up = await states(down.seq, (b) => b.st === 'UP');
    expect((up.body as StateBody).errorMessage).toBeNull();
  });

  it('an accepted scan beeps; the lock pulse of its box-open silences the beep: buzzer and lock never high together', async () => {
    await waitFor('idle', () => station.runtime.snapshot().mode.kind === 'idle' && station.runtime.snapshot().inFlight === null, 30_000);
    const seq = server.lastSeq;
    let stop!: () => void;
    const recording = recordBoth(chip, BUZZER, LOCK(1), new Promise<void>((r) => (stop = r)));
    scanner.read(SEED_BARCODES[0]);
    // The door springs open once the lock has been pulsed.
    await waitFor('lock 1 pulsed', () => chip.value(LOCK(1)) === 1, 30_000);
    await waitFor('lock 1 OFF', () => chip.value(LOCK(1)) === 0, 30_000);
    chip.pull(DOOR(1), 'up');
    await states(seq, () => station.runtime.snapshot().boxes[STATION.boxes[0]!] === 'OPEN');
    await sleep(2_500);
    stop();
    const { a: buzzer, b: lock, both, samples } = await recording;
    report(`[${label}] accepted scan [800, 100, 200] around a ${PULSE_MS} ms pulse: buzzer ${fmt(buzzer)}, lock ${fmt(lock)}; ${samples} samples, ${both} with both high`);
    expect(lock).toHaveLength(1);
    expect(both).toBe(0);
    const [lockOn, lockOff] = lock[0]!;
    // Whatever sounded before the pulse was cut short by it (on a slow backend the first beep may
    // not have reached the line at all); the pattern went on after it.
    for (const [on, off] of buzzer) if (on < lockOn) expect(off - on).toBeLessThan(800);
    expect(buzzer.some(([on]) => on >= lockOff)).toBe(true);
    chip.pull(DOOR(1), 'down');
    await waitFor('idle', () => station.runtime.snapshot().mode.kind === 'idle' && station.runtime.snapshot().inFlight === null, 30_000);
  });

  it('a door opened without a command: /state "box 2 forced open" and the alarm pattern', async () => {
    const seq = server.lastSeq;
    const listening = sleep(5_000);
    const buzzer = recordLevel(chip, BUZZER, 1, listening);
    chip.pull(DOOR(2), 'up');
    const forced = await states(seq, (b) => b.errorMessage !== null);
    expect(forced.body).toMatchObject({ st: 'UP', errorMessage: 'box 2 forced open' });
    const { intervals } = await buzzer;
    report(`[${label}] forced-open alarm pattern: ${fmt(intervals)}`);
    expect(intervals).toHaveLength(4);
    chip.pull(DOOR(2), 'down');
    await states(forced.seq, (b) => b.errorMessage === null);
  });
}
