/**
 * The daemon's code compiled once per release and Node version, not at every start: a V8 code
 * cache (docs/decisions/0047). The bundled app's daemon is a CommonJS file (app/daemon.cjs)
 * that this loader compiles with vm.Script, handing V8 the cache written by an earlier start; once
 * the station is ready, the daemon asks for the cache of everything compiled so far (its start,
 * the first /state through got, the technician port) to be written for the next start.
 *
 * Why our own and not Node's: Node 20 (Debian's, armv7) has no compile cache at all; Node 22+'s
 * (NODE_COMPILE_CACHE, still set by the unit for main.js and the other modes) covers ES modules, and
 * a cache made once the station is ready also holds what V8 compiled lazily while it started
 * (figures in docs/decisions/0047). The folder is NODE_COMPILE_CACHE's: the unit's CacheDirectory.
 *
 * Safety: a cache is used only for the exact source it was made from (the file name carries the
 * source's CRC-32, the Node version and the architecture), and only if its own CRC-32 checks out
 * (V8 checks the source's length, its version and flags, but in release builds not the payload: a
 * damaged file must never reach it). Anything wrong with the cache means compiling from source,
 * as without one; it is never a reason not to start.
 */
import { mkdirSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';
import type { Logger } from 'pino';
import { errorMessage } from '../errors.js';
import { atomicWrite } from '../storage/atomic-write.js';

/** What the loader did with the cache: none configured, used, none yet, refused by V8, or set aside as damaged. */
export type CodeCacheUse = 'off' | 'used' | 'absent' | 'rejected' | 'damaged';

export interface CodeCache {
  readonly use: CodeCacheUse;
  /** The cache file for this source and Node, or null when no cache folder is configured. */
  readonly file: string | null;
  /**
   * Write the cache of everything compiled so far, unless the one read at start was used (it
   * already holds the start). Removes the caches of other sources or Node versions of the same
   * file. Resolves to what was done; rejects on a write error (the caller logs it).
   */
  save(): Promise<'written' | 'kept' | 'off'>;
  /**
   * Once the station is ready: save(), logging what was done. A failure is logged, nothing more
   * (the next start compiles from source).
   */
  saveWhenReady(log: Logger): void;
}

export interface LoadedCommonJs {
  readonly exports: Record<string, unknown>;
  readonly codeCache: CodeCache;
}

/**
 * A module this loader runs is ASCII text of one function expression between these two (the build
 * writes the daemon so, scripts/app/build.mjs): compiled as read, no wrapped copy of the source.
 */
export const COMMONJS_WRAPPER_START = '(function (exports, require, module, __filename, __dirname, __pickupModuleUrl) {';
export const COMMONJS_WRAPPER_END = '\n})';

/**
 * CRC-32 (zlib's, which the journal loads anyway): what is guarded against is a changed or damaged
 * file, not an attacker (who could write the release itself); a SHA-256 of the 1.3 MB read at each
 * start cost 1.3 ms, a CRC-32 0.3 ms.
 */
const DIGEST_BYTES = 4;
const digest = (data: Uint8Array): Buffer => {
  const b = Buffer.alloc(DIGEST_BYTES);
  b.writeUInt32BE(crc32(data));
  return b;
};

/** The cache file's name: the source file's name, its CRC-32 (8 hex), the Node version and the architecture. */
export function cacheFileName(file: string, source: Uint8Array, nodeVersion = process.version, arch = process.arch): string {
  return `${basename(file)}.${digest(source).toString('hex')}.${nodeVersion}-${arch}.v8cache`;
}

/** The cache's payload if the file holds one whose digest checks out; null if absent, 'damaged' otherwise. */
function readCache(path: string): Buffer | null | 'damaged' {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch {
    return null;
  }
  if (data.length <= DIGEST_BYTES) return 'damaged';
  const payload = data.subarray(DIGEST_BYTES);
  return digest(payload).equals(data.subarray(0, DIGEST_BYTES)) ? payload : 'damaged';
}

function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already, or not ours to remove: a stale cache costs disk space, nothing else
  }
}

/**
 * Load `file`, a CommonJS module that only this loader runs: ASCII text of one function expression
 * `(function (exports, require, module, __filename, __dirname, __pickupModuleUrl) {...})`
 * (scripts/app/build.mjs writes the daemon so: esbuild's cjs output of an ES module, where
 * `import.meta.url` is __pickupModuleUrl). Compiled with the cache in `cacheDir` when there is a
 * valid one; `cacheDir` null: no cache, compiled from source.
 */
export function loadCommonJs(file: string, cacheDir: string | null): LoadedCommonJs {
  const source = readFileSync(file);
  const cacheFile = cacheDir === null ? null : join(cacheDir, cacheFileName(file, source));
  const cached = cacheFile === null ? null : readCache(cacheFile);
  if (cached === 'damaged' && cacheFile !== null) removeQuietly(cacheFile);
  // The file is the function expression itself and ASCII only (scripts/app/build.mjs): compiled
  // as read, without a UTF-8 decoding or a wrapped copy of 600 KB.
  const script = new Script(source.toString('latin1'), { filename: file, ...(cached instanceof Buffer ? { cachedData: cached } : {}) });
  const use: CodeCacheUse =
    cacheFile === null ? 'off' : cached === 'damaged' ? 'damaged' : cached === null ? 'absent' : script.cachedDataRejected === true ? 'rejected' : 'used';
  const module = { exports: {} as Record<string, unknown> };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file), pathToFileURL(file).href);

  const save = async (): Promise<'written' | 'kept' | 'off'> => {
    if (cacheFile === null) return 'off';
    if (use === 'used') return 'kept';
    const payload = script.createCachedData();
    mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
    // A cache is rebuilt from source whenever it is lost: no fsync needed; the rename keeps it whole.
    await atomicWrite(cacheFile, Buffer.concat([digest(payload), payload]), { durable: false });
    const prefix = `${basename(file)}.`;
    for (const name of readdirSync(dirname(cacheFile))) {
      if (name.startsWith(prefix) && name.endsWith('.v8cache') && name !== basename(cacheFile)) removeQuietly(join(dirname(cacheFile), name));
    }
    return 'written';
  };
  const saveWhenReady = (log: Logger): void => {
    save().then(
      (done) => {
        if (done === 'written') log.info({ codeCache: cacheFile }, 'code cache written for the next start');
      },
      (e: unknown) => log.warn({ codeCache: cacheFile, error: errorMessage(e) }, 'code cache not written; the next start compiles from source'),
    );
  };
  return { exports: module.exports, codeCache: { use, file: cacheFile, save, saveWhenReady } };
}
