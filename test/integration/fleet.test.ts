/**
 * Fleet mode against the reference server over real HTTP on 127.0.0.1: a small fleet at a fast
 * rate completes deposits, pickups and cancels (as the server's own history records them), every
 * station under its own id and password, and keeps its heartbeat. Server in this process, fleet
 * through `--server` semantics (control API supply), so both sides share only the stations data.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { baseUrlOf, runFleetCli } from '../../src/fleet/cli.js';
import { useSharedAgents } from '../../src/fleet/agent.js';
import { Fleet } from '../../src/fleet/fleet.js';
import { runFleet, type FleetSummary } from '../../src/fleet/run.js';
import { seededSupply } from '../../src/fleet/supply.js';
import { createLogger } from '../../src/log.js';
import { ReferenceServer, generateStation, parseSimData, seedData, type RequestRecord } from '../../src/reference-server/index.js';
import { waitFor } from '../support/shared.js';

let server: ReferenceServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const HEARTBEAT_MS = 1_000;

/** Largest gap between consecutive answered /state of one station, at the server. */
/** How many /state requests of `stationId` the server answered. */
function stateCount(records: readonly RequestRecord[], stationId: string): number {
  return records.filter((r) => r.endpoint === 'state' && r.stationId === stationId && r.status === 200).length;
}

describe('fleet', () => {
  it('runs deposits, pickups and cancels on every station, each with its own credentials, heartbeats kept', async () => {
    const data = seedData(Array.from({ length: 5 }, () => generateStation()));
    server = new ReferenceServer({ ...data, maxRecords: 100_000 });
    const url = await server.start();
    const s = server;
    const kindsDone = (id: string): Set<string> => new Set(s.stationState(id).history.map((h) => h.kind));
    const allDone = (): boolean => data.stations.every((st) => ['deposit-stored', 'pickup-done', 'deposit-cancelled'].every((k) => kindsDone(st.id).has(k)));
    const stop = new AbortController();
    // Bounded: stop when the server has seen every kind of action on every station, or after 30 s.
    const watch = setInterval(() => {
      if (allDone()) stop.abort();
    }, 50);
    let summary: FleetSummary;
    try {
      summary = await runFleet(
        {
          data,
          serverUrl: baseUrlOf(url, 'v2'),
          version: 'v2',
          heartbeatMs: HEARTBEAT_MS,
          ratePerMin: 120,
          holdMs: 50,
          rampMs: 200,
          maxSockets: 4,
          durationMs: 30_000,
          reportMs: null,
          log: createLogger('silent'),
        },
        { out: () => undefined, signal: stop.signal },
      );
    } finally {
      clearInterval(watch);
    }
    expect(allDone()).toBe(true);
    expect(summary.supply).toMatch(/control API/);
    expect(summary.stats.unanswered).toBe(0);
    for (const k of ['deposit', 'pickup', 'cancel'] as const) expect(summary.stats.actions[k].done).toBeGreaterThan(0);

    const records = s.requests;
    // Every request authenticated, as the station it claims to be.
    expect(records.filter((r) => r.endpoint !== null && r.status === 401)).toEqual([]);
    for (const st of data.stations) {
      const own = records.filter((r) => r.endpoint !== null && r.stationId === st.id);
      expect(own.length).toBeGreaterThan(0);
      expect(own.every((r) => typeof r.body === 'object' && r.body !== null && 'station' in r.body && r.body.station === st.id)).toBe(true);
      // Heartbeats kept: more than the start's /state. How evenly they are spaced is a figure of
      // the bench (bench/fleet.ts: gaps against the interval, late and silent stations).
      expect(stateCount(records, st.id)).toBeGreaterThan(1);
    }
    expect(summary.heartbeatSent.silent).toBe(0);
  }, 40_000);

  it('a stop during the ramp starts no further station: the wait for the next start is ended, not waited out', async () => {
    const data = seedData(Array.from({ length: 3 }, () => generateStation()));
    server = new ReferenceServer({ ...data });
    const url = await server.start();
    const agents = useSharedAgents(4);
    // The next station is due in 200 s: only the stop can end the ramp before the test's own time-out.
    const { fleet, started } = Fleet.start({
      stations: data.stations,
      baseUrl: baseUrlOf(url, 'v2'),
      version: 'v2',
      supply: seededSupply(data),
      heartbeatMs: HEARTBEAT_MS,
      ratePerMin: 0,
      holdMs: 50,
      rampMs: 600_000,
      log: createLogger('silent'),
      agent: agents,
    });
    try {
      await waitFor('the first station started', () => fleet.members.length === 1);
      await fleet.stop();
      await started;
      expect(fleet.members).toHaveLength(1);
    } finally {
      agents.release();
    }
  });

  it('CLI: an in-process reference server by default, a JSON summary, usage errors, a stations file', async () => {
    const lines: string[] = [];
    const errors: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => errors.push(l) };
    const code = await runFleetCli(
      [
        '--stations',
        '3',
        '--rate',
        '0',
        '--heartbeat-ms',
        '300',
        '--ramp-ms',
        '0',
        '--duration-s',
        '1.5',
        '--report-s',
        '0',
        '--log-level',
        'silent',
        '--json',
      ],
      io,
    );
    expect(code).toBe(0);
    const summary = JSON.parse(lines[lines.length - 1] ?? '{}') as FleetSummary;
    expect(summary.stations).toBe(3);
    expect(summary.stats.unanswered).toBe(0);
    expect(summary.heartbeatReceived?.silent).toBe(0);

    expect(await runFleetCli(['--server', 'http://127.0.0.1:1/v2'], io)).toBe(2);
    expect(errors.join('\n')).toMatch(/--server needs --stations-file/);
    expect(await runFleetCli(['--stations', 'many'], io)).toBe(2);

    const file = join(mkdtempSync(join(tmpdir(), 'fleet-')), 'stations.json');
    expect(await runFleetCli(['--stations', '4', '--write-stations-file', file], io)).toBe(0);
    const data = parseSimData(JSON.parse(readFileSync(file, 'utf8')));
    expect(data.stations).toHaveLength(4);
    expect(new Set(data.stations.map((st) => st.password)).size).toBe(4);
    expect(await runFleetCli(['--stations', '5', '--stations-file', file, '--server', 'http://127.0.0.1:1'], io)).toBe(2);
  });

  it('takes the server URL as printed by the reference server or as a base URL', () => {
    expect(baseUrlOf('http://127.0.0.1:8080/v2', 'v2')).toBe('http://127.0.0.1:8080');
    expect(baseUrlOf('http://127.0.0.1:8080/v2/', 'v2')).toBe('http://127.0.0.1:8080');
    expect(baseUrlOf('https://library.example/pickup', 'v2')).toBe('https://library.example/pickup');
  });
});
