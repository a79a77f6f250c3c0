/**
 * What metrics cost: the station assembled as the daemon does it, with metrics on and
 * off, side by side in the same run (bench/children/metrics-station.ts), both asked for /metrics
 * over HTTP alike (the "off" one answers 404):
 *
 * - RSS: after the same number of protocol events (unknown item, wrong PIN, in turn), after GC;
 *   on and off run in turn, the order swapped each round; scraped every 15 s, as the ops/ example
 *   configures Prometheus. With --experiment also under node --max-semi-space-size=1: most of a
 *   difference as shipped is the young generation's pages, which any extra allocation touches
 *   sooner (see docs/development.md, Benchmarks);
 * - the scan path: scan → /item-identify at the server over a real pty (as bench/scan.ts), the two
 *   stations interleaved, the order rotated, scraped every second (harsher than any Prometheus);
 * - idle CPU: three daemons at the default heartbeat, side by side: metrics off, on, and on with
 *   prom-client's own 10 ms event-loop sampling (why metrics.eventLoopResolutionMs is 1 s);
 * - fleet: `pickup-station fleet --metrics-port` at N stations; the size of one whole scrape, its
 *   render time (from the fleet's summary) and its time over HTTP (measured here).
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { hashToken, newToken } from '../src/tokens/tokens.js';
import type { FleetSummary } from '../src/fleet/run.js';
import { ReferenceServer, generateStation, type RequestRecord } from '../src/reference-server/index.js';
import { join } from 'node:path';
import { IPC_STDIO, MAIN_JS, childScript, cpuSeconds, nextMessage, sleep, smapsRollup, spawnNode, stopChild, type Spawned } from './lib/proc.js';
import { writeDaemonFiles } from './lib/station.js';
import { PtyPair, haveSocat } from './lib/pty.js';
import { MiB, summarize, type Summary } from './lib/stats.js';
import { ms, renderTable, x } from './lib/table.js';

export interface MetricsMemory {
  readonly events: number;
  readonly rssMiB: number;
  readonly anonMiB: number;
  readonly heapUsedMiB: number;
}

export interface MemoryRound {
  readonly offA: MetricsMemory;
  readonly offB: MetricsMemory;
  readonly on: MetricsMemory;
}

export interface MetricsFleet {
  readonly stations: number;
  readonly series: number;
  readonly bytes: number;
  readonly renderMs: { readonly p50: number; readonly max: number; readonly n: number };
  readonly http: Summary;
  readonly heartbeatLate: number;
  readonly heartbeatLimitMs: number;
  readonly loopMaxMs: number;
  /** The same fleet without metrics (no scrapes), run just before: its late heartbeats and loop delay. */
  readonly baseline: { readonly heartbeatLate: number; readonly loopMaxMs: number };
}

export interface MetricsResult {
  /** Per round: two stations with metrics off (their difference is the noise) and one with metrics on. */
  readonly memory: readonly MemoryRound[];
  /** The same under node --max-semi-space-size=1 (--experiment); empty otherwise. */
  readonly memorySemiSpace1: readonly MemoryRound[];
  readonly scan: { readonly off: Summary; readonly on: Summary } | null;
  readonly fleet: MetricsFleet | null;
  readonly scrapes: number;
  /** Daemon CPU over `idleMs` at the default heartbeat, % of a core. */
  readonly idle: { readonly seconds: number; readonly off: number; readonly on: number; readonly on10ms: number } | null;
}

export interface MetricsPlan {
  readonly events: number;
  readonly rounds: number;
  readonly scans: number;
  readonly warmup: number;
  readonly fleetStations: number;
  readonly experiment: boolean;
  readonly idleMs: number;
}

/** Scrape interval of the memory runs (the ops/ example's is 30 s; 15 s is a common setting). */
const MEMORY_SCRAPE_MS = 15_000;
/** Scrape interval of the scan run: far more often than a Prometheus would, to look for interference. */
const SCAN_SCRAPE_MS = 1_000;

