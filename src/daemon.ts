/** The station daemon: config -> hardware -> runtime, until a signal. */
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { startStation, type Station } from './app.js';
import type { CodeCache } from './boot/code-cache.js';
import { loadConfigFile, type LoadedConfig } from './config/load.js';
import { ConfigError, EXIT_CONFIG, errorMessage } from './errors.js';
import { TERMINATING_SIGNALS, serveUntilSignal } from './lifecycle.js';
import { createLogger, LogRing } from './log.js';
import { VERSION } from './version.js';

export const DEFAULT_CONFIG_FILE = '/etc/pickup-station/config.json';

/** What the daemon does with a config file before anything else: start (0) or exit 78 with this message. */
export type ConfigOutcome = { readonly code: 0; readonly loaded: LoadedConfig } | { readonly code: typeof EXIT_CONFIG; readonly message: string };

/** Load the config file as the daemon does. Whatever the file holds, the outcome is 0 or 78 (the loader reports, it does not throw). */
export function daemonConfig(file: string, env: NodeJS.ProcessEnv = process.env): ConfigOutcome {
  try {
    return { code: 0, loaded: loadConfigFile(file, env) };
  } catch (e) {
    if (e instanceof ConfigError) return { code: EXIT_CONFIG, message: e.message };
    throw e;
  }
}

/**
 * Signals that arrive while the station starts, before serveUntilSignal() takes over (the
 * technician port and the systemd integration load after the first /state): kept, and replayed to
 * serveUntilSignal's handlers once they are in place, so a stop during start-up takes the same
 * locks-OFF path as one later instead of Node's default (end the process at once).
 */
export function holdSignals(): { release(replay: boolean): void } {
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

/** What started the daemon hands it: the bundled app's code cache (src/boot/daemon-entry.ts). */
export interface DaemonBoot {
  readonly codeCache?: CodeCache;
}

export async function runDaemon(args: string[], boot: DaemonBoot = {}): Promise<number> {
  // A parseArgs error (missing value, unknown flag) reaches main.ts, which prints the usage (exit 2).
  const { values } = parseArgs({ args, options: { config: { type: 'string', short: 'c' } }, strict: true });
  const file = values.config ?? DEFAULT_CONFIG_FILE;
  const outcome = daemonConfig(file);
  if (outcome.code === EXIT_CONFIG) {
    // One line per problem, before any hardware is touched.
    console.error(outcome.message);
    return EXIT_CONFIG;
  }
  const loaded = outcome.loaded;
  const ring = new LogRing(loaded.config.debug.logLines);
  const log = createLogger(loaded.config.log.level, undefined, { ring });
  log.info(
    { version: VERSION, config: file, station: loaded.config.station.id, hardware: loaded.config.hardware.kind, codeCache: boot.codeCache?.use ?? 'off' },
    'starting',
  );
  const start = (l: LoadedConfig): Promise<Station> => startStation({ config: l.config, password: l.password, log });
  // The technician port starts after the station and is closed before it (its stop() does both).
  // Everything that must be up before READY=1 starts above the systemd integration.
  const held = holdSignals();
  let first: Station;
  try {
    first = await start(loaded);
  } catch (e) {
    held.release(false);
    // A bad board profile (hardware.profile) is a config problem too: reported before any line is requested.
    if (e instanceof ConfigError) {
      console.error(e.message);
      return EXIT_CONFIG;
    }
    throw e;
  }
  // The first /state goes out first: the technician port's loading (below) would hold it up by a
  // few ms of CPU if it ran while got prepares the request or the socket connects (bench: start).
  await headStart(first.runtime.firstReportWritten(), loaded.config.timing.firstReportHeadStartMs);
  // Loaded only now, while the first /state is on its way: the technician port, reloads, the update
  // lock and the systemd integration are needed before READY=1, not before the station reports in
  // (docs/decisions/0046). In the bundled app they are evaluated here, not at start.
  const [{ startSupervised }, { reloadOnSignal }, { systemdFor }, { holdUpdateLock }, { keepReleaseStatus }] = await Promise.all([
    import('./supervised.js'),
    import('./systemd/reload-signal.js'),
    import('./systemd/index.js'),
    import('./systemd/update-lock.js'),
    import('./systemd/release-status.js'),
  ]);
  // The supervisor owns the running station from here on (reloads replace it); the port,
  // metrics, SIGHUP, the update lock, the release status and the watchdog are its clients.
  const { station, supervisor, port } = await startSupervised({ station: first, loaded, configFile: file, env: process.env, log, ring, start });
  const systemd = systemdFor(supervisor, { env: process.env, log });
  // Signal handlers first: a SIGTERM while READY=1 is being sent must still stop the station cleanly.
  // install.sh waits while this is held (a box open, an event in flight); released when stopping.
  const updateLock = holdUpdateLock(supervisor, process.env['RUNTIME_DIRECTORY'] ?? null, log);
  // An upgrade waits for this to call the new release healthy (or rolls back).
  const releaseStatus = keepReleaseStatus(
    { mode: () => supervisor.station.runtime.snapshot().mode.kind, subscribe: (l) => supervisor.observer.subscribe(() => queueMicrotask(l)) },
    { runtimeDirectory: process.env['RUNTIME_DIRECTORY'] ?? null, version: VERSION, healthz: port === null ? null : `${port.address}/healthz`, log },
  );
  const served = serveUntilSignal(
    station,
    log,
    {
      onStopping: () => {
        systemd.stopping();
        updateLock.close();
        releaseStatus.close();
      },
      reload: () => reloadOnSignal(supervisor),
    },
    // Read once (class `process`): a reload cannot shorten a stop that systemd already timed (TimeoutStopSec=).
    { drainLimitMs: supervisor.startConfig.timing.drainLimitMs },
  );
  held.release(true);
  await systemd.ready();
  saveCodeCache(boot.codeCache, log);
  const code = await served;
  await systemd.flush();
  return code;
}

/**
 * Once the station is ready, the code cache of everything compiled so far is written for the next
 * start (only when the one read at this start was not used). A failure is logged, nothing more.
 */
function saveCodeCache(cache: CodeCache | undefined, log: Logger): void {
  if (cache === undefined) return;
  cache.save().then(
    (done) => {
      if (done === 'written') log.info({ codeCache: cache.file }, 'code cache written for the next start');
    },
    (e: unknown) => log.warn({ codeCache: cache.file, error: errorMessage(e) }, 'code cache not written; the next start compiles from source'),
  );
}

/** Resolves when `written` does, or after `limitMs` (a server that does not accept the connection). */
function headStart(written: Promise<void>, limitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs)));
  return Promise.race([written, limit]).finally(() => clearTimeout(timer));
}
