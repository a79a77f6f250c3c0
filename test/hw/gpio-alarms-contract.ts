/**
 * The tamper switch and the buzzer of a real board profile on gpio-sim, through the whole station:
 * board assembly, runtime, HTTP client and the reference server, all inside the rig VM. Written
 * once, run by gpio-alarms-sysfs.test.ts and gpio-alarms-cdev.test.ts against their own chip. The
 * scanner and the display are the simulated ones (no serial/HID device in this test); every GPIO
 * line is real.
 *
 * Measured on the lines (sampled every ~2 ms, reported in the rig log): the alarm pattern of the
 * tamper switch and of a forced door, and a beep cut by a lock pulse — buzzer and lock are never
 * high at the same time.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startStation, type RunningStation } from '../../src/app.js';
import { validateConfig } from '../../src/config/load.js';
import { createBoardHardware } from '../../src/devices/board.js';
import type { BoardProfileInput } from '../../src/devices/board-config.js';
import type { GpioBackend } from '../../src/devices/gpio/types.js';
import { SimDisplay, SimKeypad, SimScanner } from '../../src/devices/simulated/inputs.js';
import { ReferenceServer, defaultSeed, SEED_BARCODES, type RequestRecord, type SimulatedStation } from '../../src/reference-server/index.js';
import { STATION as SHARED_STATION } from '../support/shared.js';
import { report, silentLog, type SimChip, simChip, sleep, waitFor } from './sim.js';

// Under TCG the cdev backend's helpers start slowly: the lock bank's OFF confirmation gets its maximum.
const WATCHDOG_MARGIN_MS = 2_000;

// Six of the test station's boxes: one per lock line of the test's chip.
const STATION: SimulatedStation = { ...SHARED_STATION, boxes: SHARED_STATION.boxes.slice(0, 6) };
// Lines on the test's chip: locks 0-5, doors 6-11 (active = OPEN), tamper 12 (active = open), buzzer 13.
const LOCK = (n: number): number => n - 1;
const DOOR = (n: number): number => 5 + n;
const TAMPER = 12;
const BUZZER = 13;
const PULSE_MS = 300;
/**
 * How late the sampler may see an edge when the VM shares the host's cores with other work: a late
 * OFF edge makes the gap after it look shorter (seen: 144.8 ms for 150 with a second VM running).
 */
const SAMPLER_LATE_MS = 20;

type StateBody = { st: string; errorMessage: string | null };

/**
 * Sample lines in one loop (every ~2 ms) until `stop` says so: each line's intervals at level 1
 * (ms since the start), and how many samples saw all of them at 1 at once.
 */
async function sample(
  chip: SimChip,
  offsets: readonly number[],
  stop: (intervals: readonly [number, number][][], elapsedMs: number) => boolean,
): Promise<{ intervals: [number, number][][]; allHigh: number; samples: number }> {
  const t0 = performance.now();
  const intervals: [number, number][][] = offsets.map(() => []);
  const since: (number | null)[] = offsets.map(() => null);
  let allHigh = 0;
  let samples = 0;
  for (;;) {
    const now = performance.now() - t0;
    const high = offsets.map((o) => chip.value(o) === 1);
    samples += 1;
    if (high.every(Boolean)) allHigh += 1;
    high.forEach((h, i) => {
      const started = since[i] ?? null;
      if (h && started === null) since[i] = now;
      if (!h && started !== null) {
        intervals[i]!.push([started, now]);
        since[i] = null;
      }
    });
    if (stop(intervals, now)) break;
    await sleep(2);
  }
  return { intervals, allHigh, samples };
}

/** The buzzer's beeps from now until `count` beeps have ended (or `timeoutMs`). */
function beeps(chip: SimChip, count: number, timeoutMs = 30_000): Promise<[number, number][]> {
  return sample(chip, [BUZZER], ([b], t) => (b?.length ?? 0) >= count || t > timeoutMs).then((r) => r.intervals[0]!);
}

const fmt = (xs: [number, number][]): string => JSON.stringify(xs.map(([a, b]) => [Math.round(a), Math.round(b - a)]));

/**
 * @param slackMs how much a level may look longer or shorter than asked from the ~2 ms sampler
 *   under QEMU TCG (the cdev backend also pays a process start per beep).
 */
