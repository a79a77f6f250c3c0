/**
 * What `pickup-station safe-state` (src/devices/gpio/safe-state.ts) reads, and only that: the
 * config's `hardware.kind` and `hardware.profile`, and of the profile `gpio.backend` and every box's
 * `lock` line, with the daemon's own line schema. A broken config must still let the locks be made
 * safe, so nothing else of either file is validated here; a problem is a ConfigError (exit 78)
 * naming the path.
 */
import * as z from '../schema.js';
import { dirname, resolve } from 'node:path';
import { gpioBackendSchema, outputLineSchema } from '../devices/gpio/line-schema.js';
import { ConfigError } from '../errors.js';
import { resolveConfigPaths } from './paths.js';
import { zodProblems } from './problems.js';
import { readJsonFile } from './read.js';

/** The config's hardware section as far as safe-state reads it. */
const hardwareRefSchema = z.discriminatedUnion('kind', [
  z.looseObject({ kind: z.literal('simulated') }),
  z.looseObject({ kind: z.literal('board'), profile: z.string().check(z.minLength(1)) }),
]);

/** The board profile as far as safe-state reads it: the backend and the lock lines. */
const lockProfileSchema = z.looseObject({
  gpio: z.prefault(z.looseObject({ backend: gpioBackendSchema }), {}),
  boxes: z.array(z.looseObject({ lock: outputLineSchema })).check(z.minLength(1), z.maxLength(999)),
});
export type LockProfile = z.output<typeof lockProfileSchema>;

/** The profile a config file points to; null when its hardware is simulated (nothing to do). */
export function profileOfConfig(file: string): string | null {
  // The profile path as the daemon reads it: relative to the config file's folder.
  const raw = resolveConfigPaths(readJsonFile(file), dirname(resolve(file)));
  const hardware = typeof raw === 'object' && raw !== null ? (raw as { hardware?: unknown }).hardware : undefined;
  if (hardware === undefined) return null;
  const result = hardwareRefSchema.safeParse(hardware, { reportInput: true });
  if (!result.success) throw new ConfigError(file, zodProblems(result.error, 'hardware'));
  return result.data.kind === 'board' ? result.data.profile : null;
}

/** Read a board profile's backend and lock lines. Throws ConfigError naming the file and each path. */
export function loadLockProfile(file: string): LockProfile {
  const source = `board profile ${file} (hardware.profile)`;
  const result = lockProfileSchema.safeParse(readJsonFile(file, source), { reportInput: true });
  if (!result.success) throw new ConfigError(source, zodProblems(result.error));
  return result.data;
}
