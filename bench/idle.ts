/**
 * Idle CPU of the daemon at the default heartbeat (30 s): the daemon as the unit starts it (its
 * ExecStart, placed in the bench's release folder; bench/lib/unit.ts),
 * nothing happening but heartbeats, its utime + stime from /proc over the window (USER_HZ ticks,
 * so the resolution is 10 ms of CPU per window). RSS at the end of the window comes along.
 */
import { ReferenceServer, generateStation } from '../src/reference-server/index.js';
import { join } from 'node:path';
import type { NodeUnderTest } from './lib/node.js';
import { cpuSeconds, rssBytes, sleep, spawnNode, stopChild } from './lib/proc.js';
import { writeDaemonFiles } from './lib/station.js';
import { MiB } from './lib/stats.js';
import { placeCommand, readUnit } from './lib/unit.js';

export interface IdleResult {
  readonly windowS: number;
  readonly cpuS: number;
  /** Percent of one core. */
  readonly cpuPercent: number;
  readonly heartbeats: number;
  readonly rssMiB: number;
}

export async function benchIdle(dir: string, release: string, node: NodeUnderTest, windowMs: number): Promise<IdleResult> {
  const def = generateStation(8);
  const server = new ReferenceServer({ stations: [def], maxRecords: 1_000 });
  const url = await server.start();
  const { file, env } = writeDaemonFiles(dir, def, url, { storage: { directory: join(dir, 'idle-state') } });
  const unit = readUnit();
  const cmd = placeCommand(unit.execStart, unit, { node: node.path, release, configFile: file, cacheDir: join(dir, 'idle-cache') });
  const p = spawnNode([...cmd.nodeFlags, ...cmd.args], { node: node.path, env: { ...cmd.env, ...env }, stdio: 'ignore' });
  try {
    await server.waitForRequest((r) => r.endpoint === 'state' && r.stationId === def.id, 15_000);
    // Let start-up work (JIT, first GCs) finish before the window opens.
    await sleep(2_000);
    const pid = p.child.pid ?? 0;
    const seq0 = server.lastSeq;
    const cpu0 = cpuSeconds(pid);
    const t0 = performance.now();
    await sleep(windowMs);
    const cpu1 = cpuSeconds(pid);
    const windowS = (performance.now() - t0) / 1000;
    const heartbeats = server.requests.filter((r) => r.seq > seq0 && r.endpoint === 'state').length;
    return { windowS, cpuS: cpu1 - cpu0, cpuPercent: ((cpu1 - cpu0) / windowS) * 100, heartbeats, rssMiB: rssBytes(pid) / MiB };
  } finally {
    await stopChild(p);
    await server.stop();
  }
}
