/**
 * State on disk, replaced atomically (SignalK's atomicWrite): the new content goes to a temp file in
 * the same folder, is fsync'ed, renamed over the target, and the folder is fsync'ed so the rename
 * itself survives a power cut. A reader sees the old file or the new one, never half of either.
 *
 * Used by every file the station keeps: the journal's compaction, the PIN throttle's state, the
 * metrics textfile. The station runtime never calls this itself; the file adapters of its ports do.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { chmod, open, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteOptions {
  /**
   * File mode of the new file (default 0o600: station state is nobody else's business). Set with an
   * explicit chmod, so the process's umask cannot narrow it: under the unit's UMask=0077 the metrics
   * textfile would be 0600, unreadable for node_exporter's user.
   */
  readonly mode?: number;
  /**
   * fsync the file and its folder (default true). Off only where a power cut may lose the file
   * (a metrics textfile is rewritten every few seconds anyway).
   */
  readonly durable?: boolean;
}

function tempPathFor(path: string): string {
  // Same folder (rename is atomic only within one filesystem); a leading dot keeps it out of globs
  // such as node_exporter's *.prom.
  return join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Replace `path` with `data` atomically (temp file + fsync + rename + folder fsync). */
export async function atomicWrite(path: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): Promise<void> {
  const durable = opts.durable ?? true;
  const tmp = tempPathFor(path);
  try {
    await writeFile(tmp, data, { mode: opts.mode ?? 0o600, flush: durable });
    await chmod(tmp, opts.mode ?? 0o600);
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  if (durable) await fsyncDir(dirname(path));
}

/**
 * The same, synchronously: for the few places that must finish before the process goes on (a crash
 * handler, a write that must precede a lock pulse in the same tick).
 */
export function atomicWriteSync(path: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): void {
  const durable = opts.durable ?? true;
  const tmp = tempPathFor(path);
  try {
    const fd = openSync(tmp, 'w', opts.mode ?? 0o600);
    try {
      fchmodSync(fd, opts.mode ?? 0o600);
      const buf = typeof data === 'string' ? Buffer.from(data) : data;
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // already gone
    }
    throw e;
  }
  if (durable) {
    const dfd = openSync(dirname(path), 'r');
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  }
}
