/**
 * `pickup-station reload --pid PID`: the unit's ExecReload=. systemd recommends that ExecReload=
 * wait for the reload to finish (a bare `kill -HUP` returns at once, so `systemctl reload` said
 * "done" for a reload that was queued, refused or never happened). This sends SIGHUP to the
 * daemon and waits for the answer to *that* signal in the daemon's `reload.json`
 * (reload-signal.ts): the file says how many SIGHUPs arrived (`requested`) and the highest one a
 * finished reload answers (`answered`, read from the file after that request). Read before the
 * signal, `requested` = r; once `answered` > r a reload that read the config after this command
 * began has finished, and its outcome is this command's: EXIT_OK applied, EXIT_FAILURE refused or
 * invalid (its line on stderr), EXIT_FAILURE also when the daemon stops or no answer comes within --timeout-ms.
 * systemd's TimeoutStartSec= bounds the whole command too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EXIT_FAILURE, EXIT_OK, UsageError } from '../errors.js';
import { sleep } from '../time.js';
import { RELOAD_STATUS_FILE, type ReloadStatus } from './reload-signal.js';

const POLL_MS = 50;

export interface ReloadCommandDeps {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** process.kill: the signal, and liveness (signal 0). */
  readonly kill: (pid: number, signal: NodeJS.Signals | 0) => void;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

function readStatus(file: string, pid: number): ReloadStatus | null {
  try {
    const s = JSON.parse(readFileSync(file, 'utf8')) as ReloadStatus & { pid?: number };
    // A file left by an earlier daemon process says nothing about this one.
    return s.pid === pid ? s : null;
  } catch {
    return null;
  }
}

function alive(kill: ReloadCommandDeps['kill'], pid: number): boolean {
  try {
    kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function runReloadCommand(args: string[], deps: ReloadCommandDeps): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { pid: { type: 'string' }, 'runtime-dir': { type: 'string' }, 'timeout-ms': { type: 'string' } },
    strict: true,
  });
  const pid = Number(values.pid);
  if (!Number.isInteger(pid) || pid <= 1) throw new UsageError('--pid PID (the daemon, $MAINPID) is required');
  const timeoutMs = values['timeout-ms'] === undefined ? 600_000 : Number(values['timeout-ms']);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new UsageError('--timeout-ms must be a positive number');
  const dir = values['runtime-dir'] ?? deps.env['RUNTIME_DIRECTORY'] ?? '/run/pickup-station';
  const file = join(dir, RELOAD_STATUS_FILE);

  const before = readStatus(file, pid)?.requested ?? 0;
  try {
    deps.kill(pid, 'SIGHUP');
  } catch (e) {
    deps.err(`reload: cannot signal the station (pid ${pid}): ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    return EXIT_FAILURE;
  }
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const status = readStatus(file, pid);
    if (status !== null && status.answered > before && status.ok !== null) {
      if (status.ok) deps.out(status.line);
      else deps.err(status.line);
      return status.ok ? EXIT_OK : EXIT_FAILURE;
    }
    if (!alive(deps.kill, pid)) {
      deps.err('reload: the station stopped before it answered; the config it starts with next is the file on disk');
      return EXIT_FAILURE;
    }
    if (performance.now() > deadline) {
      deps.err(`reload: no answer within ${Math.round(timeoutMs / 1000)} s; the reload may still be waiting for the station to be free`);
      return EXIT_FAILURE;
    }
    // eslint-disable-next-line no-restricted-syntax -- another process's file and its pid: no event of either reaches this process, so it looks every POLL_MS
    await sleep(POLL_MS);
  }
}
