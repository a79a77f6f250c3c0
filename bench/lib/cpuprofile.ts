/**
 * Where a V8 CPU profile (node --cpu-prof) spent its time, by origin: each npm package, the
 * project's own code, Node's module loader, other Node internals, GC and V8's "(program)"
 * (compilation, parsing and native work not attributed to a JS function). Idle is left out.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly url: string; readonly functionName: string };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileShare {
  readonly origin: string;
  readonly ms: number;
}

export function origin(url: string, fn: string): string {
  if (url === '') return fn.startsWith('(') ? fn : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg !== undefined) return pkg;
  if (url.startsWith('node:internal/modules') || url.includes('internal/modules/')) return 'node: module loader';
  if (url.startsWith('node:')) return 'node: internals';
  if (url.includes('/dist/src/')) return 'project (dist/src)';
  return url;
}

/** Self time per origin, largest first, in ms. */
export function profileByOrigin(file: string): ProfileShare[] {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  p.samples.forEach((id, i) => {
    const n = byId.get(id);
    if (n === undefined) return;
    const o = origin(n.callFrame.url, n.callFrame.functionName);
    if (o === '(idle)') return;
    totals.set(o, (totals.get(o) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  });
  return [...totals.entries()].map(([o, ms]) => ({ origin: o, ms })).sort((a, b) => b.ms - a.ms);
}
