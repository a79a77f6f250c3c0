/**
 * A small reader of the Prometheus text format (0.0.4) for tests: every sample with its labels,
 * and the # TYPE of every family. Enough for what prom-client writes; not a general parser.
 */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Exposition {
  readonly samples: readonly Sample[];
  readonly types: ReadonlyMap<string, string>;
  /** Samples of `name` whose labels include `match`. */
  find(name: string, match?: Readonly<Record<string, string>>): Sample[];
  /** The one sample of `name` matching `match` (throws when there is not exactly one). */
  value(name: string, match?: Readonly<Record<string, string>>): number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const t = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (t) types.set(t[1] as string, t[2] as string);
      continue;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1] as string] = (l[2] as string).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    const raw = m[3] as string;
    samples.push({ name: m[1] as string, labels, value: raw === 'NaN' ? NaN : raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw) });
  }
  const find = (name: string, match: Readonly<Record<string, string>> = {}): Sample[] =>
    samples.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v));
  return {
    samples,
    types,
    find,
    value(name, match = {}) {
      const found = find(name, match);
      if (found.length !== 1) throw new Error(`${name} ${JSON.stringify(match)}: ${found.length} samples`);
      return (found[0] as Sample).value;
    },
  };
}
