/**
 * The one bearer check every port makes (record 0161): the credential of an `Authorization: Bearer`
 * header, its stored form (`sha256:<hex>`), and the comparison of a presented one with the stored
 * ones — SHA-256 of what was presented, compared with each stored digest by crypto.timingSafeEqual
 * (digests of equal length), never stopping early, so neither the answer time nor its status says
 * which part matched. The technician port's tokens (tokens.ts), fleet's /metrics and the kiosk
 * page's per-boot secret (devices/kiosk/secret.ts) all check through here; each decides only what a
 * credential must look like before it is hashed.
 *
 * A fast hash is enough: every credential checked here is 256 random bits, so a stored digest
 * cannot be reversed by guessing, and a slow KDF would cost the board CPU on every request.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** The stored form of a presented credential: `sha256:` and 64 lowercase hex digits. */
export const STORED_DIGEST = /^sha256:([0-9a-f]{64})$/;

/** The bearer credential of an Authorization header, or null (missing, another scheme, malformed). */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const m = /^Bearer[ ]+([^\s]+)[ ]*$/i.exec(header);
  return m?.[1] ?? null;
}

/** The stored form of a credential. */
export function storedDigest(credential: string): string {
  return `sha256:${createHash('sha256').update(credential, 'utf8').digest('hex')}`;
}

/** The digest bytes of a stored form; null when it is not `sha256:<64 hex>`. */
export function digestBytes(stored: string): Buffer | null {
  const m = STORED_DIGEST.exec(stored.trim());
  return m === null ? null : Buffer.from(m[1] ?? '', 'hex');
}

/**
 * The index of the stored digest `presented` hashes to, or -1. Constant time in the content of
 * `presented` and of every digest: all of them are compared, whatever matched before. The caller
 * bounds `presented` by its shape first (a header may be up to 16 KiB).
 */
export function matchDigest(presented: string, digests: readonly Buffer[]): number {
  const digest = createHash('sha256').update(presented, 'utf8').digest();
  let found = -1;
  digests.forEach((d, i) => {
    // No early exit: every digest is compared whatever matched before.
    if (d.length === digest.length && timingSafeEqual(digest, d) && found === -1) found = i;
  });
  return found;
}
