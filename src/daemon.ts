/** The station daemon: config -> hardware -> runtime, until a signal. */
import { parseArgs } from 'node:util';
import { startStation, type RunningStation } from './app.js';
import type { CodeCache } from './boot/code-cache.js';
import { startReportingFirst, type Started } from './boot/start-order.js';
import { loadConfigFile, logConfigWarnings, type LoadedConfig } from './config/load.js';
import { ConfigError, EXIT_CONFIG, EXIT_OK } from './errors.js';
import { serveUntilSignal } from './lifecycle.js';
import { createLogger, LogRing } from './log.js';
import { VERSION } from './version.js';

// The start-up signal hold lives with the start order; exported here as before.
export { holdSignals } from './boot/start-order.js';

export const DEFAULT_CONFIG_FILE = '/etc/pickup-station/config.json';

/** What the daemon does with a config file before anything else: start (0) or exit 78 with this message. */
export type ConfigOutcome = { readonly code: typeof EXIT_OK; readonly loaded: LoadedConfig } | { readonly code: typeof EXIT_CONFIG; readonly message: string };

/** Load the config file as the daemon does. Whatever the file holds, the outcome is 0 or 78 (the loader reports, it does not throw). */
export function daemonConfig(file: string, env: NodeJS.ProcessEnv = process.env): ConfigOutcome {
  try {
    return { code: EXIT_OK, loaded: loadConfigFile(file, env) };
  } catch (e) {
    if (e instanceof ConfigError) return { code: EXIT_CONFIG, message: e.message };
    throw e;
  }
}

/** What started the daemon hands it: the bundled app's code cache (src/boot/daemon-entry.ts). */
export interface DaemonBoot {
  readonly codeCache?: CodeCache;
}

/** A bad board profile (hardware.profile) is a config problem too: reported before any line is requested, exit 78. */
async function startOrConfigError(start: () => Promise<Started>): Promise<Started | typeof EXIT_CONFIG> {
  try {
    return await start();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      return EXIT_CONFIG;
    }
    throw e;
  }
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
  const ring = new LogRing(loaded.config.technician.logLines);
  const log = createLogger(loaded.config.log.level, undefined, { ring });
  log.info(
    { version: VERSION, config: file, station: loaded.config.station.id, hardware: loaded.config.hardware.kind, codeCache: boot.codeCache?.use ?? 'off' },
    'starting',
  );
  logConfigWarnings(log, file, loaded.warnings);
  const start = (l: LoadedConfig, signal?: AbortSignal): Promise<RunningStation> =>
    startStation({ config: l.config, password: l.password, log, ...(signal ? { signal } : {}) });
  // The first /state goes out before what READY=1 needs is loaded (src/boot/start-order.ts).
  const started = await startOrConfigError(() => startReportingFirst(() => start(loaded), loaded.config.timing.firstReportHeadStartMs));
  if (typeof started === 'number') return started;
  const { station: first, modules, signals } = started;
  const { startSupervised, reloadOnSignal, systemdFor, holdUpdateLock, keepReleaseStatus } = modules;
  const runtimeDirectory = process.env['RUNTIME_DIRECTORY'] ?? null;
  // The supervisor owns the running station from here on (reloads replace it); the port,
  // metrics, SIGHUP, the update lock, the release status and the watchdog are its clients and
  // ask it for the station each time: nothing here keeps one that a reload would leave stale.
  const supervised = await startSupervised({ station: first, loaded, configFile: file, env: process.env, log, ring, start });
  const { supervisor, port } = supervised;
  const systemd = systemdFor(supervisor, { env: process.env, log });
  // Signal handlers first: a SIGTERM while READY=1 is being sent must still stop the station cleanly.
  // install.sh waits while this is held (a box open, an event in flight); released when stopping.
  const updateLock = holdUpdateLock(supervisor, runtimeDirectory, log);
  // An upgrade waits for this to call the new release healthy (or rolls back).
  const releaseStatus = keepReleaseStatus(
    { mode: () => supervisor.now()?.station.runtime.snapshot().mode.kind ?? null, subscribe: (l) => supervisor.observer.subscribe(() => queueMicrotask(l)) },
    { runtimeDirectory, version: VERSION, healthz: port === null ? null : `${port.address}/healthz`, log },
  );
  const { timing } = supervisor.startConfig;
  const served = serveUntilSignal(
    supervised,
    log,
    {
      onStopping: () => {
        systemd.stopping();
        updateLock.close();
        releaseStatus.close();
      },
      reload: reloadOnSignal(supervisor, { runtimeDirectory, log }),
    },
    // Read once (class `process`): a reload cannot shorten a stop that systemd already timed (TimeoutStopSec=).
    { drainLimitMs: timing.drainLimitMs, stopLimitMs: timing.stopLimitMs },
  );
  signals.release(true);
  await systemd.ready();
  boot.codeCache?.saveWhenReady(log);
  const code = await served;
  await systemd.flush();
  return code;
}
