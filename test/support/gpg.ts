/**
 * OpenPGP keys for the signing tests, made with the real gpg in a private GNUPGHOME: a vendor key
 * and another one, both ed25519 without passphrase. Public keys are exported as binary keyrings
 * (`gpg --export`), the format apt's `signed-by=` and gpgv's `--keyring` read.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SigningKeys {
  /** GNUPGHOME holding both secret keys. */
  readonly dir: string;
  readonly vendorPublic: string;
  readonly otherPublic: string;
  readonly vendorId: string;
  readonly otherId: string;
}

function gpg(home: string, args: readonly string[]): string {
  const r = spawnSync('gpg', ['--homedir', home, '--batch', '--quiet', '--pinentry-mode', 'loopback', '--passphrase', '', ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`gpg ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function makeKey(home: string, uid: string, out: string): string {
  gpg(home, ['--quick-gen-key', uid, 'ed25519', 'sign', 'never']);
  const fpr = gpg(home, ['--with-colons', '--list-keys', uid])
    .split('\n')
    .find((l) => l.startsWith('fpr:'))!
    .split(':')[9]!;
  gpg(home, ['--output', out, '--export', fpr]);
  return fpr;
}

/** Two keys in `dir` (created 0700). */
export function makeSigningKeys(dir: string): SigningKeys {
  spawnSync('chmod', ['0700', dir]);
  const vendorPublic = join(dir, 'vendor.gpg');
  const otherPublic = join(dir, 'other.gpg');
  const vendorId = makeKey(dir, 'Pickup Station Test Vendor <vendor@example.org>', vendorPublic);
  const otherId = makeKey(dir, 'Someone Else <other@example.org>', otherPublic);
  return { dir, vendorPublic, otherPublic, vendorId, otherId };
}

const SIGN = join(import.meta.dirname, '../../scripts/bundle/sign.sh');

/** FILE.sig: a detached signature of FILE by `who`, made by the release's own signing script. */
export function signDetached(keys: SigningKeys, who: 'vendor' | 'other', file: string): string {
  const r = spawnSync('bash', [SIGN, '--key-id', who === 'vendor' ? keys.vendorId : keys.otherId, file], {
    encoding: 'utf8',
    env: { ...process.env, GNUPGHOME: keys.dir },
  });
  if (r.status !== 0) throw new Error(`sign.sh: ${r.stdout}${r.stderr}`);
  return `${file}.sig`;
}

/**
 * A keyring (binary) with both public keys, `who`'s revoked: its revocation certificate, which gpg
 * made beside the key (openpgp-revocs.d/, its first line escaped with ":"), merged in — what the
 * keyring package carries after a revocation. Made in a home of its own: the signing home keeps
 * the key unrevoked, as a thief's copy of it would be.
 */
export function revokedKeyring(keys: SigningKeys, who: 'vendor' | 'other', out: string): string {
  const home = mkdtempSync(join(tmpdir(), 'gpg-revoked-'));
  try {
    const fpr = who === 'vendor' ? keys.vendorId : keys.otherId;
    gpg(home, ['--import', keys.vendorPublic, keys.otherPublic]);
    const cert = readFileSync(join(keys.dir, 'openpgp-revocs.d', `${fpr}.rev`), 'utf8').replace(/^:-----/m, '-----');
    writeFileSync(join(home, 'revocation.asc'), cert);
    gpg(home, ['--import', join(home, 'revocation.asc')]);
    gpg(home, ['--output', out, '--export', keys.vendorId, keys.otherId]);
    return out;
  } finally {
    spawnSync('gpgconf', ['--homedir', home, '--kill', 'gpg-agent'], { stdio: 'ignore' });
    rmSync(home, { recursive: true, force: true });
  }
}

/** Stop the gpg-agent gpg started for `keys.dir` and remove the folder. */
export function disposeSigningKeys(keys: SigningKeys): void {
  spawnSync('gpgconf', ['--homedir', keys.dir, '--kill', 'gpg-agent'], { stdio: 'ignore' });
  rmSync(keys.dir, { recursive: true, force: true });
}
