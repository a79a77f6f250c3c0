/** Helpers for the ops/ tests: the expressions of the Grafana dashboard and the metric names in them. */
import { parseExposition } from './prom-text.js';

interface DashboardLike {
  readonly panels: readonly { readonly targets?: readonly { readonly expr: string }[] }[];
  readonly templating: { readonly list: readonly { readonly query?: unknown }[] };
}

/** Every PromQL expression of the dashboard: its panels' queries and its variables' label_values(). */
export function dashboardExpressions(d: DashboardLike): string[] {
  const exprs = d.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
  for (const v of d.templating.list) {
    const q = v.query as { query?: string } | string | undefined;
    const text = typeof q === 'string' ? q : q?.query;
    const m = text === undefined ? null : /^label_values\((.+), *\w+\)$/.exec(text);
    if (m) exprs.push(m[1] as string);
  }
  return exprs;
}

/** The pickup_station_* metric names an expression (or a rules file) refers to. */
export function metricNamesIn(text: string): string[] {
  return [...new Set(text.match(/\bpickup_station_[a-z0-9_]+/g) ?? [])];
}

/** Every name in an exposition: sample names (…_bucket, …_sum, …_count included) and family names. */
export function exportedNames(text: string): string[] {
  const e = parseExposition(text);
  return [...new Set([...e.samples.map((s) => s.name), ...e.types.keys()])];
}

/** A dashboard expression as Grafana would send it for one station. */
export function instantiate(expr: string, station: string): string {
  return expr.replaceAll('$station', station).replaceAll('$__rate_interval', '1m').replaceAll('$__range', '5m').replaceAll('$__interval', '15s');
}

/**
 * A TCP port free on 127.0.0.1 right now (for tools that cannot report the port they were given
 * as 0). Another process could take it before the tool binds; the tools then fail loudly.
 */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a !== null ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}