export function alarmsOnBoard(label: string, open: () => Promise<GpioBackend>, slackMs: number): void {
  let chip: SimChip;
  let server: ReferenceServer;
  let station: RunningStation;
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
      // The rig's VM runs no USBGuard: these are GPIO contracts (USBGuard's is the virtual board's part).
      usbGuard: null,
      createInputDevices: () => Promise.resolve({ scanners: [scanner], keypad: new SimKeypad(), display: new SimDisplay() }),
    });
    station = await startStation({ config, password: STATION.password, log: silentLog, hardware });
    try {
      await waitFor('idle', () => station.runtime.snapshot().mode.kind === 'idle' && station.runtime.snapshot().inFlight === null, 60_000);
    } catch (e) {
      const s = station.runtime.snapshot();
      report(
        `[${label}] not idle: mode ${s.mode.kind}, in flight ${s.inFlight}, events ${JSON.stringify(station.runtime.events())}, server saw ${server.requests.length} requests`,
      );
      throw e;
    }
  });

  afterAll(async () => {
    await station?.stop();
    await server?.stop();
  });

  it('tamper open: /state DOWN "tamper" and the alarm pattern on the buzzer line; closed: UP', async () => {
    const seq = server.lastSeq;
    const pattern = beeps(chip, 4);
    chip.pull(TAMPER, 'up');
    try {
      const down = await states(seq, (b) => b.st === 'DOWN');
      expect((down.body as StateBody).errorMessage).toBe('tamper');
      const intervals = await pattern;
      report(`[${label}] tamper alarm pattern (asked [400, 150, 400, 150, 400, 150, 400]): [start, ms high] ${fmt(intervals)}`);
      expect(intervals).toHaveLength(4);
      for (const [a, b] of intervals) expect(Math.abs(b - a - 400)).toBeLessThan(slackMs);
      for (let i = 1; i < intervals.length; i++) expect(intervals[i]![0] - intervals[i - 1]![1]).toBeGreaterThanOrEqual(150 - SAMPLER_LATE_MS);
    } finally {
      chip.pull(TAMPER, 'down');
    }
    await states(server.lastSeq, (b) => b.st === 'UP' && b.errorMessage === null);
  });

  it('an accepted scan beeps; the lock pulse of its box-open silences the beep: buzzer and lock never high together', async () => {
    await waitFor('idle', () => station.runtime.snapshot().mode.kind === 'idle' && station.runtime.snapshot().inFlight === null, 30_000);
    const seq = server.lastSeq;
    // Until the lock's pulse is over and the pattern's last beep (after it) has ended.
    const recording = sample(
      chip,
      [BUZZER, LOCK(1)],
      ([b, l], t) => ((l?.length ?? 0) >= 1 && (b ?? []).some(([on]) => on >= l![0]![1]) && chip.value(BUZZER) === 0) || t > 60_000,
    );
    scanner.read(SEED_BARCODES[0]);
    try {
      // The door springs open once the lock has been pulsed.
      await waitFor('lock 1 pulsed', () => chip.value(LOCK(1)) === 1, 30_000);
      await waitFor('lock 1 OFF', () => chip.value(LOCK(1)) === 0, 30_000);
      chip.pull(DOOR(1), 'up');
      await states(seq, () => station.runtime.snapshot().boxes[STATION.boxes[0]!] === 'OPEN');
      const { intervals, allHigh, samples } = await recording;
      const [buzzer, lock] = [intervals[0]!, intervals[1]!];
      report(
        `[${label}] accepted scan [800, 100, 200] around a ${PULSE_MS} ms pulse: buzzer ${fmt(buzzer)}, lock ${fmt(lock)}; ${samples} samples, ${allHigh} with both high`,
      );
      expect(lock).toHaveLength(1);
      expect(allHigh).toBe(0);
      const [lockOn, lockOff] = lock[0]!;
      // Whatever sounded before the pulse was cut short by it (on a slow backend the first beep may
      // not have reached the line at all); the pattern went on after it.
      for (const [on, off] of buzzer) if (on < lockOn) expect(off - on).toBeLessThan(800);
      expect(buzzer.some(([on]) => on >= lockOff)).toBe(true);
    } finally {
      chip.pull(DOOR(1), 'down');
    }
    await waitFor('idle', () => station.runtime.snapshot().mode.kind === 'idle' && station.runtime.snapshot().inFlight === null, 30_000);
  });

  it('a door opened without a command: /state "box 2 forced open" and the alarm pattern', async () => {
    const seq = server.lastSeq;
    const pattern = beeps(chip, 4);
    chip.pull(DOOR(2), 'up');
    try {
      const forced = await states(seq, (b) => b.errorMessage !== null);
      expect(forced.body).toMatchObject({ st: 'UP', errorMessage: 'box 2 forced open' });
      const intervals = await pattern;
      report(`[${label}] forced-open alarm pattern: ${fmt(intervals)}`);
      expect(intervals).toHaveLength(4);
    } finally {
      chip.pull(DOOR(2), 'down');
    }
    await states(server.lastSeq, (b) => b.errorMessage === null);
  });
}
