/**
 * No storms (docs/decisions/0006), on real sockets: the reference server answers every endpoint with
 * something the station refuses (its `malformed` fault), and the request rate and the log lines are
 * counted. Before the fix a refused /state answer was followed by the next /state at once: about
 * 2,000 requests in 6 s at a 3 s heartbeat. Now refusals add at most one /state per heartbeat
 * interval and one log line per interval.
 *
 * The measurement window is real time on purpose (a rate is requests per second); every bound is an
 * upper bound, so load on the machine can only make it easier to meet.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SEED_BARCODES, type RequestRecord } from '../../src/reference-server/index.js';
import { sleep, waitFor } from '../support/shared.js';
import { startHarness, type Harness } from '../support/harness.js';

const HEARTBEAT_MS = 250;
const WINDOW_MS = 2_000;
const FOREIGN = 'ffffffff-ffff-4fff-8fff-ffffffffffff';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

const idle = (h: Harness) => waitFor('idle', () => h.station.runtime.snapshot().mode.kind === 'idle' && h.station.runtime.snapshot().inFlight === null);
const rejectLines = (h: Harness): number => h.logs.filter((l) => l.includes('"msg":"server command rejected')).length;

interface Rate {
  readonly requests: Record<string, number>;
  readonly rejectLogLines: number;
  readonly seconds: number;
}

/** Requests per endpoint and reject log lines during `ms` of real time while `drive` runs. */
async function measure(h: Harness, ms: number, drive: () => void = () => undefined, everyMs = 50): Promise<Rate> {
  const fromSeq = h.server.lastSeq;
  const fromLogs = rejectLines(h);
  const started = performance.now();
  while (performance.now() - started < ms) {
    drive();
    await sleep(everyMs);
  }
  const seconds = (performance.now() - started) / 1000;
  const requests: Record<string, number> = {};
  for (const r of h.server.requests.filter((q: RequestRecord) => q.seq > fromSeq)) requests[r.endpoint ?? 'other'] = (requests[r.endpoint ?? 'other'] ?? 0) + 1;
  const rate = { requests, rejectLogLines: rejectLines(h) - fromLogs, seconds };
  // The figure itself, printed for decision 0006 (npx vitest run test/integration/runtime-refusal-storm.test.ts).
  console.error(`refusal storm: ${JSON.stringify(rate)} at heartbeat ${HEARTBEAT_MS} ms`);
  return rate;
}

/** At most the heartbeat's /state plus one extra per interval (and one for a window cut at its edge). */
const stateBound = (r: Rate): number => Math.ceil((r.seconds * 1000) / HEARTBEAT_MS) * 2 + 2;
const logBound = (r: Rate): number => Math.ceil((r.seconds * 1000) / HEARTBEAT_MS) + 2;

describe('refused answers to /state', () => {
  it.each([
    ['unknown type', { type: 'frobnicate' }],
    ['no command at all', { nonsense: 1 }],
    ['box-open to /state', { type: 'box-open', boxes: ['a1b2c3d4-0000-4000-8000-000000000001'], displayMessages: [] }],
    ['wait-for-closing of a foreign box', { type: 'wait-for-closing', boxes: [FOREIGN], displayMessages: [] }],
  ])('%s: /state rate bounded by the heartbeat, one log line per interval, no box opened', async (_name, body) => {
    h = await startHarness({ timing: { heartbeatIntervalMs: HEARTBEAT_MS } });
    h.server.setFault('state', { kind: 'malformed', body });
    const rate = await measure(h, WINDOW_MS);
    const states = rate.requests['state'] ?? 0;
    expect(states, JSON.stringify(rate)).toBeGreaterThanOrEqual(Math.floor(WINDOW_MS / HEARTBEAT_MS / 2));
    expect(states, JSON.stringify(rate)).toBeLessThanOrEqual(stateBound(rate));
    expect(rate.rejectLogLines, JSON.stringify(rate)).toBeLessThanOrEqual(logBound(rate));
    expect(rate.rejectLogLines).toBeGreaterThan(0);
    expect(h.sim.locks.pulses).toEqual([]);
    const last = h.server.requests.filter((r) => r.endpoint === 'state').at(-1);
    expect(last?.body).toMatchObject({ st: 'DOWN', errorMessage: expect.stringContaining('rejected command to /state') });
  });
});

describe('the malformed fault on every endpoint', () => {
  it('scans and PINs answered {"type":"frobnicate"}: one request per input, /state still bounded, no box opened', async () => {
    h = await startHarness({ timing: { heartbeatIntervalMs: HEARTBEAT_MS, duplicateScanWindowMs: 0 } });
    await idle(h);
    h.server.setFault('*', { kind: 'malformed', body: { type: 'frobnicate' } });
    let n = 0;
    const rate = await measure(h, WINDOW_MS, () => {
      n++;
      if (n % 2 === 0) h!.sim.scanBarcode(SEED_BARCODES[n % 4 === 0 ? 0 : 1]);
      else h!.sim.typePin('123456');
    });
    const inputs = (rate.requests['item-identify'] ?? 0) + (rate.requests['pin-enter'] ?? 0);
    expect(inputs, JSON.stringify(rate)).toBeGreaterThan(5);
    expect(inputs).toBeLessThanOrEqual(n);
    expect(rate.requests['state'] ?? 0, JSON.stringify(rate)).toBeLessThanOrEqual(stateBound(rate));
    expect(rate.rejectLogLines, JSON.stringify(rate)).toBeLessThanOrEqual(logBound(rate));
    expect(h.sim.locks.pulses).toEqual([]);
  });

  it('cancel answered {"type":"frobnicate"} while a box waits for closing: /state bounded, no box opened again', async () => {
    h = await startHarness({ timing: { heartbeatIntervalMs: HEARTBEAT_MS } });
    await idle(h);
    h.sim.scanBarcode(SEED_BARCODES[0]);
    await waitFor('waiting for closing, cancellable', () => {
      const m = h!.station.runtime.snapshot().mode;
      return m.kind === 'closing' && m.cancellable && h!.station.runtime.snapshot().inFlight === null;
    });
    h.server.setFault('*', { kind: 'malformed', body: { type: 'frobnicate' } });
    const rate = await measure(h, WINDOW_MS, () => h!.sim.pressCancel());
    expect(rate.requests['cancel'] ?? 0, JSON.stringify(rate)).toBeGreaterThan(3);
    expect(rate.requests['state'] ?? 0, JSON.stringify(rate)).toBeLessThanOrEqual(stateBound(rate));
    expect(rate.rejectLogLines, JSON.stringify(rate)).toBeLessThanOrEqual(logBound(rate));
    expect(h.sim.locks.pulses).toEqual([{ box: 1, ms: 50 }]);
    expect(h.sim.doors.peek(1)).toBe('OPEN');
  });
});
