#!/usr/bin/env node
/**
 * `stationctl`: the technician's command line. The technician commands (status, logs, open, ...)
 * talk to the running station's technician port (src/cli/technician/); `portal ...` are the library
 * portal's commissioning commands.
 */
import { PACKAGE_ROOT, VERSION } from '../version.js';
import { describeSupport, readSbom, readVendor, vendorStatus } from '../release-info.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../errors.js';
import { exitProcess } from '../exit.js';
import { STATION_PATHS, SystemSbomError, collectSystemSbom } from '../sbom/collect.js';
import { TECHNICIAN_COMMANDS, TECHNICIAN_USAGE, commandIndex } from './technician/commands.js';

const USAGE = `usage: stationctl [options] <command> [...]   (options before or after the command)
${TECHNICIAN_USAGE}
  portal ...           library portal commissioning commands (stationctl portal --help)
  version              this release: version, security contact, security support period
  sbom [--system]      this release's software bill of materials (CycloneDX JSON); --system: the
                       whole board's (the release and every Debian package installed, dpkg-query)
  --version            print the software version`;

/** `stationctl version`: read from the release's own files, no station needed. */
function printVersion(): number {
  const v = vendorStatus(readVendor(), Date.now());
  console.log(`pickup-station ${VERSION}`);
  console.log(`release folder:   ${PACKAGE_ROOT}`);
  if (v.kind === 'release') {
    console.log(`security contact: ${v.securityContact ?? ''}  (report flaws there, privately: SECURITY.md)`);
    console.log(`security fixes:   ${describeSupport(v)}`);
    console.log('bill of materials: stationctl sbom (the release), stationctl sbom --system (the whole board)');
    return EXIT_OK;
  }
  console.log(`security fixes:   ${describeSupport(v)}`);
  return v.kind === 'development' ? EXIT_OK : EXIT_FAILURE;
}

/** Written out before the process exits: stdout to a pipe is asynchronous, and a board's SBOM is large. */
function writeOut(text: string): Promise<void> {
  return new Promise((resolve, reject) => process.stdout.write(text, (e) => (e ? reject(e) : resolve())));
}

async function printSbom(args: readonly string[]): Promise<number> {
  const unknown = args.filter((a) => a !== '--system');
  if (unknown.length > 0) {
    console.error(`stationctl: sbom takes only --system, not ${unknown.join(' ')}`);
    return EXIT_USAGE;
  }
  if (args.includes('--system')) {
    try {
      await writeOut(collectSystemSbom({ releaseRoot: PACKAGE_ROOT, ...STATION_PATHS }));
      return EXIT_OK;
    } catch (e) {
      if (!(e instanceof SystemSbomError)) throw e;
      console.error(`stationctl: sbom --system: ${e.message}`);
      return EXIT_FAILURE;
    }
  }
  const sbom = readSbom();
  if (sbom === null) {
    console.error(`stationctl: no sbom.cdx.json in ${PACKAGE_ROOT} (a development build; a release carries its SBOM)`);
    return EXIT_FAILURE;
  }
  await writeOut(sbom);
  return EXIT_OK;
}

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
    case 'version':
      return printVersion();
    case 'sbom':
      return printSbom([...argv.slice(0, at), ...argv.slice(at + 1)]);
    case 'portal': {
      const { runPortalCli } = await import('./portal.js');
      return runPortalCli([...argv.slice(0, at), ...argv.slice(at + 1)], { stdout: process.stdout, stderr: process.stderr, env: process.env });
    }
    default: {
      if (!(TECHNICIAN_COMMANDS as string[]).includes(cmd)) {
        console.error(`stationctl: unknown command "${cmd}"\n${USAGE}`);
        return EXIT_USAGE;
      }
      const { runTechnicianCli } = await import('./technician/commands.js');
      // Ctrl-C ends a follow (-f) cleanly, with exit code 0.
      const stop = new AbortController();
      process.once('SIGINT', () => stop.abort());
      process.once('SIGTERM', () => stop.abort());
      return runTechnicianCli(argv, { stdout: process.stdout, stderr: process.stderr, env: process.env, stdin: process.stdin, signal: stop.signal });
    }
  }
}

runStationctl(process.argv.slice(2)).then(
  (code) => exitProcess(code),
  (e: unknown) => {
    console.error(`stationctl: ${e instanceof Error ? e.message : String(e)}`);
    exitProcess(EXIT_FAILURE);
  },
);
