/**
 * The health-gated systemd watchdog: every half WatchdogSec, run every health check; only if all
 * pass send WATCHDOG=1. An unhealthy station therefore stops pinging, and systemd aborts and
 * restarts it once WatchdogSec has passed without a ping (the unit's ExecStopPost drives the locks
 * OFF in between). A healthy/unhealthy change is logged once and shown as the unit's STATUS=.
 */
import type { Logger } from '../log.js';
import type { HealthCheck } from './health.js';
import type { SdNotifier } from './notify.js';

/**
 * sd_watchdog_enabled(3): the watchdog period in ms from $WATCHDOG_USEC, or null when systemd
 * expects no pings from this process ($WATCHDOG_USEC unset/invalid, or $WATCHDOG_PID names
 * another process).
 */
export function watchdogPeriodMs(env: NodeJS.ProcessEnv, pid: number): number | null {
  const usec = env['WATCHDOG_USEC'];
  if (usec === undefined || !/^[1-9]\d*$/.test(usec)) return null;
  const forPid = env['WATCHDOG_PID'];
  if (forPid !== undefined && forPid !== '' && forPid !== String(pid)) return null;
  return Number(usec) / 1000;
}

export interface WatchdogOptions {
  readonly notifier: SdNotifier;
  /** Ping period, ms; systemd's advice (and ours) is half of WatchdogSec. */
  readonly intervalMs: number;
  readonly checks: readonly HealthCheck[];
  readonly log: Logger;
  /**
   * After a ping that was not delivered, the next attempt follows this much later instead of a
   * whole interval (default: a tenth of the interval, at least 1 s). See below for why.
   */
  readonly retryMs?: number;
}

export interface Watchdog {
  /** Whether the last tick found every check passing. */
  healthy(): boolean;
  /** Pings sent so far (delivered or not). */
  pings(): number;
  stop(): void;
}

/** Start ticking: the first tick runs at once (so the first ping follows READY=1 closely). */
export function startWatchdog(opts: WatchdogOptions): Watchdog {
  const { notifier, intervalMs, checks, log } = opts;
  const retryMs = opts.retryMs ?? Math.max(1_000, intervalMs / 10);
  let healthy = true;
  let pings = 0;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;

  // A ping that systemd-notify could not confirm (PID 1 answered no barrier in time: a daemon-reload
  // or a loaded board) is most likely lost, since PID 1 drops a message whose sender has exited. One
  // lost ping at WatchdogSec/2 leaves a single chance before the limit, so a failed ping is tried
  // again soon, one attempt in flight at a time, until one is delivered; the ticks go on beside it.
  const pinged = (delivered: boolean): void => {
    if (delivered || stopped || retry !== null) return;
    retry = setTimeout(() => {
      retry = null;
      tick();
    }, retryMs);
    retry.unref();
  };

  const tick = (): void => {
    if (stopped) return;
    const failures: string[] = [];
    for (const c of checks) {
      const r = c.check();
      if (!r.ok) failures.push(r.reason);
    }
    if (failures.length > 0) {
      if (healthy) {
        log.error(
          { reasons: failures, watchdogMs: intervalMs * 2 },
          'unhealthy: withholding the systemd watchdog ping; systemd restarts the station if this lasts',
        );
        void notifier.notify(`STATUS=unhealthy: ${failures.join('; ')}`);
      }
      healthy = false;
      return;
    }
    if (!healthy) {
      log.warn('healthy again: systemd watchdog pings resume');
      void notifier.notify('STATUS=running');
    }
    healthy = true;
    // Rate limit: at most one ping per tick, and none while the previous one is still being sent
    // (a slow board must not pile up systemd-notify processes).
    if (notifier.pending() > 0) return;
    pings++;
    void notifier.notify('WATCHDOG=1').then(pinged);
  };

  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    healthy: () => healthy,
    pings: () => pings,
    stop(): void {
      stopped = true;
      clearInterval(timer);
      if (retry !== null) clearTimeout(retry);
    },
  };
}
