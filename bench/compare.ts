/**
 * The report of `bash bench/compare.sh`: the bench's `latest.json` of each interleaved run of a
 * base and of this tree, side by side per Node version — medians over the runs, with the lowest and
 * highest beside each, and every run's figure with the load average around it. A machine that is
 * not quiet moves single runs a lot; a difference smaller than the spread of either side is noise.
 *
 *   node dist/bench/compare.js DIR    DIR holds base-N.json and this-N.json (N = 1, 2, ...)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeResults } from './run.js';

interface RunDoc {
  readonly loadAverage: { readonly before: readonly number[]; readonly after: readonly number[] };
  readonly results: { readonly nodes: readonly NodeResults[] };
}

/** The figures compared, from one Node's results of one run (null: the section was not run). */
interface Figures {
  readonly startRatio: number | null;
  readonly startMs: number | null;
  readonly cpuMs: number | null;
  readonly cpuRatio: number | null;
  readonly rssMiB: number | null;
  readonly rssOverBareMiB: number | null;
  readonly scanMs: number | null;
  readonly scanRatio: number | null;
}

const FIGURES: readonly { key: keyof Figures; label: string; show: (v: number) => string }[] = [
  { key: 'startRatio', label: 'start -> first /state, x bare (p50)', show: (v) => `${v.toFixed(2)}x` },
  { key: 'startMs', label: 'start -> first /state p50 (ms)', show: (v) => v.toFixed(0) },
  { key: 'cpuMs', label: 'main-thread CPU to it p50 (ms)', show: (v) => v.toFixed(0) },
  { key: 'cpuRatio', label: 'main-thread CPU, x bare', show: (v) => `${v.toFixed(2)}x` },
  { key: 'rssMiB', label: 'RSS at the last sample (MiB)', show: (v) => v.toFixed(1) },
  { key: 'rssOverBareMiB', label: 'RSS over bare Node (MiB)', show: (v) => `${v >= 0 ? '+' : ''}${v.toFixed(1)}` },
  { key: 'scanMs', label: 'scan -> /item-identify p50 (ms)', show: (v) => v.toFixed(2) },
  { key: 'scanRatio', label: 'scan, x bare tty hop (p50)', show: (v) => `${v.toFixed(2)}x` },
];

function figuresOf(r: NodeResults): Figures {
  const s = r.startup;
  const m = r.memory;
  const last = <T>(xs: readonly T[]): T | undefined => xs[xs.length - 1];
  const rss = m ? last(m.station.samples)?.rssMiB : undefined;
  const bareRss = m ? last(m.bare.samples)?.rssMiB : undefined;
  return {
    startRatio: s ? s.station.p50 / s.bare.p50 : null,
    startMs: s ? s.station.p50 : null,
    cpuMs: s ? s.stationCpu.p50 : null,
    cpuRatio: s ? s.stationCpu.p50 / s.bareCpu.p50 : null,
    rssMiB: rss ?? null,
    rssOverBareMiB: rss !== undefined && bareRss !== undefined ? rss - bareRss : null,
    scanMs: r.scan ? r.scan.station.p50 : null,
    scanRatio: r.scan ? r.scan.station.p50 / r.scan.bareTty.p50 : null,
  };
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2;
};

interface Run {
  readonly n: number;
  readonly load: string;
  readonly byNode: Map<string, Figures>;
}

function readRuns(dir: string, side: 'base' | 'this'): Run[] {
  return readdirSync(dir)
    .map((name) => new RegExp(`^${side}-(\\d+)\\.json$`).exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => {
      const doc = JSON.parse(readFileSync(join(dir, m[0]), 'utf8')) as RunDoc;
      const byNode = new Map(doc.results.nodes.map((r) => [r.node.version.split('.')[0] ?? r.node.version, figuresOf(r)]));
      return { n: Number(m[1]), load: `${(doc.loadAverage.before[0] ?? NaN).toFixed(1)}->${(doc.loadAverage.after[0] ?? NaN).toFixed(1)}`, byNode };
    })
    .sort((a, b) => a.n - b.n);
}

export function compareReport(dir: string): string {
  const runs = { base: readRuns(dir, 'base'), this: readRuns(dir, 'this') };
  const versions = [...new Set([...runs.base, ...runs.this].flatMap((r) => [...r.byNode.keys()]))].sort();
  const out: string[] = [];
  for (const v of versions) {
    out.push(`node ${v.replace(/^v/, '')}: median [lowest-highest] over ${runs.base.length} base and ${runs.this.length} runs of this tree`);
    const cell = (side: 'base' | 'this', f: (typeof FIGURES)[number]): string => {
      const xs = runs[side].map((r) => r.byNode.get(v)?.[f.key]).filter((x): x is number => typeof x === 'number');
      return xs.length === 0 ? '-' : `${f.show(median(xs))} [${f.show(Math.min(...xs))}-${f.show(Math.max(...xs))}]`;
    };
    out.push(`  ${'figure'.padEnd(36)} ${'base'.padEnd(24)} this tree`);
    for (const f of FIGURES) out.push(`  ${f.label.padEnd(36)} ${cell('base', f).padEnd(24)} ${cell('this', f)}`);
    for (const side of ['base', 'this'] as const) {
      const each = runs[side].map((r) => {
        const g = r.byNode.get(v);
        const show = (k: keyof Figures): string => {
          const value = g?.[k];
          const f = FIGURES.find((x) => x.key === k);
          return value == null || f === undefined ? '-' : f.show(value);
        };
        return `#${r.n} start ${show('startRatio')}, RSS ${show('rssOverBareMiB')}, scan ${show('scanMs')} (load ${r.load})`;
      });
      out.push(`  ${side.padEnd(4)} per run: ${each.join('; ')}`);
    }
    out.push('');
  }
  return out.join('\n');
}

const dir = process.argv[2];
if (dir === undefined) {
  console.error('usage: node dist/bench/compare.js DIR');
  process.exit(2);
}
console.log(compareReport(dir));
