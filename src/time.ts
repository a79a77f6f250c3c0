/**
 * Waiting, in one place: the one sleep, the one wait for a condition (woken by events, bounded by a
 * limit, ended by a signal; never polling), the bounded wait for a promise built on it, and the one
 * retry schedule. Everything here runs on the global timers, so fake timers drive it in tests.
 */

/**
 * Waiting as a promise: the one sleep of the code base (a pending sleep keeps the process alive: an
 * unref'd timer once let `safe-state` exit 0 silently while it waited for a busy line). A wait of
 * 0 ms or less resolves at once. With a signal it ends early, resolved, when the signal aborts
 * (check `signal.aborted` after it if that matters). Never in a loop to wait for a condition: that
 * is `waitUntil`'s work (eslint refuses `await sleep` inside a loop).
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

/** How a wait ended: the condition held (with its value), the limit passed, or the signal aborted. */
export type Waited<T> = { readonly kind: 'met'; readonly value: T } | { readonly kind: 'limit' } | { readonly kind: 'aborted' };

export interface WaitSpec<T> {
  /** The condition: its value once it holds, undefined while it does not. Asked now and at every wake. */
  readonly check: () => T | undefined;
  /**
   * Subscribe `wake` to whatever can make the condition hold (a state transition, a door change, a
   * promise settling); returns how to unsubscribe. The wait asks `check` again at each wake.
   */
  readonly wake: (wake: () => void) => () => void;
  /** The longest wait, in ms; 0 or less: the condition is asked once. */
  readonly limitMs: number;
  /** Ends the wait early ('aborted'). */
  readonly signal?: AbortSignal;
}

/**
 * The one wait for a condition: asked at once, then at every wake, until it holds, the limit passes
 * or the signal aborts — never by polling. A condition that holds wins over a limit or an abort seen
 * at the same moment. Nothing is left subscribed, listening or timed after it ends. A `check` that
 * throws rejects the wait.
 */
export function waitUntil<T>(spec: WaitSpec<T>): Promise<Waited<T>> {
  const { check, limitMs, signal } = spec;
  const first = check();
  if (first !== undefined) return Promise.resolve({ kind: 'met', value: first });
  if (signal?.aborted === true) return Promise.resolve({ kind: 'aborted' });
  if (limitMs <= 0) return Promise.resolve({ kind: 'limit' });
  return new Promise<Waited<T>>((resolve, reject) => {
    let ended = false;
    let unsubscribe: (() => void) | null = null;
    const end = (outcome: Waited<T> | Error): void => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      unsubscribe?.();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    /** The condition's value, or the error its check threw. */
    const ask = (): Waited<T> | Error | undefined => {
      try {
        const value = check();
        return value === undefined ? undefined : { kind: 'met', value };
      } catch (e) {
        return e instanceof Error ? e : new Error(String(e));
      }
    };
    const onWake = (): void => {
      if (ended) return;
      const now = ask();
      if (now !== undefined) end(now);
    };
    const onAbort = (): void => end(ask() ?? { kind: 'aborted' });
    const timer = setTimeout(() => end(ask() ?? { kind: 'limit' }), limitMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    const off = spec.wake(onWake);
    // A wake while subscribing ended the wait before there was anything to unsubscribe.
    if (ended) off();
    else unsubscribe = off;
  });
}

/**
 * Whether `p` settles within `ms` (resolved or rejected alike: the caller only bounds how long it
 * waits), or before `signal` aborts. The timer is cleared as soon as `p` settles, so a bounded wait
 * never keeps the process alive past its work.
 */
export async function settlesWithin(p: Promise<unknown>, ms: number, signal?: AbortSignal): Promise<boolean> {
  let settled = false;
  const waited = await waitUntil({
    check: () => (settled ? true : undefined),
    wake: (wake) => {
      let listening = true;
      const done = (): void => {
        settled = true;
        if (listening) wake();
      };
      p.then(done, done);
      return () => void (listening = false);
    },
    limitMs: ms,
    ...(signal ? { signal } : {}),
  });
  return waited.kind === 'met';
}

/** Retry delays: initialMs, initialMs*factor, … capped at maxMs. */
export interface BackoffOptions {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly factor: number;
}

/** The delay before retry number `failures` (0 = right after the first failure). */
export function backoffDelay(failures: number, o: BackoffOptions): number {
  const d = o.initialMs * Math.pow(o.factor, Math.max(0, failures));
  return Math.min(o.maxMs, Math.round(d));
}

/**
 * The one retry schedule of the code base: after each failure the next attempt waits
 * backoffDelay(failures so far), and a success starts the count again. Two ways to wait for the
 * next attempt: `retry(attempt)` schedules it on a timer (the devices' reconnects, the kiosk
 * page's listener, the audio output's probe); `pause(signal)` is awaited by a loop that tries
 * again (stationctl's requests and followed streams). eslint refuses exponential or doubling
 * delays anywhere else in src/.
 */
export class Backoff {
  private failed = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly o: BackoffOptions) {}

  /** The delay the next retry() or pause() will wait. */
  nextDelay(): number {
    return backoffDelay(this.failed, this.o);
  }

  /** Failures counted since the last reset(). */
  get failures(): number {
    return this.failed;
  }

  /** A failure: run `attempt` after the next delay (replacing a retry pending); returns that delay. */
  retry(attempt: () => void): number {
    const delay = this.nextDelay();
    this.failed++;
    this.cancel();
    this.timer = setTimeout(() => {
      this.timer = null;
      attempt();
    }, delay);
    return delay;
  }

  /** A failure: wait the next delay (ended early, resolved, when `signal` aborts). */
  pause(signal?: AbortSignal): Promise<void> {
    const delay = this.nextDelay();
    this.failed++;
    return sleep(delay, signal);
  }

  /** A success (or a fresh loss after one): the next failure waits initialMs again. A retry pending stays. */
  reset(): void {
    this.failed = 0;
  }

  /** Whether a retry is scheduled. */
  get pending(): boolean {
    return this.timer !== null;
  }

  /** No retry runs any more (until the next retry()). */
  cancel(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
