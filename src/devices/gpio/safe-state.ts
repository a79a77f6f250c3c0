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
 * (src/config/lock-profile.ts reads them). A problem there is still a ConfigError (exit 78) naming the path; the rest of
 * the profile is the daemon's to check.
 */
import type { LockProfile } from '../../config/lock-profile.js';
import type { Logger } from '../../log.js';
import { openGpioBackend } from './backend.js';
import type { GpioBackend } from './types.js';

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
