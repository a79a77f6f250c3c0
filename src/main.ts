#!/usr/bin/env node
/**
 * `pickup-station`: the station daemon and its helper modes.
 *
 *   pickup-station [run] --config FILE   the station (systemd runs this)
 *   pickup-station demo                   simulated station + embedded reference server, driven from the terminal
 *   pickup-station sim-server [...]       the reference station server on its own
 *   pickup-station safe-state --config F  every lock output OFF, then exit (no password needed)
 *
 * Exit codes: 0 clean stop, 1 failure, 2 usage, 78 bad config (nothing touched).
 */
import { parseArgs } from 'node:util';
import { loadConfigFile } from './config/load.js';
import { ConfigError, EXIT_CONFIG } from './errors.js';
import { createLogger } from './log.js';
import { VERSION } from './version.js';

export const DEFAULT_CONFIG_FILE = '/etc/pickup-station/config.json';

const USAGE = `usage: pickup-station [run] [--config FILE]     run the station (default config ${DEFAULT_CONFIG_FILE})
       pickup-station demo                       simulated station + embedded reference server
       pickup-station sim-server [--port N] ...  reference station server
       pickup-station safe-state [--config FILE | --profile FILE]
                                                 drive every lock OFF and exit (systemd ExecStartPre/ExecStopPost)
       pickup-station --version | --help`;

async function runDaemon(args: string[]): Promise<number> {
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
  // Imported here, not at the top: `safe-state` (ExecStartPre/ExecStopPost) must start fast.
  const { startStation } = await import('./app.js');
  const { serveUntilSignal } = await import('./lifecycle.js');
  let station;
  try {
    station = await startStation({ config: loaded.config, password: loaded.password, log });
  } catch (e) {
    // A bad board profile is a config problem too: reported before any line is requested.
    if (e instanceof ConfigError) {
      console.error(e.message);
      return EXIT_CONFIG;
    }
    throw e;
  }
  return serveUntilSignal(station, log);
}

async function runSafeState(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { config: { type: 'string', short: 'c' }, profile: { type: 'string', short: 'p' } }, strict: true });
  const { driveLocksOff, loadBoardProfile, profileOfConfig } = await import('./devices/gpio/safe-state.js');
  const log = createLogger('warn');
  let profileFile: string | null;
  try {
    profileFile = values.profile ?? profileOfConfig(values.config ?? DEFAULT_CONFIG_FILE);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      return EXIT_CONFIG;
    }
    throw e;
  }
  if (profileFile === null) {
    console.log('safe-state: simulated hardware, nothing to drive');
    return 0;
  }
  let profile;
  try {
    profile = loadBoardProfile(profileFile);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      return EXIT_CONFIG;
    }
    throw e;
  }
  try {
    const r = await driveLocksOff(profile, log);
    console.log(`safe-state: ${r.lines.length} lock output(s) OFF via ${r.backend} in ${r.ms} ms`);
    return 0;
  } catch (e) {
    console.error(`safe-state: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}

export async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-v') {
    console.log(VERSION);
    return 0;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    console.log(USAGE);
    return 0;
  }
  switch (first) {
    case 'demo': {
      const { runDemo } = await import('./demo/run.js');
      return runDemo(rest);
    }
    case 'sim-server': {
      const { runSimServerCli } = await import('./sim/cli.js');
      return runSimServerCli(rest);
    }
    case 'safe-state':
      return runSafeState(rest);
    case 'run':
      return runDaemon(rest);
    case undefined:
      return runDaemon([]);
    default:
      if (first.startsWith('-')) return runDaemon(argv);
      console.error(`unknown command: ${first}\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`pickup-station: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(e instanceof TypeError && 'code' in e && e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? 2 : 1);
  },
);
