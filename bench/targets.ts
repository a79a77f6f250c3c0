/**
 * The targets, evaluated (reported, never asserted in tests):
 * scan → request ≤ 1.5× the bare hop (p50s) with p99 < 5 ms; start → first /state ≤ 6× bare
 * (p50s) and p99 < 1 s (issue 11: restart truth); steady RSS < 70 MiB and flat; idle CPU < 0.3 % of a core; fleet ≥ 1,000 stations.
 */
import type { FleetResult } from './fleet.js';
import type { IdleResult } from './idle.js';
import type { MemoryResult } from './memory.js';
import type { ScanResult } from './scan.js';
import type { StartupResult } from './startup.js';
import { unitMemoryLimits } from './lib/unit-memory.js';

export interface Verdict {
  readonly target: string;
  readonly figure: string;
  readonly pass: boolean;
}

/** "Flat": RSS at the last sample within 5 % of the first, and heap after GC growing < 0.5 MiB per 10k events. */
export function isFlat(m: MemoryResult): boolean {
  const first = m.samples[0]?.rssMiB ?? Number.NaN;
  const last = m.samples[m.samples.length - 1]?.rssMiB ?? Number.NaN;
  return last <= first * 1.05 && m.heapSlope < 0.5;
}

export function verdicts(r: { scan?: ScanResult; startup?: StartupResult; memory?: MemoryResult; idle?: IdleResult; fleet?: FleetResult }): Verdict[] {
  const out: Verdict[] = [];
  if (r.scan) {
    const ratio = r.scan.station.p50 / r.scan.bareTty.p50;
    out.push({ target: 'scan -> request <= 1.5x bare hop (p50)', figure: `${ratio.toFixed(2)}x`, pass: ratio <= 1.5 });
    out.push({ target: 'scan -> request p99 < 5 ms', figure: `${r.scan.station.p99.toFixed(2)} ms`, pass: r.scan.station.p99 < 5 });
  }
  if (r.startup) {
    const ratio = r.startup.station.p50 / r.startup.bare.p50;
    out.push({ target: 'start -> first /state <= 6x bare (p50)', figure: `${ratio.toFixed(2)}x`, pass: ratio <= 6 });
    // Issue 11: a restarted station (after a kill -9) reports within 1 s of process start.
    out.push({ target: 'start -> first /state p99 < 1 s', figure: `${r.startup.station.p99.toFixed(0)} ms`, pass: r.startup.station.p99 < 1_000 });
  }
  if (r.memory) {
    const steady = Math.max(...r.memory.samples.map((s) => s.rssMiB));
    out.push({ target: 'steady RSS < 70 MiB', figure: `${steady.toFixed(1)} MiB`, pass: steady < 70 });
    const { highMiB } = unitMemoryLimits();
    out.push({ target: `RSS under the unit's MemoryHigh= (${highMiB} MiB)`, figure: `${steady.toFixed(1)} MiB (${((100 * steady) / highMiB).toFixed(0)} %)`, pass: steady < highMiB });
    out.push({ target: 'RSS flat (10k -> end)', figure: `${r.memory.rssSlope.toFixed(2)} MiB/10k ev (heap ${r.memory.heapSlope.toFixed(2)})`, pass: isFlat(r.memory) });
  }
  if (r.idle) out.push({ target: 'idle CPU < 0.3 % of a core', figure: `${r.idle.cpuPercent.toFixed(3)} %`, pass: r.idle.cpuPercent < 0.3 });
  if (r.fleet) out.push({ target: 'fleet holds >= 1,000 stations', figure: `${r.fleet.maxHeld}`, pass: r.fleet.maxHeld >= 1_000 });
  return out;
}
