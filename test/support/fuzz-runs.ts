/**
 * How many cases each property runs, and the record of what ran.
 *
 * Each property states its full count (what `npm run fuzz` runs in CI: 100,000 and more in all).
 * `npm test` runs a slice of it (FUZZ_SCALE, default 0.05) so the suite stays quick while every
 * property still runs on every test run. FUZZ_SEED replays a failure (fast-check prints the seed and
 * path of a counterexample); FUZZ_COUNTS_FILE collects one JSON line per property for the summary
 * that scripts/fuzz.sh prints.
 */
import { appendFileSync } from 'node:fs';
import fc from 'fast-check';

// Taken at import: a property may run under fake timers, which replace performance.now.
const realNow = performance.now.bind(performance);
const SCALE = Number(process.env['FUZZ_SCALE'] ?? '0.05');
const SEED = process.env['FUZZ_SEED'];

export function runsOf(full: number): number {
  return Math.max(25, Math.round(full * (Number.isFinite(SCALE) && SCALE > 0 ? SCALE : 0.05)));
}

function record(name: string, numRuns: number, ms: number): void {
  const file = process.env['FUZZ_COUNTS_FILE'];
  if (file) appendFileSync(file, `${JSON.stringify({ name, numRuns, ms: Math.round(ms) })}\n`);
}

function params<T>(full: number): fc.Parameters<T> {
  return { numRuns: runsOf(full), ...(SEED === undefined ? {} : { seed: Number(SEED) }) };
}

/** fc.assert with the scaled count, recorded under `name`. */
export function check<T>(name: string, full: number, property: fc.IProperty<T>): void {
  const p = params<T>(full);
  const t0 = realNow();
  fc.assert(property, p);
  record(name, p.numRuns ?? 0, realNow() - t0);
}

export async function checkAsync<T>(name: string, full: number, property: fc.IAsyncProperty<T>): Promise<void> {
  const p = params<T>(full);
  const t0 = realNow();
  await fc.assert(property, p);
  record(name, p.numRuns ?? 0, realNow() - t0);
}

/** A property's test time-out: its count bounds it, not the clock (a loaded CI machine is slow). */
export const FUZZ_TIMEOUT_MS = 15 * 60_000;

/**
 * A plain assertion for a property's hot path (vitest's expect costs more than the core
 * transition it checks); the message is built only on failure.
 */
export function must(condition: boolean, message: () => string): asserts condition {
  if (!condition) throw new Error(message());
}
