/**
 * Process lifecycle of a running station: signals, crashes, exit codes.
 *
 * | signal                         | what happens                                                     |
 * |--------------------------------|------------------------------------------------------------------|
 * | SIGTERM, SIGINT (first)        | drain (core/drain.ts) up to `drainLimitMs`, then the stop: every  |
 * |                                | lock OFF first, then the rest; exit 0                            |
 * | SIGTERM, SIGINT (again)        | stop at once: every lock OFF first, exit 0                        |
 * | SIGHUP                         | reload the config like the technician reload (hooks.reload); one |
 * |                                | that arrives while a reload runs is queued, never ignored         |
 * | any other terminating signal   | stop at once through the same locks-OFF path, exit 128 + signo   |
 * | uncaught exception / rejection | stop at once (locks OFF), exit 1                                  |
 *
 * A stop always ends: from its first signal the process resolves its exit code within
 * `drainLimitMs + stopLimitMs` (the drain, then the stop's steps, each bounded by the target), even
 * if a step never settles — then it logs which and exits anyway (the unit's ExecStopPost drives
 * every lock OFF again). The unit's TimeoutStopSec= is above that sum.
 *
 * Not handled: SIGKILL and SIGSTOP (cannot be), SIGBUS/SIGFPE/SIGSEGV/SIGILL (a handler would loop
 * on the faulting instruction; systemd's ExecStopPost safe-state drives the locks OFF after those),
 * SIGPROF (V8's CPU profiler uses it) and SIGUSR1 (Node's inspector).
 */
import { constants } from 'node:os';
import type { RunningStation } from './app.js';
import { errorMessage } from './errors.js';
import type { Logger } from './log.js';
import { maskText } from './mask.js';

/** What a signal stops: a station, or the daemon's supervised one (its stop drives every lock OFF first). */
export type StopTarget = Pick<RunningStation, 'drain' | 'stop'>;

export interface LifecycleHooks {
  /** Called once, first thing when stopping begins (signal or crash): e.g. systemd's STOPPING=1. */
  readonly onStopping?: () => void;
  /** SIGHUP: reload the config; resolves with a line saying what happened. Absent: SIGHUP is logged and ignored. */
  readonly reload?: () => Promise<string>;
}

export interface LifecycleOptions {
  /** How long a graceful stop may drain before the locks go OFF anyway (timing.drainLimitMs). */
  readonly drainLimitMs: number;
  /** How long the stop after the drain may take before the exit code is resolved anyway (timing.stopLimitMs). */
  readonly stopLimitMs: number;
}

/** Drain gracefully on these; a second one stops at once. */
const GRACEFUL = ['SIGTERM', 'SIGINT'] as const;
/** Signals whose default action would end the process without the locks-OFF path. */
export const TERMINATING_SIGNALS: readonly NodeJS.Signals[] = (
  ['SIGQUIT', 'SIGUSR2', 'SIGALRM', 'SIGVTALRM', 'SIGXCPU', 'SIGXFSZ', 'SIGPWR', 'SIGIO', 'SIGSTKFLT', 'SIGTRAP', 'SIGSYS', 'SIGABRT'] as const
).filter((s) => s in constants.signals);

