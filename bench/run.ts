/**
 * `npm run bench`: what matters on a station, measured beside what bare Node does on the same
 * machine, with each Node the project runs on: this process's (Debian's nodejs 20) and the Node
 * LTS the arm64 release ships (fetched from the npm registry, bench/lib/node.ts). The station runs
 * as the release has it: the bundled app/ (built by `npm run build`), started by the unit's own
 * command lines (bench/lib/unit.ts). Prints a table (or, with --json, one JSON document) and
 * always writes bench/out/latest.json. Not part of `npm test`; nothing here is asserted.
 *
 *   --quick         short windows and few runs: a smoke run, not figures to quote
 *   --json          JSON on stdout instead of the table
 *   --only LIST     comma-separated sections: scan,rfid,latency,journal,startup,safestate,memory,idle,fleet,metrics,kiosk,technician
 *   --host-node     only this process's node (no download)
 *   --profile       also a --cpu-prof of one daemon start and a heap snapshot of the memory run
 *                   (bench/out/profiles/, bench/out/*.heapsnapshot)
 *   --experiment    also the scan figure with the station logging at warn instead of info
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { benchFleet, type FleetResult } from './fleet.js';
import { benchIdle, type IdleResult } from './idle.js';
import { benchJournal, type JournalResult } from './journal.js';
import { benchKiosk, kioskReport, type KioskResult } from './kiosk.js';
import { benchLatency, type LatencyResult } from './latency.js';
import { describeMachine, machine } from './lib/machine.js';
import { nodesUnderTest, type NodeUnderTest } from './lib/node.js';
import { haveSocat } from './lib/pty.js';
import { bundleChildren, stageRelease } from './lib/release.js';
import { readUnit, placeCommand } from './lib/unit.js';
import { benchMemory, type MemoryResult } from './memory.js';
import { benchMetrics, metricsReport, type MetricsResult } from './metrics.js';
import { report } from './report.js';
import { benchSafeState, type SafeStateResult } from './safe-state.js';
import { benchScan, type ScanResult } from './scan.js';
import { benchRfid, type RfidResult } from './rfid.js';
import { benchStartup, type StartupResult } from './startup.js';
import { benchTechnician, technicianReport, type TechnicianResult } from './technician.js';
import { verdicts } from './targets.js';

const SECTIONS = ['scan', 'rfid', 'latency', 'journal', 'startup', 'safestate', 'memory', 'idle', 'fleet', 'metrics', 'kiosk', 'technician'] as const;
type Section = (typeof SECTIONS)[number];

/** Every figure of one Node version. */
export interface NodeResults {
  readonly node: NodeUnderTest;
  scan?: ScanResult;
  rfid?: RfidResult;
  latency?: LatencyResult;
  startup?: StartupResult;
  safeState?: SafeStateResult;
  memory?: MemoryResult;
  idle?: IdleResult;
}

export interface BenchResults {
  readonly nodes: NodeResults[];
  /** The journal write on the box-open path, in this process (this process's node). */
  journal?: JournalResult;
  /** Fleet mode, with this process's node only. */
  fleet?: FleetResult;
  /** What metrics cost (bench/metrics.ts), this process's node. */
  metrics?: MetricsResult;
  /** The kiosk page's keys, quiet and under a local flood (bench/kiosk.ts), this process's node. */
  kiosk?: KioskResult;
  /** The technician port's /healthz and /api/status, quiet and under a local flood (bench/technician.ts), this process's node. */
  technician?: TechnicianResult;
}

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean' },
    json: { type: 'boolean' },
    only: { type: 'string' },
    'host-node': { type: 'boolean' },
    profile: { type: 'boolean' },
    experiment: { type: 'boolean' },
  },
  strict: true,
});
const quick = values.quick === true;
const only = new Set<Section>(
  values.only === undefined ? SECTIONS : values.only.split(',').filter((s): s is Section => (SECTIONS as readonly string[]).includes(s)),
);
const outDir = resolve('bench/out');
mkdirSync(outDir, { recursive: true });
const dir = mkdtempSync(join(tmpdir(), 'pickup-bench-'));
const progress = (msg: string): void => {
  if (values.json !== true) process.stderr.write(`bench: ${msg}\n`);
};

