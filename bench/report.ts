/** The bench's printed report: per Node version one table of figures, then fleet, evidence, targets. */
import type { BenchResults, NodeResults } from './run.js';
import { ms, renderTable, x } from './lib/table.js';
import type { Summary } from './lib/stats.js';
import type { MemoryRun } from './memory.js';
import { verdicts } from './targets.js';

/** Board-profile default of the GPIO door debounce (drivers-gpio: src/devices/board-config.ts, gpio.debounceMs). */
export const GPIO_DEBOUNCE_DEFAULT_MS = 30;

const row = (name: string, s: Summary, bare?: Summary, note = ''): string[] => [
  name,
  String(s.n),
  ms(s.p50),
  ms(s.p99),
  bare ? ms(bare.p50) : '',
  bare ? x(s.p50 / bare.p50) : '',
  note,
];

function latencyTable(r: NodeResults): string | null {
  const rows: string[][] = [];
  if (r.scan) {
    rows.push(
      row(
        'scan -> /item-identify at server (serial driver, pty)',
        r.scan.station,
        r.scan.bareTty,
        `vs bare serialport: ${x(r.scan.station.p50 / r.scan.bareSerialport.p50)}`,
      ),
    );
    rows.push(row('  bare hop: tty.ReadStream -> http.request', r.scan.bareTty));
    rows.push(row('  bare hop: serialport -> http.request', r.scan.bareSerialport));
    if (r.scan.stationWarn) rows.push(row('  experiment: station with log.level warn', r.scan.stationWarn, r.scan.bareTty));
  }
  if (r.rfid) {
    const f = r.rfid;
    rows.push(
      row(
        `RFID tag placed -> /item-identify at server (model reader, ${f.baudRate} baud, pty)`,
        f.tagToIdentify,
        undefined,
        `polled every ${f.inventoryIntervalMs} ms: about half of it is the wait for the next inventory`,
      ),
    );
    rows.push(
      row(
        'RFID set of 10 placed -> /item-identify: ISO 28560-3 34-byte block + library, title blocks, SLIX2 (80 blocks)',
        f.set10Full,
        f.set10FullFloor,
        "vs the model's own processing + line time",
      ),
    );
    rows.push(
      row(
        'RFID set of 10 placed -> /item-identify: Danish 32-byte block, SLIX (28 blocks)',
        f.set10Danish,
        f.set10DanishFloor,
        "vs the model's own processing + line time",
      ),
    );
    rows.push(row('RFID inventory + read of a 3-part set (driver, pty)', f.setRead, f.setReadFloor, "vs the model's own processing + line time"));
  }
  if (r.latency) {
    rows.push(row('box-open answer -> lock energized', r.latency.answerToLock));
    rows.push(row('  answer -> event-done (got, p-retry, parse)', r.latency.answerToDone));
    rows.push(row('  event-done -> lock (core, runtime)', r.latency.doneToLock));
    rows.push(
      row(
        'door edge -> /state at server (sim, no debounce)',
        r.latency.doorToState,
        undefined,
        `+ GPIO debounce ${GPIO_DEBOUNCE_DEFAULT_MS} ms (default) on real doors`,
      ),
    );
  }
  if (r.startup) {
    const cpu = `main-thread CPU p50 ${ms(r.startup.stationCpu.p50)} vs ${ms(r.startup.bareCpu.p50)} (${x(r.startup.stationCpu.p50 / r.startup.bareCpu.p50)})`;
    rows.push(row('process start -> first /state at server (unit ExecStart)', r.startup.station, r.startup.bare, cpu));
    rows.push(row('  bare node start -> first POST at server', r.startup.bare));
  }
  if (r.safeState) {
    rows.push(
      row(
        `safe-state (unit ExecStartPre) -> ${r.safeState.locks} locks OFF`,
        r.safeState.safeState,
        r.safeState.bare,
        'cdev backend; gpiod tools stand-ins (bench/lib/fake-gpiod.ts)',
      ),
    );
    rows.push(row('  bare node start -> one gpioset run', r.safeState.bare));
  }
  return rows.length > 0 ? renderTable(['latency (ms)', 'n', 'p50', 'p99', 'bare p50', 'ratio', 'note'], rows) : null;
}

