/**
 * A small route table: method + path pattern (`:name` segments) + the scope a route needs.
 * Matching is exact per segment; there are no wildcards, so an unknown path is a 404 and a known
 * path with another method a 405 (with Allow).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Technician } from '../tokens/tokens.js';
import type { TokenScope } from '../config/technician.js';

export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  readonly params: Readonly<Record<string, string>>;
  readonly who: Technician;
}

export interface Route {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly scope: TokenScope;
  readonly handle: (ctx: RequestContext) => Promise<void> | void;
}

export type Match =
  | { readonly kind: 'found'; readonly route: Route; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: 'method'; readonly allow: readonly string[] }
  | { readonly kind: 'none' };

function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const have = path.split('/');
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] ?? '';
    const h = have[i] ?? '';
    if (w.startsWith(':')) {
      if (h === '') return null;
      try {
        params[w.slice(1)] = decodeURIComponent(h);
      } catch {
        return null;
      }
    } else if (w !== h) return null;
  }
  return params;
}

export function matchRoute(routes: readonly Route[], method: string, path: string): Match {
  const allow: string[] = [];
  for (const route of routes) {
    const params = matchPath(route.path, path);
    if (params === null) continue;
    if (route.method === method) return { kind: 'found', route, params };
    allow.push(route.method);
  }
  return allow.length > 0 ? { kind: 'method', allow } : { kind: 'none' };
}