const started = performance.now();
const loadBefore = loadavg();
const nodes = nodesUnderTest({ onlyHost: values['host-node'] === true, progress });
const results: BenchResults = { nodes: nodes.map((node) => ({ node })) };
try {
  const release = stageRelease(dir);
  const children = await bundleChildren(join(outDir, 'children'), ['rss-station', 'scan-station', 'latency-station', 'rfid-station']);
  const unit = readUnit();
  // The daemon's node flags (ExecStart), for the station children too.
  const nodeFlags = placeCommand(unit.execStart, unit, { node: 'node', release, configFile: '', cacheDir: '' }).nodeFlags;
  for (const r of results.nodes) {
    const { node } = r;
    const nd = join(dir, node.version);
    mkdirSync(nd, { recursive: true });
    const tag = `${node.label} (${node.version})`;
    if (only.has('scan')) {
      if (haveSocat()) {
        progress(`${tag}: scan -> /item-identify over a pty (station, bare tty, bare serialport)`);
        r.scan = await benchScan(nd, node, children['scan-station'] ?? '', nodeFlags, quick ? 50 : 300, quick ? 5 : 20, values.experiment === true);
      } else progress('scan skipped: socat not installed (apt-get install socat)');
    }
    if (only.has('rfid')) {
      if (haveSocat()) {
        progress(`${tag}: RFID tag placed -> /item-identify, and inventory + read of a 3-part set, against the model reader at 115200 baud over a pty`);
        r.rfid = await benchRfid(nd, node, children['rfid-station'] ?? '', nodeFlags, quick ? 15 : 100, quick ? 2 : 5);
      } else progress('rfid skipped: socat not installed (apt-get install socat)');
    }
    if (only.has('latency')) {
      progress(`${tag}: box-open -> lock, door -> /state`);
      r.latency = await benchLatency(node, children['latency-station'] ?? '', nodeFlags, join(nd, 'latency-state'), quick ? 30 : 200, quick ? 5 : 20);
    }
    if (only.has('startup')) {
      progress(`${tag}: process start -> first /state vs bare node`);
      r.startup = await benchStartup(nd, release, node, quick ? 4 : 20, { profileDir: values.profile === true ? join(outDir, 'profiles') : null });
    }
    if (only.has('safestate')) {
      progress(`${tag}: safe-state start -> every lock OFF vs bare node`);
      r.safeState = await benchSafeState(nd, release, node, quick ? 4 : 20);
    }
    // Idle CPU is the daemon's own CPU time, so it runs alongside the memory run to save a minute.
    const idle = only.has('idle') ? benchIdle(join(nd, 'idle'), release, node, quick ? 10_000 : 60_000) : null;
    if (only.has('idle')) progress(`${tag}: idle CPU over ${quick ? 10 : 60} s (alongside the memory run)`);
    if (only.has('memory')) {
      progress(`${tag}: RSS over 3 x 10k events, station and bare node, with the unit's flags (${nodeFlags.join(' ') || 'none'})`);
      const snapshot = values.profile === true ? join(outDir, `station-${node.version}-${Date.now()}.heapsnapshot`) : null;
      // The unit's Environment= too (MALLOC_ARENA_MAX shapes RSS), its cache folder placed under this run's.
      const { env } = placeCommand(unit.execStart, unit, { node: 'node', release, configFile: '', cacheDir: join(nd, 'rss-cache') });
      r.memory = await benchMemory(node, children['rss-station'] ?? '', nodeFlags, env, join(nd, 'rss-state'), quick ? 2_000 : 10_000, 3, snapshot);
    }
    if (idle) r.idle = await idle;
  }
  if (only.has('journal')) {
    progress('journal record (write before the pulse) vs bare write and fsync');
    results.journal = await benchJournal(dir, quick ? 50 : 500);
  }
  if (only.has('fleet')) {
    progress('fleet: largest N with every heartbeat in time');
    results.fleet = await benchFleet(
      dir,
      quick
        ? { sizes: [50, 200], heartbeatMs: 2_000, observeMs: 6_000, ratePerMin: 2 }
        : { sizes: [250, 500, 1_000, 2_000], heartbeatMs: 5_000, observeMs: 15_000, ratePerMin: 2 },
    );
  }
  if (only.has('metrics')) {
    progress('metrics: RSS and the scan path with metrics on and off; one scrape of a 1,000-station fleet');
    results.metrics = await benchMetrics(
      dir,
      quick
        ? { events: 1_000, rounds: 2, scans: 40, warmup: 5, fleetStations: 200, experiment: values.experiment === true, idleMs: 10_000 }
        : { events: 5_000, rounds: 3, scans: 200, warmup: 20, fleetStations: 1_000, experiment: values.experiment === true, idleMs: 60_000 },
    );
  }
  if (only.has('kiosk')) {
    const host = nodes[0];
    if (host !== undefined) {
      progress("kiosk page: the kiosk's keys, quiet and under a local flood of sockets without the secret");
      const kd = join(dir, 'kiosk');
      mkdirSync(kd, { recursive: true });
      results.kiosk = await benchKiosk(kd, release, host, quick ? 20 : 200);
    }
  }
  if (only.has('technician')) {
    const host = nodes[0];
    if (host !== undefined) {
      progress('technician port: /healthz and /api/status on fresh connections, quiet and under a local flood of sockets without a token');
      const td = join(dir, 'technician');
      mkdirSync(td, { recursive: true });
      results.technician = await benchTechnician(td, release, host, quick ? 20 : 200);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const doc = {
  takenAt: new Date().toISOString(),
  machine: machine(),
  loadAverage: { before: loadBefore, after: loadavg() },
  quick,
  seconds: (performance.now() - started) / 1000,
  results,
  targets: verdicts(results),
};
writeFileSync(join(outDir, 'latest.json'), `${JSON.stringify(doc, null, 2)}\n`);
if (values.json === true) console.log(JSON.stringify(doc));
else {
  console.log(
    report(
      results,
      `${describeMachine(doc.machine)}; load average ${doc.loadAverage.before.map((l) => l.toFixed(1)).join(' ')} -> ${doc.loadAverage.after.map((l) => l.toFixed(1)).join(' ')}; ${doc.seconds.toFixed(0)} s${quick ? ' (--quick: smoke run)' : ''}`,
    ),
  );
  // The metrics figures print their own tables (bench/metrics.ts).
  if (results.metrics) console.log(`\n${metricsReport(results.metrics)}`);
  if (results.kiosk) console.log(`\n${kioskReport(results.kiosk)}`);
  if (results.technician) console.log(`\n${technicianReport(results.technician)}`);
}
