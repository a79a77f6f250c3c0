/**
 * Process start → first /state received at the reference server: the daemon exactly as the unit
 * starts it (its ExecStart: node flags, app/main.js of a release folder, Environment= such as the
 * compile cache; password from $CREDENTIALS_DIRECTORY, log at info to a discarded stdout), beside
 * bare `node` start → first POST received by the same server (bench/children/bare-post.ts), with
 * the same node binary. Interleaved; one clock (this process's performance.now()). The first,
 * unmeasured run of each warms the page cache and the compile cache, as on a station that has
 * started before.
 *
 * Evidence for what is left: the main thread's CPU time up to that moment (/proc schedstat: less
 * sensitive to a loaded machine than the wall clock), the load time of the bundled daemon and of
 * the heaviest dependencies' module graphs in a fresh process, and optionally a --cpu-prof.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ReferenceServer, generateStation, type RequestRecord, type SimulatedStation } from '../src/reference-server/index.js';
import { profileByOrigin, type ProfileShare } from './lib/cpuprofile.js';
import type { NodeUnderTest } from './lib/node.js';
import { childScript, mainThreadCpuMs, spawnNode, stopChild } from './lib/proc.js';
import { writeDaemonFiles } from './lib/station.js';
import { summarize, type Summary } from './lib/stats.js';
import { placeCommand, readUnit, type Command } from './lib/unit.js';
import { waitFor } from '../test/support/shared.js';

export interface StartupResult {
  readonly station: Summary;
  readonly bare: Summary;
  /** Main-thread CPU time of the station / bare process up to the moment its request arrived. */
  readonly stationCpu: Summary;
  readonly bareCpu: Summary;
  /** The daemon's command line as run (release folder in place of /opt/pickup-station/current). */
  readonly command: string;
  /** Median import time per module graph, fresh process each, ms. */
  readonly imports: readonly { readonly specifier: string; readonly importMs: number }[];
  /** Node's own boot before the first line of a script, median ms. */
  readonly nodeBootMs: number;
  readonly profile: readonly ProfileShare[] | null;
}

/** The bundled daemon (everything it loads before its first /state), then the heaviest package graphs unbundled. */
const IMPORTS = ['zod', 'got', 'pino'];

interface Sample {
  readonly ms: number;
  readonly cpuMs: number;
}

export async function benchStartup(
  dir: string,
  release: string,
  node: NodeUnderTest,
  runs: number,
  opts: { profileDir: string | null },
): Promise<StartupResult> {
  const def = generateStation(8);
  const server = new ReferenceServer({ stations: [def], maxRecords: 1_000 });
  const url = await server.start();
  const { file, env } = writeDaemonFiles(dir, def, url, { storage: { directory: join(dir, 'state') } });
  const unit = readUnit();
  const cacheDir = join(dir, `cache-${node.version}`);
  const daemon = placeCommand(unit.execStart, unit, { node: node.path, release, configFile: file, cacheDir });
  const station: Sample[] = [];
  const bare: Sample[] = [];
  let profile: ProfileShare[] | null = null;
  try {
    // The first start warms the page cache, and runs until the daemon has written its code cache
    // for the next start (src/boot/code-cache.ts), as a station does once it is ready.
    await daemonStart(server, def, node, daemon, env, [], async () => {
      await waitFor(`the daemon's code cache in ${cacheDir}`, () => holdsFile(cacheDir, (f) => f.endsWith('.v8cache')), 10_000);
    });
    await bareStart(server, def, node, url);
    for (let i = 0; i < runs; i++) {
      if (i % 2 === 0) {
        station.push(await daemonStart(server, def, node, daemon, env, []));
        bare.push(await bareStart(server, def, node, url));
      } else {
        bare.push(await bareStart(server, def, node, url));
        station.push(await daemonStart(server, def, node, daemon, env, []));
      }
    }
    if (opts.profileDir !== null) {
      mkdirSync(opts.profileDir, { recursive: true });
      const before = new Set(readdirSync(opts.profileDir));
      await daemonStart(server, def, node, daemon, env, ['--cpu-prof', '--cpu-prof-dir', opts.profileDir]);
      const written = readdirSync(opts.profileDir).find((f) => f.endsWith('.cpuprofile') && !before.has(f));
      if (written !== undefined) profile = profileByOrigin(join(opts.profileDir, written));
    }
  } finally {
    await server.stop();
  }
  const costs = [join(release, 'app/daemon.js'), ...IMPORTS].map((specifier) => ({ specifier, ...importCost(node, specifier, 5) }));
  return {
    station: summarize(station.map((s) => s.ms)),
    bare: summarize(bare.map((s) => s.ms)),
    stationCpu: summarize(station.map((s) => s.cpuMs)),
    bareCpu: summarize(bare.map((s) => s.cpuMs).filter(Number.isFinite)),
    command: [node.path, ...daemon.nodeFlags, ...daemon.args].join(' '),
    imports: costs.map(({ specifier, importMs }) => ({ specifier: specifier.startsWith(release) ? 'app/daemon.js (bundled)' : specifier, importMs })),
    nodeBootMs: summarize(costs.map((c) => c.bootMs)).p50,
    profile,
  };
}

