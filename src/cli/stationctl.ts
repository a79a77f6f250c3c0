#!/usr/bin/env node
/**
 * `stationctl`: the technician's command line. The technician commands (status, logs, open, ...)
 * talk to the running station's technician port (src/cli/station/); `portal ...` are the library
 * portal's commissioning commands.
 */
import { VERSION } from '../version.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../errors.js';
import { TECHNICIAN_COMMANDS, TECHNICIAN_USAGE, commandIndex } from './station/commands.js';

const USAGE = `usage: stationctl [options] <command> [...]   (options before or after the command)
${TECHNICIAN_USAGE}
  portal ...           library portal commissioning commands (stationctl portal --help)
  --version            print the software version`;

export async function runStationctl(argv: string[]): Promise<number> {
  // The command may come after the general options: `stationctl --token-file F status`.
  const at = commandIndex(argv);
  const cmd = at < 0 ? undefined : argv[at];
  if (cmd === undefined) {
    if (argv.includes('--version') || argv.includes('-v')) {
      console.log(VERSION);
      return EXIT_OK;
    }
    const help = argv.includes('--help') || argv.includes('-h');
    (help ? console.log : console.error)(USAGE);
    return help ? EXIT_OK : EXIT_USAGE;
  }
  switch (cmd) {
    case 'help':
      console.log(USAGE);
      return EXIT_OK;
    case 'portal': {
      const { runPortalCli } = await import('./portal.js');
      return runPortalCli([...argv.slice(0, at), ...argv.slice(at + 1)], { stdout: process.stdout, stderr: process.stderr, env: process.env });
    }
    default: {
      if (!(TECHNICIAN_COMMANDS as string[]).includes(cmd)) {
        console.error(`stationctl: unknown command "${cmd}"\n${USAGE}`);
        return EXIT_USAGE;
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
    process.exit(EXIT_FAILURE);
  },
);
