/**
 * Tokens: making them, hashing them, checking a presented one, and reading the stored entries
 * (the config's and the `technician-tokens` credential's). The technician port, fleet's metrics
 * endpoint, the demo and `stationctl token new` all use this one module.
 *
 * A token is `pst_` + 43 base64url characters (256 random bits); the prefix lets secret scanners
 * and people recognise one. Only `sha256:<hex>` of a token is ever stored. A presented token is
 * checked by the one bearer check (bearer.ts): hashed and compared with every stored hash in
 * constant time.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, type ConfigProblem } from '../errors.js';
import { zodProblems } from '../config/problems.js';
import { TOKENS_CREDENTIAL, tokenListSchema, type TokenEntry, type TokenScope } from '../config/technician.js';
import { digestBytes, matchDigest, storedDigest } from './bearer.js';

export { bearerToken } from './bearer.js';

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
  return storedDigest(token);
}

/** Each scope includes those before it: service implies read, read implies metrics; metrics allows nothing else. */
const SCOPE_RANK: Readonly<Record<TokenScope, number>> = { metrics: 0, read: 1, service: 2 };

/** Whether `have` (the token's scope) allows what `need` asks for. */
export function scopeAllows(have: TokenScope, need: TokenScope): boolean {
  return SCOPE_RANK[have] >= SCOPE_RANK[need];
}

export class TokenStore {
  private readonly who: readonly Technician[];
  private readonly digests: readonly Buffer[];

  constructor(entries: readonly TokenEntry[]) {
    this.who = entries.map((e) => ({ name: e.name, scope: e.scope }));
    // The schema has checked every hash's form (TOKEN_HASH_RE).
    this.digests = entries.map((e) => digestBytes(e.hash) ?? Buffer.alloc(0));
  }

  get size(): number {
    return this.who.length;
  }

  /** The technician a presented token belongs to, or null. Constant time in the token's content. */
  verify(token: string): Technician | null {
    if (!TOKEN_SHAPE.test(token)) return null;
    return this.who[matchDigest(token, this.digests)] ?? null;
  }
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
