/**
 * Waiting on the station's state without polling: a condition on the core's state is asked now
 * and after every transition the runtime makes (src/time.ts waitUntil, woken by the runtime's
 * transitions), bounded by a limit and ended by an abort.
 */
import type { CoreState } from '../station/core-types.js';
import type { StationRuntime } from '../station/runtime.js';
import { waitUntil } from '../time.js';

/**
 * Resolves true as soon as `holds` is true of the runtime's state (at once if it is now), false
 * once `limitMs` has passed or `signal` aborted without that. Nothing is left listening after.
 */
export async function untilState(runtime: StationRuntime, holds: (state: CoreState) => boolean, limitMs: number, signal?: AbortSignal): Promise<boolean> {
  const waited = await waitUntil({
    check: () => (holds(runtime.snapshot()) ? true : undefined),
    wake: (wake) => runtime.onTransition(wake),
    limitMs,
    ...(signal ? { signal } : {}),
  });
  return waited.kind === 'met';
}
