/**
 * Which release runs, and whether it has proven itself, for the installer and for the fleet.
 *
 * - `release.json` in the unit's RuntimeDirectory= (/run/pickup-station, 0750 root:pickup-station),
 *   kept by the daemon: `{"pid":N,"version":"1.2.0","firstState":"pending"|"answered"|"deactivated",
 *   "healthz":"http://127.0.0.1:8470/healthz"|"unix:/run/...sock"|null}`. An upgrade
 *   (systemd/install.sh) reads it after the switch: the new release is healthy once its pid is the
 *   unit's MainPID, its version is the one installed, its technician port answers /healthz and its
 *   first /state has finished (answered, or unanswered to the last attempt: deactivated mode, which
 *   is working as designed with the server down). A file for the same reasons as the update lock:
 *   root reads it without a token, and systemd removes it with the runtime directory.
 * - `install-status.json` beside the releases (/opt/pickup-station), written by the installer:
 *   `{"installed":"1.3.0","running":"1.2.0","result":"rolled-back","reason":"..."}`. The daemon reads
 *   `installed` for its metrics: a station running another version than the one installed (an
 *   automatic rollback) is what the fleet's alert rule looks for.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { ModeKind } from '../station/core-types.js';
import { atomicWriteSync } from '../storage/atomic-write.js';

export const RELEASE_STATUS_FILE = 'release.json';
export const DEFAULT_INSTALL_STATUS_FILE = '/opt/pickup-station/install-status.json';

export type FirstState = 'pending' | 'answered' | 'deactivated';

/** The first /state's fate as the mode shows it: `starting` until it is answered or given up. */
export function firstStateOf(mode: ModeKind): FirstState {
  switch (mode) {
    case 'starting':
      return 'pending';
    case 'deactivated':
      return 'deactivated';
    case 'idle':
    case 'opening':
    case 'closing':
    case 'disabled':
      return 'answered';
  }
}

export interface ReleaseStatusSource {
  /** The running station's mode; null while there is none (a reload swaps it): nothing is written then. */
  mode(): ModeKind | null;
  /** Called on every change of the station; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
}

export interface ReleaseStatus {
  close(): void;
}

/**
 * Keep `release.json` in `runtimeDirectory` in step with the station (rewritten only when the first
 * /state's fate changes). null directory (not under systemd): nothing is written.
 */
export function keepReleaseStatus(
  source: ReleaseStatusSource,
  opts: { readonly runtimeDirectory: string | null; readonly version: string; readonly healthz: string | null; readonly log: Logger; readonly pid?: number },
): ReleaseStatus {
  const file = opts.runtimeDirectory === null ? null : join(opts.runtimeDirectory, RELEASE_STATUS_FILE);
  const pid = opts.pid ?? process.pid;
  let written: FirstState | null = null;
  let closed = false;
  const update = (): void => {
    if (closed || file === null) return;
    const mode = source.mode();
    if (mode === null) return;
    const now = firstStateOf(mode);
    if (now === written) return;
    try {
      atomicWriteSync(file, `${JSON.stringify({ pid, version: opts.version, firstState: now, healthz: opts.healthz })}\n`, { mode: 0o640, durable: false });
      written = now;
    } catch (e) {
      opts.log.warn({ file, error: errorMessage(e) }, 'release status could not be written; an upgrade cannot see this release is healthy and will roll back');
    }
  };
  const unsubscribe = source.subscribe(update);
  update();
  return {
    close(): void {
      closed = true;
      unsubscribe();
      if (file !== null) rmSync(file, { force: true });
    },
  };
}

const VERSION_LABEL = /^[A-Za-z0-9][A-Za-z0-9.+~_-]{0,63}$/;

/**
 * The version the installer last installed (install-status.json's `installed`), or null when there
 * is no such file (a checkout, a test) or it names no sane version.
 */
export function readInstalledVersion(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  try {
    const installed = (JSON.parse(text) as { installed?: unknown }).installed;
    return typeof installed === 'string' && VERSION_LABEL.test(installed) ? installed : null;
  } catch {
    return null;
  }
}
