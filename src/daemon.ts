/** The station daemon: config -> hardware -> runtime, until a signal. */
import { parseArgs } from 'node:util';
import { startStation } from './app.js';
import { loadConfigFile } from './config/load.js';
import { ConfigError, EXIT_CONFIG } from './errors.js';
import { serveUntilSignal } from './lifecycle.js';
import { createLogger } from './log.js';
import { createSystemdIntegration } from './systemd/index.js';
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
  const log = createLogger(loaded.config.log.level);
  log.info({ version: VERSION, config: file, station: loaded.config.station.id, hardware: loaded.config.hardware.kind }, 'starting');
  const station = await startStation({ config: loaded.config, password: loaded.password, log });
  // Everything that must be up before READY=1 (the technician port) starts above this line.
  const systemd = createSystemdIntegration({ env: process.env, log, config: loaded.config, runtime: station.runtime });
  // Signal handlers first: a SIGTERM while READY=1 is being sent must still stop the station cleanly.
  const served = serveUntilSignal(station, log, { onStopping: () => systemd.stopping() });
  await systemd.ready();
  const code = await served;
  await systemd.flush();
  return code;
}

