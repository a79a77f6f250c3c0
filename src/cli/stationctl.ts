#!/usr/bin/env node
/**
 * `stationctl`: the technician's command line. The technician commands (status, logs, open, ...)
 * talk to the running station's technician port (src/cli/station/); `portal ...` are the library
 * portal's commissioning commands.
 */
import { VERSION } from '../version.js';
import { TECHNICIAN_COMMANDS, TECHNICIAN_USAGE } from './station/commands.js';

const USAGE = `usage: stationctl <command> [...]
${TECHNICIAN_USAGE}
  portal ...           library portal commissioning commands (stationctl portal --help)
  --version            print the software version`;

export async function runStationctl(argv: string[]): Promise<number> {
  const [cmd] = argv;
  switch (cmd) {
    case '--version':
    case '-v':
      console.log(VERSION);
      return 0;
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      console.log(USAGE);
      return cmd === undefined ? 2 : 0;
    case 'portal': {
      const { runPortalCli } = await import('./portal.js');
      return runPortalCli(argv.slice(1), { stdout: process.stdout, stderr: process.stderr, env: process.env });
    }
    default: {
      if (!(TECHNICIAN_COMMANDS as string[]).includes(cmd)) {
        console.error(`stationctl: unknown command "${cmd}"\n${USAGE}`);
        return 2;
      }
      const { runTechnicianCli } = await import('./station/commands.js');
      // Ctrl-C ends a follow (-f) cleanly, with exit code 0.
      const stop = new AbortController();
      process.once('SIGINT', () => stop.abort());
      process.once('SIGTERM', () => stop.abort());
      return runTechnicianCli(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, stdin: process.stdin, signal: stop.signal });
    }
  }
}

runStationctl(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`stationctl: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
