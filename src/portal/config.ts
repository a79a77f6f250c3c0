/**
 * The `portal` section of the station config and the portal credentials file.
 *
 * The station never needs the library portal to serve readers; only the commissioning commands
 * (`stationctl portal …`) do, so the section is optional in the station config.
 * Secrets (client secret, user password) never live in the config: they come from a separate
 * credentials file, by default the systemd credential `portal-client`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from '../schema.js';
import { intIn, nonEmpty } from '../schema.js';

/** Name of the systemd credential (LoadCredential=portal-client:...) holding the credentials JSON. */
export const PORTAL_CREDENTIAL = 'portal-client';

export const portalConfigSchema = z
  .strictObject({
    /** The portal's {base_url}: scheme, host and any path prefix; API paths are appended. */
    baseUrl: z.url({ protocol: /^https?$/ }),
    /** Credentials JSON file; default: $CREDENTIALS_DIRECTORY/portal-client. */
    credentialsFile: z.optional(nonEmpty()),
    /** OAuth2 grant: the client itself (client_credentials) or a library user via the client (password). */
    grant: z._default(z.enum(['client_credentials', 'password']), 'client_credentials'),
    /** Library user name for the password grant; the password is in the credentials file. */
    username: z.optional(nonEmpty()),
    /** Per-request timeout (connect to last byte). */
    timeoutMs: z._default(intIn(100, 600_000), 30_000),
    /** Largest answer read; a longer one is abandoned (a search page is tens to hundreds of KiB). */
    maxAnswerBytes: z._default(intIn(1_024, 268_435_456), 4_194_304),
  })
  .check(
    z.superRefine((p, ctx) => {
      if (p.grant === 'password' && p.username === undefined)
        ctx.addIssue({ code: 'custom', path: ['username'], message: 'required when grant is "password"' });
    }),
  );

export type PortalConfigInput = z.input<typeof portalConfigSchema>;
export type PortalConfig = z.output<typeof portalConfigSchema>;

export const portalCredentialsSchema = z.strictObject({
  // HTTP Basic cannot carry a colon in the user part: reject it here rather than send a wrong header.
  clientId: z.string().check(z.minLength(1), z.regex(/^[^:]*$/, 'must not contain ":"')),
  clientSecret: nonEmpty(),
  /** The library user's password, for the password grant only. */
  password: z.optional(nonEmpty()),
});
export type PortalCredentials = z.output<typeof portalCredentialsSchema>;

/** The credentials file could not be found, read or validated. Never carries a secret value. */
export class PortalCredentialsError extends Error {
  override readonly name = 'PortalCredentialsError';
  constructor(
    readonly file: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** Where the credentials file is: the explicit path, else the systemd credential. */
export function credentialsPath(config: Pick<PortalConfig, 'credentialsFile'>, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const dir = env['CREDENTIALS_DIRECTORY'];
  return config.credentialsFile ?? (dir ? join(dir, PORTAL_CREDENTIAL) : undefined);
}

/**
 * Read and validate the credentials file. Error messages name the file and the bad keys, never a
 * value (zod issues are built without `reportInput`, so they carry no input either).
 */
export function readPortalCredentials(
  config: Pick<PortalConfig, 'credentialsFile' | 'grant'>,
  env: Readonly<Record<string, string | undefined>>,
): PortalCredentials {
  const file = credentialsPath(config, env);
  if (file === undefined)
    throw new PortalCredentialsError(undefined, `no portal credentials: set portal.credentialsFile or provide the systemd credential "${PORTAL_CREDENTIAL}"`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    // A SyntaxError message quotes the file's text, which may be the secret: do not pass it on.
    const why = e instanceof SyntaxError ? 'not valid JSON' : `cannot read: ${(e as NodeJS.ErrnoException).code ?? 'error'}`;
    throw new PortalCredentialsError(file, `portal credentials ${file}: ${why}`);
  }
  const parsed = portalCredentialsSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
    throw new PortalCredentialsError(file, `portal credentials ${file}: ${problems.join('; ')}`);
  }
  if (config.grant === 'password' && parsed.data.password === undefined)
    throw new PortalCredentialsError(file, `portal credentials ${file}: password: required for the password grant`);
  return parsed.data;
}
