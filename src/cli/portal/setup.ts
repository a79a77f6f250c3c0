/**
 * From command-line options to a PortalClient: the `portal` section of the station config
 * (nothing else of the config is read, so a half-written station config does not block
 * commissioning), `--portal-url`, and the credentials file.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { readJsonFile, zodProblems } from '../../config/load.js';
import { resolveConfigPaths } from '../../config/paths.js';
import { ConfigError } from '../../errors.js';
import { portalConfigSchema, readPortalCredentials, type PortalConfig } from '../../portal/config.js';
import { PortalClient } from '../../portal/client.js';
import type { PortalLogger } from '../../portal/http.js';
import type { PortalGrant } from '../../portal/auth.js';

export const DEFAULT_CONFIG_FILE = '/etc/pickup-station/config.json';

export interface ConfigChoice {
  /** --config, or undefined for the default file. */
  readonly file: string | undefined;
  /** --portal-url. */
  readonly portalUrl: string | undefined;
}

/**
 * The validated portal section. Without --config, a missing default file is fine when
 * --portal-url is given (commissioning from a laptop); an explicit --config must exist.
 */
export function loadPortalConfig(choice: ConfigChoice): { config: PortalConfig; source: string } {
  const file = choice.file ?? DEFAULT_CONFIG_FILE;
  let section: unknown;
  if (existsSync(file) || choice.file !== undefined || choice.portalUrl === undefined) {
    // Read as the daemon reads it: size and depth bounded, a BOM accepted, paths relative to the file.
    const raw = resolveConfigPaths(readJsonFile(file), dirname(resolve(file)));
    section = typeof raw === 'object' && raw !== null ? (raw as { portal?: unknown }).portal : undefined;
  }
  if (section === undefined && choice.portalUrl === undefined)
    throw new ConfigError(file, [{ path: 'portal', message: 'no portal section (needs at least baseUrl), and no --portal-url given' }]);
  const merged = choice.portalUrl === undefined ? section : { ...(isObject(section) ? section : {}), baseUrl: choice.portalUrl };
  const parsed = portalConfigSchema.safeParse(merged, { reportInput: true });
  if (!parsed.success) throw new ConfigError(file, zodProblems(parsed.error, 'portal'));
  return { config: parsed.data, source: file };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Build the client; throws ConfigError / PortalCredentialsError for the CLI to map to exit 78. */
export function createClient(config: PortalConfig, env: Readonly<Record<string, string | undefined>>, logger?: PortalLogger): PortalClient {
  const creds = readPortalCredentials(config, env);
  const grant: PortalGrant =
    config.grant === 'password'
      ? // readPortalCredentials has checked the password; the schema has checked the username.
        { type: 'password', username: config.username ?? '', password: creds.password ?? '' }
      : { type: 'client_credentials' };
  return new PortalClient({
    baseUrl: config.baseUrl,
    clientId: creds.clientId,
    clientSecret: creds.clientSecret,
    grant,
    timeoutMs: config.timeoutMs,
    maxAnswerBytes: config.maxAnswerBytes,
    ...(logger ? { logger } : {}),
  });
}
