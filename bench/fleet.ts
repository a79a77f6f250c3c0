/**
 * How many virtual stations this machine holds: `pickup-station fleet` as its own process against
 * the reference server in this process (the library server's side), for growing N. A size holds
 * when, after the ramp, every station's /state spacing measured at the server stays within the
 * heartbeat interval (+10 % for request jitter), no station is silent (fewer than two /state in a
 * window of three intervals) and no event goes unanswered. The heartbeat is short (5 s) to keep the run short. Memory per station is the slope
 * of the fleet's RSS (after GC) over N.
 */
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { join } from 'node:path';
import { HeartbeatTracker, heartbeatLogger, type HeartbeatSummary } from '../src/fleet/heartbeat.js';
import type { FleetSummary } from '../src/fleet/run.js';
import { ReferenceServer, generateStation, seedData } from '../src/reference-server/index.js';
import { MAIN_JS, cpuSeconds, sleep, spawnNode, stopChild } from './lib/proc.js';
import { slope } from './lib/stats.js';

export interface FleetRun {
  readonly n: number;
  readonly held: boolean;
  readonly heartbeat: HeartbeatSummary;
  readonly unanswered: number;
  readonly actionsDone: number;
  readonly actionsFailed: number;
  readonly rssMiB: number;
  readonly heapUsedMiB: number;
  /** CPU of the fleet process over the observation window, % of one core. */
  readonly cpuPercent: number;
  /** Max event-loop delay of the fleet process and of this (the server's) process in the window, ms. */
  readonly fleetLoopMaxMs: number;
  readonly serverLoopMaxMs: number;
}

export interface FleetResult {
  readonly heartbeatMs: number;
  readonly ratePerMin: number;
  readonly runs: readonly FleetRun[];
  readonly maxHeld: number;
  /** KiB per station (RSS after GC, least-squares over the runs). */
  readonly rssKiBPerStation: number;
  readonly heapKiBPerStation: number;
}

export interface FleetPlan {
  readonly sizes: readonly number[];
  readonly heartbeatMs: number;
  readonly observeMs: number;
  readonly ratePerMin: number;
}

export async function benchFleet(dir: string, plan: FleetPlan): Promise<FleetResult> {
  const largest = Math.max(...plan.sizes);
  const data = seedData(Array.from({ length: largest }, () => generateStation()));
  const file = join(dir, 'fleet-stations.json');
  writeFileSync(file, JSON.stringify(data));
  const runs: FleetRun[] = [];
  for (const n of plan.sizes) {
    const run = await oneSize(n, data, file, plan);
    runs.push(run);
    if (!run.held) break;
  }
  const held = runs.filter((r) => r.held);
  const perStation = (pick: (r: FleetRun) => number): number => slope(runs.map((r) => [r.n, pick(r)] as const)) * 1024;
  return {
    heartbeatMs: plan.heartbeatMs,
    ratePerMin: plan.ratePerMin,
    runs,
    maxHeld: held.length > 0 ? Math.max(...held.map((r) => r.n)) : 0,
    rssKiBPerStation: perStation((r) => r.rssMiB),
    heapKiBPerStation: perStation((r) => r.heapUsedMiB),
  };
}

async function oneSize(n: number, data: ReturnType<typeof seedData>, file: string, plan: FleetPlan): Promise<FleetRun> {
  const tracker = new HeartbeatTracker(plan.heartbeatMs);
  const server = new ReferenceServer({ ...data, maxRecords: 1_000, logger: heartbeatLogger(tracker) });
  const url = await server.start();
  const rampMs = plan.heartbeatMs;
  const args = [
    '--expose-gc',
    MAIN_JS,
    'fleet',
    ...['--stations', String(n), '--server', url, '--stations-file', file],
    ...['--heartbeat-ms', String(plan.heartbeatMs), '--ramp-ms', String(rampMs), '--rate', String(plan.ratePerMin), '--hold-ms', '500'],
    // Stops by itself even if this process dies; normally it is stopped after the window.
    ...['--duration-s', String(Math.ceil((rampMs + plan.observeMs) / 1000) + 60), '--report-s', '0', '--log-level', 'silent', '--json'],
  ];
  const p = spawnNode(args, { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  p.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  const ids = data.stations.slice(0, n).map((s) => s.id);
  try {
    // The window opens once every station has reported in (the ramp is over).
    const deadline = performance.now() + rampMs + 60_000;
    while (tracker.summary(ids).silent > 0 || tracker.summary(ids).seen < n) {
      if (performance.now() > deadline || p.child.exitCode !== null) break;
      await sleep(100);
    }
    tracker.openWindow();
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const cpu0 = cpuSeconds(p.child.pid ?? 0);
    const t0 = performance.now();
    await sleep(plan.observeMs);
    const cpuPercent = ((cpuSeconds(p.child.pid ?? 0) - cpu0) / ((performance.now() - t0) / 1000)) * 100;
    const heartbeat = tracker.summary(ids);
    loop.disable();
    await stopChild(p, 30_000);
    const summary = JSON.parse(out.trim().split('\n').pop() ?? '{}') as FleetSummary;
    const a = summary.stats.actions;
    return {
      n,
      held: heartbeat.late === 0 && heartbeat.silent === 0 && summary.stats.unanswered === 0,
      heartbeat,
      unanswered: summary.stats.unanswered,
      actionsDone: a.deposit.done + a.pickup.done + a.cancel.done,
      actionsFailed: a.deposit.failed + a.pickup.failed + a.cancel.failed,
      rssMiB: summary.memory.rssMiB,
      heapUsedMiB: summary.memory.heapUsedMiB,
      cpuPercent,
      fleetLoopMaxMs: summary.eventLoopDelay.maxMs,
      serverLoopMaxMs: loop.max / 1e6,
    };
  } finally {
    await stopChild(p);
    await server.stop();
  }
}
