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
 * Whether `p` settles within `ms` (resolved or rejected alike: the caller only bounds how long it
 * waits). The timer is cleared as soon as `p` settles, so a bounded wait never keeps the process
 * alive past its work. The one bounded wait of the code base, beside the one sleep.
 */
export function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = p.then(
    () => true,
    () => true,
  );
  return Promise.race([settled, late]).finally(() => clearTimeout(timer));
}
