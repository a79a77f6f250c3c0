/**
 * The technician port as the daemon uses it: wrap a started station in a StationHost (so a config
 * reload can replace it) and open the port. The port is a convenience: if it cannot listen, the
 * station still serves readers and the failure is logged at error level.
 */
import type { Station } from '../app.js';
import type { LoadedConfig } from '../config/load.js';
import { errorMessage } from '../errors.js';
import type { LogRing } from '../log.js';
import { MetricsService } from '../metrics/service.js';
import { hostView } from '../metrics/host-view.js';
import { StationHost, type HostOptions } from './host.js';
import { createTechnicianServer, listenTechnicianPort, type TechnicianPort } from './server.js';

export interface TechnicianPortOptions extends Omit<HostOptions, 'onFatal'> {
  readonly station: Station;
  readonly loaded: LoadedConfig;
  readonly ring: LogRing;
  readonly onFatal?: HostOptions['onFatal'];
}

export interface WithPort {
  /** Behaves like the current station (it changes on reload); stop() closes the port first. */
  readonly station: Station;
  readonly host: StationHost;
  /** Null when disabled or when it could not listen. */
  readonly port: TechnicianPort | null;
  /** The station's metrics (/metrics, textfile); null when `metrics.enabled` is false. */
  readonly metrics: MetricsService | null;
}

export async function withTechnicianPort(opts: TechnicianPortOptions): Promise<WithPort> {
  const { log, loaded } = opts;
  const host = new StationHost(opts.station, loaded, {
    ...opts,
    onFatal:
      opts.onFatal ??
      (() => {
        // Both stations are stopped (locks OFF): exit non-zero so systemd starts the process again.
        process.exit(1);
      }),
  });
  let port: TechnicianPort | null = null;
  // Metrics follow the host's observer (so they survive a reload); /metrics is served by the port,
  // the textfile is written even without one.
  // Nothing could read them without the port or a textfile: then prom-client is never loaded.
  const metricsWanted = loaded.config.metrics.enabled && (loaded.config.debug.enabled || loaded.config.metrics.textfileDir !== null);
  const metrics = metricsWanted ? new MetricsService({ config: loaded.config.metrics, view: hostView(host), subscribe: (l) => host.observer.follow(l), log }) : null;
  metrics?.start();
  const debug = loaded.config.debug;
  if (debug.enabled) {
    try {
      port = await listenTechnicianPort(createTechnicianServer({ host, ring: opts.ring, log, metrics }), debug);
      log.info({ address: port.address, tokens: host.tokens.size }, 'technician port listening');
      if (host.tokens.size === 0) log.warn('no technician tokens configured: only /healthz answers (stationctl token new)');
    } catch (e) {
      log.error({ error: errorMessage(e), listen: debug.listen }, 'technician port could not listen; the station runs without it');
    }
  }
  const station: Station = {
    get config() {
      return host.station.config;
    },
    get hardware() {
      return host.station.hardware;
    },
    get runtime() {
      return host.station.runtime;
    },
    drain(limitMs) {
      return host.station.drain(limitMs);
    },
    async stop() {
      await port?.close();
      await metrics?.stop();
      await host.stop();
    },
  };
  return { station, host, port, metrics };
}
