/**
 * The project's performance targets, evaluated per Node version (reported, never asserted in tests):
 *   start → first /state ≤ 3× bare Node (p50s), the daemon as the unit starts it;
 *   steady RSS < 60 MiB after 10k events with the unit's flags, flat to 30k (≤ 0.5 MiB per 10k);
 *   scan → /item-identify ≤ 1.5× the bare tty hop (p50s) and p99 < 5 ms;
 *   box-open answer → lock energized p99 < 1 ms; door edge → /state at the server p50 < 1 ms;
 *   safe-state start → every lock OFF ≤ 2× bare Node start;
 * and the earlier ones still held: start → first /state p99 < 1 s (restart truth), RSS
 * under the unit's MemoryHigh=, idle CPU < 0.3 % of a core, fleet ≥ 1,000 stations.
 */
import { unitMemoryLimits } from './lib/unit-memory.js';
import type { BenchResults, NodeResults } from './run.js';

export interface Verdict {
  readonly node: string;
  readonly target: string;
  readonly figure: string;
  readonly pass: boolean;
}

export function verdicts(all: BenchResults): Verdict[] {
  const out: Verdict[] = [];
  for (const r of all.nodes) out.push(...nodeVerdicts(r));
  if (all.fleet) out.push({ node: 'host', target: 'fleet holds >= 1,000 stations', figure: `${all.fleet.maxHeld}`, pass: all.fleet.maxHeld >= 1_000 });
  return out;
}

function nodeVerdicts(r: NodeResults): Verdict[] {
  const out: Verdict[] = [];
  const add = (target: string, figure: string, pass: boolean): void => void out.push({ node: r.node.version, target, figure, pass });
  if (r.startup) {
    const ratio = r.startup.station.p50 / r.startup.bare.p50;
    add('start -> first /state <= 3x bare (p50)', `${ratio.toFixed(2)}x`, ratio <= 3);
    // A station restarted after a kill -9 must report within 1 s of its process start.
    add('start -> first /state p99 < 1 s', `${r.startup.station.p99.toFixed(0)} ms`, r.startup.station.p99 < 1_000);
  }
  if (r.memory) {
    const s = r.memory.station;
    const steady = Math.max(...s.samples.map((x) => x.rssMiB));
    add('steady RSS (10k..30k events) < 60 MiB', `${steady.toFixed(1)} MiB`, steady < 60);
    add('RSS flat to 30k (<= 0.5 MiB/10k)', `${s.rssSlope.toFixed(2)} MiB/10k`, s.rssSlope <= 0.5);
    const { highMiB } = unitMemoryLimits();
    add(`RSS under the unit's MemoryHigh= (${highMiB} MiB)`, `${steady.toFixed(1)} MiB (${((100 * steady) / highMiB).toFixed(0)} %)`, steady < highMiB);
  }
  if (r.scan) {
    const ratio = r.scan.station.p50 / r.scan.bareTty.p50;
    add('scan -> request <= 1.5x bare hop (p50)', `${ratio.toFixed(2)}x`, ratio <= 1.5);
    add('scan -> request p99 < 5 ms', `${r.scan.station.p99.toFixed(2)} ms`, r.scan.station.p99 < 5);
  }
  if (r.latency) {
    add('box-open answer -> lock p99 < 1 ms', `${r.latency.answerToLock.p99.toFixed(2)} ms`, r.latency.answerToLock.p99 < 1);
    add('door edge -> /state p50 < 1 ms (+ debounce)', `${r.latency.doorToState.p50.toFixed(2)} ms`, r.latency.doorToState.p50 < 1);
  }
  if (r.safeState) {
    const ratio = r.safeState.safeState.p50 / r.safeState.bare.p50;
    add('safe-state -> locks OFF <= 2x bare (p50)', `${ratio.toFixed(2)}x`, ratio <= 2);
  }
  if (r.idle) add('idle CPU < 0.3 % of a core', `${r.idle.cpuPercent.toFixed(3)} %`, r.idle.cpuPercent < 0.3);
  return out;
}
