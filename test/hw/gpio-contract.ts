/**
 * What both GPIO backends must do on real kernel lines (gpio-sim), written once and run by
 * gpio-sysfs.test.ts and gpio-cdev.test.ts against their own chip.
 */
import { afterEach, beforeAll, expect, it } from 'vitest';
import { GpioButton, GpioDoorSensors } from '../../src/devices/gpio/inputs.js';
import { GpioLockBank } from '../../src/devices/gpio/locks.js';
import type { GpioBackend, InputSpec, OutputSpec } from '../../src/devices/gpio/types.js';
import { HARD_MAX_PULSE_MS, type DoorState } from '../../src/devices/types.js';
import { recordLevel, report, silentLog, type SimChip, simChip, sleep, waitFor } from './sim.js';

const DEBOUNCE_MS = 100;

/**
 * @param watchdogMarginMs what the bank gives the backend to confirm OFF: the cdev backend starts
 *   processes to do so, which under TCG takes far longer than on a Pi.
 * @param slackMs how much longer than asked a pulse may *look* from the test's ~2 ms sampler under
 *   QEMU TCG (JS ~15x slower than on the host, and a loaded CI host makes samples irregular).
 */
export function gpioContract(label: string, open: () => Promise<GpioBackend>, watchdogMarginMs: number, slackMs: number): void {
  const SLACK_MS = slackMs;
  let chip: SimChip;
  let backend: GpioBackend;
  const closeMe: { close(): Promise<void> }[] = [];
  const out = (offset: number, activeLow = false): OutputSpec => ({ chip: label, offset, activeLow });
  const inp = (offset: number): InputSpec => ({ chip: label, offset, activeLow: false, bias: 'as-is' });
  const locks = async (): Promise<GpioLockBank> => {
    const bank = await GpioLockBank.open(backend, {
      locks: new Map([
        [1, out(0)],
        [2, out(1, true)],
        [3, out(2)],
      ]),
      watchdogMarginMs,
      log: silentLog,
    });
    closeMe.push(bank);
    return bank;
  };

  beforeAll(async () => {
    chip = simChip(label);
    for (const o of [8, 9, 10]) chip.pull(o, 'down');
    // The wiring's resistor to the OFF level (hardware/WIRING.md): what a released line floats to.
    chip.pull(0, 'down');
    chip.pull(1, 'up');
    chip.pull(2, 'down');
    backend = await open();
    closeMe.push(backend);
  });
  afterEach(async () => {
    for (const c of closeMe.splice(0).reverse()) await c.close().catch(() => undefined);
    backend = await open();
    closeMe.push(backend);
  });

  it('drives every lock OFF at construction: active-high low, active-low high', async () => {
    await locks();
    expect([chip.value(0), chip.value(1), chip.value(2)]).toEqual([0, 1, 0]);
  });

  it('pulses for the configured time, then OFF', async () => {
    const bank = await locks();
    const { intervals, settledAt } = await recordLevel(chip, 0, 1, bank.pulse(1, 400));
    report(`[${label}] 400 ms pulse: high ${JSON.stringify(intervals.map(([a, b]) => Math.round(b - a)))} ms, resolved at ${Math.round(settledAt)} ms`);
    expect(intervals).toHaveLength(1);
    const [a, b] = intervals[0]!;
    // Times are when the ~2 ms sampler saw the level (later under load): the line went high at
    // or after the call (t=0) and cannot be seen low before 400 ms.
    expect(b).toBeGreaterThanOrEqual(400 - 5);
    expect(b - a).toBeLessThan(400 + SLACK_MS);
    expect(chip.value(0)).toBe(0);
    expect(bank.isEnergized(1)).toBe(false);
  });

  it('pulses an active-low lock by driving it low, and leaves it high', async () => {
    const bank = await locks();
    const { intervals } = await recordLevel(chip, 1, 0, bank.pulse(2, 300));
    expect(intervals).toHaveLength(1);
    const [a, b] = intervals[0]!;
    expect(b).toBeGreaterThanOrEqual(300 - 5);
    expect(b - a).toBeLessThan(300 + SLACK_MS);
    expect(chip.value(1)).toBe(1);
  });

  it(`clamps a pulse to HARD_MAX_PULSE_MS (${HARD_MAX_PULSE_MS} ms) whatever it is asked`, async () => {
    const bank = await locks();
    const { intervals } = await recordLevel(chip, 0, 1, bank.pulse(1, 60_000));
    const [a, b] = intervals[0]!;
    report(`[${label}] 60 s pulse asked: high ${Math.round(b - a)} ms`);
    expect(b - a).toBeLessThan(HARD_MAX_PULSE_MS + SLACK_MS);
    expect(chip.value(0)).toBe(0);
  });

  it('never overlaps two pulses', async () => {
    const bank = await locks();
    let done = false;
    const both = Promise.all([bank.pulse(1, 300), bank.pulse(3, 300)]).finally(() => (done = true));
    // One sampler reads both lines in the same pass: they must never be high together.
    const seen = { one: false, three: false, together: false };
    while (!done) {
      const [a, b] = [chip.value(0), chip.value(2)];
      seen.one ||= a === 1;
      seen.three ||= b === 1;
      seen.together ||= a === 1 && b === 1;
      await sleep(1);
    }
    await both;
    expect(seen).toEqual({ one: true, three: true, together: false });
  });

  it('drives a lock OFF when closed mid-pulse', async () => {
    const bank = await locks();
    const pulse = bank.pulse(1, 2500).catch(() => 'cut short');
    await waitFor('line high', () => chip.value(0) === 1);
    await bank.close();
    expect([chip.value(0), chip.value(1), chip.value(2)]).toEqual([0, 1, 0]);
    await pulse;
    expect(chip.value(0)).toBe(0);
  });

  it('pulses even when the door already reads OPEN (a broken cable reads open)', async () => {
    chip.pull(8, 'up');
    const doors = await GpioDoorSensors.open(backend, { doors: new Map([[1, inp(8)]]), debounceMs: DEBOUNCE_MS, log: silentLog });
    closeMe.push(doors);
    expect(await doors.read(1)).toBe('OPEN');
    const bank = await locks();
    const { intervals } = await recordLevel(chip, 0, 1, bank.pulse(1, 200));
    expect(intervals).toHaveLength(1);
    chip.pull(8, 'down');
  });

  it('reports a door edge once, debounced, promptly', async () => {
    chip.pull(8, 'down');
    await sleep(50);
    const doors = await GpioDoorSensors.open(backend, {
      doors: new Map([
        [1, inp(8)],
        [2, inp(9)],
      ]),
      debounceMs: DEBOUNCE_MS,
      log: silentLog,
    });
    closeMe.push(doors);
    expect(await doors.read(1)).toBe('CLOSED');
    const seen: [number, DoorState, number][] = [];
    const t0 = performance.now();
    doors.onChange((box, st) => seen.push([box, st, performance.now() - t0]));
    // A bouncing reed switch: five edges in ~25 ms, ending open.
    for (const level of ['up', 'down', 'up', 'down', 'up'] as const) {
      chip.pull(8, level);
      await sleep(5);
    }
    await waitFor('door OPEN event', () => seen.length > 0, 5000);
    await sleep(DEBOUNCE_MS * 3);
    report(`[${label}] bouncing door: events ${JSON.stringify(seen.map(([b, s, t]) => [b, s, Math.round(t)]))}`);
    expect(seen.map(([b, s]) => [b, s])).toEqual([[1, 'OPEN']]);
    expect(seen[0]![2]).toBeLessThan(DEBOUNCE_MS + 25 + 1000);
    expect(await doors.read(1)).toBe('OPEN');
    chip.pull(8, 'down');
    await waitFor('door CLOSED event', () => seen.length > 1, 5000);
    expect(seen[1]!.slice(0, 2)).toEqual([1, 'CLOSED']);
  });

  it('does not report a glitch shorter than the debounce time', async () => {
    chip.pull(9, 'down');
    await sleep(50);
    const doors = await GpioDoorSensors.open(backend, { doors: new Map([[2, inp(9)]]), debounceMs: DEBOUNCE_MS, log: silentLog });
    closeMe.push(doors);
    const seen: DoorState[] = [];
    doors.onChange((_, st) => seen.push(st));
    chip.pull(9, 'up');
    await sleep(10);
    chip.pull(9, 'down');
    await sleep(DEBOUNCE_MS * 4);
    expect(seen).toEqual([]);
    expect(await doors.read(2)).toBe('CLOSED');
  });

  it('reports a cancel button press once per press', async () => {
    chip.pull(10, 'down');
    await sleep(50);
    const button = await GpioButton.open(backend, { name: 'cancel button', line: inp(10), debounceMs: DEBOUNCE_MS, log: silentLog });
    closeMe.push(button);
    let presses = 0;
    button.onPress(() => presses++);
    chip.pull(10, 'up');
    await waitFor('press', () => presses === 1, 5000);
    chip.pull(10, 'down');
    await sleep(DEBOUNCE_MS * 3);
    expect(presses).toBe(1);
  });

  it('names the labels it found when a chip label is missing', async () => {
    await expect(backend.output({ chip: 'no-such-chip', offset: 0, activeLow: false })).rejects.toThrow(/no GPIO chip labelled "no-such-chip" \(found: .*rig-/);
  });
}
