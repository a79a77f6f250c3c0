/**
 * The schema builder of the whole code base: every module builds and types its schemas with
 * `import * as z from '<path>/schema.js'`, never from 'zod' or 'zod/mini' (eslint enforces it).
 * The dialect is chosen here, once: zod/mini, the functional form of zod 4 (`z.optional(x)`,
 * `x.check(z.minLength(1))`) — docs/decisions/0067 has the figures.
 *
 * Why zod/mini: a classic zod schema carries its whole chainable API, and building the daemon's
 * schemas with it cost ~14 ms of its start (docs/decisions/0045); the two dialects share zod's core,
 * so the same checks give the same issues and the same messages.
 *
 * The two process-wide settings below hold before any schema is built or parsed, whatever module
 * a process (or a test) loads first:
 *
 * - English messages. zod/mini has no locale of its own, and without one every problem would read
 *   "Invalid input". Config problems, the journal's and the PIN throttle file's reasons, a malformed
 *   answer's reason and a technician's 400 show these texts.
 * - No JIT (`jitless`): zod compiles a parser per object schema on its first parse (new Function),
 *   worth it for a schema parsed thousands of times, not for a config parsed once and an answer per
 *   event (measured with classic zod: first config parse 7.7 -> 3.6 ms, an answer's parse 4-5 ->
 *   5-6 µs). An object schema reads the setting when it is built, hence here, before the first.
 */
import { config, int, maximum, minimum, minLength, number, string } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config({ ...en(), jitless: true });

export * from 'zod/mini';

/** An integer in [min, max]: the bound of every count, size and duration in the config schemas. */
export const intIn = (min: number, max: number) => number().check(int(), minimum(min), maximum(max));

/** A string that is not empty. */
export const nonEmpty = () => string().check(minLength(1));

/**
 * Schemas built on their first use rather than when their module loads: what the daemon parses
 * only after its first /state (a server's answers) costs its start nothing (docs/decisions/0067).
 */
export function builtOnFirstUse<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}