/** Run until a signal; on a crash drive the locks OFF before exiting. Resolves with the exit code. */
export function serveUntilSignal(station: StopTarget, log: Logger, hooks: LifecycleHooks, opts: LifecycleOptions): Promise<number> {
  const { stopLimitMs } = opts;
  return new Promise((resolve) => {
    let exiting = false;
    let finished = false;
    let backstop: NodeJS.Timeout | undefined;
    let stopNow: Promise<void> | null = null;
    const handlers: [string, (...args: unknown[]) => void][] = [];
    const on = (event: string, handler: (...args: unknown[]) => void): void => {
      process.on(event, handler);
      handlers.push([event, handler]);
    };
    const finish = (code: number): void => {
      if (finished) return;
      finished = true;
      clearTimeout(backstop);
      for (const [event, handler] of handlers) process.off(event, handler);
      resolve(code);
    };
    let deadline = Infinity;
    /** Whatever a step of the stop does, the exit code is resolved by `ms` from now (a later call only ever brings it forward). */
    const endBy = (ms: number, code: number): void => {
      const at = performance.now() + ms;
      if (at >= deadline) return;
      deadline = at;
      clearTimeout(backstop);
      backstop = setTimeout(() => {
        log.error({ limitMs: ms }, "the stop did not end in time: exiting now (the unit's ExecStopPost drives every lock OFF)");
        finish(code);
      }, ms);
    };
    const begin = (why: string, code: number, limitMs: number): void => {
      exiting = true;
      endBy(limitMs, code);
      log.info({ why }, 'stopping');
      try {
        hooks.onStopping?.();
      } catch (e) {
        log.warn({ error: errorMessage(e) }, 'stopping hook failed');
      }
    };
    /** Every lock OFF (station.stop drives them OFF before anything else), then exit with `code`. */
    const stopAtOnce = (code: number): void => {
      endBy(stopLimitMs, code);
      stopNow ??= station.stop().catch((e: unknown) => log.error({ error: errorMessage(e) }, 'stop failed'));
      void stopNow.finally(() => finish(code));
    };
    const graceful = (signal: string): void => {
      if (exiting) {
        log.warn({ signal }, 'second stop signal: stopping now, every lock OFF');
        return stopAtOnce(0);
      }
      begin(signal, 0, opts.drainLimitMs + stopLimitMs);
      log.info({ drainLimitMs: opts.drainLimitMs }, 'draining: new input refused, finishing what is in flight');
      // Via then(): the station may be mid-reload (drain throws then, and the catch stops at once).
      Promise.resolve()
        .then(() => station.drain(opts.drainLimitMs))
        .then((result) => {
          if (stopNow !== null) return;
          if (result === 'limit') log.warn({ drainLimitMs: opts.drainLimitMs }, 'drain limit reached: stopping now, every lock OFF');
          else log.info('drained');
          stopAtOnce(0);
        })
        .catch((e: unknown) => {
          log.error({ error: errorMessage(e) }, 'drain failed: stopping now');
          stopAtOnce(0);
        });
    };
    const immediate = (code: number, why: string): void => {
      if (!exiting) begin(why, code, stopLimitMs);
      stopAtOnce(code);
    };

    for (const s of GRACEFUL) on(s, () => graceful(s));
    for (const s of TERMINATING_SIGNALS) on(s, () => immediate(128 + (constants.signals[s] ?? 0), s));
    on('SIGHUP', () => {
      if (exiting) return log.warn('SIGHUP: the station is stopping; not reloaded');
      if (!hooks.reload) return log.warn('SIGHUP: reload is not available here; ignored');
      log.info('SIGHUP: reloading the config (after the reload that runs, if one does)');
      hooks
        .reload()
        .then((line) => log.warn(`SIGHUP: ${line}`))
        .catch((e: unknown) => log.warn({ error: errorMessage(e) }, 'SIGHUP: reload refused'));
    });
    // A crash's message and stack may hold whatever the failing code held (an identifier it was
    // decoding): masked here, before any logger sees them.
    on('uncaughtException', (e) => {
      const err = e instanceof Error ? e : new Error(String(e));
      log.fatal({ error: maskText(errorMessage(err)), stack: maskText(err.stack ?? '') }, 'crash: driving every lock OFF');
      immediate(1, 'uncaught exception');
    });
    on('unhandledRejection', (e) => {
      const stack = e instanceof Error && e.stack !== undefined ? { stack: maskText(e.stack) } : {};
      log.fatal({ error: maskText(errorMessage(e)), ...stack }, 'crash (unhandled rejection): driving every lock OFF');
      immediate(1, 'unhandled rejection');
    });
  });
}
