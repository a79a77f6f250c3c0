/**
 * SIGHUP (`systemctl reload pickup-station`) reloads the config exactly as the technician reload
 * does (Supervisor.reload: validate first and keep the running config on a bad file; live keys
 * applied under the running station; station keys once no reader uses it). Never echoes a config
 * value: a bad file is told by its paths and messages only.
 *
 * Every SIGHUP is a numbered request, none ignored: one that arrives while a reload runs is queued
 * behind it (the supervisor's exclusive runner joins it to the reload waiting), so the file's
 * latest content wins. The requests and the answer of the last one are kept in `reload.json` in the unit's RuntimeDirectory= — `{"pid": P, "requested":
 * N, "answered": M, "ok": bool|null, "line": "...", "version": "..."}` — so that the unit's
 * ExecReload= (`pickup-station reload`, reload-command.ts) waits for the answer to its own signal
 * and `systemctl reload` exits non-zero when the reload was refused.
 */
import { join } from 'node:path';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { atomicWriteSync } from '../storage/atomic-write.js';
import { reloadedHow } from '../supervisor/reload-words.js';
import type { Supervisor } from '../supervisor/supervisor.js';

export const RELOAD_STATUS_FILE = 'reload.json';

/** What `reload.json` holds. */
export interface ReloadStatus {
  /** The daemon that keeps it (a file left by an earlier process is not read as this one's). */
  readonly pid: number;
  /** SIGHUPs received since the process started. */
  readonly requested: number;
  /** The highest request a finished reload answers (it read the file after that request arrived). */
  readonly answered: number;
  /** Whether that reload was applied; null before the first answer. */
  readonly ok: boolean | null;
  /** What it did or why it was refused (the log line). */
  readonly line: string;
  /** The config file version running after it (read.ts configDigest). */
  readonly version: string | null;
}

/** The line a reload's outcome is logged with; throws (with the line) when it was not applied. */
export async function reloadLine(supervisor: Supervisor): Promise<string> {
  let result;
  try {
    result = await supervisor.reload();
  } catch (e) {
    throw new Error(`not reloaded: ${errorMessage(e)}`);
  }
  if (!result.ok) {
    const where = result.problems.map((p) => `${p.path || '(file)'}: ${p.message}`).join('; ');
    throw new Error(`invalid config ${result.source}, the running config stays: ${where}`);
  }
  const restart = result.restartNeeded.length > 0 ? ` (${result.restartNeeded.join(', ')} take effect after a restart)` : '';
  return `config reloaded: ${reloadedHow(result.applied)}${restart}`;
}

/**
 * The daemon's SIGHUP handler: each call is one request, answered in `reload.json` (when
 * `runtimeDirectory` is set) and resolved with the line to log; rejects with the refusal.
 */
export function reloadOnSignal(
  supervisor: Supervisor,
  opts: { readonly runtimeDirectory: string | null; readonly log: Logger; readonly pid?: number },
): () => Promise<string> {
  const file = opts.runtimeDirectory === null ? null : join(opts.runtimeDirectory, RELOAD_STATUS_FILE);
  let status: ReloadStatus = { pid: opts.pid ?? process.pid, requested: 0, answered: 0, ok: null, line: '', version: supervisor.configVersion };
  const write = (next: ReloadStatus): void => {
    status = next;
    if (file === null) return;
    try {
      // /run is a tmpfs: nothing to make durable.
      atomicWriteSync(file, `${JSON.stringify(status)}\n`, { durable: false });
    } catch (e) {
      opts.log.error({ error: errorMessage(e), file }, 'cannot write the reload status; systemctl reload will not see the answer');
    }
  };
  write(status);
  return async () => {
    const request = status.requested + 1;
    write({ ...status, requested: request });
    const answer = (ok: boolean, line: string): void => {
      // Requests answered by one run resolve in order; a later run's answer is never overwritten by an earlier one's.
      if (request > status.answered) write({ ...status, answered: request, ok, line, version: supervisor.configVersion });
    };
    try {
      const line = await reloadLine(supervisor);
      answer(true, line);
      return line;
    } catch (e) {
      answer(false, errorMessage(e));
      throw e;
    }
  };
}