function memoryTable(r: NodeResults): string[] {
  if (!r.memory) return [];
  const runs: [string, MemoryRun][] = [
    ['station', r.memory.station],
    ['bare node', r.memory.bare],
  ];
  const rows = runs.flatMap(([name, m]) =>
    m.samples.map((s) => [
      `${name} @ ${s.events} events`,
      s.rssMiB.toFixed(1),
      s.fileMiB.toFixed(1),
      s.anonMiB.toFixed(1),
      s.heapTotalMiB.toFixed(1),
      s.heapUsedMiB.toFixed(1),
    ]),
  );
  return [
    renderTable([`memory after GC (MiB), node ${r.memory.nodeFlags.join(' ') || '(no flags)'}`, 'RSS', 'file', 'anon', 'heap total', 'heap used'], rows),
    ...runs.map(
      ([name, m]) =>
        `  ${name}: RSS slope ${m.rssSlope.toFixed(2)} MiB per 10k events, heap used ${m.heapSlope.toFixed(3)} MiB per 10k (${m.seconds.toFixed(0)} s)`,
    ),
  ];
}

function nodeBlock(r: NodeResults): string[] {
  const out = [`=== ${r.node.label} ${r.node.version}: ${r.node.origin}`, ''];
  const lat = latencyTable(r);
  if (lat !== null) out.push(lat, '');
  const mem = memoryTable(r);
  if (mem.length > 0) out.push(...mem, '');
  if (r.idle)
    out.push(
      `idle daemon, default heartbeat: ${r.idle.cpuPercent.toFixed(3)} % of a core (${(r.idle.cpuS * 1000).toFixed(0)} ms CPU in ${r.idle.windowS.toFixed(0)} s, ${r.idle.heartbeats} heartbeats), RSS ${r.idle.rssMiB.toFixed(1)} MiB`,
      '',
    );
  if (r.startup) {
    out.push(`start-up: ${r.startup.command}`);
    out.push(
      `  node boots in ${r.startup.nodeBootMs.toFixed(0)} ms; load time in a fresh process (median): ${r.startup.imports.map((i) => `${i.specifier} ${i.importMs.toFixed(0)} ms`).join(', ')}`,
    );
    if (r.startup.profile)
      out.push(
        `  --cpu-prof of one start, self time by origin: ${r.startup.profile
          .slice(0, 8)
          .map((p) => `${p.origin} ${p.ms.toFixed(0)} ms`)
          .join(', ')}`,
      );
    out.push('');
  }
  return out;
}

export function report(all: BenchResults, machineLine: string): string {
  const out: string[] = [`machine: ${machineLine}`, ''];
  for (const r of all.nodes) out.push(...nodeBlock(r));
  if (all.journal) {
    const j = all.journal;
    out.push(`=== journal (${process.version}, in this process)`);
    out.push(
      renderTable(
        ['latency (ms)', 'n', 'p50', 'p99', 'bare p50', 'ratio', 'note'],
        [
          row('journal record before a pulse (write(2), page cache)', j.record, j.bareWrite, 'fsync follows, batched, off the path'),
          row('  bare: writeSync of the same line', j.bareWrite),
          row('  fsync of one record (if waited for before the pulse)', j.fsync),
        ],
      ),
      '',
    );
  }
  if (all.fleet) {
    const f = all.fleet;
    const frows = f.runs.map((run) => [
      String(run.n),
      run.held ? 'yes' : 'NO',
      ms(run.heartbeat.p50Ms),
      ms(run.heartbeat.p99Ms),
      ms(run.heartbeat.maxMs),
      String(run.heartbeat.late),
      String(run.heartbeat.silent),
      String(run.unanswered),
      `${run.actionsDone}/${run.actionsFailed}`,
      run.rssMiB.toFixed(0),
      run.heapUsedMiB.toFixed(0),
      run.cpuPercent.toFixed(0),
      `${run.fleetLoopMaxMs.toFixed(0)}/${run.serverLoopMaxMs.toFixed(0)}`,
    ]);
    out.push(
      `=== fleet (${process.version}; heartbeat ${f.heartbeatMs} ms, ${f.ratePerMin} actions/station/min; /state spacing at the server, limit interval + 10 %)`,
    );
    out.push(
      renderTable(
        [
          'N',
          'held',
          'gap p50',
          'gap p99',
          'gap max',
          'late',
          'silent',
          'unanswered',
          'actions ok/fail',
          'RSS MiB',
          'heap MiB',
          'CPU %',
          'loop max fleet/server ms',
        ],
        frows,
      ),
    );
    out.push(
      `  largest N held: ${f.maxHeld}; memory per station: ${f.rssKiBPerStation.toFixed(0)} KiB RSS, ${f.heapKiBPerStation.toFixed(0)} KiB heap (slope over N)`,
      '',
    );
  }
  const v = verdicts(all);
  if (v.length > 0)
    out.push(
      renderTable(
        ['node', 'target', 'figure', 'result'],
        v.map((t) => [t.node, t.target, t.figure, t.pass ? 'pass' : 'MISS']),
      ),
    );
  return out.join('\n');
}
