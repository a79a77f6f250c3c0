/**
 * The systemd unit's command lines, so the bench starts the daemon and safe-state exactly as the
 * unit does (same files, same node flags, same environment): its ExecStart / ExecStartPre with
 * the node under test in place of the `node` that ExecSearchPath= resolves, the release folder
 * in place of /opt/pickup-station/current, and the bench's own config and cache folders.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './repo.js';

export const UNIT_FILE = join(REPO, 'systemd/pickup-station.service');

const RELEASE = '/opt/pickup-station/current';
const CONFIG = '/etc/pickup-station/config.json';
const CACHE = '/var/cache/pickup-station';

export interface Unit {
  readonly execStart: readonly string[];
  readonly execStartPre: readonly string[];
  /** Environment= assignments, in order. */
  readonly environment: Readonly<Record<string, string>>;
}

/** [Service] keys of the unit (the last ExecStart=, the first ExecStartPre=). */
export function readUnit(file = UNIT_FILE): Unit {
  const values = new Map<string, string[]>();
  let inService = false;
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) inService = line === '[Service]';
    if (!inService || line === '' || line.startsWith('#') || !line.includes('=')) continue;
    const key = line.slice(0, line.indexOf('='));
    values.set(key, [...(values.get(key) ?? []), line.slice(key.length + 1)]);
  }
  const words = (s: string | undefined): string[] =>
    (s ?? '')
      .replace(/^[-@:+!]+/, '')
      .split(/\s+/)
      .filter(Boolean);
  const environment: Record<string, string> = {};
  for (const assignment of values.get('Environment') ?? []) {
    const eq = assignment.indexOf('=');
    environment[assignment.slice(0, eq)] = assignment.slice(eq + 1);
  }
  return { execStart: words(values.get('ExecStart')?.at(-1)), execStartPre: words(values.get('ExecStartPre')?.[0]), environment };
}

export interface Placement {
  readonly node: string;
  /** Stands in for /opt/pickup-station/current. */
  readonly release: string;
  readonly configFile: string;
  /** Stands in for /var/cache/pickup-station. */
  readonly cacheDir: string;
}

export interface Command {
  /** Node flags (what comes before the script). */
  readonly nodeFlags: readonly string[];
  /** Script and its arguments. */
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

/** One Exec line of the unit, placed. Throws if it does not run `node`. */
export function placeCommand(exec: readonly string[], unit: Unit, at: Placement): Command {
  const [cmd, ...rest] = exec;
  if (cmd !== 'node') throw new Error(`the unit's command is ${cmd ?? '(none)'}, not node: bench/lib/unit.ts needs a look`);
  const place = (w: string): string => w.replace(RELEASE, at.release).replace(CONFIG, at.configFile).replace(CACHE, at.cacheDir);
  const scriptAt = rest.findIndex((w) => !w.startsWith('-'));
  const env = Object.fromEntries(
    Object.entries(unit.environment)
      .filter(([k]) => k !== 'PATH')
      .map(([k, v]) => [k, place(v)]),
  );
  return { nodeFlags: rest.slice(0, scriptAt), args: rest.slice(scriptAt).map(place), env };
}
