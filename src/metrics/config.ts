/**
 * The `metrics` section of the station config: Prometheus metrics of the running station, served
 * as /metrics on the technician port (scope `metrics`) and, when `textfileDir` is set, written
 * for node_exporter's textfile collector.
 *
 * Defaults: on, no textfile. prom-client is loaded only when `enabled` (and only after the first
 * protocol event has finished, so it never delays the first /state).
 */
import { isAbsolute } from 'node:path';
import { z } from 'zod';

/** The file written into `textfileDir` (node_exporter reads `*.prom` there). */
export const TEXTFILE_NAME = 'pickup-station.prom';

export const metricsConfigSchema = z.strictObject({
  /** false: no /metrics (404), no textfile, prom-client never loaded. */
  enabled: z.boolean().default(true),
  /**
   * A folder node_exporter's textfile collector reads (--collector.textfile.directory); the station
   * writes `pickup-station.prom` there atomically every `textfileIntervalMs`. null: no textfile.
   */
  textfileDir: z
    .string()
    .min(1)
    .refine((p) => isAbsolute(p), 'must be an absolute path')
    .nullable()
    .default(null),
  /** How often the textfile is rewritten. */
  textfileIntervalMs: z.number().int().min(100).max(3_600_000).default(15_000),
  /**
   * Sampling interval of the event-loop delay histogram (prom-client's
   * eventLoopMonitoringPrecision). Each sample wakes the process: prom-client's 10 ms default would
   * be 100 wake-ups a second on an idle board.
   */
  eventLoopResolutionMs: z.number().int().min(10).max(60_000).default(1_000),
});

export type MetricsConfig = z.output<typeof metricsConfigSchema>;
