/** Polling waits for tests that watch real devices and processes. */

/** Poll `cond` every 5 ms until it holds; returns the ms it took, throws after timeoutMs. */
export async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<number> {
  const t0 = performance.now();
  while (!cond()) {
    if (performance.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return performance.now() - t0;
}
