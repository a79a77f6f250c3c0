/**
 * `pickup-station fleet`: N virtual stations in one process against a station-protocol server.
 * Exit codes (src/errors.ts, as `sim-server`): EXIT_OK done, EXIT_USAGE a bad option, EXIT_CONFIG a
 * bad stations file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { intOption, numberOption, usageFailure } from '../cli/args.js';
import { EXIT_CONFIG, EXIT_OK, errorMessage, UsageError } from '../errors.js';
import { createLogger, type LogLevelName } from '../log.js';
import { SimConfigError, generateStation, parseSimData, seedData, type SeedData } from '../reference-server/index.js';
import { FleetMetricsError } from './metrics.js';
import { runFleet, type FleetSummary, type RunIo } from './run.js';

export const FLEET_USAGE = `usage: pickup-station fleet [options]
  --stations N                number of virtual stations (default 10; with --stations-file: all of it)
  --server URL                a station-protocol server: its base URL up to the version segment
                              (a trailing /v2 is accepted). Default: a reference server in this
                              process with N generated stations and seed data
  --stations-file FILE        the stations, in the reference server's format {stations, deposits,
                              pickups}; required with --server (the server must know the same)
  --write-stations-file FILE  write N generated, seeded stations to FILE and exit
                              (for: pickup-station sim-server --stations-file FILE)
  --rate R                    scripted actions (deposit, pickup, cancel in turn) per station per
                              minute (default 1; 0: heartbeats only)
  --heartbeat-ms MS           heartbeat interval of every station (default 30000)
  --hold-ms MS                how long a scripted person keeps a door open (default 1000)
  --ramp-ms MS                stations start spread over this (default: one heartbeat interval)
  --max-sockets N             sockets of the shared keep-alive HTTP agent (default 64)
  --duration-s S              stop after S seconds (default: on SIGINT/SIGTERM)
  --report-s S                a status line every S seconds (default 10; 0: none)
  --log-level L               the stations' log level, on stderr (default warn)
  --version V                 protocol version segment (default v2)
  --metrics-port N            serve every station's Prometheus metrics (a station label each) on
                              http://HOST:N/metrics (0: a free port, printed); the summary then
                              gives the size and render time of one whole scrape
  --metrics-host H            where /metrics listens (default 127.0.0.1)
  --metrics-token-file FILE   a file holding a token (stationctl token new) scrapers must present
                              as Bearer; required for a --metrics-host other than loopback
  --json                      the summary as one JSON line
  --help`;

const LEVELS: readonly LogLevelName[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export interface FleetCliIo extends RunIo {
  err(line: string): void;
}

const processIo: FleetCliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** An integer option with its default. */
const int = (raw: string | undefined, name: string, dflt: number, min: number, max: number): number => intOption(raw, name, min, max) ?? dflt;
/** A number option with its default. */
const num = (raw: string | undefined, name: string, dflt: number, min: number, max: number): number => numberOption(raw, name, min, max) ?? dflt;

export async function runFleetCli(argv: string[], io: FleetCliIo = processIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        stations: { type: 'string' },
        server: { type: 'string' },
        'stations-file': { type: 'string' },
        'write-stations-file': { type: 'string' },
        rate: { type: 'string' },
        'heartbeat-ms': { type: 'string' },
        'hold-ms': { type: 'string' },
        'ramp-ms': { type: 'string' },
        'max-sockets': { type: 'string' },
        'duration-s': { type: 'string' },
        'report-s': { type: 'string' },
        'log-level': { type: 'string' },
        version: { type: 'string' },
        'metrics-port': { type: 'string' },
        'metrics-host': { type: 'string' },
        'metrics-token-file': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }));
  } catch (e) {
    const usage = usageFailure(e, FLEET_USAGE, (text) => io.err(text));
    if (usage !== null) return usage;
    throw e;
  }
  if (values.help === true) {
    io.out(FLEET_USAGE);
    return EXIT_OK;
  }
  try {
    const count = values.stations === undefined ? undefined : int(values.stations, 'stations', 0, 1, 100_000);
    const heartbeatMs = int(values['heartbeat-ms'], 'heartbeat-ms', 30_000, 100, 119_999);
    const level = values['log-level'] ?? 'warn';
    if (!(LEVELS as readonly string[]).includes(level)) throw new UsageError(`--log-level: one of ${LEVELS.join(', ')}`);
    const version = values.version ?? 'v2';
    if (!/^[A-Za-z0-9._-]+$/.test(version)) throw new UsageError('--version: a path segment like v2');

    const out = values['write-stations-file'];
    if (out !== undefined) {
      const data = seedData(Array.from({ length: count ?? 10 }, () => generateStation()));
      writeFileSync(out, `${JSON.stringify(data)}\n`, { mode: 0o600 });
      io.out(`wrote ${data.stations.length} stations with seed data to ${out}`);
      return EXIT_OK;
    }
    if (values.server !== undefined && values['stations-file'] === undefined) {
      throw new UsageError('--server needs --stations-file: the stations (ids, passwords, boxes) the server knows');
    }
    const data =
      values['stations-file'] === undefined
        ? seedData(Array.from({ length: count ?? 10 }, () => generateStation()))
        : loadStations(values['stations-file'], count);
    const durationS = values['duration-s'] === undefined ? null : num(values['duration-s'], 'duration-s', 0, 0.1, 7 * 24 * 3600);
    const reportS = num(values['report-s'], 'report-s', 10, 0, 3600);
    if (values['metrics-port'] === undefined && (values['metrics-host'] !== undefined || values['metrics-token-file'] !== undefined)) {
      throw new UsageError('--metrics-host and --metrics-token-file need --metrics-port');
    }
    const metrics =
      values['metrics-port'] === undefined
        ? null
        : {
            host: values['metrics-host'] ?? '127.0.0.1',
            port: int(values['metrics-port'], 'metrics-port', 0, 0, 65_535),
            tokenFile: values['metrics-token-file'] ?? null,
          };
    const summary = await runFleet(
      {
        data,
        serverUrl: values.server === undefined ? null : baseUrlOf(values.server, version),
        version,
        heartbeatMs,
        ratePerMin: num(values.rate, 'rate', 1, 0, 6_000),
        holdMs: int(values['hold-ms'], 'hold-ms', 1_000, 0, 600_000),
        rampMs: int(values['ramp-ms'], 'ramp-ms', heartbeatMs, 0, 3_600_000),
        maxSockets: int(values['max-sockets'], 'max-sockets', 64, 1, 10_000),
        durationMs: durationS === null ? null : durationS * 1000,
        reportMs: reportS === 0 ? null : reportS * 1000,
        log: createLogger(level as LogLevelName, pino.destination({ dest: 2, sync: true })),
        metrics,
      },
      io,
    );
    io.out(values.json === true ? JSON.stringify(summary) : describe(summary));
    return EXIT_OK;
  } catch (e) {
    // A metrics option that cannot work (a token file missing, a public address without one) is the command line's mistake too.
    const usage = usageFailure(e instanceof FleetMetricsError ? new UsageError(e.message) : e, FLEET_USAGE, (text) => io.err(text));
    if (usage !== null) return usage;
    if (e instanceof SimConfigError) {
      io.err(e.message);
      return EXIT_CONFIG;
    }
    throw e;
  }
}

