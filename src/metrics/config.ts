/**
 * The `metrics` section of the station config: Prometheus metrics of the running station, served
 * as /metrics on the technician port (scope `metrics`) and, when `textfileDir` is set, written
 * for node_exporter's textfile collector.
 *
 * Defaults: on, no textfile. prom-client is loaded only when `enabled` (and only after the first
 * protocol event has finished, so it never delays the first /state).
 */
import { isAbsolute } from 'node:path';
import * as z from '../schema.js';

/** The file written into `textfileDir` (node_exporter reads `*.prom` there). */
export const TEXTFILE_NAME = 'pickup-station.prom';

export const metricsConfigSchema = z.strictObject({
  /** false: no /metrics (404), no textfile, prom-client never loaded. */
  enabled: z._default(z.boolean(), true),
  /**
   * A folder node_exporter's textfile collector reads (--collector.textfile.directory); the station
   * writes `pickup-station.prom` there atomically every `textfileIntervalMs`. null: no textfile.
   */
  textfileDir: z._default(
    z.nullable(
      z.string().check(
        z.minLength(1),
        z.refine((p) => isAbsolute(p), 'must be an absolute path'),
      ),
    ),
    null,
  ),
  /** How often the textfile is rewritten. */
  textfileIntervalMs: z._default(z.number().check(z.int(), z.minimum(100), z.maximum(3_600_000)), 15_000),
  /**
   * Sampling interval of the event-loop delay histogram (prom-client's
   * eventLoopMonitoringPrecision). Each sample wakes the process: prom-client's 10 ms default would
   * be 100 wake-ups a second on an idle board.
   */
  eventLoopResolutionMs: z._default(z.number().check(z.int(), z.minimum(10), z.maximum(60_000)), 1_000),
  /**
   * The installer's record of the version it installed last (systemd/install.sh writes it; an
   * automatic rollback leaves it naming the release that failed): `pickup_station_release_info`
   * shows it beside the running version. null: not reported.
   */
  installStatusFile: z._default(
    z.nullable(
      z.string().check(
        z.minLength(1),
        z.refine((p) => isAbsolute(p), 'must be an absolute path'),
      ),
    ),
    '/opt/pickup-station/install-status.json',
  ),
  /**
   * The file the unit's credential check (systemd/credentials-check.sh) writes before every start:
   * how each credential is sealed (TPM and host key, host key alone, the PCRs of its TPM policy),
   * shown on the technician status (src/service/credentials-check.ts). Its series reach Prometheus
   * through node_exporter's textfile collector, not the station's /metrics. null: not shown.
   */
  credentialsCheckFile: z._default(
    z.nullable(
      z.string().check(
        z.minLength(1),
        z.refine((p) => isAbsolute(p), 'must be an absolute path'),
      ),
    ),
    '/run/pickup-station-metrics/pickup-station-credentials.prom',
  ),
  /**
   * The failed-login record `login` appends to (utmp records): failed logins on a console (a virtual
   * terminal, a serial console) are counted as `pickup_station_console_login_failures_total` and
   * shown on the technician status (src/service/console-logins.ts). The unit reads it as group
   * utmp. null: not watched.
   */
  consoleLoginFile: z._default(
    z.nullable(
      z.string().check(
        z.minLength(1),
        z.refine((p) => isAbsolute(p), 'must be an absolute path'),
      ),
    ),
    '/var/log/btmp',
  ),
});

export type MetricsConfig = z.output<typeof metricsConfigSchema>;
