/**
 * The running station as the daemon runs it: the supervisor around a started station, and the
 * clients that live as long as the process — metrics (following the supervisor's observer, so they
 * survive a reload) and the technician port. The port is a convenience: if it cannot listen, the
 * station still serves readers and the failure is logged at error level.
 *
 * The daemon, the technician-port tests, the soak and the bench assemble it here, so they drive
 * the daemon's own composition. SIGHUP, the update lock and systemd are the daemon's (daemon.ts).
 */
import type { Station } from './app.js';
import type { LoadedConfig } from './config/load.js';
import { errorMessage } from './errors.js';
import type { LogRing } from './log.js';
import { MetricsService } from './metrics/service.js';
import { supervisorView } from './metrics/supervisor-view.js';
import { Supervisor, type SupervisorOptions } from './supervisor/supervisor.js';
import { TechnicianTokens } from './technician/auth.js';
import { createTechnicianServer, listenTechnicianPort, type TechnicianPort } from './technician/server.js';

export interface SupervisedOptions extends Omit<SupervisorOptions, 'onFatal'> {
  readonly station: Station;
  readonly loaded: LoadedConfig;
  readonly ring: LogRing;
  readonly onFatal?: SupervisorOptions['onFatal'];
}

export interface Supervised {
  /** Behaves like the current station (it changes on reload); stop() closes the port and metrics first. */
  readonly station: Station;
  readonly supervisor: Supervisor;
  readonly tokens: TechnicianTokens;
  /** Null when disabled or when it could not listen. */
  readonly port: TechnicianPort | null;
  /** The station's metrics (/metrics, textfile); null when `metrics.enabled` is false. */
  readonly metrics: MetricsService | null;
}

export async function startSupervised(opts: SupervisedOptions): Promise<Supervised> {
  const { log, loaded } = opts;
  const supervisor = new Supervisor(opts.station, loaded, {
    ...opts,
    onFatal:
      opts.onFatal ??
      (() => {
        // Both stations are stopped (locks OFF): exit non-zero so systemd starts the process again.
        process.exit(1);
      }),
  });
  const tokens = new TechnicianTokens(opts.env, log);
  // Metrics and the port are set up once, from the config the process started with (class `process`).
  const { metrics: metricsConfig, debug } = supervisor.startConfig;
  // Nothing could read metrics without the port or a textfile: then prom-client is never loaded.
  const metricsWanted = metricsConfig.enabled && (debug.enabled || metricsConfig.textfileDir !== null);
  const metrics = metricsWanted
    ? new MetricsService({ config: metricsConfig, view: supervisorView(supervisor), subscribe: (l) => supervisor.observer.follow(l), log })
    : null;
  metrics?.start();
  let port: TechnicianPort | null = null;
  if (debug.enabled) {
    // A reload whose technician-tokens credential is bad is refused like a bad config file.
    supervisor.addReloadCheck((l) => tokens.check(l.config));
    const accepted = tokens.accept(loaded.config);
    try {
      port = await listenTechnicianPort(createTechnicianServer({ supervisor, tokens, ring: opts.ring, log, metrics }), debug);
      log.info({ address: port.address, tokens: accepted.size }, 'technician port listening');
      if (accepted.size === 0) log.warn('no technician tokens configured: only /healthz answers (stationctl token new)');
    } catch (e) {
      log.error({ error: errorMessage(e), listen: debug.listen }, 'technician port could not listen; the station runs without it');
    }
  }
  const station: Station = {
    get config() {
      return supervisor.station.config;
    },
    get hardware() {
      return supervisor.station.hardware;
    },
    get runtime() {
      return supervisor.station.runtime;
    },
    drain(limitMs) {
      return supervisor.station.drain(limitMs);
    },
    async stop() {
      await port?.close();
      await metrics?.stop();
      await supervisor.stop();
    },
  };
  return { station, supervisor, tokens, port, metrics };
}
