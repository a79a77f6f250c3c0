/**
 * A fleet run from start to summary: the server (the in-process reference server by default, or
 * any station-protocol server at `serverUrl` with a shared stations file), the shared HTTP agent,
 * the fleet, a status line now and then, and a summary with memory and heartbeat spacing.
 */
import { get } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { ReferenceServer, type SeedData } from '../reference-server/index.js';
import { CONTROL_PREFIX } from '../reference-server/index.js';
import { useSharedAgents, type SharedAgents } from './agent.js';
import { Fleet, type FleetStats } from './fleet.js';
import { HeartbeatTracker, heartbeatLogger, type HeartbeatSummary } from './heartbeat.js';
import { startFleetMetrics, type FleetMetrics, type ScrapeFigures } from './metrics.js';
import { controlApiSupply, seededSupply, serverSupply, type Supply } from './supply.js';

export interface RunOptions {
  /** Stations with their seed data; with `serverUrl` the server must know the same. */
  readonly data: SeedData;
  /** Base URL up to the version segment; null: the in-process reference server. */
  readonly serverUrl: string | null;
  readonly version: string;
  readonly heartbeatMs: number;
  readonly ratePerMin: number;
  readonly holdMs: number;
  readonly rampMs: number;
  readonly maxSockets: number;
  /** Stop after this long; null: only on `signal`. */
  readonly durationMs: number | null;
  /** A status line this often; null: none. */
  readonly reportMs: number | null;
  readonly log: Logger;
  /** Serve every station's metrics on one /metrics (null: none). */
  readonly metrics?: { readonly host: string; readonly port: number; readonly tokenFile: string | null } | null;
}

export interface FleetSummary {
  readonly stations: number;
  readonly server: string;
  readonly supply: string;
  readonly heartbeatMs: number;
  readonly ratePerMin: number;
  readonly seconds: number;
  readonly stats: FleetStats;
  /** Spacing of /state as sent by the stations, after the ramp. */
  readonly heartbeatSent: HeartbeatSummary;
  /** Spacing at the server, when it runs in this process. */
  readonly heartbeatReceived: HeartbeatSummary | null;
  readonly memory: { readonly rssMiB: number; readonly heapUsedMiB: number; readonly afterGc: boolean };
  /** Event-loop delay of the fleet process after the ramp: a late heartbeat with a small one here was late elsewhere. */
  readonly eventLoopDelay: { readonly p99Ms: number; readonly maxMs: number };
  /** What /metrics served and what one exposition of every station costs (measured at the end); null without metrics. */
  readonly metrics: (ScrapeFigures & { readonly url: string }) | null;
}

/** Renders of the whole exposition at the end of a run, for its size and time. */
export const SCRAPE_MEASUREMENTS = 5;

export interface RunIo {
  out(line: string): void;
  readonly signal?: AbortSignal;
}

const MiB = 1024 * 1024;

