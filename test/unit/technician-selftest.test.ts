/**
 * The self-test (src/technician/selftest.ts) on simulated hardware and a fake clock: each box's door
 * watched from its pulse on, until OPEN or doorOpenTimeoutMs; and its signal (the supervisor
 * stopping) ends the watch at once, in order, with the boxes not yet tested skipped.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import { StationObserver } from '../../src/supervisor/observe.js';
import { runSelfTest, type SelfTestReport } from '../../src/technician/selftest.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function selfTest(sim: SimulatedHardware, stop: AbortController): Promise<SelfTestReport> {
  return runSelfTest({
    hardware: sim,
    boxes: [1, 2, 3].map((number) => ({ number, id: `box-${number}` })),
    pulseMs: 50,
    doorOpenTimeoutMs: 10_000,
    observer: new StationObserver(),
    unsafe: () => (stop.signal.aborted ? 'the station is stopping' : null),
    signal: stop.signal,
  });
}

it('a door that springs open is reported with its time; a jammed one after doorOpenTimeoutMs, not before', async () => {
  const sim = new SimulatedHardware({ boxNumbers: [1, 2, 3], doorSpringMs: 100, inputVoltage: 12, internetSignalStrength: 100 });
  sim.locks.jammed.add(2);
  let report: SelfTestReport | undefined;
  void selfTest(sim, new AbortController()).then((r) => (report = r));
  // Box 1 opens at 100 ms; box 2's watch starts then and lasts its whole window; box 3 opens 100 ms after.
  await vi.advanceTimersByTimeAsync(100 + 9_999);
  expect(report).toBeUndefined();
  await vi.advanceTimersByTimeAsync(1 + 100);
  expect(report?.results.map((r) => [r.box, r.door])).toEqual([
    [1, 'opened'],
    [2, 'not opened'],
    [3, 'opened'],
  ]);
  expect(report?.results[0]?.openedAfterMs).toBe(100);
});

it('its signal ends the door watch at once: the box under test is not opened, the rest skipped, without waiting out doorOpenTimeoutMs', async () => {
  const sim = new SimulatedHardware({ boxNumbers: [1, 2, 3], doorSpringMs: 100, inputVoltage: 12, internetSignalStrength: 100 });
  sim.locks.jammed.add(1);
  const stop = new AbortController();
  let report: SelfTestReport | undefined;
  void selfTest(sim, stop).then((r) => (report = r));
  await vi.advanceTimersByTimeAsync(1_000);
  expect(report).toBeUndefined();
  stop.abort();
  // The fake clock has not moved since: only the abort can have ended the watch.
  await vi.advanceTimersByTimeAsync(0);
  expect(report?.results.map((r) => [r.box, r.door])).toEqual([[1, 'not opened']]);
  expect(report?.skipped).toEqual([
    { box: 2, reason: 'the station is stopping' },
    { box: 3, reason: 'the station is stopping' },
  ]);
  expect(vi.getTimerCount()).toBe(0);
});