const isReady = (m: unknown): { url: string } | undefined =>
  typeof m === 'object' && m !== null && 'ready' in m ? (m as unknown as { url: string }) : undefined;
const isReport = (m: unknown): { events: number; memory: NodeJS.MemoryUsage } | undefined =>
  typeof m === 'object' && m !== null && 'memory' in m ? (m as { events: number; memory: NodeJS.MemoryUsage }) : undefined;

interface StationChild {
  readonly on: boolean;
  readonly proc: Spawned;
  readonly url: string;
}

async function startStationChild(
  serverUrl: string,
  def: ReturnType<typeof generateStation>,
  on: boolean,
  tokenHash: string,
  tty?: string,
  nodeFlags: readonly string[] = [],
): Promise<StationChild> {
  const proc = spawnNode(
    [...nodeFlags, '--expose-gc', childScript('metrics-station'), JSON.stringify({ serverUrl, station: def, metrics: on, tokenHash, ...(tty ? { tty } : {}) })],
    { stdio: [...IPC_STDIO] },
  );
  const { url } = await nextMessage(proc.child, isReady, 20_000, `metrics-station (${on ? 'on' : 'off'}) ready`);
  return { on, proc, url };
}

/** Scrape every station every `intervalMs` until stopped (a metrics-off one answers 404). */
function scrapeEvery(intervalMs: number, stations: readonly StationChild[], token: string): { stop: () => Promise<number> } {
  let stopped = false;
  let count = 0;
  const loop = (async () => {
    while (!stopped) {
      for (const s of stations) {
        const r = await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
        await r.text();
        if (r.status === 200) count++;
      }
      const until = performance.now() + intervalMs;
      while (!stopped && performance.now() < until) await sleep(100);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return count;
    },
  };
}

export async function benchMetrics(dir: string, plan: MetricsPlan): Promise<MetricsResult> {
  const token = newToken();
  const tokenHash = hashToken(token);
  const defs = [generateStation(8), generateStation(8), generateStation(8), generateStation(8), generateStation(8)] as const;
  const server = new ReferenceServer({ stations: [...defs], maxRecords: 1_000 });
  const url = await server.start();
  let scrapes = 0;
  const memory: MemoryRound[] = [];
  const memorySemiSpace1: MemoryRound[] = [];
  let scan: MetricsResult['scan'] = null;
  try {
    // --- RSS ---------------------------------------------------------------------------------
    memory.push(...(await memoryRounds(url, [defs[0], defs[1], defs[4]], token, tokenHash, plan, [])));
    if (plan.experiment) {
      // Each process keeps its id for its whole life; new processes, the same stations.
      memorySemiSpace1.push(...(await memoryRounds(url, [defs[0], defs[1], defs[4]], token, tokenHash, plan, ['--max-semi-space-size=1'])));
    }

    // --- scan path ---------------------------------------------------------------------------
    if (haveSocat()) {
      const ptys = [new PtyPair(dir, 'metrics-off'), new PtyPair(dir, 'metrics-on')];
      const stations: StationChild[] = [];
      const fds: number[] = [];
      try {
        for (const [i, p] of ptys.entries()) {
          await p.start();
          stations.push(await startStationChild(url, i === 0 ? defs[2] : defs[3], i === 1, tokenHash, p.b));
          fds.push(openSync(p.a, 'r+'));
        }
        const samples: Record<'on' | 'off', number[]> = { on: [], off: [] };
        const scanScraping = scrapeEvery(SCAN_SCRAPE_MS, stations, token);
        try {
          for (let i = 0; i < plan.warmup + plan.scans; i++) {
            for (let k = 0; k < 2; k++) {
              const v = (i + k) % 2;
              const t = await oneScan(server, fds[v] as number, `4${v}${String(i).padStart(12, '0')}`);
              if (i >= plan.warmup) samples[v === 1 ? 'on' : 'off'].push(t);
              await sleep(10);
            }
          }
        } finally {
          scrapes += await scanScraping.stop();
        }
        scan = { off: summarize(samples.off), on: summarize(samples.on) };
      } finally {
        for (const fd of fds) closeSync(fd);
        for (const s of stations) await stopStation(s);
        for (const p of ptys) await p.stop();
      }
    }
  } finally {
    await server.stop();
  }
  const idle = plan.idleMs > 0 ? await benchIdleCpu(dir, plan.idleMs) : null;
  const fleet = plan.fleetStations > 0 ? await benchFleetScrape(plan.fleetStations) : null;
  return { memory, memorySemiSpace1, scan, fleet, scrapes, idle };
}

/** Three built daemons (config file + credential, as in the field), side by side at the default heartbeat. */
async function benchIdleCpu(dir: string, idleMs: number): Promise<MetricsResult['idle']> {
  const variants = [{ enabled: false }, { enabled: true }, { enabled: true, eventLoopResolutionMs: 10 }] as const;
  const defs = variants.map(() => generateStation(8));
  const server = new ReferenceServer({ stations: defs, maxRecords: 1_000 });
  const url = await server.start();
  const procs: Spawned[] = [];
  try {
    for (const [i, metrics] of variants.entries()) {
      const d = join(dir, `idle-metrics-${i}`);
      mkdirSync(d, { recursive: true });
      const { file, env } = writeDaemonFiles(d, defs[i]!, url, {
        storage: { directory: null },
        technician: { listen: { host: '127.0.0.1', port: 0 } },
        metrics,
      });
      procs.push(spawnNode([MAIN_JS, '--config', file], { env }));
    }
    // Past start-up and the first /state (after which metrics load).
    await sleep(5_000);
    const t0 = performance.now();
    const cpu0 = procs.map((p) => cpuSeconds(p.child.pid ?? 0));
    await sleep(idleMs);
    const seconds = (performance.now() - t0) / 1000;
    const pct = procs.map((p, i) => ((cpuSeconds(p.child.pid ?? 0) - (cpu0[i] ?? 0)) / seconds) * 100);
    return { seconds, off: pct[0] ?? NaN, on: pct[1] ?? NaN, on10ms: pct[2] ?? NaN };
  } finally {
    for (const p of procs) await stopChild(p);
    await server.stop();
  }
}

async function memoryRounds(
  url: string,
  defs: readonly [ReturnType<typeof generateStation>, ReturnType<typeof generateStation>, ReturnType<typeof generateStation>],
  token: string,
  tokenHash: string,
  plan: MetricsPlan,
  nodeFlags: readonly string[],
): Promise<MemoryRound[]> {
  const rounds: MemoryRound[] = [];
  const names = ['offA', 'offB', 'on'] as const;
  const procs = [
    await startStationChild(url, defs[0], false, tokenHash, undefined, nodeFlags),
    await startStationChild(url, defs[1], false, tokenHash, undefined, nodeFlags),
    await startStationChild(url, defs[2], true, tokenHash, undefined, nodeFlags),
  ];
  const scraping = scrapeEvery(MEMORY_SCRAPE_MS, procs, token);
  try {
    for (let round = 0; round < plan.rounds; round++) {
      const sample: Partial<Record<(typeof names)[number], MetricsMemory>> = {};
      // Rotate which process runs first.
      for (let k = 0; k < procs.length; k++) {
        const i = (round + k) % procs.length;
        const s = procs[i] as StationChild;
        s.proc.child.send({ run: plan.events });
        const r = await nextMessage(s.proc.child, isReport, 300_000, `metrics-station run ${round}`);
        const smaps = smapsRollup(s.proc.child.pid ?? 0);
        sample[names[i] as (typeof names)[number]] = {
          events: r.events,
          rssMiB: r.memory.rss / MiB,
          anonMiB: smaps.anonymous / MiB,
          heapUsedMiB: r.memory.heapUsed / MiB,
        };
      }
      rounds.push(sample as MemoryRound);
    }
  } finally {
    await scraping.stop();
    for (const s of procs) await stopStation(s);
  }
  return rounds;
}

async function stopStation(s: StationChild): Promise<void> {
  s.proc.child.disconnect?.();
  await Promise.race([s.proc.exited, sleep(3_000)]);
  await stopChild(s.proc);
}

async function oneScan(server: ReferenceServer, fd: number, value: string): Promise<number> {
  const afterSeq = server.lastSeq;
  const sent = server.waitForRequest(
    (r: RequestRecord) =>
      r.endpoint === 'item-identify' && typeof r.body === 'object' && r.body !== null && 'identifierValue' in r.body && r.body.identifierValue === value,
    5_000,
    { afterSeq },
  );
  const t0 = performance.now();
  writeSync(fd, `${value}\r\n`);
  return (await sent).at - t0;
}

const FLEET_HEARTBEAT_MS = 5_000;

function startFleet(n: number, metrics: boolean): Spawned {
  const args = [
    MAIN_JS,
    'fleet',
    '--stations',
    String(n),
    '--heartbeat-ms',
    String(FLEET_HEARTBEAT_MS),
    '--rate',
    '2',
    '--duration-s',
    '40',
    '--report-s',
    '0',
    '--log-level',
    'silent',
    '--json',
  ];
  return spawnNode(metrics ? [...args, '--metrics-port', '0'] : args, { stdio: ['ignore', 'pipe', 'inherit'] });
}

async function summaryOf(p: Spawned, out: () => string): Promise<FleetSummary> {
  await p.exited;
  return JSON.parse(out().trim().split('\n').pop() ?? '{}') as FleetSummary;
}

/** `pickup-station fleet` at `n` stations without metrics, then with `--metrics-port 0` and five HTTP scrapes after the ramp. */
async function benchFleetScrape(n: number): Promise<MetricsFleet> {
  const heartbeatMs = FLEET_HEARTBEAT_MS;
  const b = startFleet(n, false);
  let baseOut = '';
  b.child.stdout?.on('data', (d: Buffer) => (baseOut += d.toString()));
  let baseline: MetricsFleet['baseline'];
  try {
    const s = await summaryOf(b, () => baseOut);
    baseline = { heartbeatLate: s.heartbeatSent.late, loopMaxMs: s.eventLoopDelay.maxMs };
  } finally {
    await stopChild(b, 30_000);
  }
  const p = startFleet(n, true);
  let out = '';
  p.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  try {
    const t0 = performance.now();
    let url: string | undefined;
    while (url === undefined && performance.now() - t0 < 20_000) {
      url = /metrics of every station at (\S+)/.exec(out)?.[1];
      await sleep(100);
    }
    if (url === undefined) throw new Error('fleet: no metrics URL');
    // After the ramp (one heartbeat interval) and a little more: every station has answered.
    await sleep(heartbeatMs + 5_000);
    const http: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const r = await fetch(url);
      await r.arrayBuffer();
      http.push(performance.now() - t);
      await sleep(3_000);
    }
    const summary = await summaryOf(p, () => out);
    const m = summary.metrics;
    if (m === null) throw new Error('fleet: no metrics in the summary');
    return {
      stations: m.stations,
      series: m.series,
      bytes: m.bytes,
      renderMs: m.renderMs,
      http: summarize(http),
      heartbeatLate: summary.heartbeatSent.late,
      heartbeatLimitMs: summary.heartbeatSent.limitMs,
      loopMaxMs: summary.eventLoopDelay.maxMs,
      baseline,
    };
  } finally {
    await stopChild(p, 30_000);
  }
}

