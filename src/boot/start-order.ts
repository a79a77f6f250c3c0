/**
 * The daemon's start in the order that gets its first /state out first (docs/decisions/0046):
 * the station starts and sends its first /state; only once that is written to the network (or
 * after `timing.firstReportHeadStartMs`, a server that does not take the connection) are the
 * modules loaded that READY=1 needs but the first report does not — the supervisor and its
 * technician port, SIGHUP, the update lock, the release status and the systemd integration. Their
 * loading is a few ms of CPU that would otherwise run while got prepares the request or the socket
 * connects (bench: start). In the bundled app they are evaluated here, not at process start.
 *
 * Signals that arrive meanwhile are held and replayed once the daemon's handlers are in place.
 */
import type { RunningStation } from '../app.js';
import { TERMINATING_SIGNALS } from '../lifecycle.js';
import type { startSupervised } from '../supervised.js';
import type { reloadOnSignal } from '../service/reload-signal.js';
import type { systemdFor } from '../service/index.js';
import type { holdUpdateLock } from '../service/update-lock.js';
import type { keepReleaseStatus } from '../service/release-status.js';
import { settlesWithin } from '../time.js';

/** Signals held while the station starts; `release(true)` replays them to the handlers installed since. */
export interface HeldSignals {
  release(replay: boolean): void;
}

/**
 * Signals that arrive while the station starts, before serveUntilSignal() takes over: kept, and
 * replayed to serveUntilSignal's handlers once they are in place, so a stop during start-up takes
 * the same locks-OFF path as one later instead of Node's default (end the process at once).
 */
export function holdSignals(): HeldSignals {
  const signals: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP', ...TERMINATING_SIGNALS];
  const seen: NodeJS.Signals[] = [];
  const keep = (signal: NodeJS.Signals): void => void seen.push(signal);
  for (const s of signals) process.on(s, keep);
  return {
    release(replay) {
      for (const s of signals) process.off(s, keep);
      if (replay) for (const s of seen) process.emit(s, s);
    },
  };
}

/** What the daemon loads once its first report is out: the supervisor and its clients. */
export interface AfterFirstReport {
  readonly startSupervised: typeof startSupervised;
  readonly reloadOnSignal: typeof reloadOnSignal;
  readonly systemdFor: typeof systemdFor;
  readonly holdUpdateLock: typeof holdUpdateLock;
  readonly keepReleaseStatus: typeof keepReleaseStatus;
}

export interface Started {
  /** The station, its first /state written (or its head start over). */
  readonly station: RunningStation;
  readonly modules: AfterFirstReport;
  /** Release once the daemon's signal handlers are in place (serveUntilSignal). */
  readonly signals: HeldSignals;
}

/**
 * Start the station with signals held, give its first /state a head start of at most
 * `headStartMs`, then load what comes after. A failed start releases the signals (not replayed:
 * Node's default applies again) and rejects with the start's error.
 */
export async function startReportingFirst(start: () => Promise<RunningStation>, headStartMs: number): Promise<Started> {
  const signals = holdSignals();
  let station: RunningStation;
  try {
    station = await start();
  } catch (e) {
    signals.release(false);
    throw e;
  }
  await headStart(station.runtime.firstReportWritten(), headStartMs);
  const [{ startSupervised }, { reloadOnSignal }, { systemdFor }, { holdUpdateLock }, { keepReleaseStatus }] = await Promise.all([
    import('../supervised.js'),
    import('../service/reload-signal.js'),
    import('../service/index.js'),
    import('../service/update-lock.js'),
    import('../service/release-status.js'),
  ]);
  return { station, modules: { startSupervised, reloadOnSignal, systemdFor, holdUpdateLock, keepReleaseStatus }, signals };
}

/** Resolves when `written` does, or after `limitMs` (a server that does not accept the connection). */
async function headStart(written: Promise<void>, limitMs: number): Promise<void> {
  await settlesWithin(written, limitMs);
}
