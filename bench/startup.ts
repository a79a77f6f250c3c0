/**
 * Process start → first /state received at the reference server (the built daemon, as systemd
 * runs it: `node dist/src/main.js --config FILE`, password from $CREDENTIALS_DIRECTORY, log at
 * info to a discarded stdout), beside bare `node` start → first POST received by the same server
 * (bench/children/bare-post.ts). Runs interleaved; one clock (this process's performance.now()).
 *
 * Evidence for what dominates: the load time of each dependency's module graph in a fresh process
 * (bench/children/import-cost.ts), and optionally a --cpu-prof of one daemon start by origin.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ReferenceServer, generateStation, type RequestRecord, type SimStation } from '../src/sim/index.js';
import { profileByOrigin, type ProfileShare } from './lib/cpuprofile.js';
import { MAIN_JS, childScript, spawnNode, stopChild } from './lib/proc.js';
import { writeDaemonFiles } from './lib/station.js';
import { summarize, type Summary } from './lib/stats.js';

export interface StartupResult {
  readonly station: Summary;
  readonly bare: Summary;
  /** Median import time per module graph, fresh process each, ms. */
  readonly imports: readonly { readonly specifier: string; readonly importMs: number }[];
  /** Node's own boot before the first line of a script, median ms. */
  readonly nodeBootMs: number;
  readonly profile: readonly ProfileShare[] | null;
}

/** Module graphs the daemon loads, the heaviest dependencies alone first. */
const IMPORTS = ['zod', 'got', 'pino', 'p-retry', '../../src/config/schema.js', '../../src/protocol/client.js', '../../src/daemon.js'];

export async function benchStartup(dir: string, runs: number, opts: { profileDir: string | null }): Promise<StartupResult> {
  const def = generateStation(8);
  const server = new ReferenceServer({ stations: [def], maxRecords: 1_000 });
  const url = await server.start();
  const { file, env } = writeDaemonFiles(dir, def, url);
  const station: number[] = [];
  const bare: number[] = [];
  let profile: ProfileShare[] | null = null;
  try {
    // One unmeasured run of each warms the page cache, as on a station that has booted before.
    await daemonStart(server, def, file, env, []);
    await bareStart(server, def, url);
    for (let i = 0; i < runs; i++) {
      if (i % 2 === 0) {
        station.push(await daemonStart(server, def, file, env, []));
        bare.push(await bareStart(server, def, url));
      } else {
        bare.push(await bareStart(server, def, url));
        station.push(await daemonStart(server, def, file, env, []));
      }
    }
    if (opts.profileDir !== null) {
      mkdirSync(opts.profileDir, { recursive: true });
      const before = new Set(readdirSync(opts.profileDir));
      await daemonStart(server, def, file, env, ['--cpu-prof', '--cpu-prof-dir', opts.profileDir]);
      const written = readdirSync(opts.profileDir).find((f) => f.endsWith('.cpuprofile') && !before.has(f));
      if (written !== undefined) profile = profileByOrigin(join(opts.profileDir, written));
    }
  } finally {
    await server.stop();
  }
  const costs = IMPORTS.map((specifier) => ({ specifier, ...importCost(specifier, 5) }));
  return {
    station: summarize(station),
    bare: summarize(bare),
    imports: costs.map(({ specifier, importMs }) => ({ specifier, importMs })),
    nodeBootMs: summarize(costs.map((c) => c.bootMs)).p50,
    profile,
  };
}

const isState = (id: string) => (r: RequestRecord) => r.endpoint === 'state' && r.stationId === id;

async function daemonStart(server: ReferenceServer, def: SimStation, file: string, env: NodeJS.ProcessEnv, nodeFlags: string[]): Promise<number> {
  const first = server.waitForRequest(isState(def.id), 15_000, { afterSeq: server.lastSeq });
  const t0 = performance.now();
  const p = spawnNode([...nodeFlags, MAIN_JS, '--config', file], { env, stdio: 'ignore' });
  try {
    return (await first).at - t0;
  } finally {
    await stopChild(p);
  }
}

async function bareStart(server: ReferenceServer, def: SimStation, url: string): Promise<number> {
  const body = JSON.stringify({ station: def.id, st: 'UP', errorMessage: null, boxes: def.boxes.map((id) => ({ id, st: 'CLOSED' })), event: randomUUID() });
  const authorization = `Basic ${Buffer.from(`${def.id}:${def.password}`).toString('base64')}`;
  const first = server.waitForRequest(isState(def.id), 15_000, { afterSeq: server.lastSeq });
  const t0 = performance.now();
  const p = spawnNode([childScript('bare-post'), `${url}/state`, authorization, body], { stdio: 'ignore' });
  try {
    return (await first).at - t0;
  } finally {
    await p.exited;
  }
}

/** Median of `runs` fresh processes (clean env, like every child here). Synchronous on purpose: nothing else runs meanwhile. */
function importCost(specifier: string, runs: number): { importMs: number; bootMs: number } {
  const imports: number[] = [];
  const boots: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = execFileSync(process.execPath, [childScript('import-cost'), specifier], { encoding: 'utf8', env: { PATH: process.env['PATH'] } });
    const r = JSON.parse(out) as { importMs: number; bootMs: number };
    imports.push(r.importMs);
    boots.push(r.bootMs);
  }
  return { importMs: summarize(imports).p50, bootMs: summarize(boots).p50 };
}
