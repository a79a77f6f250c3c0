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

export async function runDaemon(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { config: { type: 'string', short: 'c' } }, strict: true });
  const file = values.config ?? DEFAULT_CONFIG_FILE;
  let loaded;
  try {
    loaded = loadConfigFile(file);
  } catch (e) {
    if (e instanceof ConfigError) {
      // One line per problem, before any hardware is touched.
      console.error(e.message);
      return EXIT_CONFIG;
    }
    throw e;
  }
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

