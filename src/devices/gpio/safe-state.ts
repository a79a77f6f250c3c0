/**
 * `pickup-station safe-state`: drive every lock output of the board profile OFF and exit.
 * systemd runs it as ExecStartPre and ExecStopPost, so a crash, an OOM kill or `kill -9` of the
 * station never leaves a solenoid energized for longer than it takes systemd to notice.
 *
 * It needs only the `hardware` section of the config (or the profile itself): not the station
 * password, not a valid server section. A station whose config is broken must still be made safe.
 * For the same reason, and because its start is how long a lock may stay energized after a crash,
 * it validates only what it uses: `hardware.kind` and `hardware.profile` of the config, and of
 * the profile `gpio.backend` and every box's `lock` line, with the daemon's own line schema
 * (line-schema.ts). A problem there is still a ConfigError (exit 78) naming the path; the rest of
 * the profile is the daemon's to check.
 */
import * as z from '../../schema.js';
import { dirname, resolve } from 'node:path';
import { readJsonFile } from '../../config/read.js';
import { zodProblems } from '../../config/problems.js';
import { resolveConfigPaths } from '../../config/paths.js';
import { ConfigError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { openGpioBackend } from './backend.js';
import { gpioBackendSchema, outputLineSchema } from './line-schema.js';
import type { GpioBackend } from './types.js';

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

export interface SafeStateResult {
  readonly backend: string;
  readonly lines: readonly string[];
  readonly ms: number;
}

/** Drive every lock of `profile` OFF. Rejects (DeviceError) naming the lines it could not. */
export async function driveLocksOff(
  profile: LockProfile,
  log: Pick<Logger, 'warn'>,
  open: (p: LockProfile) => Promise<GpioBackend> = (p) => openGpioBackend(p.gpio.backend, log),
): Promise<SafeStateResult> {
  const t0 = performance.now();
  const backend = await open(profile);
  const specs = profile.boxes.map((b) => b.lock);
  try {
    await backend.forceOff(specs);
  } finally {
    await backend.close().catch(() => undefined);
  }
  return { backend: backend.kind, lines: specs.map((s) => `${s.chip}:${s.offset}`), ms: Math.round(performance.now() - t0) };
}
