/**
 * Waiting as a promise: the one sleep of the code base, on the global timers (so fake timers
 * drive it, and a pending sleep keeps the process alive: an unref'd timer once let `safe-state`
 * exit 0 silently while it waited for a busy line). A wait of 0 ms or less resolves at once. With
 * a signal it ends early, resolved, when the signal aborts (check `signal.aborted` after it if that
 * matters).
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Resolves when `work` settles, or after `ms` if it has not by then (rejects with its error if it
 * rejects first). The timer is cleared either way: a bounded wait never keeps the process alive
 * past its work.
 */
export async function waitAtMost(work: Promise<unknown>, ms: number): Promise<void> {
  const done = new AbortController();
  try {
    await Promise.race([work, sleep(ms, done.signal)]);
  } finally {
    done.abort();
  }
}
