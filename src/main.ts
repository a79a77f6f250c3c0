#!/usr/bin/env node
/**
 * `pickup-station`: the station daemon and its helper modes.
 *
 *   pickup-station [run] --config FILE   the station (systemd runs this)
 *   pickup-station demo [--locale cs|en] [--display text|16x2|20x4|20x4-czech|128x64|kiosk] [--kiosk-port N]
 *                                         simulated station + embedded reference server, driven from the terminal
 *   pickup-station sim-server [...]       the reference station server on its own
 *   pickup-station fleet [...]            N virtual stations in one process (load tests)
 *   pickup-station safe-state --config F  every lock output OFF, then exit (systemd ExecStartPre/ExecStopPost)
 *   pickup-station reload --pid PID       SIGHUP to the daemon, then wait for its answer (systemd ExecReload)
 *   pickup-station usb-policy [...]       the board profile's USBGuard rules (install, profile change)
 *
 * Exit codes: 0 clean stop, 1 failure, 2 usage, 78 bad config (nothing touched).
 */
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, isUsageError } from './errors.js';
import { exitProcess } from './exit.js';
import { maskText } from './mask.js';
import { VERSION } from './version.js';

// Same as daemon.ts's; not imported from there so that `safe-state` does not load the daemon's
// modules: after a crash its speed is how long a lock stays energized.
const DEFAULT_CONFIG_FILE = '/etc/pickup-station/config.json';

async function runDaemon(args: string[]): Promise<number> {
  const daemon = await import('./daemon.js');
  return daemon.runDaemon(args);
}

const USAGE = `usage: pickup-station [run] [--config FILE]     run the station (default config ${DEFAULT_CONFIG_FILE})
       pickup-station demo [--locale cs|en]      simulated station + embedded reference server
            [--display text|16x2|20x4|20x4-czech|128x64|kiosk] [--kiosk-port N]   its display drawn as a real one
       pickup-station sim-server [--port N] ...  reference station server
       pickup-station fleet [--stations N] ...   N virtual stations against a station server
       pickup-station safe-state [--config FILE | --profile FILE]
                                                 drive every lock OFF and exit (systemd ExecStartPre/ExecStopPost)
       pickup-station reload --pid PID           reload the daemon's config and wait for its answer (systemd ExecReload)
       pickup-station usb-policy [--config FILE | --profile FILE] [--rules FILE] [--proposal FILE] [--udev-rules FILE] [--udev-proposal FILE] [--input-rules FILE] [--input-proposal FILE] [--print]
                                                 write the board profile's USBGuard rules (only its USB devices authorised)
                                                 and its HID devices' udev rules (their hidraw nodes the station's,
                                                 their input nodes no keyboard to logind or libinput)
       pickup-station --version | --help`;

export async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === '--version' || first === '-v') {
    console.log(VERSION);
    return EXIT_OK;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    console.log(USAGE);
    return EXIT_OK;
  }
  switch (first) {
    case 'demo': {
      const { runDemo } = await import('./demo/run.js');
      return runDemo(rest);
    }
    case 'sim-server': {
      const { runSimServerCli } = await import('./reference-server/cli.js');
      return runSimServerCli(rest);
    }
    case 'fleet': {
      const { runFleetCli } = await import('./fleet/cli.js');
      return runFleetCli(rest);
    }
    case 'safe-state': {
      const { runSafeState } = await import('./devices/gpio/safe-state-cli.js');
      return runSafeState(rest, DEFAULT_CONFIG_FILE);
    }
    case 'reload': {
      const { runReloadCommand } = await import('./service/reload-command.js');
      return runReloadCommand(rest, {
        env: process.env,
        kill: (pid, signal) => void process.kill(pid, signal),
        out: (line) => console.log(line),
        err: (line) => console.error(line),
      });
    }
    case 'usb-policy': {
      const { runUsbPolicy } = await import('./devices/usb/policy-cli.js');
      return runUsbPolicy(rest, DEFAULT_CONFIG_FILE, { out: (line) => console.log(line), err: (line) => console.error(line) });
    }
    case 'run':
      return runDaemon(rest);
    case undefined:
      return runDaemon([]);
    default:
      if (first.startsWith('-')) return runDaemon(argv);
      console.error(`unknown command: ${first}\n${USAGE}`);
      return EXIT_USAGE;
  }
}

main(process.argv.slice(2)).then(
  (code) => exitProcess(code),
  (e: unknown) => {
    // A wrong command line is the user's to fix: what is wrong and the usage, no stack.
    if (isUsageError(e)) {
      console.error(`pickup-station: ${e.message}\n${USAGE}`);
      return exitProcess(EXIT_USAGE);
    }
    // stderr is the journal's under systemd: masked as every log line is.
    console.error(`pickup-station: ${maskText(e instanceof Error ? (e.stack ?? e.message) : String(e))}`);
    exitProcess(EXIT_FAILURE);
  },
);
