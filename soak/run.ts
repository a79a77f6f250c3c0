/**
 * `npm run soak`: a station soaked against a flapping server.
 *
 * This process is the station — startStation() with simulated hardware, as the daemon assembles it,
 * the real HTTPS client trusting a private CA, the technician port with its live stream followed —
 * plus the scripted people (soak/person.ts). The server side runs in a child process
 * (soak/server.ts): the reference server behind the fault gateway, switching between healthy and
 * each fault of the matrix (test/support/fault-catalogue.ts) in turn, every endpoint at once.
 * Heartbeat and timeouts are short and from config, as a field config would set them.
 *
 * It runs for --minutes (default 10) and at least until 2,880 /state events went out (24 h of
 * heartbeats at the spec's 30 s), then heals the server, lets the station settle, and prints:
 * events sent / answered / resent, deactivations and recoveries, door transitions made vs seen by
 * the server, unintended pulses, RSS at start and end (against the unit's MemoryHigh= when set),
 * event-loop lag p99, and the secrets check over the log, the live streams, the technician status
 * and the storage directory. Exit 1 when a must is broken:
 *
 * - door transitions made == door transitions the server saw (0 lost);
 * - unintended pulses == 0 (every pulse answers a box-open to /item-identify or /pin-enter);
 * - no secret in anything the station wrote or showed;
 * - RSS at the end below MemoryHigh= (when the unit sets it);
 * - the heartbeat count reached, and the station back in service with every door reported CLOSED.
 *
 *   --minutes M          real time (default 10); --quick is --minutes 1 and a 1/10 heartbeat target
 *   --heartbeat-ms N     timing.heartbeatIntervalMs (default 200)
 *   --answer-timeout-ms  server.answerTimeoutMs (default 500)
 *   --json               the result as JSON on stdout instead of the table
 */
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { createClient, startStation } from '../src/app.js';
import { validateConfig } from '../src/config/load.js';
import { hashToken, newToken } from '../src/tokens/tokens.js';
import { startSupervised } from '../src/supervised.js';
import { SimulatedHardware } from '../src/devices/simulated/hardware.js';
import { createLogger, LogRing } from '../src/log.js';
import { generateStation } from '../src/reference-server/seed.js';
import { faultCatalogue } from '../test/support/fault-catalogue.js';
import { SwitchableLookup } from '../test/support/net-faults.js';
import { findLeaksIn } from '../test/support/secrets.js';
import { Capture } from './capture.js';
import { SoakCounters } from './counters.js';
import { ServerProcess, type ServerReport } from './ipc.js';
import { People } from './person.js';
import { memoryHigh, unitNodeOptions } from './unit.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '../..');
const FULL_HEARTBEATS = 2_880; // 24 h at the spec's default 30 s

const { values } = parseArgs({
  options: {
    minutes: { type: 'string' },
    quick: { type: 'boolean' },
    'heartbeat-ms': { type: 'string' },
    'answer-timeout-ms': { type: 'string' },
    json: { type: 'boolean' },
  },
  strict: true,
});
const minutes = Number(values.minutes ?? (values.quick ? '1' : '10'));
const heartbeatMs = Number(values['heartbeat-ms'] ?? '200');
const answerTimeoutMs = Number(values['answer-timeout-ms'] ?? '500');
const minHeartbeats = Math.round(FULL_HEARTBEATS * Math.min(1, minutes / 10));
const durationMs = minutes * 60_000;
const progress = (msg: string): void => {
  if (values.json !== true) process.stderr.write(`soak: ${msg}\n`);
};
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const mib = (bytes: number): number => Math.round((bytes / 1048576) * 10) / 10;

async function until(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!(await cond())) {
    if (performance.now() > end) throw new Error(`soak: timed out waiting for ${what}`);
    await sleep(50);
  }
}

