/**
 * The kiosk's proof of itself: a per-boot secret that only the kiosk browser's user can read.
 * `pickup-station-kiosk.socket` makes it at boot (systemd/kiosk-secret.sh: 256 random bits, the
 * secret root-only, its SHA-256 beside it readable by all); the kiosk browser's unit gets the secret
 * as a systemd credential and passes it to the page in the URL's fragment (never sent over HTTP,
 * never on a command line); the page sends it as `Authorization: Bearer` with every key and its
 * event stream. The station reads only the hash: a process that can read it learns nothing it could
 * present.
 *
 * A hash file that is missing or malformed is the kiosk's health (keys and streams refused until it
 * appears); it is read again when a presented secret does not match and the file has changed since,
 * at most once a second (a socket unit restarted makes a new secret).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';

/** Where the station finds the secret's hash: a file (the field), or the hash itself (the demo, tests). */
export type KioskSecretSource = { readonly kind: 'file'; readonly path: string } | { readonly kind: 'hash'; readonly hash: string };

const HASH = /^sha256:([0-9a-f]{64})$/;
/** A secret as presented: 64 lowercase hex digits (what kiosk-secret.sh makes). */
const SECRET = /^[0-9a-f]{64}$/;
const RELOAD_EVERY_MS = 1_000;

/** The stored form of a secret. */
export function kioskSecretHash(secret: string): string {
  return `sha256:${createHash('sha256').update(secret, 'utf8').digest('hex')}`;
}

export class KioskSecret {
  private digest: Buffer | null = null;
  private problemText: string | null = 'not read yet';
  private loadedMtime = -1;
  private lastTry = -Infinity;

  constructor(
    private readonly source: KioskSecretSource,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.load();
  }

  /** Why no secret can be checked now (the file missing, malformed), or null. */
  get problem(): string | null {
    return this.problemText;
  }

  /** Read the hash (again). Returns the problem, or null once a hash is loaded. */
  load(): string | null {
    this.lastTry = this.now();
    let text: string;
    if (this.source.kind === 'hash') text = this.source.hash;
    else {
      try {
        this.loadedMtime = statSync(this.source.path).mtimeMs;
        text = readFileSync(this.source.path, 'utf8');
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? 'error';
        return this.fail(`kiosk secret ${this.source.path} cannot be read (${code}): is pickup-station-kiosk.socket enabled?`);
      }
    }
    const m = HASH.exec(text.trim());
    const where = this.source.kind === 'file' ? `${this.source.path} ` : '';
    if (m === null) return this.fail(`kiosk secret hash ${where}is not "sha256:<64 hex>"`);
    this.digest = Buffer.from(m[1] ?? '', 'hex');
    this.problemText = null;
    return null;
  }

  private fail(problem: string): string {
    this.digest = null;
    this.problemText = problem;
    return problem;
  }

  /** Worth reading again: no hash yet, or the file changed since (looked at most once a second). */
  private stale(): boolean {
    if (this.source.kind !== 'file' || this.now() - this.lastTry < RELOAD_EVERY_MS) return false;
    if (this.digest === null) return true;
    this.lastTry = this.now();
    try {
      return statSync(this.source.path).mtimeMs !== this.loadedMtime;
    } catch {
      return true;
    }
  }

  /** Whether `presented` is the kiosk's secret. Constant time in its content. */
  verify(presented: string | null): boolean {
    if (presented === null || !SECRET.test(presented)) return false;
    if (this.matches(presented)) return true;
    if (this.stale() && this.load() === null) return this.matches(presented);
    return false;
  }

  private matches(presented: string): boolean {
    if (this.digest === null) return false;
    return timingSafeEqual(createHash('sha256').update(presented, 'utf8').digest(), this.digest);
  }
}