const LABEL = { offA: 'metrics off (A)', offB: 'metrics off (B)', on: 'metrics on' } as const;

function memoryTable(title: string, rounds: MetricsResult['memory']): string[] {
  const lines = [
    renderTable(
      [title, 'events', 'RSS', 'anon', 'heap used'],
      rounds.flatMap((m, i) =>
        (['offA', 'offB', 'on'] as const).map((k) => [
          `round ${i + 1}, ${LABEL[k]}`,
          String(m[k].events),
          m[k].rssMiB.toFixed(1),
          m[k].anonMiB.toFixed(1),
          m[k].heapUsedMiB.toFixed(1),
        ]),
      ),
    ),
  ];
  if (rounds.length > 0) {
    const list = (f: (m: MemoryRound) => number): string => rounds.map((m) => f(m).toFixed(2)).join(', ');
    const offMean = (m: MemoryRound, k: 'rssMiB' | 'heapUsedMiB'): number => (m.offA[k] + m.offB[k]) / 2;
    lines.push(
      `  metrics on - mean of the two off (per round): RSS ${list((m) => m.on.rssMiB - offMean(m, 'rssMiB'))} MiB; heap used ${list((m) => m.on.heapUsedMiB - offMean(m, 'heapUsedMiB'))} MiB`,
      `  noise, off (B) - off (A) (per round):          RSS ${list((m) => m.offB.rssMiB - m.offA.rssMiB)} MiB; heap used ${list((m) => m.offB.heapUsedMiB - m.offA.heapUsedMiB)} MiB`,
    );
  }
  return lines;
}

