/**
 * Waiting on the station's state without polling: a condition on the core's state is checked now
 * and after every transition the runtime makes, bounded by a limit and ended by an abort.
 */
import type { CoreState } from '../station/core-types.js';
import type { StationRuntime } from '../station/runtime.js';
import { settlesWithin } from '../time.js';

/**
 * Resolves true as soon as `holds` is true of the runtime's state (at once if it is now), false
 * once `limitMs` has passed or `signal` aborted without that. Nothing is left listening after.
 */
export async function untilState(runtime: StationRuntime, holds: (state: CoreState) => boolean, limitMs: number, signal?: AbortSignal): Promise<boolean> {
  if (holds(runtime.snapshot())) return true;
  if (signal?.aborted === true) return false;
  let stopListening = (): void => undefined;
  const met = new Promise<void>((resolve) => {
    const off = runtime.onTransition((state) => {
      if (holds(state)) resolve();
    });
    const aborted = (): void => resolve();
    signal?.addEventListener('abort', aborted, { once: true });
    stopListening = () => {
      off();
      signal?.removeEventListener('abort', aborted);
    };
  });
  try {
    await settlesWithin(met, limitMs);
  } finally {
    stopListening();
  }
  return holds(runtime.snapshot());
}
