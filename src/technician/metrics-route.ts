/**
 * GET /metrics on the technician port: the station's Prometheus metrics (src/metrics/), for a
 * token with the `metrics` scope (or read, or service). Prometheus scrapes it with
 * `authorization: { credentials_file: … }`, a file holding a metrics-scope token.
 */
import type { MetricsService } from '../metrics/service.js';
import { COMMON_HEADERS } from '../edge/http.js';
import type { Route } from './router.js';

/** No route when metrics are off: /metrics is then a 404 like any unknown path. */
export function metricsRoutes(metrics: MetricsService | null): Route[] {
  if (metrics === null) return [];
  return [
    {
      method: 'GET',
      path: '/metrics',
      scope: 'metrics',
      handle: async (ctx) => {
        const { contentType, body } = await metrics.scrape();
        ctx.res.writeHead(200, { ...COMMON_HEADERS, 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
        ctx.res.end(body);
      },
    },
  ];
}
