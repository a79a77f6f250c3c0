/**
 * RSS of a station after 10,000 protocol events and whether it grows: one station process
 * (bench/children/rss-station.ts, bundled like the release) run with the unit's node flags and environment,
 * against the reference server in this process; memory sampled after forced GC at 10k, 20k and
 * 30k events; growth is the least-squares slope per 10k events. Beside it, bare Node with the
 * same flags and environment doing as many HTTP requests (bench/children/bare-rss.ts).
 */
import { randomUUID } from 'node:crypto';
import { ReferenceServer, generateStation } from '../src/reference-server/index.js';
import type { NodeUnderTest } from './lib/node.js';
import { childScript, nextMessage, sleep, smapsRollup, spawnNode, stopChild } from './lib/proc.js';
import { MiB, slope } from './lib/stats.js';

export interface MemorySample {
  readonly events: number;
  readonly rssMiB: number;
  readonly heapUsedMiB: number;
  /** V8 heap reserved (new + old spaces): what the young generation's growth shows up in. */
  readonly heapTotalMiB: number;
  /** File-backed resident pages: mostly the node binary's own code, shared with any other node process. */
  readonly fileMiB: number;
  /** Anonymous (private) resident memory: V8 heap, malloc, stacks. */
  readonly anonMiB: number;
}

export interface MemoryRun {
  readonly samples: readonly MemorySample[];
  /** MiB per 10,000 events. */
  readonly rssSlope: number;
  readonly heapSlope: number;
  readonly seconds: number;
}

export interface MemoryResult {
  readonly nodeFlags: readonly string[];
  /** The unit's Environment= (placed), given to both processes. */
  readonly env: Readonly<Record<string, string>>;
  readonly station: MemoryRun;
  readonly bare: MemoryRun;
}

interface Report {
  readonly events: number;
  readonly memory: NodeJS.MemoryUsage;
}

const isReport = (m: unknown): Report | undefined => (typeof m === 'object' && m !== null && 'memory' in m ? (m as Report) : undefined);

export async function benchMemory(
  node: NodeUnderTest,
  stationScript: string,
  nodeFlags: readonly string[],
  env: Readonly<Record<string, string>>,
  stateDir: string,
  step: number,
  steps: number,
  heapSnapshot: string | null = null,
): Promise<MemoryResult> {
  const def = generateStation(8);
  const deposit = '31234000000017';
  const server = new ReferenceServer({
    stations: [def],
    deposits: [{ identifierValue: deposit, identifierType: 'BAR_CODE', stationId: def.id, boxId: def.boxes[0] ?? '' }],
    // The server is not what is measured, but keep it bounded too.
    maxRecords: 1_000,
  });
  const url = await server.start();
  try {
    const station = await run(
      node,
      env,
      [...nodeFlags, '--expose-gc', stationScript, JSON.stringify({ serverUrl: url, station: def, deposit, stateDir })],
      step,
      steps,
      heapSnapshot,
    );
    const body = JSON.stringify({ station: def.id, st: 'UP', errorMessage: null, boxes: def.boxes.map((id) => ({ id, st: 'CLOSED' })), event: randomUUID() });
    const authorization = `Basic ${Buffer.from(`${def.id}:${def.password}`).toString('base64')}`;
    const bare = await run(node, env, [...nodeFlags, '--expose-gc', childScript('bare-rss'), `${url}/state`, authorization, body], step, steps, null);
    return { nodeFlags, env, station, bare };
  } finally {
    await server.stop();
  }
}

async function run(
  node: NodeUnderTest,
  env: Readonly<Record<string, string>>,
  args: readonly string[],
  step: number,
  steps: number,
  heapSnapshot: string | null,
): Promise<MemoryRun> {
  const p = spawnNode(args, { node: node.path, env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const child = p.child;
  const samples: MemorySample[] = [];
  const t0 = performance.now();
  try {
    await nextMessage(child, (m) => (typeof m === 'object' && m !== null && 'ready' in m ? true : undefined), 15_000, 'memory child ready');
    for (let i = 1; i <= steps; i++) {
      child.send({ run: step });
      const r = await nextMessage(child, isReport, 300_000, `memory child run ${i}`);
      const smaps = smapsRollup(child.pid ?? 0);
      if (i === steps && heapSnapshot !== null) {
        child.send({ snapshot: heapSnapshot });
        await nextMessage(child, (m) => (typeof m === 'object' && m !== null && 'snapshot' in m ? true : undefined), 120_000, 'heap snapshot');
      }
      samples.push({
        events: r.events,
        rssMiB: r.memory.rss / MiB,
        heapUsedMiB: r.memory.heapUsed / MiB,
        heapTotalMiB: r.memory.heapTotal / MiB,
        fileMiB: smaps.fileBacked / MiB,
        anonMiB: smaps.anonymous / MiB,
      });
    }
  } finally {
    // Disconnecting asks the child to stop and exit on its own (a --cpu-prof is written then).
    child.disconnect();
    await Promise.race([p.exited, sleep(3_000)]);
    await stopChild(p);
  }
  const per10k = (pick: (s: MemorySample) => number): number => slope(samples.map((s) => [s.events / 10_000, pick(s)] as const));
  return { samples, rssSlope: per10k((s) => s.rssMiB), heapSlope: per10k((s) => s.heapUsedMiB), seconds: (performance.now() - t0) / 1000 };
}
