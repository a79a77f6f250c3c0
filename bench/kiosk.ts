/**
 * The kiosk page's keys under a local flood: the daemon as the unit starts it (its ExecStart, placed
 * in the bench's release folder), a kiosk page on the simulated station, and the kiosk's keys (with
 * the secret, on a kept-alive connection as the browser keeps it) timed from the request to the
 * answer — quiet, then while an attacker process without the secret (test/support/socket-flood.mjs)
 * holds 300 idle sockets, 10 slowloris sockets and 20 asking ones, reconnecting whenever the
 * station closes one. The daemon binds the port itself here (the development switch); under
 * systemd it takes the socket unit's, which the same edge serves.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { kioskSecretHash } from '../src/devices/kiosk/secret.js';
import { ReferenceServer, generateStation } from '../src/reference-server/index.js';
import { freePort, startFlood } from './lib/flood.js';
import type { NodeUnderTest } from './lib/node.js';
import { sleep, spawnNode, stopChild } from './lib/proc.js';
import { writeDaemonFiles } from './lib/station.js';
import { summarize, type Summary } from './lib/stats.js';
import { ms, renderTable } from './lib/table.js';
import { placeCommand, readUnit } from './lib/unit.js';

export interface KioskResult {
  readonly quiet: Summary;
  readonly flood: Summary;
  /** What the attacker saw (its own counts). */
  readonly attacker: Readonly<Record<string, number>>;
}

/** POST one key with the secret; the milliseconds to its answer (status 204 expected). */
function key(port: number, secret: string, agent: Agent, k: string): Promise<number> {
  const t0 = performance.now();
  const body = JSON.stringify({ key: k });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/key',
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 204 ? resolve(performance.now() - t0) : reject(new Error(`kiosk key answered ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function keys(port: number, secret: string, pairs: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const out: number[] = [];
  try {
    // A digit and its backspace: the PIN never grows, every key changes the screen.
    for (let i = 0; i < pairs; i++) for (const k of ['5', 'backspace']) out.push(await key(port, secret, agent, k));
  } finally {
    agent.destroy();
  }
  return out;
}

export async function benchKiosk(dir: string, release: string, node: NodeUnderTest, pairs: number): Promise<KioskResult> {
  const def = generateStation(8);
  const server = new ReferenceServer({ stations: [def], maxRecords: 1_000 });
  const url = await server.start();
  const port = await freePort();
  const secret = randomBytes(32).toString('hex');
  const hashFile = join(dir, 'kiosk-secret.sha256');
  writeFileSync(hashFile, `${kioskSecretHash(secret)}\n`);
  const { file, env } = writeDaemonFiles(dir, def, url, {
    storage: { directory: join(dir, 'kiosk-state') },
    hardware: { kind: 'simulated', kiosk: { kind: 'kiosk', port, secretHashFile: hashFile, developmentOwnPort: true } },
  });
  const unit = readUnit();
  const cmd = placeCommand(unit.execStart, unit, { node: node.path, release, configFile: file, cacheDir: join(dir, 'kiosk-cache') });
  const p = spawnNode([...cmd.nodeFlags, ...cmd.args], { node: node.path, env: { ...cmd.env, ...env }, stdio: 'ignore' });
  try {
    await server.waitForRequest((r) => r.endpoint === 'state' && r.stationId === def.id, 15_000);
    // Start-up work (JIT, first GCs) done before anything is timed, as bench/idle.ts does.
    await sleep(2_000);
    await keys(port, secret, 10);
    const quiet = await keys(port, secret, pairs);
    const attacker = startFlood(port, { idle: 300, slow: 10, ask: 20 });
    try {
      await attacker.ready;
      // The attacker's sockets open and the caps in play before the first timed key.
      await sleep(1_000);
      const flood = await keys(port, secret, pairs);
      return { quiet: summarize(quiet), flood: summarize(flood), attacker: await attacker.stop() };
    } finally {
      await attacker.stop();
    }
  } finally {
    await stopChild(p);
    await server.stop();
  }
}

export function kioskReport(r: KioskResult): string {
  const row = (what: string, s: Summary): string[] => [what, String(s.n), ms(s.p50), ms(s.p99), ms(s.max)];
  const a = r.attacker;
  return [
    renderTable(
      ['kiosk page: a key with the secret -> its answer (ms)', 'n', 'p50', 'p99', 'max'],
      [row('quiet', r.quiet), row('300 idle + 10 slowloris + 20 asking sockets without the secret', r.flood)],
    ),
    `  the attacker opened ${a['opened'] ?? '-'} connections; the station closed ${a['closedByStation'] ?? '-'}, answered 401 ${a['answered401'] ?? '-'} and 408 ${a['answered408'] ?? '-'} times`,
  ].join('\n');
}
