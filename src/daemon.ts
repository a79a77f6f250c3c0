/** The station daemon: config -> hardware -> runtime, until a signal. */
import { parseArgs } from 'node:util';
import { startStation } from './app.js';
import { loadConfigFile } from './config/load.js';
import { ConfigError, EXIT_CONFIG } from './errors.js';
import { serveUntilSignal } from './lifecycle.js';
import { createLogger } from './log.js';
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
  let station;
  try {
    station = await startStation({ config: loaded.config, password: loaded.password, log });
  } catch (e) {
    // A bad board profile (hardware.profile) is a config problem too: reported before any line is requested.
    if (e instanceof ConfigError) {
      console.error(e.message);
      return EXIT_CONFIG;
    }
    throw e;
  }
  return serveUntilSignal(station, log);
}

