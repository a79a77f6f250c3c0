/**
 * The technician port's answers under a local flood: the daemon as the unit starts it (its
 * ExecStart, placed in the bench's release folder) with its port's shipped limits and a read token
 * from the systemd credential, as in the field; `/healthz` (a monitor) and `/api/status` (what
 * `stationctl status` asks) each on a fresh connection, as a monitor's probe and a stationctl
 * process make them, timed from the request to the end of the answer — quiet, then while an
 * attacker process without a token (test/support/socket-flood.mjs) holds 200 idle sockets and 10
 * slowloris sockets, reconnecting whenever the station closes one (the flood of
 * test/e2e/technician-port-flood.test.ts, which asserts that every answer comes; this times them).
 */
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { ReferenceServer, generateStation } from '../src/reference-server/index.js';
import { TOKENS_CREDENTIAL } from '../src/config/technician.js';
import { hashToken, newToken } from '../src/tokens/tokens.js';
import { freePort, startFlood } from './lib/flood.js';
import type { NodeUnderTest } from './lib/node.js';
import { sleep, spawnNode, stopChild } from './lib/proc.js';
import { writeDaemonFiles } from './lib/station.js';
import { summarize, type Summary } from './lib/stats.js';
import { ms, renderTable } from './lib/table.js';
import { placeCommand, readUnit } from './lib/unit.js';

const IDLE = 200;
const SLOW = 10;

interface Series {
  readonly healthz: Summary;
  readonly status: Summary;
  /** Requests whose fresh connection was closed to make room before an answer, and sent again. */
  readonly resets: number;
}

export interface TechnicianResult {
  readonly quiet: Series;
  readonly flood: Series;
  /** What the attacker saw (its own counts). */
  readonly attacker: Readonly<Record<string, number>>;
}

/** One GET on a fresh connection; the milliseconds to the end of its 200 answer. */
function get(port: number, path: string, token: string | null): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, headers: token === null ? {} : { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(performance.now() - t0) : reject(new Error(`${path} answered ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * `rounds` of /healthz then /api/status. A connection reset before the answer (the port made room
 * by closing a socket that had not yet sent its request) is counted and the request sent again, as
 * stationctl does; the time is the caller's, from the first attempt.
 */
async function series(port: number, token: string, rounds: number): Promise<Series> {
  let resets = 0;
  const timed = async (path: string, auth: string | null): Promise<number> => {
    const t0 = performance.now();
    for (;;) {
      try {
        await get(port, path, auth);
        return performance.now() - t0;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ECONNRESET') throw e;
        resets++;
      }
    }
  };
  const healthz: number[] = [];
  const status: number[] = [];
  for (let i = 0; i < rounds; i++) {
    healthz.push(await timed('/healthz', null));
    status.push(await timed('/api/status', token));
  }
  return { healthz: summarize(healthz), status: summarize(status), resets };
}

export async function benchTechnician(dir: string, release: string, node: NodeUnderTest, rounds: number): Promise<TechnicianResult> {
  const def = generateStation(8);
  const server = new ReferenceServer({ stations: [def], maxRecords: 1_000 });
  const url = await server.start();
  const port = await freePort();
  const token = newToken();
  const { file, env } = writeDaemonFiles(dir, def, url, { technician: { listen: { host: '127.0.0.1', port } } });
  // The token by its hash, in the systemd credential the unit loads (LoadCredentialEncrypted=technician-tokens).
  writeFileSync(join(env['CREDENTIALS_DIRECTORY'] ?? dir, TOKENS_CREDENTIAL), JSON.stringify([{ name: 'bench', scope: 'read', hash: hashToken(token) }]));
  const unit = readUnit();
  const cmd = placeCommand(unit.execStart, unit, { node: node.path, release, configFile: file, cacheDir: join(dir, 'technician-cache') });
  const p = spawnNode([...cmd.nodeFlags, ...cmd.args], { node: node.path, env: { ...cmd.env, ...env }, stdio: 'ignore' });
  try {
    await server.waitForRequest((r) => r.endpoint === 'state' && r.stationId === def.id, 15_000);
    // Start-up work (JIT, first GCs) done before anything is timed, as bench/idle.ts does.
    await sleep(2_000);
    await series(port, token, 10);
    const quiet = await series(port, token, rounds);
    const attacker = startFlood(port, { idle: IDLE, slow: SLOW });
    try {
      await attacker.ready;
      // The attacker's sockets open and the caps in play before the first timed request.
      await sleep(1_000);
      const flood = await series(port, token, rounds);
      return { quiet, flood, attacker: await attacker.stop() };
    } finally {
      await attacker.stop();
    }
  } finally {
    await stopChild(p);
    await server.stop();
  }
}

export function technicianReport(r: TechnicianResult): string {
  const row = (what: string, s: Summary): string[] => [what, String(s.n), ms(s.p50), ms(s.p99), ms(s.max)];
  const flood = `${IDLE} idle + ${SLOW} slowloris sockets without a token`;
  const a = r.attacker;
  return [
    renderTable(
      ['technician port: a request on a fresh connection -> its answer (ms)', 'n', 'p50', 'p99', 'max'],
      [
        row('/healthz, quiet', r.quiet.healthz),
        row('/api/status (read token), quiet', r.quiet.status),
        row(`/healthz, ${flood}`, r.flood.healthz),
        row(`/api/status (read token), ${flood}`, r.flood.status),
      ],
    ),
    `  connections closed to make room before their answer, and sent again: ${r.quiet.resets} quiet, ${r.flood.resets} under the flood`,
    `  the attacker opened ${a['opened'] ?? '-'} connections; the station closed ${a['closedByStation'] ?? '-'} and answered 408 ${a['answered408'] ?? '-'} times`,
  ].join('\n');
}
