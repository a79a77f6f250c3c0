/**
 * `pickup-station sim-server`: the reference server standalone, for the demo and fleet runs.
 * Prints the base URL and the seeded data, one line per request, stops on SIGINT/SIGTERM.
 * Exit codes (src/errors.ts): EXIT_OK stopped by a signal, EXIT_USAGE a bad option, EXIT_CONFIG a
 * bad stations file, EXIT_UNAVAILABLE could not listen.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { intOption, usageFailure } from '../cli/args.js';
import { EXIT_CONFIG, EXIT_OK, EXIT_UNAVAILABLE, errorMessage } from '../errors.js';
import { maskText } from '../mask.js';
import { CONTROL_PREFIX } from './control.js';
import { parseSimData } from './data.js';
import { SimConfigError } from './errors.js';
import { DEMO_STATION, defaultSeed, type SeedData } from './seed.js';
import { ReferenceServer } from './server.js';
import type { SimLogger } from './types.js';

export interface SimCliIo {
  out(line: string): void;
  err(line: string): void;
  /** Stops the server like SIGINT does (tests, or an embedding process). */
  readonly signal?: AbortSignal;
}

const processIo: SimCliIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

export const SIM_SERVER_USAGE = `usage: pickup-station sim-server [options]
  --port N              listen port (default 0: a free one)
  --host ADDR           listen address (default 127.0.0.1)
  --prefix PATH         protocol path prefix (default /v2)
  --stations-file FILE  JSON {stations, deposits?, pickups?} (default: the demo station, seeded)
  --absence-ms N        no /state for this long -> station unavailable (default 120000)
  --log-identifiers     log patrons' identifiers (items, cards, PINs) in full: a developer's run only
                        (default: masked as the station's own log is)
  --help`;

export async function runSimServerCli(argv: string[], io: SimCliIo = processIo): Promise<number> {
  let values;
  let port: number | undefined;
  let absenceMs: number | undefined;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        prefix: { type: 'string' },
        'stations-file': { type: 'string' },
        'absence-ms': { type: 'string' },
        'log-identifiers': { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }));
    if (values.help === true) {
      io.out(SIM_SERVER_USAGE);
      return EXIT_OK;
    }
    port = intOption(values.port, 'port', 0, 65535);
    absenceMs = intOption(values['absence-ms'], 'absence-ms', 1, 24 * 3600_000);
  } catch (e) {
    const usage = usageFailure(e, SIM_SERVER_USAGE, (text) => io.err(text));
    if (usage !== null) return usage;
    throw e;
  }

  const logIdentifiers = values['log-identifiers'] === true;
  let data: SeedData;
  let server: ReferenceServer;
  try {
    data = values['stations-file'] === undefined ? { stations: [DEMO_STATION], ...defaultSeed(DEMO_STATION) } : loadStationsFile(values['stations-file']);
    server = new ReferenceServer({
      ...data,
      host: values.host ?? '127.0.0.1',
      ...(port === undefined ? {} : { port }),
      ...(values.prefix === undefined ? {} : { pathPrefix: values.prefix }),
      ...(absenceMs === undefined ? {} : { absenceMs }),
      logger: lineLogger(io),
      logIdentifiers,
    });
  } catch (e) {
    io.err(e instanceof SimConfigError ? e.message : `cannot load stations: ${errorMessage(e)}`);
    return EXIT_CONFIG;
  }

  let url: string;
  try {
    url = await server.start();
  } catch (e) {
    io.err(`cannot listen: ${errorMessage(e)}`);
    return EXIT_UNAVAILABLE;
  }
  io.out(`reference station server: ${url}`);
  io.out(`control API (loopback only): ${new URL(url).origin}${CONTROL_PREFIX}/`);
  // The built-in demo station's data is the project's own (what a demo user types); a stations
  // file may hold a library's real items and PINs: masked unless asked for.
  const full = logIdentifiers || values['stations-file'] === undefined;
  for (const line of describeData(data)) io.out(full ? line : maskText(line));

  await new Promise<void>((resolve) => {
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      io.signal?.removeEventListener('abort', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    if (io.signal?.aborted === true) done();
    else io.signal?.addEventListener('abort', done, { once: true });
  });
  await server.stop();
  io.out('reference station server stopped');
  return EXIT_OK;
}

function loadStationsFile(file: string): SeedData {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (e) {
    throw new SimConfigError([`${file}: ${errorMessage(e)}`]);
  }
  return parseSimData(raw);
}

/** Human-readable data for the demo: a technician configures a station from these lines. */
export function describeData(data: SeedData): string[] {
  const lines: string[] = [];
  for (const s of data.stations) {
    lines.push(`station ${s.id} password ${s.password}`);
    s.boxes.forEach((b, i) => lines.push(`  box ${i + 1}: ${b}`));
    const box = (id: string): number => s.boxes.indexOf(id) + 1;
    for (const d of data.deposits.filter((x) => x.stationId === s.id)) {
      lines.push(`  deposit ${d.identifierType ?? 'BAR_CODE/RFID'} ${d.identifierValue} -> box ${box(d.boxId)}`);
    }
    for (const p of data.pickups.filter((x) => x.stationId === s.id)) {
      lines.push(`  pickup PIN ${p.pin} -> box ${p.boxIds.map(box).join(', ')}`);
    }
  }
  return lines;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v)));

/** One line per request: `#12 POST /v2/state 200 wait-for-input station=... event=... trace=...`. */
function lineLogger(io: SimCliIo): SimLogger {
  const format = (obj: object, msg?: string): string => {
    const r = obj as Record<string, unknown>;
    if (typeof r.seq !== 'number') return `${msg ?? ''} ${JSON.stringify(obj)}`;
    const parts = [`#${r.seq}`, str(r.method), str(r.path), str(r.status ?? 'dropped'), str(r.type ?? '')];
    for (const k of ['station', 'event', 'traceId', 'resendOf', 'fault'] as const) if (r[k] !== null && r[k] !== undefined) parts.push(`${k}=${str(r[k])}`);
    const notes = Array.isArray(r.notes) ? r.notes.map(String) : [];
    if (notes.length > 0) parts.push(`(${notes.join('; ')})`);
    return parts.filter((p) => p !== '').join(' ');
  };
  return { info: (obj, msg) => io.out(format(obj, msg)), warn: (obj, msg) => io.out(format(obj, msg)) };
}
