/**
 * Two latencies of one station (real runtime, protocol client and pino at info into a discarding
 * stream) against the reference server in the same process (one clock), observed only through
 * public APIs:
 *
 * - box-open answer received → lock output driven: from Node's `http.client.response.finish`
 *   diagnostics channel (the response head of the /item-identify has been parsed) to the
 *   runtime's `lock` energized event, split at the runtime's `event-done` (got + p-retry + answer
 *   parsing before it, core transition + pulse chain after it);
 * - door edge → /state received at the server: from the simulated door sensor's change (no
 *   debounce in simulation) to the request record's `at`.
 *
 *   node latency-station.js ITERATIONS WARMUP STATE_DIR   → the LatencyResult as one IPC message, then exit
 *
 * Run by bench/latency.ts with the node under test, bundled like the release.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import { Writable } from 'node:stream';
import { startStation, type RunningStation } from '../../src/app.js';
import { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import { createLogger } from '../../src/log.js';
import { ReferenceServer, generateStation, type RequestRecord } from '../../src/reference-server/index.js';
import type { RuntimeEvent } from '../../src/station/runtime.js';
import { stationConfig } from '../lib/station.js';
import { summarize, type Summary } from '../lib/stats.js';

interface LatencyResult {
  /** answer received → lock energized. */
  readonly answerToLock: Summary;
  /** answer received → runtime event-done (HTTP client side). */
  readonly answerToDone: Summary;
  /** runtime event-done → lock energized (core + runtime). */
  readonly doneToLock: Summary;
  /** door edge → /state received at the server. */
  readonly doorToState: Summary;
}

const RESPONSE_CHANNEL = 'http.client.response.finish';

async function measure(iterations: number, warmup: number, stateDir: string): Promise<LatencyResult> {
  const def = generateStation(8);
  const server = new ReferenceServer({ stations: [def], maxRecords: 1_000 });
  const url = await server.start();
  const config = stationConfig(def, url, {
    // Short pulses and spring so one deposit cycle takes milliseconds; the heartbeat far away so
    // it never collides with a measured event.
    locks: { pulseMs: 10 },
    hardware: { kind: 'simulated', doorSpringMs: 1, inputVoltage: 12.1, internetSignalStrength: 100 },
    timing: { heartbeatIntervalMs: 119_000 },
    // On disk, as the unit's StateDirectory: a write before a pulse costs what it costs in the field.
    storage: { directory: stateDir },
  });
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  const sim = new SimulatedHardware({
    boxNumbers: config.station.boxes.map((b) => b.number),
    doorSpringMs: 1,
    inputVoltage: 12.1,
    internetSignalStrength: 100,
  });
  const station = await startStation({ config, password: def.password, log: createLogger('info', sink), hardware: sim });

  let answerAt = 0;
  // Locks energized now (the runtime's public lock events). Pulses run one after another (the
  // runtime's pulse chain), so a box-open answered while the previous 10 ms pulse still runs waits
  // for its end: measured so, ~15 % of the samples did, and they made the whole p99 (2-4 ms, the
  // rest of that pulse). The measured scan goes out only once the previous pulse has ended.
  let energized = 0;
  const lockEvents = station.runtime.onEvent((e) => {
    if (e.type === 'lock') energized += e.energized ? 1 : -1;
  });
  const onResponse = (m: unknown): void => {
    const path = (m as { request?: ClientRequest }).request?.path ?? '';
    if (path.endsWith('/item-identify')) answerAt = performance.now();
  };
  subscribe(RESPONSE_CHANNEL, onResponse);
  const answerToLock: number[] = [];
  const answerToDone: number[] = [];
  const doneToLock: number[] = [];
  const doorToState: number[] = [];
  try {
    await waitEvent(station, (e) => e.type === 'event-done' && e.record.endpoint === 'state');
    for (let i = 0; i < warmup + iterations; i++) {
      const keep = i >= warmup;
      // Deposit: scan -> box-open -> lock -> door springs OPEN -> /state -> close -> /state.
      await until(() => energized === 0);
      const value = `4${String(i).padStart(13, '0')}`;
      server.addDeposit({ identifierValue: value, identifierType: 'BAR_CODE', stationId: def.id, boxId: def.boxes[0] ?? '' });
      let doneAt = 0;
      const off = station.runtime.onEvent((e) => {
        if (e.type === 'event-done' && e.record.endpoint === 'item-identify') doneAt = performance.now();
      });
      const locked = waitEvent(station, (e) => e.type === 'lock' && e.energized);
      const opened = server.waitForRequest((r) => stateSays(r, def.boxes[0] ?? '', 'OPEN'), 5_000, { afterSeq: server.lastSeq });
      sim.scanBarcode(value);
      await locked;
      const lockAt = performance.now();
      off();
      if (keep) {
        answerToLock.push(lockAt - answerAt);
        answerToDone.push(doneAt - answerAt);
        doneToLock.push(lockAt - doneAt);
      }
      await opened;
      await waitIdle(station);
      const closed = await doorEdge(
        server,
        () => sim.closeDoor(1),
        (r) => stateSays(r, def.boxes[0] ?? '', 'CLOSED'),
      );
      await waitIdle(station);
      // A forced door (box 8) and its closing: two more edges, no lock involved.
      const forced = await doorEdge(
        server,
        () => sim.forceOpen(8),
        (r) => stateSays(r, def.boxes[7] ?? '', 'OPEN'),
      );
      await waitIdle(station);
      const shut = await doorEdge(
        server,
        () => sim.closeDoor(8),
        (r) => stateSays(r, def.boxes[7] ?? '', 'CLOSED'),
      );
      await waitIdle(station);
      if (keep) doorToState.push(closed, forced, shut);
    }
  } finally {
    unsubscribe(RESPONSE_CHANNEL, onResponse);
    lockEvents();
    await station.stop();
    await server.stop();
  }
  return {
    answerToLock: summarize(answerToLock),
    answerToDone: summarize(answerToDone),
    doneToLock: summarize(doneToLock),
    doorToState: summarize(doorToState),
  };
}

