/**
 * The memory ceiling the systemd unit gives the station (MemoryHigh=, MemoryMax=), read from
 * systemd/pickup-station.service, so the bench and the soak print their RSS against it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The unit in this checkout, found upwards from here (the source in bench/lib or the build in dist/bench/lib). */
function unitFile(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    const f = join(dir, 'systemd/pickup-station.service');
    if (existsSync(f)) return f;
  }
  throw new Error('systemd/pickup-station.service not found above bench/lib');
}

export interface UnitMemoryLimits {
  /** MemoryHigh= in MiB: the kernel reclaims and throttles above it. */
  readonly highMiB: number;
  /** MemoryMax= in MiB: the kernel kills the station above it (it restarts, locks OFF first). */
  readonly maxMiB: number;
}

const UNITS: Record<string, number> = { K: 1 / 1024, M: 1, G: 1024, T: 1024 * 1024 };

/** A systemd memory size (bytes or K/M/G/T suffixed, 1024-based) in MiB; NaN when absent or not a size. */
function mib(text: string, key: string): number {
  const m = new RegExp(`^${key}=(\\d+)([KMGT]?)\\s*$`, 'm').exec(text);
  if (m === null) return Number.NaN;
  const n = Number(m[1]);
  return m[2] === '' || m[2] === undefined ? n / 1_048_576 : n * (UNITS[m[2]] ?? Number.NaN);
}

export function unitMemoryLimits(text: string = readFileSync(unitFile(), 'utf8')): UnitMemoryLimits {
  return { highMiB: mib(text, 'MemoryHigh'), maxMiB: mib(text, 'MemoryMax') };
}
