/** Station configs for the bench: in-process (validated object) or as files for the daemon. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateConfig } from '../../src/config/load.js';
import type { ConfigInput, Config } from '../../src/config/schema.js';
import type { SimulatedStation } from '../../src/reference-server/index.js';

/** A temp folder for one in-process station's journal, removed when the bench exits. */
const journalDirs: string[] = [];
function journalDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pickup-bench-journal-'));
  if (journalDirs.length === 0) process.once('exit', () => journalDirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  journalDirs.push(dir);
  return dir;
}

/** The config of `station` against the reference server at `serverUrl` (as ReferenceServer.url returns it). */
export function configInput(station: SimulatedStation, serverUrl: string, extra: Partial<ConfigInput> = {}): ConfigInput {
  return {
    station: { id: station.id, boxes: station.boxes.map((id, i) => ({ number: i + 1, id })) },
    // The journal in a file, as in the field (its write is on the box-open -> lock path), in a
    // temp dir of its own rather than /var/lib.
    storage: { directory: journalDir() },
    ...extra,
    server: { baseUrl: new URL(serverUrl).origin, ...extra.server },
  };
}

export function stationConfig(station: SimulatedStation, serverUrl: string, extra: Partial<ConfigInput> = {}): Config {
  const { config, problems } = validateConfig(configInput(station, serverUrl, extra));
  if (!config) throw new Error(`bench config invalid: ${JSON.stringify(problems)}`);
  return config;
}

/** Config file + password as the systemd credential, exactly as a field daemon gets them. */
export function writeDaemonFiles(
  dir: string,
  station: SimulatedStation,
  serverUrl: string,
  extra: Partial<ConfigInput> = {},
): { file: string; env: NodeJS.ProcessEnv } {
  const credDir = join(dir, 'credentials');
  mkdirSync(credDir, { recursive: true });
  writeFileSync(join(credDir, 'station-password'), station.password);
  const file = join(dir, 'config.json');
  // The daemon keeps its journal in a file, as in the field, under the bench's own folder.
  writeFileSync(file, JSON.stringify(configInput(station, serverUrl, { storage: { directory: join(dir, 'state') }, ...extra })));
  return { file, env: { CREDENTIALS_DIRECTORY: credDir } };
}