export async function runFleet(o: RunOptions, io: RunIo): Promise<FleetSummary> {
  const t0 = performance.now();
  const received = new HeartbeatTracker(o.heartbeatMs);
  const agents = useSharedAgents(o.maxSockets);
  const loop = monitorEventLoopDelay({ resolution: 10 });
  let server: ReferenceServer | null = null;
  let fleet: Fleet | null = null;
  let metrics: FleetMetrics | null = null;
  try {
    if (o.metrics) {
      metrics = await startFleetMetrics({ ...o.metrics, eventLoopResolutionMs: 1_000, log: o.log });
      io.out(`fleet: metrics of every station at ${metrics.url}`);
    }
    const m = metrics;
    let baseUrl: string;
    let supply: Supply;
    if (o.serverUrl === null) {
      server = new ReferenceServer({ ...o.data, maxRecords: 1_000, logger: heartbeatLogger(received) });
      const url = await server.start();
      baseUrl = new URL(url).origin;
      supply = serverSupply(server, o.data.stations);
    } else {
      baseUrl = o.serverUrl;
      supply = await pickSupply(baseUrl, o.data, agents);
    }
    const started = Fleet.start({
      stations: o.data.stations,
      baseUrl,
      version: o.version,
      supply,
      heartbeatMs: o.heartbeatMs,
      ratePerMin: o.ratePerMin,
      holdMs: o.holdMs,
      rampMs: o.rampMs,
      log: o.log,
      agent: agents,
      ...(m ? { onStation: (member) => m.add(member) } : {}),
    });
    fleet = started.fleet;
    io.out(
      `fleet: ${o.data.stations.length} stations -> ${baseUrl}/${o.version} (${supply.kind}); heartbeat ${o.heartbeatMs} ms, ${o.ratePerMin} actions/station/min, ramp ${o.rampMs} ms`,
    );
    const f = fleet;
    const report = o.reportMs === null ? null : setInterval(() => io.out(statusLine(f, t0)), o.reportMs);
    try {
      await started.started;
      // Spacing is judged from here: the ramp is over, every station runs.
      f.heartbeats.openWindow();
      received.openWindow();
      loop.enable();
      await runFor(o.durationMs === null ? null : Math.max(0, t0 + o.durationMs - performance.now()), io.signal);
    } finally {
      if (report) clearInterval(report);
    }
    loop.disable();
    const scrape = m === null ? null : { ...(await m.measure(SCRAPE_MEASUREMENTS)), url: m.url };
    const ids = o.data.stations.map((s) => s.id);
    globalThis.gc?.();
    const mem = process.memoryUsage();
    return {
      stations: f.members.length,
      server: `${baseUrl}/${o.version}`,
      supply: supply.kind,
      heartbeatMs: o.heartbeatMs,
      ratePerMin: o.ratePerMin,
      seconds: (performance.now() - t0) / 1000,
      stats: f.stats(),
      heartbeatSent: f.heartbeats.summary(ids),
      heartbeatReceived: server === null ? null : received.summary(ids),
      memory: { rssMiB: mem.rss / MiB, heapUsedMiB: mem.heapUsed / MiB, afterGc: globalThis.gc !== undefined },
      eventLoopDelay: { p99Ms: loop.percentile(99) / 1e6, maxMs: loop.max / 1e6 },
      metrics: scrape,
    };
  } finally {
    await metrics?.close();
    await fleet?.stop();
    await server?.stop();
    agents.release();
  }
}

function runFor(ms: number | null, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      if (timer) clearTimeout(timer);
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = ms === null ? null : setTimeout(done, ms);
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    if (signal?.aborted) done();
    else signal?.addEventListener('abort', done, { once: true });
  });
}

/** The control API when the server is a reference server on this machine; else only the seed. */
async function pickSupply(baseUrl: string, data: SeedData, agents: SharedAgents): Promise<Supply> {
  const origin = new URL(baseUrl).origin;
  const host = new URL(baseUrl).hostname;
  const loopback = host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
  if (loopback && (await reachable(`${origin}${CONTROL_PREFIX}/stations`, agents))) return controlApiSupply(origin, data.stations, agents.http);
  return seededSupply(data);
}

function reachable(url: string, agents: SharedAgents): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get(url, { agent: agents.http, timeout: 3_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

export function statusLine(fleet: Fleet, t0: number): string {
  const s = fleet.stats();
  const a = s.actions;
  const hb = fleet.heartbeats.summary([]);
  const kinds = (['deposit', 'pickup', 'cancel'] as const).map((k) => `${k} ${a[k].done}/${a[k].refused}/${a[k].failed}`).join(' ');
  return [
    `t=${((performance.now() - t0) / 1000).toFixed(0)}s`,
    `stations=${s.stations}`,
    `${kinds} (done/refused/failed)`,
    `unanswered=${s.unanswered} deactivated=${s.deactivated}`,
    `heartbeat max gap ${Number.isNaN(hb.maxMs) ? '-' : hb.maxMs.toFixed(0)} ms`,
    `rss=${(process.memoryUsage().rss / MiB).toFixed(0)} MiB`,
  ].join('  ');
}
