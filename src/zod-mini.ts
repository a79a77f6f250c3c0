/**
 * zod/mini as the station uses it: every module the daemon evaluates before its first /state
 * builds its schemas with `import * as z from '<this file>'`, never from 'zod/mini' itself
 * (eslint enforces it), so that the two process-wide settings below hold before any schema is
 * built or parsed, whatever module a process (or a test) loads first:
 *
 * - English messages. Classic `zod` installs its English locale itself; zod/mini has none, and
 *   without one every problem would read "Invalid input". Config problems, the journal's and the
 *   PIN throttle file's reasons and a malformed answer's reason show these texts.
 * - No JIT (`jitless`): zod compiles a parser per object schema on its first parse (new Function),
 *   worth it for a schema parsed thousands of times, not for a config parsed once and an answer per
 *   event (measured with classic zod: first config parse 7.7 -> 3.6 ms, an answer's parse 4-5 ->
 *   5-6 µs). An object schema reads the setting when it is built, hence here, before the first.
 *
 * Why zod/mini and not classic zod on the start path: classic's schemas carry its whole chainable
 * API and loading it costs ~14 ms of the daemon's start (docs/decisions/0045). The two share zod's core and its settings: what loads classic later (the
 * technician port, the portal client, the reference server) keeps them.
 */
import { config, int, maximum, minimum, minLength, number, string } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config({ ...en(), jitless: true });

export * from 'zod/mini';

/** An integer in [min, max]: the bound of every count, size and duration in the config schemas. */
export const intIn = (min: number, max: number) => number().check(int(), minimum(min), maximum(max));

/** A string that is not empty. */
export const nonEmpty = () => string().check(minLength(1));
