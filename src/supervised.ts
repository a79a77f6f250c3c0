/**
 * The running station as the daemon runs it: the supervisor around a started station, and the
 * clients that live as long as the process — metrics (following the supervisor's observer, so they
 * survive a reload) and the technician port. The port is a convenience: if it cannot listen, the
 * station still serves readers and the failure is logged at error level.
 *
 * The daemon, the technician-port tests, the soak and the bench assemble it here, so they drive
 * the daemon's own composition. SIGHUP, the update lock and systemd are the daemon's (daemon.ts).
 *
 * Its stop drives every lock OFF before anything else (the supervisor stops the running station),
 * then closes the port and stops metrics; each step is logged and together they get at most
 * `timing.stopLimitMs`: a step that does not settle in time is named and the stop goes on.
 */
import { ConsoleLoginLog } from './service/console-logins.js';
import type { RunningStation } from './app.js';
import type { LoadedConfig } from './config/load.js';
import { EXIT_FAILURE, errorMessage } from './errors.js';
import { exitProcess } from './exit.js';
import type { Logger, LogRing } from './log.js';
import type { DrainResult } from './station/runtime.js';
import { MetricsService } from './metrics/service.js';
import { supervisorView } from './metrics/supervisor-view.js';
import { Supervisor, type SupervisorOptions } from './supervisor/supervisor.js';
import { TechnicianTokens } from './technician/auth.js';
import { activatedSocket } from './edge/listen-fds.js';
import { createTechnicianServer, listenTechnicianPort, TECHNICIAN_FD_NAME, type TechnicianPort } from './technician/server.js';
import { settlesWithin } from './time.js';

export interface SupervisedOptions extends Omit<SupervisorOptions, 'onFatal'> {
  readonly station: RunningStation;
  readonly loaded: LoadedConfig;
  readonly ring: LogRing;
  readonly onFatal?: SupervisorOptions['onFatal'];
}

export interface Supervised {
  readonly supervisor: Supervisor;
  readonly tokens: TechnicianTokens;
  /** Null when disabled or when it could not listen. */
  readonly port: TechnicianPort | null;
  /** The station's metrics (/metrics, textfile); null when `metrics.enabled` is false. */
  readonly metrics: MetricsService | null;
  /** Graceful stop, first half: drain the station running now. */
  drain(limitMs: number): Promise<DrainResult>;
  /** Every lock OFF first, then the port and metrics; bounded by timing.stopLimitMs. Idempotent. */
  stop(): Promise<void>;
}

export async function startSupervised(opts: SupervisedOptions): Promise<Supervised> {
  const { log, loaded } = opts;
  const supervisor = new Supervisor(opts.station, loaded, {
    ...opts,
    onFatal:
      opts.onFatal ??
      (() => {
        // Every lock is OFF (or ExecStopPost drives it OFF): exit non-zero so systemd starts the process again.
        exitProcess(EXIT_FAILURE);
      }),
  });
  const tokens = new TechnicianTokens(opts.env, log);
  // Metrics and the port are set up once, from the config the process started with (class `process`).
  const { metrics: metricsConfig, technician } = supervisor.startConfig;
  // Nothing could read metrics without the port or a textfile: then prom-client is never loaded.
  const metricsWanted = metricsConfig.enabled && (technician.enabled || metricsConfig.textfileDir !== null);
  // Failed console logins are counted from here on, by one reader the status and the metrics share.
  const consoleLogins = metricsConfig.consoleLoginFile === null ? null : new ConsoleLoginLog(metricsConfig.consoleLoginFile);
  const first = consoleLogins?.read();
  if (first?.problem != null) log.warn({ problem: first.problem }, 'failed console logins cannot be watched (metrics.consoleLoginFile)');
  const metrics = metricsWanted
    ? new MetricsService({ config: metricsConfig, view: supervisorView(supervisor), subscribe: (l) => supervisor.observer.follow(l), log, consoleLogins })
    : null;
  metrics?.start();
  let port: TechnicianPort | null = null;
  if (technician.enabled) {
    // A reload whose technician-tokens credential is bad is refused like a bad config file.
    supervisor.addReloadCheck((l) => tokens.check(l.config));
    const accepted = tokens.accept(loaded.config);
    try {
      const held = activatedSocket(TECHNICIAN_FD_NAME);
      port = await listenTechnicianPort(createTechnicianServer({ supervisor, tokens, ring: opts.ring, log, metrics, consoleLogins }), technician, held);
      log.info({ address: port.address, addresses: port.addresses, socketActivated: held !== null, tokens: accepted.size }, 'technician port listening');
      if (accepted.size === 0) log.warn('no technician tokens configured: only /healthz answers (stationctl token new)');
    } catch (e) {
      log.error({ error: errorMessage(e), listen: technician.listen }, 'technician port could not listen; the station runs without it');
    }
  }
  let stopping: Promise<void> | null = null;
  const stop = async (): Promise<void> => {
    const steps: [string, () => Promise<void> | undefined][] = [
      ['every lock OFF, the station stopped', () => supervisor.stop()],
      ['technician port closed', () => port?.close()],
      ['metrics written and stopped', () => metrics?.stop()],
    ];
    await stopInSteps(steps, supervisor.startConfig.timing.stopLimitMs, log);
  };
  return {
    supervisor,
    tokens,
    port,
    metrics,
    drain: (limitMs) => supervisor.station.drain(limitMs),
    stop: () => (stopping ??= stop()),
  };
}

/**
 * Run the stop's steps in order, each logged; together they get `limitMs`. A step that fails or
 * does not settle in what is left is logged by name and the next one runs.
 */
export async function stopInSteps(steps: readonly (readonly [string, () => Promise<void> | undefined])[], limitMs: number, log: Logger): Promise<void> {
  const deadline = performance.now() + limitMs;
  for (const [name, run] of steps) {
    const started = performance.now();
    let step: Promise<void> | undefined;
    try {
      step = run();
    } catch (e) {
      log.error({ step: name, error: errorMessage(e) }, `stop: ${name}: failed`);
      continue;
    }
    if (step === undefined) continue;
    const failed = step.then(
      () => null,
      (e: unknown) => errorMessage(e),
    );
    if (!(await settlesWithin(step, Math.max(0, deadline - started)))) {
      log.error({ step: name, waitedMs: Math.round(performance.now() - started) }, `stop: ${name}: did not end in time; going on`);
      continue;
    }
    const error = await failed;
    if (error !== null) log.error({ step: name, error }, `stop: ${name}: failed`);
    else log.info({ step: name, ms: Math.round(performance.now() - started) }, `stop: ${name}`);
  }
}
