/**
 * The fleet's waits on a running station (src/fleet/wait.ts), on a fake clock: a scripted person
 * waits for what the station shows, woken by its transitions and events (never by a timer of its
 * own), bounded by a limit and cut short by an abort — each ending with its own error.
 */
import { pino } from 'pino';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { startStation, type RunningStation } from '../../src/app.js';
import { simulatedHardwareFor } from '../../src/devices/simulated/hardware.js';
import { fleetStationConfig } from '../../src/fleet/fleet.js';
import { WaitAbortedError, WaitTimeoutError, nextEvent, settledIn, until } from '../../src/fleet/wait.js';
import { SEED_BARCODES } from '../../src/reference-server/index.js';
import { ScriptedSender, waitForInput } from '../support/scripted-sender.js';
import { STATION } from '../support/shared.js';

let station: RunningStation | undefined;
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  // A pulse may be under way: the stop waits for it, on the fake clock.
  const stopping = station?.stop();
  await vi.advanceTimersByTimeAsync(10_000);
  await stopping;
  station = undefined;
  vi.useRealTimers();
});

async function started(): Promise<RunningStation> {
  const config = fleetStationConfig(STATION, { baseUrl: 'http://127.0.0.1:1', version: 'v2', heartbeatMs: 60_000 });
  const box = STATION.boxes[0]!;
  // A server as the protocol has it: a scan opens box 1; a /state with a box open is told to wait for closing.
  const sender = new ScriptedSender((endpoint, body) => {
    if (endpoint === 'item-identify') return { kind: 'command', command: { type: 'box-open', boxes: [box], displayMessages: ['Box 1'] } };
    if (endpoint === 'state' && JSON.stringify(body).includes('"OPEN"'))
      return { kind: 'command', command: { type: 'wait-for-closing', boxes: [box], displayMessages: ['Close box 1'], cancellable: false } };
    return waitForInput;
  });
  station = await startStation({ config, password: STATION.password, log: pino({ level: 'silent' }), hardware: simulatedHardwareFor(config), client: sender });
  return station;
}

it('waits for what the station shows: idle after its first /state, the answer to a scan, the doors reported open', async () => {
  const { runtime } = await started();
  const idle = until(runtime, settledIn(runtime, 'idle'), 'idle', 5_000);
  await vi.advanceTimersByTimeAsync(0);
  await expect(idle).resolves.toBe(true);
  const answered = nextEvent(
    runtime,
    (e) => (e.type === 'event-done' && e.record.endpoint === 'item-identify' ? e.record.outcome : undefined),
    'answer',
    5_000,
  );
  runtime.dispatch({ type: 'scan', identifierType: 'BAR_CODE', value: SEED_BARCODES[0], at: performance.now() });
  await vi.advanceTimersByTimeAsync(0);
  await expect(answered).resolves.toBe('box-open');
  // The pulsed door springs open on the simulated hardware; the station reports it and waits for closing.
  let closing: unknown;
  void until(runtime, settledIn(runtime, 'closing'), 'doors reported open', 5_000).then((v) => (closing = v));
  await vi.advanceTimersByTimeAsync(1_000);
  expect(closing).toBe(true);
});

it('a wait that never holds ends with WaitTimeoutError at its limit, not before', async () => {
  const { runtime } = await started();
  let outcome: unknown;
  until(runtime, settledIn(runtime, 'closing'), 'doors reported open', 5_000).catch((e: unknown) => (outcome = e));
  await vi.advanceTimersByTimeAsync(4_999);
  expect(outcome).toBeUndefined();
  await vi.advanceTimersByTimeAsync(1);
  expect(outcome).toBeInstanceOf(WaitTimeoutError);
  expect(String(outcome)).toContain('timed out after 5000 ms waiting for doors reported open');
});

it('an abort ends a wait at once with WaitAbortedError', async () => {
  const { runtime } = await started();
  const stop = new AbortController();
  let outcome: unknown;
  until(runtime, settledIn(runtime, 'closing'), 'doors reported open', 60_000, stop.signal).catch((e: unknown) => (outcome = e));
  await vi.advanceTimersByTimeAsync(10);
  stop.abort();
  await vi.advanceTimersByTimeAsync(0);
  expect(outcome).toBeInstanceOf(WaitAbortedError);
});
