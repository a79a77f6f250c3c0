/**
 * Loads and validates the station config: one JSON file plus the station password from a
 * separate file or systemd credentials. Reports every problem at once (ConfigError) and never
 * touches hardware.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type ConfigProblem } from '../errors.js';
import { readJsonFile, zodProblems } from './read.js';
import { configSchema, type StationConfig } from './schema.js';

// Readers and problem rendering shared with the board profile and safe-state live in read.ts
// (no schema: safe-state loads them without the station's whole config schema).
export { readFailure, readJsonFile, zodProblems } from './read.js';

/** Name of the systemd credential (LoadCredential=station-password:...) holding the password. */
export const PASSWORD_CREDENTIAL = 'station-password';
const PASSWORD_RE = /^[A-Za-z0-9]{20}$/;

export interface LoadedConfig {
  readonly config: StationConfig;
  readonly password: string;
}

/** Validate an already parsed config object. */
export function validateConfig(raw: unknown): { config?: StationConfig; problems: ConfigProblem[] } {
  const result = configSchema.safeParse(raw, { reportInput: true });
  if (result.success) return { config: result.data, problems: [] };
  return { problems: zodProblems(result.error) };
}

function readPassword(config: StationConfig | undefined, env: NodeJS.ProcessEnv, problems: ConfigProblem[]): string {
  const explicit = config?.station.passwordFile;
  const credDir = env['CREDENTIALS_DIRECTORY'];
  const file = explicit ?? (credDir ? join(credDir, PASSWORD_CREDENTIAL) : undefined);
  const path = 'station.passwordFile';
  if (file === undefined) {
    problems.push({ path, message: `no station password: set station.passwordFile or provide the systemd credential "${PASSWORD_CREDENTIAL}"` });
    return '';
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    problems.push({ path, message: `cannot read password file ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}` });
    return '';
  }
  const password = text.replace(/\r?\n$/, '');
  // The value itself is a secret: report only what is wrong with it.
  if (!PASSWORD_RE.test(password)) problems.push({ path, message: `password in ${file} must be 20 alphanumeric characters (has ${password.length})` });
  return password;
}

/**
 * Load config from a file. Throws ConfigError listing every problem (JSON syntax, schema,
 * password) at once.
 */
export function loadConfigFile(file: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  return loadConfigObject(readJsonFile(file), file, env);
}

export function loadConfigObject(raw: unknown, source: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const { config, problems } = validateConfig(raw);
  const password = readPassword(config ?? partialStation(raw), env, problems);
  if (!config || problems.length > 0) throw new ConfigError(source, problems);
  return { config, password };
}

/** Best effort: find passwordFile in an invalid config so its problems are reported in the same run. */
function partialStation(raw: unknown): StationConfig | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const station = (raw as { station?: { passwordFile?: unknown } }).station;
  const passwordFile = typeof station?.passwordFile === 'string' ? station.passwordFile : undefined;
  return { station: { passwordFile } } as unknown as StationConfig;
}
