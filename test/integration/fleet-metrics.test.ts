/**
 * Fleet mode as a monitoring demo: one /metrics for every virtual station (a `station` label
 * each), behind a token when a token file is given, and the scrape's size and render time in the
 * summary. Real stations against the in-process reference server over HTTP on 127.0.0.1.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newToken } from '../../src/tokens/tokens.js';
import { runFleetCli } from '../../src/fleet/cli.js';
import { runFleet, SCRAPE_MEASUREMENTS, type FleetSummary } from '../../src/fleet/run.js';
import { createLogger } from '../../src/log.js';
import { generateStation, seedData } from '../../src/reference-server/index.js';
import { sleep, waitFor } from '../support/shared.js';
import { parseExposition } from '../support/prom-text.js';

describe('fleet metrics', () => {
  it('serves every station under its own station label, with a token; the summary sizes and times one whole scrape', async () => {
    const data = seedData(Array.from({ length: 3 }, () => generateStation()));
    const token = newToken();
    const tokenFile = join(mkdtempSync(join(tmpdir(), 'fleet-metrics-')), 'token');
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
    const lines: string[] = [];
    const stop = new AbortController();
    const run = runFleet(
      {
        data,
        serverUrl: null,
        version: 'v2',
        heartbeatMs: 300,
        ratePerMin: 120,
        holdMs: 50,
        rampMs: 0,
        maxSockets: 4,
        durationMs: 30_000,
        reportMs: null,
        log: createLogger('silent'),
        metrics: { host: '127.0.0.1', port: 0, tokenFile },
      },
      { out: (l) => lines.push(l), signal: stop.signal },
    );
    let summary: FleetSummary;
    try {
      const url = await waitFor('metrics url', () => /metrics of every station at (\S+)/.exec(lines.join('\n'))?.[1]);
      const scrape = async (): Promise<ReturnType<typeof parseExposition>> => {
        const r = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
        expect(r.status).toBe(200);
        return parseExposition(await r.text());
      };
      // Every station answered and pulsed a lock at least once.
      let e = await scrape();
      const t0 = performance.now();
      while (!data.stations.every((s) => e.find('pickup_station_lock_pulses_total', { station: s.id }).some((x) => x.value > 0))) {
        if (performance.now() - t0 > 20_000) throw new Error('timed out waiting for a pulse on every station');
        await sleep(200);
        e = await scrape();
      }
      for (const s of data.stations) {
        expect(e.find('pickup_station_events_total', { station: s.id, endpoint: 'state' }).reduce((n, x) => n + x.value, 0)).toBeGreaterThan(0);
        expect(e.find('pickup_station_mode', { station: s.id })).toHaveLength(6);
        expect(e.find('pickup_station_door_open', { station: s.id })).toHaveLength(s.boxes.length);
      }
      expect(new Set(e.find('pickup_station_mode').map((x) => x.labels['station']))).toEqual(new Set(data.stations.map((s) => s.id)));
      // The fleet process's own metrics, once.
      expect(e.find('pickup_station_process_resident_memory_bytes')).toHaveLength(1);

      expect((await fetch(url)).status).toBe(401);
      expect((await fetch(url, { headers: { authorization: `Bearer ${newToken()}` } })).status).toBe(401);
      expect((await fetch(url.replace('/metrics', '/healthz'))).status).toBe(200);
    } finally {
      stop.abort();
      summary = await run;
    }
    expect(summary.metrics).toMatchObject({ stations: 3 });
    expect(summary.metrics!.series).toBeGreaterThan(3 * 30);
    expect(summary.metrics!.bytes).toBeGreaterThan(summary.metrics!.series * 20);
    expect(summary.metrics!.renderMs.n).toBeGreaterThanOrEqual(SCRAPE_MEASUREMENTS + summary.metrics!.served);
    expect(summary.metrics!.served).toBeGreaterThanOrEqual(1);
    expect(summary.metrics!.renderMs.p50).toBeGreaterThan(0);
  }, 40_000);

  it('CLI: the summary line gives the scrape size and time; no token file on a non-loopback host, or metrics options without a port, are usage errors', async () => {
    const lines: string[] = [];
    const errors: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => errors.push(l) };
    const code = await runFleetCli(
      [
        '--stations',
        '2',
        '--rate',
        '0',
        '--heartbeat-ms',
        '300',
        '--ramp-ms',
        '0',
        '--duration-s',
        '1',
        '--report-s',
        '0',
        '--log-level',
        'silent',
        '--metrics-port',
        '0',
      ],
      io,
    );
    expect(code).toBe(0);
    expect(lines.join('\n')).toMatch(/metrics \(http:\/\/127\.0\.0\.1:\d+\/metrics\): one scrape of 2 stations = \d+ series, [\d.]+ MiB; render p50 \d+ ms/);

    expect(await runFleetCli(['--metrics-port', '0', '--metrics-host', '0.0.0.0', '--duration-s', '1'], io)).toBe(2);
    expect(errors.join('\n')).toMatch(/loopback address only/);
    expect(await runFleetCli(['--metrics-token-file', '/nonexistent'], io)).toBe(2);
    expect(errors.join('\n')).toMatch(/need --metrics-port/);
    const bad = join(mkdtempSync(join(tmpdir(), 'fleet-metrics-')), 'token');
    writeFileSync(bad, 'not-a-token-but-maybe-a-secret\n');
    expect(await runFleetCli(['--metrics-port', '0', '--metrics-token-file', bad, '--duration-s', '1'], io)).toBe(2);
    expect(errors.join('\n')).not.toContain('not-a-token-but-maybe-a-secret');
  });
});
