/**
 * Relative paths in a config file are relative to the file's folder, not to the working directory:
 * systemd starts the daemon in `/`, a technician runs `pickup-station --config ./x.json` from
 * anywhere, and the same file must mean the same files in both. (`station.passwordFile:
 * "station-password"` beside `/etc/pickup-station/config.json` is `/etc/pickup-station/station-password`.)
 *
 * Resolution happens on the parsed JSON, before validation, so every reader of the config (the
 * daemon, the technician reload, safe-state, the portal commands) sees the same absolute paths.
 * A new config key holding a file or folder path belongs in CONFIG_PATH_KEYS.
 */
import { isAbsolute, resolve } from 'node:path';
import { RENAMED_KEYS } from './aliases.js';

/** Every config key that holds a path (dotted, as in docs/config.md). */
export const CONFIG_PATH_KEYS: readonly string[] = [
  'station.passwordFile',
  'server.caFile',
  'hardware.profile',
  'hardware.stateFile',
  'hardware.power.voltage.path',
  'storage.directory',
  'portal.credentialsFile',
  'technician.listen.socket',
  'metrics.textfileDir',
];

/** The path keys under a renamed section's old name too (aliases.ts moves it after this has run). */
const PATH_KEYS_ANY_NAME: readonly string[] = CONFIG_PATH_KEYS.flatMap((key) => {
  const [section = '', ...rest] = key.split('.');
  const renamed = RENAMED_KEYS.find((r) => r.now === section);
  return renamed === undefined ? [key] : [key, [renamed.old, ...rest].join('.')];
});

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A copy of `raw` with every relative path of CONFIG_PATH_KEYS resolved against `baseDir`.
 * Anything that is not where a path is expected (a number, a missing section) is left for the
 * schema to report.
 */
export function resolveConfigPaths(raw: unknown, baseDir: string): unknown {
  let out = raw;
  for (const key of PATH_KEYS_ANY_NAME) out = resolveOne(out, key.split('.'), baseDir);
  return out;
}

function resolveOne(node: unknown, keys: readonly string[], baseDir: string): unknown {
  const [first, ...rest] = keys;
  if (first === undefined || !isRecord(node) || !Object.hasOwn(node, first)) return node;
  const child = node[first];
  if (rest.length > 0) {
    const next = resolveOne(child, rest, baseDir);
    return next === child ? node : { ...node, [first]: next };
  }
  if (typeof child !== 'string' || child === '' || isAbsolute(child)) return node;
  return { ...node, [first]: resolve(baseDir, child) };
}
