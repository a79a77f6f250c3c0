/** The station daemon: config -> hardware -> runtime, until a signal. */
import { parseArgs } from 'node:util';
import { startStation, type Station } from './app.js';
import { loadConfigFile, type LoadedConfig } from './config/load.js';
import { ConfigError, EXIT_CONFIG } from './errors.js';
import { serveUntilSignal } from './lifecycle.js';
import { withTechnicianPort } from './debug/index.js';
import { reloadOnSignal } from './debug/reload-signal.js';
import { createLogger, LogRing } from './log.js';
import { createSystemdIntegration } from './systemd/index.js';
import { holdUpdateLock } from './systemd/update-lock.js';
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

export async function runDaemon(args: string[]): Promise<number> {
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
  log.info({ version: VERSION, config: file, station: loaded.config.station.id, hardware: loaded.config.hardware.kind }, 'starting');
  const start = (l: LoadedConfig): Promise<Station> => startStation({ config: l.config, password: l.password, log });
  // The technician port starts after the station and is closed before it (its stop() does both).
  // Everything that must be up before READY=1 starts above the systemd integration.
  let first: Station;
  try {
    first = await start(loaded);
  } catch (e) {
    // A bad board profile (hardware.profile) is a config problem too: reported before any line is requested.
    if (e instanceof ConfigError) {
      console.error(e.message);
      return EXIT_CONFIG;
    }
    throw e;
  }
  const { station, host } = await withTechnicianPort({ station: first, loaded, configFile: file, env: process.env, log, ring, start });
  // The technician port may restart the station (reload): follow whichever runtime is current.
  const heartbeats = { lastStateOutcome: () => station.runtime.lastStateOutcome() };
  const systemd = createSystemdIntegration({ env: process.env, log, config: loaded.config, runtime: heartbeats });
  // Signal handlers first: a SIGTERM while READY=1 is being sent must still stop the station cleanly.
  // install.sh waits while this is held (a box open, an event in flight); released when stopping.
  const updateLock = holdUpdateLock(host, process.env['RUNTIME_DIRECTORY'] ?? null, log);
  const served = serveUntilSignal(
    station,
    log,
    {
      onStopping: () => {
        systemd.stopping();
        updateLock.close();
      },
      reload: () => reloadOnSignal(host),
    },
    // Read once: a reload cannot shorten a stop that systemd already timed (TimeoutStopSec=).
    { drainLimitMs: loaded.config.timing.drainLimitMs },
  );
  await systemd.ready();
  const code = await served;
  await systemd.flush();
  return code;
}

