import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSimServerCli, type SimCliIo } from '../../src/reference-server/cli.js';
import { DEMO_STATION, generateStation, SEED_PIN_MULTI, seedData } from '../../src/reference-server/seed.js';
import { SimStationClient } from '../support/sim-client.js';

function io(): SimCliIo & { lines: string[]; errors: string[]; stop(): void; nextLine(re: RegExp): Promise<string> } {
  const lines: string[] = [];
  const errors: string[] = [];
  const ctl = new AbortController();
  const watchers: [RegExp, (l: string) => void][] = [];
  return {
    lines,
    errors,
    signal: ctl.signal,
    out: (l) => {
      lines.push(l);
      for (const [re, resolve] of watchers) if (re.test(l)) resolve(l);
    },
    err: (l) => errors.push(l),
    stop: () => ctl.abort(),
    nextLine: (re) => {
      const seen = lines.find((l) => re.test(l));
      return seen !== undefined ? Promise.resolve(seen) : new Promise((resolve) => watchers.push([re, resolve]));
    },
  };
}

describe('runSimServerCli', () => {
  it('serves the demo station, prints URL and seed, logs one line per request, stops on abort', async () => {
    const t = io();
    const done = runSimServerCli(['--prefix', '/api/v2'], t);
    const urlLine = await t.nextLine(/^reference station server: /);
    const url = urlLine.replace('reference station server: ', '');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v2$/);
    expect(t.lines).toContain(`station ${DEMO_STATION.id} password ${DEMO_STATION.password}`);
    expect(t.lines).toContain(`  pickup PIN ${SEED_PIN_MULTI} -> box 5, 6`);
    const client = new SimStationClient(url, DEMO_STATION);
    const r = await client.state([], { traceId: 'trace-cli' });
    const logLine = await t.nextLine(/^#1 /);
    expect(logLine).toBe(`#1 POST /api/v2/state 200 wait-for-input station=${DEMO_STATION.id} event=${r.eventId} traceId=trace-cli`);
    t.stop();
    expect(await done).toBe(0);
    expect(t.lines.at(-1)).toBe('reference station server stopped');
  });

  it('loads a stations file', async () => {
    const station = generateStation(6);
    const file = join(mkdtempSync(join(tmpdir(), 'sim-cli-')), 'stations.json');
    writeFileSync(file, JSON.stringify(seedData([station])));
    const t = io();
    const done = runSimServerCli(['--stations-file', file], t);
    const url = (await t.nextLine(/^reference station server: /)).split(': ')[1]!;
    expect((await new SimStationClient(url, station).state()).status).toBe(200);
    t.stop();
    expect(await done).toBe(0);
  });

  it('exits 2 (usage) on a bad option and 78 on a bad stations file', async () => {
    const bad = io();
    expect(await runSimServerCli(['--port', 'abc'], bad)).toBe(2);
    expect(bad.errors.join('\n')).toMatch(/--port: must be an integer/);
    expect(await runSimServerCli(['--frobnicate'], io())).toBe(2);
    const file = join(mkdtempSync(join(tmpdir(), 'sim-cli-')), 'stations.json');
    writeFileSync(file, JSON.stringify({ stations: [{ id: 'x', password: 'p', boxes: [] }] }));
    const cfg = io();
    expect(await runSimServerCli(['--stations-file', file], cfg)).toBe(78);
    expect(cfg.errors.join('\n')).toMatch(/stations\.0\.id: must be a lowercase UUIDv4/);
  });
});