function stateSays(r: RequestRecord, boxId: string, st: 'OPEN' | 'CLOSED'): boolean {
  if (r.endpoint !== 'state' || typeof r.body !== 'object' || r.body === null || !('boxes' in r.body) || !Array.isArray(r.body.boxes)) return false;
  return (r.body.boxes as { id: string; st: string }[]).some((b) => b.id === boxId && b.st === st);
}

/** Time from a door edge to the /state that reports it, at the server. */
async function doorEdge(server: ReferenceServer, edge: () => void, match: (r: RequestRecord) => boolean): Promise<number> {
  const got = server.waitForRequest(match, 5_000, { afterSeq: server.lastSeq });
  const t0 = performance.now();
  edge();
  return (await got).at - t0;
}

/** Until `done()` holds, polled every millisecond (only between measurements). */
async function until(done: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error('bench: condition not met in time');
    await new Promise((r) => setTimeout(r, 1));
  }
}

/**
 * Until nothing is in flight or owed (the last answer has been applied). Polled: an answer that
 * changes neither mode nor display emits no runtime event after it is applied. Only between
 * measurements, never inside one.
 */
async function waitIdle(station: RunningStation, timeoutMs = 5_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const s = station.runtime.snapshot();
    if (s.inFlight === null && !s.stateOwed) return;
    if (performance.now() > deadline) throw new Error('bench: station did not become idle');
    await new Promise((r) => setTimeout(r, 1));
  }
}

function waitEvent(station: RunningStation, pred: (e: RuntimeEvent) => boolean, timeoutMs = 5_000): Promise<RuntimeEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`bench: no matching runtime event within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = station.runtime.onEvent((e) => {
      if (!pred(e)) return;
      clearTimeout(timer);
      off();
      resolve(e);
    });
  });
}

const [iterations, warmup, stateDir] = process.argv.slice(2);
if (stateDir === undefined) throw new Error('usage: latency-station ITERATIONS WARMUP STATE_DIR');
measure(Number(iterations), Number(warmup), stateDir).then(
  (result) => process.send?.({ result }, () => process.exit(0)),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