const isState = (id: string) => (r: RequestRecord) => r.endpoint === 'state' && r.stationId === id;

async function daemonStart(
  server: ReferenceServer,
  def: SimulatedStation,
  node: NodeUnderTest,
  cmd: Command,
  env: NodeJS.ProcessEnv,
  extraFlags: string[],
  beforeStop: () => Promise<void> = () => Promise.resolve(),
): Promise<Sample> {
  const first = server.waitForRequest(isState(def.id), 15_000, { afterSeq: server.lastSeq });
  const t0 = performance.now();
  const p = spawnNode([...cmd.nodeFlags, ...extraFlags, ...cmd.args], { node: node.path, env: { ...cmd.env, ...env }, stdio: 'ignore' });
  try {
    const ms = (await first).at - t0;
    const sample = { ms, cpuMs: mainThreadCpuMs(p.child.pid ?? 0) };
    await beforeStop();
    return sample;
  } finally {
    await stopChild(p);
  }
}

async function bareStart(server: ReferenceServer, def: SimulatedStation, node: NodeUnderTest, url: string): Promise<Sample> {
  const body = JSON.stringify({ station: def.id, st: 'UP', errorMessage: null, boxes: def.boxes.map((id) => ({ id, st: 'CLOSED' })), event: randomUUID() });
  const authorization = `Basic ${Buffer.from(`${def.id}:${def.password}`).toString('base64')}`;
  const first = server.waitForRequest(isState(def.id), 15_000, { afterSeq: server.lastSeq });
  const t0 = performance.now();
  const p = spawnNode([childScript('bare-post'), `${url}/state`, authorization, body], { node: node.path, stdio: 'ignore' });
  try {
    const ms = (await first).at - t0;
    let cpuMs = Number.NaN;
    try {
      cpuMs = mainThreadCpuMs(p.child.pid ?? 0);
    } catch {
      // already gone: it exits as soon as the answer is in
    }
    return { ms, cpuMs };
  } finally {
    await p.exited;
  }
}

/** Median of `runs` fresh processes (clean env, like every child here). Synchronous on purpose: nothing else runs meanwhile. */
function importCost(node: NodeUnderTest, specifier: string, runs: number): { importMs: number; bootMs: number } {
  const imports: number[] = [];
  const boots: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = execFileSync(node.path, [childScript('import-cost'), specifier], { encoding: 'utf8', env: { PATH: process.env['PATH'] } });
    const r = JSON.parse(out) as { importMs: number; bootMs: number };
    imports.push(r.importMs);
    boots.push(r.bootMs);
  }
  return { importMs: summarize(imports).p50, bootMs: summarize(boots).p50 };
}

/** True once `dir` (searched recursively) holds a file whose name passes `match`. */
function holdsFile(dir: string, match: (name: string) => boolean): boolean {
  try {
    return readdirSync(dir, { recursive: true }).some((n) => match(String(n)));
  } catch {
    return false; // not created yet
  }
}
