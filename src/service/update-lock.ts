/**
 * The update lock (balena-supervisor's model): while someone uses the station — a box action in
 * progress, a box open, a librarian's or reader's event in flight, a PIN being typed — the daemon
 * holds `updates.lock` in the unit's RuntimeDirectory= ($RUNTIME_DIRECTORY, /run/pickup-station),
 * and removes it when the station is free again. systemd/install.sh waits (bounded, with a message)
 * while the file exists before an upgrade or a rollback restarts the service; `--force` skips that.
 *
 * Why a file and not a question to the technician port: install.sh runs as root on the board but
 * holds no technician token (only their hashes are stored, so root cannot mint one without a config
 * reload), and an unauthenticated answer on the port would tell anyone on the station's network when
 * a box is open. The runtime directory is 0750 root:pickup-station: root reads it without a token,
 * nobody else can, it needs no network, and systemd removes it when the service stops, so a crashed
 * daemon leaves no lock behind (install.sh also ignores a lock whose pid is not running).
 *
 *     {"pid":1234,"reason":"box 3 is open","since":"2025-01-01T12:00:00.000Z"}
 *
 * The technician status shows the same condition (`activity`).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Supervisor } from '../supervisor/supervisor.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { atomicWriteSync } from '../storage/atomic-write.js';

export const UPDATE_LOCK_FILE = 'updates.lock';

export interface UpdateLock {
  /** The reason it is held now, or null. */
  held(): string | null;
  /** Release it and stop following the station. */
  close(): void;
}

/** Why an update must wait now, or null (the reload's guard: someone is using the station). */
export function updateBlocker(supervisor: Supervisor): string | null {
  return supervisor.readerActivity();
}

/**
 * Follow the station through `supervisor` and keep the lock file in `runtimeDirectory` in step with it.
 * null directory (not under systemd): nothing is written, held() still answers.
 */
export function holdUpdateLock(supervisor: Supervisor, runtimeDirectory: string | null, log: Logger, pid = process.pid): UpdateLock {
  const file = runtimeDirectory === null ? null : join(runtimeDirectory, UPDATE_LOCK_FILE);
  let reason: string | null = null;
  let scheduled = false;
  let closed = false;

  const write = (next: string | null): void => {
    if (file === null) return;
    try {
      if (next === null) rmSync(file, { force: true });
      else atomicWriteSync(file, `${JSON.stringify({ pid, reason: next, since: new Date().toISOString() })}\n`, { mode: 0o640, durable: false });
    } catch (e) {
      log.warn({ file, error: errorMessage(e) }, 'update lock could not be written; install.sh will not wait for the station');
    }
  };
  const update = (): void => {
    scheduled = false;
    if (closed) return;
    const next = updateBlocker(supervisor);
    if (next === reason) return;
    // Held -> held with another reason: no rewrite needed, the file says it is held.
    if (next !== null && reason !== null) {
      reason = next;
      return;
    }
    reason = next;
    write(next);
    log.debug({ updateLock: next ?? 'released' }, 'update lock');
  };
  // After the runtime finished the input that caused the event (an answer is observed before it is applied).
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(update);
  };

  write(null); // a stale file from a killed run
  const unsubscribe = supervisor.observer.subscribe(schedule);
  update();
  return {
    held: () => reason,
    close(): void {
      closed = true;
      unsubscribe();
      reason = null;
      write(null);
    },
  };
}
