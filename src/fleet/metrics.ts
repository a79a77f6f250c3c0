/**
 * Fleet mode as a monitoring demo: the same metrics a station serves, for every virtual station
 * (one `station` label value each) and the fleet process, on one /metrics endpoint — so a
 * Prometheus and the Grafana dashboard in ops/ can be tried against a thousand stations.
 *
 * A bearer token is required when a token file is given (compared by hash in constant time, as
 * the technician port does); without one the endpoint answers only on a loopback address.
 * Every scrape is timed and sized, so the cost of a large fleet's scrape can be printed.
 */
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { bearerToken, hashToken, TokenStore } from '../tokens/tokens.js';
import type { StationMetrics } from '../metrics/registry.js';
import { isCounted } from '../metrics/view.js';
import type { FleetMember } from './fleet.js';

export interface FleetMetricsOptions {
  readonly host: string;
  /** 0 picks a free port (printed). */
  readonly port: number;
  /** A file holding the token scrapers must present; null: no token (loopback only). */
  readonly tokenFile: string | null;
  /** Sampling interval of the event-loop delay histogram, ms. */
  readonly eventLoopResolutionMs: number;
  readonly log: Logger;
}

/** What serving /metrics cost, for the fleet summary. */
export interface ScrapeFigures {
  readonly stations: number;
  /** Samples (lines that are not comments) in the last exposition. */
  readonly series: number;
  readonly bytes: number;
  /** Render time of the exposition (prom-client collects and formats), ms. */
  readonly renderMs: { readonly p50: number; readonly max: number; readonly n: number };
  /** Scrapes that came over HTTP during the run. */
  readonly served: number;
}

export interface FleetMetrics {
  /** http://host:port/metrics */
  readonly url: string;
  /** Count the station's events and show its state from now on. */
  add(member: FleetMember): void;
  /** Render the exposition `n` times (the HTTP scrapes included in the figures). */
  measure(n: number): Promise<ScrapeFigures>;
  close(): Promise<void>;
}

export class FleetMetricsError extends Error {
  override readonly name = 'FleetMetricsError';
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export async function startFleetMetrics(o: FleetMetricsOptions): Promise<FleetMetrics> {
  let tokens: TokenStore | null = null;
  if (o.tokenFile !== null) {
    let token: string;
    try {
      token = readFileSync(o.tokenFile, 'utf8').trim();
    } catch (e) {
      throw new FleetMetricsError(`--metrics-token-file: cannot read ${o.tokenFile}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
    }
    // Never echo the file's content: it may be a real token in the wrong shape.
    if (!/^pst_[A-Za-z0-9_-]{43}$/.test(token))
      throw new FleetMetricsError(`--metrics-token-file: ${o.tokenFile} does not hold a token (stationctl token new)`);
    tokens = new TokenStore([{ name: 'scraper', scope: 'metrics', hash: hashToken(token) }]);
  } else if (!LOOPBACK.has(o.host)) {
    throw new FleetMetricsError(`--metrics-host ${o.host}: without --metrics-token-file /metrics answers on a loopback address only`);
  }

  const { StationMetrics } = await import('../metrics/registry.js');
  const metrics: StationMetrics = new StationMetrics({ processMetrics: true, eventLoopResolutionMs: o.eventLoopResolutionMs });
  const renders: number[] = [];
  let last = { series: 0, bytes: 0 };
  let served = 0;
  let stations = 0;
  const unsubscribe: (() => void)[] = [];
  const render = async (): Promise<string> => {
    const t0 = performance.now();
    const text = await metrics.render();
    renders.push(performance.now() - t0);
    last = { series: text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length, bytes: Buffer.byteLength(text) };
    return text;
  };

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      return;
    }
    if (path !== '/metrics' || req.method !== 'GET') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
      return;
    }
    if (tokens !== null) {
      const token = bearerToken(req.headers.authorization);
      if (token === null || tokens.verify(token) === null) {
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' }).end('{"error":"unauthorized"}');
        return;
      }
    }
    served++;
    render().then(
      (text) => res.writeHead(200, { 'content-type': metrics.contentType, 'content-length': Buffer.byteLength(text) }).end(text),
      (e: unknown) => {
        o.log.error({ error: e instanceof Error ? e.message : String(e) }, 'fleet metrics: render failed');
        res.writeHead(500).end();
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const a = server.address();
  const port = typeof a === 'object' && a !== null ? a.port : o.port;
  const url = `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}/metrics`;

  return {
    url,
    add(m) {
      const recorder = metrics.add({
        stationId: m.def.id,
        current: () => ({ runtime: m.station.runtime, hardware: m.station.hardware, boxes: m.station.config.station.boxes }),
      });
      unsubscribe.push(
        m.station.runtime.onEvent((e) => {
          if (isCounted(e)) recorder.note(e);
        }),
      );
      stations++;
    },
    async measure(n) {
      for (let i = 0; i < n; i++) await render();
      const sorted = [...renders].sort((x, y) => x - y);
      return {
        stations,
        series: last.series,
        bytes: last.bytes,
        renderMs: { p50: sorted[Math.floor((sorted.length - 1) / 2)] ?? NaN, max: sorted.at(-1) ?? NaN, n: sorted.length },
        served,
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const u of unsubscribe) u();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