function loadStations(file: string, count: number | undefined): SeedData {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (e) {
    throw new SimConfigError([`${file}: ${errorMessage(e)}`]);
  }
  const data = parseSimData(raw);
  if (count === undefined) return data;
  if (count > data.stations.length) throw new UsageError(`--stations ${count}: ${file} has only ${data.stations.length}`);
  const stations = data.stations.slice(0, count);
  const ids = new Set(stations.map((s) => s.id));
  return { stations, deposits: data.deposits.filter((d) => ids.has(d.stationId)), pickups: data.pickups.filter((p) => ids.has(p.stationId)) };
}

/** server.baseUrl from what a person pastes: the reference server prints its URL with /v2. */
export function baseUrlOf(raw: string, version: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--server: not a URL (${raw})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--server: http or https (${raw})`);
  const path = url.pathname.replace(/\/+$/, '');
  const base = path.endsWith(`/${version}`) ? path.slice(0, -version.length - 1) : path;
  return `${url.origin}${base}`;
}

function describe(s: FleetSummary): string {
  const hb = (h: FleetSummary['heartbeatSent']): string =>
    `p50 ${h.p50Ms.toFixed(0)} ms, p99 ${h.p99Ms.toFixed(0)} ms, max ${h.maxMs.toFixed(0)} ms; late ${h.late}, silent ${h.silent} (limit ${h.limitMs.toFixed(0)} ms)`;
  const a = s.stats.actions;
  return [
    `fleet summary: ${s.stations} stations, ${s.seconds.toFixed(1)} s against ${s.server}`,
    `  actions (done/refused/failed): deposit ${a.deposit.done}/${a.deposit.refused}/${a.deposit.failed}, pickup ${a.pickup.done}/${a.pickup.refused}/${a.pickup.failed}, cancel ${a.cancel.done}/${a.cancel.refused}/${a.cancel.failed}`,
    `  unanswered events ${s.stats.unanswered}, deactivated stations ${s.stats.deactivated}`,
    `  heartbeat spacing sent: ${hb(s.heartbeatSent)}`,
    ...(s.heartbeatReceived ? [`  heartbeat spacing at the server: ${hb(s.heartbeatReceived)}`] : []),
    `  memory: rss ${s.memory.rssMiB.toFixed(1)} MiB, heap used ${s.memory.heapUsedMiB.toFixed(1)} MiB${s.memory.afterGc ? ' (after GC)' : ''}`,
    `  event-loop delay after the ramp: p99 ${s.eventLoopDelay.p99Ms.toFixed(1)} ms, max ${s.eventLoopDelay.maxMs.toFixed(1)} ms`,
    ...(s.metrics
      ? [
          `  metrics (${s.metrics.url}): one scrape of ${s.metrics.stations} stations = ${s.metrics.series} series, ${(s.metrics.bytes / 1024 / 1024).toFixed(2)} MiB; ` +
            `render p50 ${s.metrics.renderMs.p50.toFixed(0)} ms, max ${s.metrics.renderMs.max.toFixed(0)} ms (${s.metrics.renderMs.n} renders, ${s.metrics.served} served over HTTP)`,
        ]
      : []),
  ].join('\n');
}
