/**
 * prom-client costs start-up time, so it is loaded only when metrics are on, and only after the
 * first protocol event has finished. Proven on the built daemon as a process: a `--require` hook
 * (test tooling, written here) reports when Node's module loader loads prom-client.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hashToken, newToken } from '../../src/tokens/tokens.js';
import { ReferenceServer, defaultSeed } from '../../src/reference-server/index.js';
import { MAIN, spawnDaemon } from '../support/daemon.js';
import { sleep, STATION, waitFor } from '../support/shared.js';

const HOOK = `const M = require('node:module');
const load = M._load;
let seen = false;
M._load = function (request, parent, isMain) {
  if (!seen && /[\\\\/]prom-client[\\\\/]/.test(String(request))) { seen = true; process.stderr.write('PROM-CLIENT LOADED ' + Date.now() + '\\n'); }
  return load.apply(this, arguments);
};
`;

let child: ChildProcess | undefined;
let server: ReferenceServer | undefined;
afterEach(async () => {
  if (child?.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child!.once('exit', r));
  }
  child = undefined;
  await server?.stop();
  server = undefined;
});

async function startDaemon(metrics: Record<string, unknown>, before: (s: ReferenceServer) => void = () => undefined) {
  server = new ReferenceServer({ stations: [STATION], ...defaultSeed(STATION) });
  const url = await server.start();
  before(server);
  const dir = mkdtempSync(join(tmpdir(), 'lazy-'));
  writeFileSync(join(dir, 'hook.cjs'), HOOK);
  writeFileSync(join(dir, 'station-password'), STATION.password);
  const token = newToken();
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      station: { id: STATION.id, boxes: STATION.boxes.map((id, i) => ({ number: i + 1, id })) },
      server: { baseUrl: new URL(url).origin, answerTimeoutMs: 5_000 },
      timing: { heartbeatIntervalMs: 300 },
      storage: { directory: null },
      technician: { listen: { host: '127.0.0.1', port: 0 }, tokens: [{ name: 'prometheus', scope: 'metrics', hash: hashToken(token) }] },
      metrics,
    }),
  );
  const p = spawnDaemon(process.execPath, ['--require', join(dir, 'hook.cjs'), MAIN, '--config', join(dir, 'config.json')], { CREDENTIALS_DIRECTORY: dir });
  child = p.child;
  const port = await waitFor('technician port', () => /"address":"(http:\/\/127\.0\.0\.1:\d+)".*technician port listening/.exec(p.out())?.[1], 15_000);
  return { srv: server, out: p.out, err: p.err, port, token };
}

describe('prom-client is loaded lazily', () => {
  it('metrics on: not while the first /state is in flight; right after its answer, with no scrape asking', async () => {
    // The server holds the first /state for 3 s.
    const d = await startDaemon({}, (s) => s.setFault('state', { kind: 'delay', ms: 3_000 }, { times: 1 }));
    const answered = (): number[] =>
      d
        .out()
        .split('\n')
        .filter((l) => l.includes('"event answered"'))
        .map((l) => {
          const { time } = JSON.parse(l) as { time: number | string };
          return typeof time === 'number' ? time : Date.parse(time);
        });
    await sleep(1_000);
    // Read together: while nothing is answered yet, prom-client must not be loaded.
    const [err, answers] = [d.err(), answered()];
    if (answers.length === 0) expect(err).not.toContain('PROM-CLIENT LOADED');
    else console.error('lazy-load: the first answer came within a second of the port listening (a slow machine); only the order is checked');
    const loadedAt = await waitFor('prom-client loaded after an answer', () => /PROM-CLIENT LOADED (\d+)/.exec(d.err())?.[1], 10_000);
    const firstAnswer = await waitFor('an answered event in the log', () => answered()[0]);
    expect(Number(loadedAt)).toBeGreaterThanOrEqual(firstAnswer);
    expect(d.srv.requests[0]).toMatchObject({ endpoint: 'state', fault: 'delay' });
    const r = await fetch(`${d.port}/metrics`, { headers: { authorization: `Bearer ${d.token}` } });
    expect(r.status).toBe(200);
    expect(await r.text()).toContain('pickup_station_events_total{');
  });

  it('metrics off: never loaded, and /metrics is a 404', async () => {
    const d = await startDaemon({ enabled: false });
    await waitFor('three answered heartbeats', () => d.srv.requests.filter((r) => r.endpoint === 'state' && r.status === 200).length >= 3, 10_000);
    const r = await fetch(`${d.port}/metrics`, { headers: { authorization: `Bearer ${d.token}` } });
    expect(r.status).toBe(404);
    expect(d.err()).not.toContain('PROM-CLIENT LOADED');
  });
});
