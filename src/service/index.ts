/**
 * The daemon's side of the systemd unit (systemd/pickup-station.service): READY=1 once the
 * station is up, a health-gated watchdog while it runs, STOPPING=1 when it stops. Outside systemd
 * (no $NOTIFY_SOCKET) all of it is a no-op, so the same daemon runs in a terminal and in tests.
 */
import type { Config } from '../config/schema.js';
import type { Supervisor } from '../supervisor/supervisor.js';
import type { Logger } from '../log.js';
import { VERSION } from '../version.js';
import { runtimeHeartbeatCheck, startLoopLagProbe, stateStalenessLimitMs, type HealthCheck, type HeartbeatSource } from './health.js';
import { createSdNotifier, type SdNotifier } from './notify.js';
import { startWatchdog, watchdogPeriodMs, type Watchdog } from './watchdog.js';

export { createSdNotifier, type SdNotifier } from './notify.js';
export { startWatchdog, watchdogPeriodMs } from './watchdog.js';
export * from './health.js';

export interface SystemdOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly log: Logger;
  /** The config the station runs now (a reload changes it): the staleness limit follows it. */
  readonly config: () => Config;
  readonly runtime: HeartbeatSource;
  readonly pid?: number;
  /** Extra checks (e.g. the technician port), all required for a ping. */
  readonly checks?: readonly HealthCheck[];
  /** Monotonic clock; default performance.now(). */
  readonly now?: () => number;
  /** Injected notifier (tests); default from env. */
  readonly notifier?: SdNotifier;
}

export interface SystemdIntegration {
  readonly notifier: SdNotifier;
  /** Send READY=1 and start the watchdog (if systemd asked for one). Call once the station is up. */
  ready(): Promise<void>;
  /**
   * Send STOPPING=1 (not awaited: call flush before exiting). The watchdog keeps pinging until the
   * process exits, gated on the event loop alone: a stop drains and stops on purpose, without
   * heartbeats, and must not be aborted for that (the stop bounds itself: lifecycle.ts).
   */
  stopping(): void;
  /** Wait (bounded) until queued messages are out. */
  flush(timeoutMs?: number): Promise<void>;
  /** The watchdog, once ready() started one. */
  watchdog(): Watchdog | null;
}

/** The event-loop probe fires every second; a turn late by more than this is unhealthy. */
export const LOOP_PROBE_MS = 1_000;
export const LOOP_MAX_LAG_MS = 10_000;

export function createSystemdIntegration(opts: SystemdOptions): SystemdIntegration {
  const { env, log, config } = opts;
  const pid = opts.pid ?? process.pid;
  const now = opts.now ?? (() => performance.now());
  const notifier = opts.notifier ?? createSdNotifier({ env, log, pid });
  let dog: Watchdog | null = null;
  let stopped = false;

  return {
    notifier,
    async ready(): Promise<void> {
      if (!notifier.enabled || stopped) return;
      const delivered = await notifier.notify('READY=1', `STATUS=running, version ${VERSION}`);
      if (delivered) log.info('systemd: READY=1 sent');
      const period = watchdogPeriodMs(env, pid);
      if (period === null || stopped) return;
      const intervalMs = period / 2;
      const lag = startLoopLagProbe({ intervalMs: Math.min(LOOP_PROBE_MS, intervalMs), maxLagMs: Math.min(LOOP_MAX_LAG_MS, intervalMs), now });
      const limitMs = (): number => stateStalenessLimitMs(config());
      const whileRunning = [runtimeHeartbeatCheck(opts.runtime, limitMs, now), ...(opts.checks ?? [])].map((c) => unlessStopping(c, () => stopped));
      dog = startWatchdog({ notifier, intervalMs, log, checks: [lag, ...whileRunning] });
      log.info({ watchdogMs: period, pingEveryMs: intervalMs, stateLimitMs: limitMs() }, 'systemd: health-gated watchdog on');
    },
    stopping(): void {
      stopped = true;
      if (notifier.enabled) void notifier.notify('STOPPING=1', 'STATUS=stopping');
    },
    flush: (timeoutMs = 3_000) => notifier.flush(timeoutMs),
    watchdog: () => dog,
  };
}

/** A check that passes once the station is stopping (it drains and stops without heartbeats on purpose). */
function unlessStopping(check: HealthCheck, stopping: () => boolean): HealthCheck {
  return { name: check.name, check: () => (stopping() ? { ok: true } : check.check()) };
}

/**
 * The daemon's systemd integration: its watchdog follows whichever station `supervisor` runs now (a
 * reload replaces it), with the staleness limit of the config that station runs.
 */
export function systemdFor(supervisor: Supervisor, opts: Omit<SystemdOptions, 'config' | 'runtime'>): SystemdIntegration {
  let config = supervisor.config;
  const current = (): Config => {
    // Between a reload's stop and start there is no station: the last config stands.
    const now = supervisor.now();
    if (now !== null) config = now.station.config;
    return config;
  };
  return createSystemdIntegration({ ...opts, config: current, runtime: supervisor });
}
