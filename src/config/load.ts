/**
 * Loads and validates the station config: one JSON file plus the station password from a
 * separate file or systemd credentials. Reports every problem at once (ConfigError) and never
 * touches hardware.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join, resolve as resolvePath } from 'node:path';
import { ConfigError, type ConfigProblem } from '../errors.js';
import type { Logger } from '../log.js';
import { moveRenamedKeys, pathAsWritten, type ConfigWarning } from './aliases.js';
import { resolveConfigPaths } from './paths.js';
import { looksLikeSecret, zodProblems } from './problems.js';
import { deepProblem, readJsonVersioned, tooDeep } from './read.js';
import { configSchema, type Config } from './schema.js';

export { zodProblems };
export type { ConfigWarning };
// Reading a JSON file safely lives in read.ts (no schema there: safe-state reads the config with it
// without evaluating the station's whole schema; docs/decisions/0050).
export { MAX_CONFIG_BYTES, MAX_CONFIG_DEPTH, configDigest, jsonSyntaxMessage, readFailure, readJsonFile, tooDeep } from './read.js';

/** Name of the systemd credential (LoadCredential=station-password:...) holding the password. */
export const PASSWORD_CREDENTIAL = 'station-password';
const PASSWORD_RE = /^[A-Za-z0-9]{20}$/;

export interface LoadedConfig {
  readonly config: Config;
  readonly password: string;
  /** The config file's version (read.ts configDigest); absent when not loaded from a file. */
  readonly version?: string;
  /** What was accepted but should change (an old key name: aliases.ts), for the station to log. */
  readonly warnings: readonly ConfigWarning[];
}

/**
 * Validate an already parsed config object (old key names read as their new ones: aliases.ts).
 * Never throws: whatever the input, the outcome is a config or a list of problems (an unexpected
 * failure inside validation is one problem too).
 */
export function validateConfig(input: unknown): { config?: Config; problems: ConfigProblem[]; warnings: ConfigWarning[] } {
  try {
    const deep = tooDeep(input);
    if (deep !== null) return { problems: [deepProblem(deep)], warnings: [] };
    const { raw, warnings, problems: renamed, moved } = moveRenamedKeys(input);
    const result = configSchema.safeParse(raw, { reportInput: true });
    if (result.success && renamed.length === 0) return { config: result.data, problems: [], warnings };
    const invalid = result.success ? [] : zodProblems(result.error).map((p) => pathAsWritten(p, moved));
    return { problems: [...renamed, ...invalid], warnings };
  } catch (e) {
    return { problems: [{ path: '', message: `could not be validated (${e instanceof Error ? e.name : typeof e}): is this a station config?` }], warnings: [] };
  }
}

/** One warn line per warning of a loaded config file, naming the file (at start and on each reload). */
export function logConfigWarnings(log: Pick<Logger, 'warn'>, file: string, warnings: readonly ConfigWarning[]): void {
  for (const w of warnings) log.warn({ config: shownFile(file), key: w.path, replacement: w.replacement }, `${shownFile(file)}: ${w.message}`);
}

/** How a file name may be printed: not at all when it looks like a secret (a password pasted into a path key). */
export function shownFile(file: string): string {
  return looksLikeSecret(basename(file)) ? '(a file name that looks like a secret: not shown)' : file;
}

/**
 * What is wrong with a password, by character class only: the value is a secret, so neither it nor
 * any character of it is printed. Null when it is fine.
 */
export function passwordProblem(password: string): string | null {
  if (PASSWORD_RE.test(password)) return null;
  const chars = [...password];
  const classes: string[] = [];
  if (/\s/.test(password)) classes.push('whitespace (a space, a tab, a line break)');
  if (chars.some((c) => c < ' ' && !/\s/.test(c)) || password.includes('\u007f')) classes.push('control characters');
  if (/[!-/:-@[-`{-~]/.test(password)) classes.push('punctuation or symbols (such as - _ . ! @)');
  if (chars.some((c) => c > '\u007f')) classes.push('non-ASCII characters (accented letters, typographic quotes)');
  const has = classes.length > 0 ? `, including ${classes.join(' and ')}` : '';
  return `must be exactly 20 characters, each A-Z, a-z or 0-9 (spec); it has ${chars.length}${has}`;
}

function readPassword(config: Pick<Config, 'station'> | undefined, env: NodeJS.ProcessEnv, problems: ConfigProblem[]): string {
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
    problems.push({ path, message: `cannot read password file ${shownFile(file)}: ${(e as NodeJS.ErrnoException).code ?? 'error'}` });
    return '';
  }
  // An editor's byte-order mark and the file's final line break are never part of a password.
  const password = text.replace(/^\uFEFF/, '').replace(/\r?\n$/, '');
  const problem = passwordProblem(password);
  if (problem !== null) problems.push({ path, message: `password in ${shownFile(file)} ${problem}` });
  return password;
}

/**
 * Load config from a file. Throws ConfigError listing every problem (JSON syntax, schema,
 * password) at once. Relative paths in it are relative to the file's folder.
 */
export function loadConfigFile(file: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const { raw, version } = readJsonVersioned(file);
  return { ...loadConfigObject(resolveConfigPaths(raw, dirname(resolvePath(file))), file, env), version };
}

export function loadConfigObject(raw: unknown, source: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const { config, problems, warnings } = validateConfig(raw);
  const password = readPassword(config ?? partialStation(raw), env, problems);
  if (config) checkReadable(config.server.caFile, 'server.caFile', problems);
  if (!config || problems.length > 0) throw new ConfigError(source, problems);
  return { config, password, warnings };
}

/** A file the station reads at start is a config problem when it cannot be read (not a crash later). */
function checkReadable(file: string | null, path: string, problems: ConfigProblem[]): void {
  if (file === null) return;
  try {
    readFileSync(file);
  } catch (e) {
    problems.push({ path, message: `cannot read ${shownFile(file)}: ${(e as NodeJS.ErrnoException).code ?? 'error'}` });
  }
}

/** Best effort: find passwordFile in an invalid config so its problems are reported in the same run. */
function partialStation(raw: unknown): Pick<Config, 'station'> | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const station = (raw as { station?: { passwordFile?: unknown } }).station;
  const passwordFile = typeof station?.passwordFile === 'string' && station.passwordFile !== '' ? station.passwordFile : undefined;
  return { station: { passwordFile } } as unknown as Pick<Config, 'station'>;
}
