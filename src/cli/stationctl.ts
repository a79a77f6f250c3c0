#!/usr/bin/env node
/**
 * `stationctl`: the technician's command line. Subcommands are added by their domains
 * (the debug port's status/logs/open/..., the portal's commissioning commands).
 */
import { VERSION } from '../version.js';

const USAGE = `usage: stationctl <command> [...]
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
    default:
      console.error(`stationctl: unknown command "${cmd}"\n${USAGE}`);
      return 2;
  }
}

runStationctl(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(`stationctl: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  },
);
