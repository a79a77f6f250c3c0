/**
 * Tokens: making them, hashing them, checking a presented one, and reading the stored entries
 * (the config's and the `technician-tokens` credential's). The technician port, fleet's metrics
 * endpoint, the demo and `stationctl token new` all use this one module.
 *
 * A token is `pst_` + 43 base64url characters (256 random bits); the prefix lets secret scanners
 * and people recognise one. Only `sha256:<hex>` of a token is ever stored. A presented token is
 * hashed and compared with every stored hash by crypto.timingSafeEqual (equal-length digests), and
 * the loop never stops early, so neither the answer time nor its status says which part matched.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type ConfigProblem } from '../errors.js';
import { zodProblems } from '../config/problems.js';
import { TOKENS_CREDENTIAL, tokenListSchema, type TokenEntry, type TokenScope } from '../config/technician.js';

export const TOKEN_PREFIX = 'pst_';
// Bounds a presented token before hashing it (a header may be up to 16 KiB).
const TOKEN_SHAPE = /^pst_[A-Za-z0-9_-]{43}$/;

/** Who is calling: the token's name and scope (never the token). */
export interface Technician {
  readonly name: string;
  readonly scope: TokenScope;
}

/** A new random token. */
export function newToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** The stored form of a token. */
export function hashToken(token: string): string {
  return `sha256:${createHash('sha256').update(token, 'utf8').digest('hex')}`;
}

/** Each scope includes those before it: service implies read, read implies metrics; metrics allows nothing else. */
const SCOPE_RANK: Readonly<Record<TokenScope, number>> = { metrics: 0, read: 1, service: 2 };

/** Whether `have` (the token's scope) allows what `need` asks for. */
export function scopeAllows(have: TokenScope, need: TokenScope): boolean {
  return SCOPE_RANK[have] >= SCOPE_RANK[need];
}

export class TokenStore {
  private readonly entries: readonly { readonly who: Technician; readonly digest: Buffer }[];

  constructor(entries: readonly TokenEntry[]) {
    this.entries = entries.map((e) => ({ who: { name: e.name, scope: e.scope }, digest: Buffer.from(e.hash.slice('sha256:'.length), 'hex') }));
  }

  get size(): number {
    return this.entries.length;
  }

  /** The technician a presented token belongs to, or null. Constant time in the token's content. */
  verify(token: string): Technician | null {
    if (!TOKEN_SHAPE.test(token)) return null;
    const digest = createHash('sha256').update(token, 'utf8').digest();
    let found: Technician | null = null;
    for (const e of this.entries) {
      // No early exit: every entry is compared whatever matched before.
      if (timingSafeEqual(digest, e.digest) && found === null) found = e.who;
    }
    return found;
  }
}

/** The bearer token of an Authorization header, or null (missing, other scheme, malformed). */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const m = /^Bearer[ ]+([^\s]+)[ ]*$/i.exec(header);
  return m?.[1] ?? null;
}

/**
 * Every token entry: the config's, then those of the systemd credential `technician-tokens`
 * (a JSON array of the same entries) when $CREDENTIALS_DIRECTORY has it. A credential file that
 * exists but is invalid is a ConfigError (never silently ignored); its messages carry no value.
 */
export function loadTokenEntries(configured: readonly TokenEntry[], env: Readonly<Record<string, string | undefined>>): TokenEntry[] {
  const dir = env['CREDENTIALS_DIRECTORY'];
  if (!dir) return [...configured];
  const file = join(dir, TOKENS_CREDENTIAL);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [...configured];
    throw new ConfigError(file, [{ path: '', message: `cannot read: ${(e as NodeJS.ErrnoException).code ?? 'error'}` }]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    throw new ConfigError(file, [{ path: '', message: 'not valid JSON' }]);
  }
  const parsed = tokenListSchema.safeParse(raw);
  if (!parsed.success) {
    const problems: ConfigProblem[] = zodProblems(parsed.error).map(({ path, message }) => ({ path, message }));
    throw new ConfigError(file, problems);
  }
  return [...configured, ...parsed.data];
}
