/**
 * Waiting on a running station, for the fleet's scripted people: a condition is asked again after
 * every transition and every event of the runtime (src/time.ts waitUntil: never polling), bounded
 * by a limit and cut short by an AbortSignal. A wait ends in the listener that saw the change, so
 * the waiter's next step runs right after the runtime's synchronous work (an answer is applied in
 * the same tick its `event-done` is emitted), before any timer.
 */
import type { StationRuntime, RuntimeEvent } from '../station/runtime.js';
import { waitUntil } from '../time.js';

export class WaitAbortedError extends Error {
  constructor() {
    super('wait aborted');
  }
}

export class WaitTimeoutError extends Error {}

/** Resolves with `check()`'s first non-undefined value; rejects with WaitTimeoutError or WaitAbortedError. */
export async function until<T>(runtime: StationRuntime, check: () => T | undefined, what: string, timeoutMs: number, signal?: AbortSignal): Promise<T> {
  const waited = await waitUntil({
    check,
    wake: (wake) => {
      const offTransition = runtime.onTransition(wake);
      const offEvent = runtime.onEvent(wake);
      return () => {
        offTransition();
        offEvent();
      };
    },
    limitMs: timeoutMs,
    ...(signal ? { signal } : {}),
  });
  if (waited.kind === 'met') return waited.value;
  if (waited.kind === 'aborted') throw new WaitAbortedError();
  throw new WaitTimeoutError(`timed out after ${timeoutMs} ms waiting for ${what}`);
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