export function metricsReport(r: MetricsResult): string {
  const lines: string[] = [...memoryTable(`metrics cost: memory after GC (MiB), scraped every ${MEMORY_SCRAPE_MS / 1000} s`, r.memory)];
  if (r.memorySemiSpace1.length > 0) lines.push('', ...memoryTable('  experiment: --max-semi-space-size=1', r.memorySemiSpace1));
  if (r.scan) {
    lines.push(
      '',
      renderTable(
        ['metrics cost: scan -> /item-identify (ms)', 'n', 'p50', 'p99', 'on/off p50', 'on/off p99'],
        [
          ['metrics off', String(r.scan.off.n), ms(r.scan.off.p50), ms(r.scan.off.p99), '', ''],
          [
            `metrics on (scraped every ${SCAN_SCRAPE_MS / 1000} s)`,
            String(r.scan.on.n),
            ms(r.scan.on.p50),
            ms(r.scan.on.p99),
            x(r.scan.on.p50 / r.scan.off.p50),
            x(r.scan.on.p99 / r.scan.off.p99),
          ],
        ],
      ),
      `  ${r.scrapes} scrapes of /metrics over HTTP during the scan run`,
    );
  } else lines.push('', 'metrics cost: scan path skipped (socat not installed)');
  if (r.idle) {
    const i = r.idle;
    lines.push(
      '',
      `idle daemon CPU over ${i.seconds.toFixed(0)} s (default heartbeat, % of a core; /proc ticks are 10 ms): metrics off ${i.off.toFixed(3)}, on ${i.on.toFixed(3)}, on with prom-client's 10 ms event-loop sampling ${i.on10ms.toFixed(3)}`,
    );
  }
  if (r.fleet) {
    const f = r.fleet;
    lines.push(
      '',
      `fleet metrics at ${f.stations} stations: one scrape = ${f.series} series, ${(f.bytes / MiB).toFixed(2)} MiB; render p50 ${f.renderMs.p50.toFixed(0)} ms, max ${f.renderMs.max.toFixed(0)} ms (${f.renderMs.n}); ` +
        `over HTTP (uncompressed) p50 ${f.http.p50.toFixed(0)} ms, max ${f.http.max.toFixed(0)} ms (${f.http.n}); heartbeats late (> ${f.heartbeatLimitMs.toFixed(0)} ms) ${f.heartbeatLate}, fleet event-loop max ${f.loopMaxMs.toFixed(0)} ms`,
      `  the same fleet without metrics, just before: heartbeats late ${f.baseline.heartbeatLate}, event-loop max ${f.baseline.loopMaxMs.toFixed(0)} ms`,
    );
  }
  return lines.join('\n');
}
