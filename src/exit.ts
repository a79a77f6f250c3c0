/**
 * Ending the process. `process.exit()` does not return until libuv has joined its thread pool,
 * and a native addon that keeps a pool thread busy in a loop (node-hid's read of an open device
 * polls every 50 ms until it is interrupted) makes that join, and so the exit, wait forever: the
 * process then stops serving anything, and only systemd's SIGKILL after TimeoutStopSec= ends it.
 * Whatever holds a pool thread that way registers how to let it go; `exitProcess` lets every one
 * go, then exits. Record 0133.
 */

/**
 * One set per process, kept on the global object: the release runs each mode from its own bundled
 * file (scripts/app/build.mjs), so `main.js`, which exits, and the daemon's file, which opens the
 * devices, each carry a copy of this module; a module-level set would be two sets.
 */
const RELEASERS = Symbol.for('pickup-station.exit.releasers');
const holder = globalThis as { [RELEASERS]?: Set<() => void> };
const releasers = (holder[RELEASERS] ??= new Set<() => void>());

/** Register what lets a pool thread go at exit; the returned function unregisters it. */
export function releaseAtExit(release: () => void): () => void {
  releasers.add(release);
  return () => void releasers.delete(release);
}

/** Let every registered pool thread go (a failing release does not stop the others), then exit with `code`. */
export function exitProcess(code: number): never {
  for (const release of [...releasers]) {
    try {
      release();
    } catch {
      // Exiting: whatever it held goes with the process.
    }
  }
  return process.exit(code);
}
