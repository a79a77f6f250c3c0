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
 * appears). The socket unit makes a new secret each time it starts and removes it when it stops, so
 * a secret that leaked (a squatter, a page saved somewhere) ends with it: the file's identity
 * (inode, size, time) is looked at before every check, so an old secret is refused at the first
 * request after the change, and `watch` tells the server at once, which then closes every
 * connection and stream that proved itself with the old one.
 */
import { readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import { digestBytes, matchDigest, storedDigest } from '../../tokens/bearer.js';

/** Where the station finds the secret's hash: a file (the field), or the hash itself (the demo, tests). */
export type KioskSecretSource = { readonly kind: 'file'; readonly path: string } | { readonly kind: 'hash'; readonly hash: string };

/** A secret as presented: 64 lowercase hex digits (what kiosk-secret.sh makes). */
const SECRET = /^[0-9a-f]{64}$/;
/** The stored form of a secret (the one bearer check's, src/tokens/bearer.ts). */
export function kioskSecretHash(secret: string): string {
  return storedDigest(secret);
}

export class KioskSecret {
  private digest: Buffer | null = null;
  private problemText: string | null = 'not read yet';
  /** The file's identity when it was read (null: not read, or unreadable). */
  private identity: string | null = null;

  constructor(private readonly source: KioskSecretSource) {
    this.load();
  }

  /** Why no secret can be checked now (the file missing, malformed), or null. */
  get problem(): string | null {
    return this.problemText;
  }

  /** Read the hash (again). Returns the problem, or null once a hash is loaded. */
  load(): string | null {
    let text: string;
    if (this.source.kind === 'hash') text = this.source.hash;
    else {
      try {
        this.identity = identityOf(this.source.path);
        text = readFileSync(this.source.path, 'utf8');
      } catch (e) {
        this.identity = null;
        const code = (e as NodeJS.ErrnoException).code ?? 'error';
        return this.fail(`kiosk secret ${this.source.path} cannot be read (${code}): is pickup-station-kiosk.socket enabled and running?`);
      }
    }
    const digest = digestBytes(text);
    const where = this.source.kind === 'file' ? `${this.source.path} ` : '';
    if (digest === null) return this.fail(`kiosk secret hash ${where}is not "sha256:<64 hex>"`);
    this.digest = digest;
    this.problemText = null;
    return null;
  }

  private fail(problem: string): string {
    this.digest = null;
    this.problemText = problem;
    return problem;
  }

  /** Read the file again if it is not the one read last. True when the secret it holds changed. */
  refresh(): boolean {
    if (this.source.kind !== 'file') return false;
    let now: string | null;
    try {
      now = identityOf(this.source.path);
    } catch {
      now = null;
    }
    if (now !== null && now === this.identity) return false;
    const before = this.digest;
    this.load();
    return before === null ? this.digest !== null : this.digest === null || !before.equals(this.digest);
  }

  /**
   * Call `onChange` when the secret changes (the socket unit started again, or stopped), from the
   * file's folder's events; null when the folder cannot be watched (the check before every request
   * still refuses an old secret). The watcher is closed by the returned function.
   */
  watch(onChange: () => void): (() => void) | null {
    if (this.source.kind !== 'file') return null;
    const name = basename(this.source.path);
    let watcher: FSWatcher;
    try {
      watcher = watch(dirname(this.source.path), { persistent: false }, (_event, file) => {
        if ((file === null || file === name) && this.refresh()) onChange();
      });
    } catch {
      return null;
    }
    watcher.on('error', () => watcher.close());
    return () => watcher.close();
  }

  /**
   * Whether `presented` (the bearer credential of a request, src/tokens/bearer.ts) is the kiosk's
   * secret now. Constant time in its content.
   */
  verify(presented: string | null): boolean {
    if (presented === null || !SECRET.test(presented)) return false;
    this.refresh();
    if (this.digest === null) return false;
    return matchDigest(presented, [this.digest]) === 0;
  }
}

/** What tells one version of the file from the next: a rename puts a new inode in place. */
function identityOf(path: string): string {
  const st = statSync(path, { bigint: true });
  return `${st.ino}:${st.size}:${st.mtimeNs}`;
}
