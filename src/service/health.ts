/**
 * What "healthy" means for the systemd watchdog. Two checks, both required:
 *
 * - the event loop runs on time: a timer measures its own lateness (a loop that is blocked sends
 *   nothing anyway; one that crawls — seconds late on every turn — must not keep pinging);
 * - the station runtime is processing heartbeats: the last finished /state is recent enough.
 *   "Finished" includes unanswered: a station whose server is down still works (deactivated mode,
 *   /state heartbeat going on), and restarting it would not bring the server back. What fails
 *   the check is a runtime that stopped finishing events at all — a wedged promise, a lost timer.
 *
 * Pure logic over an injected monotonic clock, so it is unit-tested under fake timers.
 */
import type { Config } from '../config/schema.js';
import { HARD_MAX_PULSE_MS } from '../devices/types.js';

export type HealthResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** One health source; `check` is called once per watchdog tick. */
export interface HealthCheck {
  readonly name: string;
  check(): HealthResult;
}

const OK: HealthResult = { ok: true };

/**
 * The longest gap between two finished /state events a working runtime can show, in ms:
 *
 *   heartbeatInterval        the next /state falls due one interval after the previous was sent
 * + attempts × answerTimeout another event (a scan, a PIN) may be in flight then; /state waits for it
 * + doorOpenTimeout + pulse  that event may open boxes; /state waits for the doors (core.flushState)
 * + attempts × answerTimeout the /state itself, unanswered to the last attempt
 * + margin                   power readings for the body, a slow board, GC
 *
 * With the spec's defaults (30 s, 3 × 20 s, 4 s) and the default 60 s margin: 217 s.
 */
export function stateStalenessLimitMs(config: Config, marginMs = 60_000): number {
  const event = config.server.attempts * config.server.answerTimeoutMs;
  return config.timing.heartbeatIntervalMs + 2 * event + config.timing.doorOpenTimeoutMs + HARD_MAX_PULSE_MS + marginMs;
}

/** What the runtime check needs of StationRuntime. */
export interface HeartbeatSource {
  /** Monotonic time of the last finished /state (answered or not); null before the first. */
  lastStateOutcome(): number | null;
}

/**
 * Healthy while the last finished /state is at most `limitMs()` old (read at every check: a reload
 * may change the config it derives from). Before the first one, the
 * creation time of this check stands in (the first /state goes out at start).
 */
export function runtimeHeartbeatCheck(source: HeartbeatSource, limitMs: () => number, now: () => number): HealthCheck {
  const createdAt = now();
  return {
    name: 'runtime',
    check(): HealthResult {
      const last = source.lastStateOutcome();
      const age = now() - (last ?? createdAt);
      const limit = limitMs();
      if (age <= limit) return OK;
      const what = last === null ? 'no /state has finished since start' : 'the last /state finished';
      return { ok: false, reason: `runtime stuck: ${what} ${Math.round(age / 1000)} s ago (limit ${Math.round(limit / 1000)} s)` };
    },
  };
}

export interface LoopLagProbe extends HealthCheck {
  /** Worst lateness seen since the last check(), ms. */
  worstLagMs(): number;
  stop(): void;
}

/**
 * A timer that re-arms itself every `intervalMs` and measures how late it fired. check() fails
 * if the worst lateness since the previous check exceeded `maxLagMs` (then starts a new window).
 */
export function startLoopLagProbe(opts: { intervalMs: number; maxLagMs: number; now: () => number }): LoopLagProbe {
  const { intervalMs, maxLagMs, now } = opts;
  let worst = 0;
  let expected = now() + intervalMs;
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    timer = setTimeout(() => {
      const t = now();
      worst = Math.max(worst, t - expected);
      expected = t + intervalMs;
      arm();
    }, intervalMs);
    // The probe alone must not keep a stopping process alive.
    timer.unref();
  };
  arm();
  return {
    name: 'event-loop',
    worstLagMs: () => Math.max(worst, now() - expected),
    check(): HealthResult {
      // A probe that is overdue right now counts too (the loop may be late at this very tick).
      const lag = Math.max(worst, now() - expected);
      worst = 0;
      if (lag <= maxLagMs) return OK;
      return { ok: false, reason: `event loop lagging: a ${intervalMs} ms timer fired ${Math.round(lag)} ms late (limit ${maxLagMs} ms)` };
    },
    stop(): void {
      clearTimeout(timer);
    },
  };
}
