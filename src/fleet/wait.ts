/**
 * Waiting on a running station without polling it hot: a condition is re-checked after every
 * runtime event (deferred by setImmediate, because an answer is applied right after its
 * `event-done` is emitted) and, as a safety net for transitions that emit nothing, every 100 ms.
 * Every wait is bounded and can be cut short by an AbortSignal.
 */
import type { StationRuntime, RuntimeEvent } from '../station/runtime.js';

export class WaitAbortedError extends Error {
  constructor() {
    super('wait aborted');
  }
}

export class WaitTimeoutError extends Error {}

/** Resolves with `check()`'s first non-undefined value. */
export function until<T>(runtime: StationRuntime, check: () => T | undefined, what: string, timeoutMs: number, signal?: AbortSignal): Promise<T> {
  const first = check();
  if (first !== undefined) return Promise.resolve(first);
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) return reject(new WaitAbortedError());
    const test = (): void => {
      const v = check();
      if (v === undefined) return;
      done();
      resolve(v);
    };
    const deferred = (): void => void setImmediate(test);
    const off = runtime.onEvent(deferred);
    const poll = setInterval(test, 100);
    const timer = setTimeout(() => {
      done();
      reject(new WaitTimeoutError(`timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    const onAbort = (): void => {
      done();
      reject(new WaitAbortedError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    function done(): void {
      off();
      clearInterval(poll);
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  });
}

/** The next runtime event matching `pick` (subscribe before causing it). */
export function nextEvent<T>(
  runtime: StationRuntime,
  pick: (e: RuntimeEvent) => T | undefined,
  what: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<T> {
  let seen: T | undefined;
  const off = runtime.onEvent((e) => {
    if (seen === undefined) seen = pick(e);
  });
  return until(runtime, () => seen, what, timeoutMs, signal).finally(off);
}

/** Nothing in flight, nothing owed, in `mode`. */
export function settledIn(runtime: StationRuntime, mode: string): () => true | undefined {
  return () => {
    const s = runtime.snapshot();
    return s.inFlight === null && !s.stateOwed && s.mode.kind === mode ? true : undefined;
  };
}
