/**
 * `pickup-station safe-state`: drive every lock output of the board profile OFF and exit.
 * systemd runs it as ExecStartPre and ExecStopPost, so a crash, an OOM kill or `kill -9` of the
 * station never leaves a solenoid energized for longer than it takes systemd to notice.
 *
 * It needs only the `hardware` section of the config (or the profile itself): not the station
 * password, not a valid server section. A station whose config is broken must still be made safe.
 */
import { z } from 'zod';
import { dirname, resolve } from 'node:path';
import { readJsonFile, zodProblems } from '../../config/load.js';
import { resolveConfigPaths } from '../../config/paths.js';
import { ConfigError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { boardHardwareSchema, type BoardProfile } from '../board-config.js';
import { loadBoardProfile } from '../board-profile.js';
import { openGpioBackend } from './backend.js';
import type { GpioBackend } from './types.js';

/** The profile a config file points to; null when its hardware is simulated (nothing to do). */
export function profileOfConfig(file: string): string | null {
  // The profile path as the daemon reads it: relative to the config file's folder.
  const raw = resolveConfigPaths(readJsonFile(file), dirname(resolve(file)));
  const hardware = typeof raw === 'object' && raw !== null ? (raw as { hardware?: unknown }).hardware : undefined;
  if (hardware === undefined) return null;
  const kind = z.object({ kind: z.string() }).safeParse(hardware);
  if (kind.success && kind.data.kind === 'simulated') return null;
  const result = boardHardwareSchema.safeParse(hardware, { reportInput: true });
  if (!result.success) throw new ConfigError(file, zodProblems(result.error, 'hardware'));
  return result.data.profile;
}

export interface SafeStateResult {
  readonly backend: string;
  readonly lines: readonly string[];
  readonly ms: number;
}

/** Drive every lock of `profile` OFF. Rejects (DeviceError) naming the lines it could not. */
export async function driveLocksOff(profile: BoardProfile, log: Logger, open: (p: BoardProfile) => Promise<GpioBackend> = (p) => openGpioBackend(p.gpio.backend, log)): Promise<SafeStateResult> {
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

export { loadBoardProfile };