async function main(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'pickup-soak-'));
  const boxes = 8;
  const station = generateStation(boxes);
  const stationFile = join(dir, 'station.json');
  writeFileSync(stationFile, JSON.stringify({ station, answerTimeoutMs }));

  // --- the server process ------------------------------------------------------------------------
  const child = fork(join(HERE, 'server.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const server = new ServerProcess(child);
  const { baseUrl, caFile } = await server.call({ op: 'start', stationFile }, 'start');

  // --- the station, as the daemon assembles it -----------------------------------------------
  const storage = join(dir, 'state');
  mkdirSync(storage);
  const token = newToken();
  const { config, problems } = validateConfig({
    station: { id: station.id, boxes: station.boxes.map((id, i) => ({ number: i + 1, id })) },
    server: { baseUrl, caFile, answerTimeoutMs },
    timing: { heartbeatIntervalMs: heartbeatMs, messageMs: 1_000, doorOpenTimeoutMs: 1_500, duplicateScanWindowMs: 0 },
    locks: { pulseMs: 100 },
    hardware: { kind: 'simulated', doorSpringMs: 30 },
    log: { level: 'info' },
    storage: { directory: storage },
    technician: { listen: { host: '127.0.0.1', port: 0 }, tokens: [{ name: 'soak', scope: 'read', hash: hashToken(token) }], keepAliveMs: 15_000 },
  });
  if (!config) throw new Error(`soak config invalid: ${JSON.stringify(problems)}`);
  const logFile = join(dir, 'station.log');
  const ring = new LogRing(200);
  const log = createLogger(config.log.level, pino.destination({ dest: logFile, sync: false }), { ring });
  const sim = new SimulatedHardware({ boxNumbers: station.boxes.map((_, i) => i + 1), doorSpringMs: 30, inputVoltage: 12.2, internetSignalStrength: 100 });
  const lookup = new SwitchableLookup();
  const agent = { https: new Agent({ keepAlive: true, lookup: lookup.lookup }) };

  const c = new SoakCounters(station.boxes);
  const client = c.watchClient(createClient(config, station.password, log, agent));
  const first = await startStation({ config, password: station.password, log, hardware: sim, client });
  const wp = await startSupervised({
    station: first,
    loaded: { config, password: station.password, warnings: [] },
    configFile: null,
    env: {},
    log,
    ring,
    start: () => Promise.reject(new Error('no reload in the soak')),
  });
  const portUrl = wp.port?.url;
  if (!portUrl) throw new Error('technician port did not start');
  const runtime = wp.supervisor.station.runtime;
  c.watch(runtime, sim);
  const capture = new Capture(portUrl, token, dir);
  await capture.start();

  await until(() => runtime.snapshot().mode.kind === 'idle', 30_000, 'the station idle');
  // The histogram records each whole sampling interval (resolution + delay): the lag is the excess.
  const LAG_RESOLUTION_MS = 10;
  const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  lag.enable();
  const rssStart = process.memoryUsage.rss();
  let rssPeak = rssStart;
  const rssByMinute: number[] = [];
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  }, 1_000);
  const missing = unitNodeOptions(REPO).filter((o) => !process.execArgv.includes(o));
  if (missing.length > 0) progress(`WARNING: node runs without the unit's ${missing.join(' ')}: RSS is not the field's`);
  progress(`station ${station.id} against ${baseUrl}; ${minutes} min, heartbeat ${heartbeatMs} ms, answer timeout ${answerTimeoutMs} ms; files in ${dir}`);

  // --- the run: people act, the server flaps --------------------------------------------------
  const people = new People(
    sim,
    server,
    station.boxes.map((_, i) => i + 1),
  );
  const acting = people.run();
  const faults = faultCatalogue(answerTimeoutMs);
  const t0 = performance.now();
  // Each fault once per cycle; a cycle takes about a fifth of the run (at least 2 s per phase).
  const phaseMs = Math.max(2_000, durationMs / 5 / (faults.length * 2));
  let i = 0;
  while (performance.now() - t0 < durationMs || c.heartbeats < minHeartbeats) {
    const fault = faults[i++ % faults.length]!;
    await sleep(phaseMs); // healthy
    lookup.failing = 'net' in fault.fault && fault.fault.net === 'dns';
    await server.call({ op: 'apply', fault: fault.name }, 'ok');
    c.phase(fault.name);
    await sleep(phaseMs * 0.8);
    lookup.failing = false;
    await server.call({ op: 'heal' }, 'ok');
    if (rssByMinute.length < Math.floor((performance.now() - t0) / 60_000)) rssByMinute.push(mib(process.memoryUsage.rss()));
    if (i % faults.length === 0)
      progress(
        `${Math.round((performance.now() - t0) / 1000)} s: ${c.heartbeats} /state, ${c.doorTransitions} door transitions, ${c.deactivations} deactivations`,
      );
  }

  // --- settle: healthy server, every door closed, the station idle and reported ----------------
  people.stop();
  await acting;
  people.closeAll();
  const settled = performance.now();
  let report: ServerReport = await server.call({ op: 'report' }, 'report').then((r) => r.report);
  let settleError: string | null = null;
  try {
    await until(() => runtime.snapshot().mode.kind === 'idle' && runtime.snapshot().inFlight === null, 30_000, 'the station back in service');
    await until(
      async () => {
        report = (await server.call({ op: 'report' }, 'report')).report;
        return station.boxes.every((_, n) => report.lastReported[String(n + 1)] === 'CLOSED') && runtime.snapshot().inFlight === null;
      },
      30_000,
      'every door reported CLOSED',
    );
  } catch (e) {
    settleError = e instanceof Error ? e.message : String(e);
  }
  const runMs = settled - t0;
  lag.disable();
  clearInterval(sampler);
  await capture.takeStatus();
  const rssEnd = process.memoryUsage.rss();
  report = (await server.call({ op: 'report' }, 'report')).report;

  // --- stop, then the secrets check over everything written ---------------------------------------
  capture.stop();
  await wp.stop();
  agent.https.destroy();
  await sleep(200);
  child.disconnect();
  const sources = capture.sources([logFile], storage);
  const leaks = findLeaksIn(sources, {
    stationId: station.id,
    password: station.password,
    tokens: [token],
    pins: people.pins,
    identifiers: people.identifiers,
  });

  // --- the result ----------------------------------------------------------------------------
  const seen = Object.values(report.transitionsSeen).reduce((s, n) => s + n, 0);
  const high = memoryHigh(REPO);
  const result = {
    run: { minutes: Math.round((runMs / 60_000) * 10) / 10, heartbeatMs, answerTimeoutMs, nodeOptions: process.execArgv, faultPhases: c.faultPhases },
    events: {
      sent: c.sent,
      answered: c.answered,
      unanswered: c.unanswered,
      resent: c.resent,
      requestsOnTheWire: c.onWire,
      heartbeats: c.heartbeats,
      heartbeatsRequired: minHeartbeats,
    },
    deactivations: c.deactivations,
    recoveries: c.recoveries,
    people: people.counts,
    doors: {
      transitionsMade: c.doorTransitions,
      transitionsSeenByServer: seen,
      lost: c.doorTransitions - seen,
      // box number -> [made, seen by the server]
      perBox: Object.fromEntries(station.boxes.map((_, i) => [String(i + 1), [c.madePerBox[String(i + 1)] ?? 0, report.transitionsSeen[String(i + 1)] ?? 0]])),
    },
    pulses: { total: c.pulses, boxOpensAnswered: c.boxOpens, unintended: c.unintendedPulses, boxOpenNotPulsed: c.boxOpenNotPulsed },
    server: {
      requests: report.requests,
      stateRequests: report.stateRequests,
      depositsStored: report.depositsStored,
      pickupsDone: report.pickupsDone,
      rssMiB: report.rssMiB,
    },
    memory: {
      rssStartMiB: mib(rssStart),
      rssEndMiB: mib(rssEnd),
      rssPeakMiB: mib(rssPeak),
      rssByMinuteMiB: rssByMinute,
      memoryHighMiB: high === null ? null : mib(high),
    },
    eventLoopLagMs: {
      p50: Math.max(0, Math.round((lag.percentile(50) / 1e6 - LAG_RESOLUTION_MS) * 100) / 100),
      p99: Math.max(0, Math.round((lag.percentile(99) / 1e6 - LAG_RESOLUTION_MS) * 100) / 100),
      max: Math.max(0, Math.round((lag.max / 1e6 - LAG_RESOLUTION_MS) * 100) / 100),
    },
    secrets: { sourcesChecked: Object.keys(sources).length, bytesChecked: Object.values(sources).reduce((s, t) => s + t.length, 0), leaks: leaks.length },
    files: dir,
  };
  const broken: string[] = [];
  if (result.doors.lost !== 0) broken.push(`door transitions: ${c.doorTransitions} made, ${seen} seen by the server`);
  if (c.unintendedPulses !== 0) broken.push(`${c.unintendedPulses} unintended pulses`);
  if (leaks.length > 0)
    broken.push(
      `${leaks.length} secrets leaked: ${leaks
        .slice(0, 5)
        .map((l) => `${l.what} in ${l.source}: ${l.context}`)
        .join('; ')}`,
    );
  if (high !== null && rssEnd >= high) broken.push(`RSS ${mib(rssEnd)} MiB at the end, MemoryHigh= ${mib(high)} MiB`);
  if (c.heartbeats < minHeartbeats) broken.push(`${c.heartbeats} /state, fewer than ${minHeartbeats}`);
  if (settleError !== null) broken.push(settleError);

  mkdirSync(join(REPO, 'soak/out'), { recursive: true });
  writeFileSync(join(REPO, 'soak/out/latest.json'), `${JSON.stringify({ ...result, broken }, null, 2)}\n`);
  if (values.json === true) process.stdout.write(`${JSON.stringify({ ...result, broken }, null, 2)}\n`);
  else process.stdout.write(table(result, broken));
  return broken.length === 0 ? 0 : 1;
}

function table(
  r: Record<string, unknown> & { events: { sent: Record<string, number>; answered: Record<string, number>; unanswered: Record<string, number> } },
  broken: readonly string[],
): string {
  const ep = ['state', 'item-identify', 'pin-enter', 'cancel'];
  const row = (k: string, v: unknown): string => `${k.padEnd(34)} ${typeof v === 'string' ? v : JSON.stringify(v)}\n`;
  let out = '\nsoak\n';
  for (const [k, v] of Object.entries(r)) {
    if (k === 'events') {
      out += row(
        'events (sent/answered/unanswered)',
        ep.map((e) => `/${e} ${r.events.sent[e] ?? 0}/${r.events.answered[e] ?? 0}/${r.events.unanswered[e] ?? 0}`).join('  '),
      );
      const { sent: _s, answered: _a, unanswered: _u, ...rest } = r.events as Record<string, unknown>;
      for (const [k2, v2] of Object.entries(rest)) out += row(`  ${k2}`, v2);
    } else out += row(k, v);
  }
  out += broken.length === 0 ? 'musts: all kept\n' : `MUSTS BROKEN:\n${broken.map((b) => `  - ${b}`).join('\n')}\n`;
  return out;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`soak failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(2);
  },
);
