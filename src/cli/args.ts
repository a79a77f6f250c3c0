/**
 * The command-line conventions every binary keeps (pickup-station and its modes, stationctl,
 * stationctl portal, sim-server, fleet): options parsed by node:util parseArgs (strict), option
 * values checked here, and one answer to a wrong command line — what is wrong and the usage text
 * on stderr, exit 2, never a stack trace.
 */
import { EXIT_USAGE, isUsageError, UsageError } from '../errors.js';

export { isUsageError, UsageError };

/** An integer option in [min, max] (`--name N`); undefined when not given. */
export function intOption(raw: unknown, name: string, min: number, max: number = Number.MAX_SAFE_INTEGER): number | undefined {
  if (typeof raw !== 'string') return undefined;
  const n = Number(raw);
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max)
    throw new UsageError(`--${name}: must be an integer ${max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `${min}..${max}`} (got "${raw}")`);
  return n;
}

/** A number option in [min, max]; undefined when not given. */
export function numberOption(raw: unknown, name: string, min: number, max: number): number | undefined {
  if (typeof raw !== 'string') return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < min || n > max) throw new UsageError(`--${name}: must be a number ${min}..${max} (got "${raw}")`);
  return n;
}

/**
 * The one answer to a wrong command line: `message` and `usage` (the usage text, or where to find
 * it) on stderr, exit 2. For any other error, null: the caller decides.
 */
export function usageFailure(e: unknown, usage: string, writeErr: (text: string) => void): typeof EXIT_USAGE | null {
  if (!isUsageError(e)) return null;
  writeErr(`${e.message}\n${usage}`);
  return EXIT_USAGE;
}
