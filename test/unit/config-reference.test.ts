/**
 * docs/config.md is the one place an operator looks a key up: its table must list exactly the
 * schema's key paths, with the schema's defaults and bounds, the reload class each key declares
 * (src/config/apply.ts), and † exactly on the keys that move the watchdog's staleness limit
 * (found by changing each numeric key and asking stateStalenessLimitMs). The schema is walked
 * through zod's own JSON-schema export, so a key added, renamed, re-bounded or re-defaulted in code
 * without its row (or a row left behind) fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { applyClasses, type ApplyOn } from '../../src/config/apply.js';
import { configSchema, type Config } from '../../src/config/schema.js';
import { stateStalenessLimitMs } from '../../src/service/health.js';

type Json = Record<string, unknown>;

interface DocRow {
  key: string;
  defaultCell: string;
  rangeCell: string;
  reloadCell: string;
  /** Marked † (feeds the watchdog's staleness limit). */
  dagger: boolean;
}

const RELOAD_WORD: Record<ApplyOn, string> = { live: 'live', station: 'station-restart', process: 'process-restart' };

function docRows(): DocRow[] {
  const text = readFileSync(join(import.meta.dirname, '../../docs/config.md'), 'utf8');
  const keysSection = text.split(/^## Keys$/m)[1]?.split(/^## /m)[0] ?? '';
  const rows: DocRow[] = [];
  for (const line of keysSection.split('\n')) {
    const m = /^\| `([^`]+)` \| (.*?) \| (.*?) \| (.*?) \| .*\|$/.exec(line);
    if (m !== null)
      rows.push({ key: m[1]!, defaultCell: m[2]!.trim(), rangeCell: m[3]!.trim(), reloadCell: m[4]!.replace('†', '').trim(), dagger: m[4]!.includes('†') });
  }
  return rows;
}

const NO_DEFAULT = Symbol('no default');

/** A numeric key's bounds as the JSON schema states them (the first numeric variant of a union). */
interface Bounds {
  readonly min: number | undefined;
  readonly max: number | undefined;
  readonly exclusiveMax: boolean;
}

/**
 * Every leaf key path of a JSON schema with the defaults it can have: its own `default`, else the
 * value at its place in the nearest enclosing object's default (the `hardware` section's default is
 * a whole object). The variants of a union are merged, so a key can have one default per variant.
 * Arrays of objects are walked into as `[]`; anything else is a leaf.
 */
const bounds = new Map<string, Bounds>();

function schemaLeaves(): Map<string, Set<unknown>> {
  const leaves = new Map<string, Set<unknown>>();
  const add = (path: string, value: unknown): void => {
    const set = leaves.get(path) ?? new Set<unknown>();
    set.add(value);
    leaves.set(path, set);
  };
  const walk = (node: Json, path: string, enclosing: unknown): void => {
    const own = 'default' in node ? node.default : enclosing;
    const variants = (node.anyOf ?? node.oneOf) as Json[] | undefined;
    const objectVariants = variants?.filter((v) => v.type === 'object' && v.properties !== undefined) ?? [];
    if (objectVariants.length > 0) {
      for (const v of objectVariants) walk(v, path, own);
      return;
    }
    if (node.type === 'object' && node.properties !== undefined) {
      for (const [key, child] of Object.entries(node.properties as Record<string, Json>)) {
        const inherited = own !== NO_DEFAULT && own !== null && typeof own === 'object' && key in own ? (own as Json)[key] : NO_DEFAULT;
        walk(child, path === '' ? key : `${path}.${key}`, inherited);
      }
      return;
    }
    const items = node.items as Json | undefined;
    if (node.type === 'array' && items?.type === 'object' && items.properties !== undefined) {
      walk(items, `${path}[]`, NO_DEFAULT);
      return;
    }
    const numeric = [node, ...(variants ?? [])].find((n) => n.type === 'integer' || n.type === 'number');
    if (numeric !== undefined && !bounds.has(path)) {
      const max = (numeric.maximum ?? numeric.exclusiveMaximum) as number | undefined;
      bounds.set(path, { min: (numeric.minimum ?? numeric.exclusiveMinimum) as number | undefined, max, exclusiveMax: numeric.exclusiveMaximum !== undefined });
    }
    add(path, own);
  };
  walk(z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }), '', NO_DEFAULT);
  return leaves;
}

/** A default cell that is one code span holding JSON (`600`, `"en"`, `[60]`, `null`), parsed; else undefined. */
function literalDefault(cell: string): { value: unknown } | undefined {
  const m = /^`([^`]+)`$/.exec(cell);
  if (m === null) return undefined;
  try {
    return { value: JSON.parse(m[1]!) };
  } catch {
    return undefined;
  }
}

/** The class a documented key applies with: its own, or that of the nearest declared key above it. */
function reloadClassOf(classes: ReadonlyMap<string, ApplyOn>, docKey: string): ApplyOn | undefined {
  const path = docKey.replaceAll('[]', '');
  for (let p = path; p !== ''; p = p.includes('.') ? p.slice(0, p.lastIndexOf('.')) : '') {
    const c = classes.get(p);
    if (c !== undefined) return c;
  }
  return undefined;
}

describe('docs/config.md against the config schema', () => {
  const rows = docRows();
  const leaves = schemaLeaves();
  const classes = applyClasses(configSchema);

  it('reads the table (one row per key, none twice)', () => {
    expect(rows.length).toBeGreaterThan(50);
    const seen = rows.map((r) => r.key);
    expect(seen.filter((k, i) => seen.indexOf(k) !== i)).toEqual([]);
  });

  it('lists every key path of the schema', () => {
    const documented = new Set(rows.map((r) => r.key));
    expect([...leaves.keys()].filter((k) => !documented.has(k))).toEqual([]);
  });

  it('lists no key path the schema does not have', () => {
    expect(rows.map((r) => r.key).filter((k) => !leaves.has(k))).toEqual([]);
  });

  it("states the schema's default for every key", () => {
    const wrong: string[] = [];
    for (const row of rows) {
      const defaults = [...(leaves.get(row.key) ?? [])].filter((d) => d !== NO_DEFAULT);
      const literal = literalDefault(row.defaultCell);
      if (row.defaultCell === '—') {
        if (defaults.length > 0) wrong.push(`${row.key}: documented without default, schema has ${JSON.stringify(defaults)}`);
      } else if (literal !== undefined) {
        if (defaults.length !== 1 || JSON.stringify(defaults[0]) !== JSON.stringify(literal.value))
          wrong.push(`${row.key}: documented ${row.defaultCell}, schema has ${JSON.stringify(defaults)}`);
      } else {
        // Prose ("the locale's", a credential path filled in at load, one value per variant): every
        // default the schema does declare must be named in it.
        for (const d of defaults) {
          if (!row.defaultCell.includes(`\`${JSON.stringify(d)}\``)) wrong.push(`${row.key}: documented ${row.defaultCell}, schema has ${JSON.stringify(d)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('states the reload class the schema declares for every key', () => {
    const wrong: string[] = [];
    for (const row of rows) {
      const declared = reloadClassOf(classes, row.key);
      const expected = declared === undefined ? '(none declared)' : RELOAD_WORD[declared];
      if (row.reloadCell !== expected) wrong.push(`${row.key}: documented ${row.reloadCell}, schema declares ${expected}`);
    }
    expect(wrong).toEqual([]);
  });

  it("states the schema's bounds for every numeric key, and none for the others", () => {
    const wrong: string[] = [];
    for (const row of rows) {
      const expected = rangeCell(bounds.get(row.key));
      if (row.rangeCell !== expected) wrong.push(`${row.key}: documented range ${row.rangeCell}, schema has ${expected}`);
    }
    expect(wrong).toEqual([]);
  });

  it('marks with † exactly the keys that move the watchdog staleness limit', () => {
    const moving = keysMovingStalenessLimit([...bounds.keys()]);
    expect(moving.length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.dagger).map((r) => r.key)).toEqual(rows.filter((r) => moving.includes(r.key)).map((r) => r.key));
  });

  it('fails on a drifted row (the comparison can fail)', () => {
    const row = rows.find((r) => r.key === 'locks.pulseMs');
    expect(row).toBeDefined();
    expect(literalDefault(row!.defaultCell)?.value).toEqual([...leaves.get('locks.pulseMs')!][0]);
    expect(literalDefault('`601`')?.value).not.toEqual([...leaves.get('locks.pulseMs')!][0]);
    expect(RELOAD_WORD[reloadClassOf(classes, 'technician.tokens[].hash')!]).toBe('live');
    expect(RELOAD_WORD[reloadClassOf(classes, 'technician.listen.port')!]).toBe('process-restart');
    // The two drifts this test exists for: a range the schema refuses, a † on a key that moves nothing.
    expect(rangeCell(bounds.get('timing.heartbeatIntervalMs'))).not.toBe('100–600000');
    expect(keysMovingStalenessLimit(['locks.pulseMs'])).toEqual([]);
    expect(keysMovingStalenessLimit(['timing.heartbeatIntervalMs'])).toEqual(['timing.heartbeatIntervalMs']);
  });
});

/** The range column's text for bounds: `min–max`, `min–<max` (exclusive), `≥ min`; "—" without bounds. */
function rangeCell(b: Bounds | undefined): string {
  if (b === undefined || (b.min === undefined && b.max === undefined)) return '—';
  if (b.max === undefined) return `≥ ${b.min}`;
  return `${b.min ?? ''}–${b.exclusiveMax ? '<' : ''}${b.max}`;
}

/**
 * The numeric keys among `keys` whose change moves stateStalenessLimitMs: each is set, in a valid
 * config, to its lower bound and to a value inside its range, and the limits compared.
 */
function keysMovingStalenessLimit(keys: readonly string[]): string[] {
  const base = minimalConfig();
  const limit = (config: Config): number => stateStalenessLimitMs(config);
  const moving: string[] = [];
  for (const key of keys) {
    if (key.includes('[]')) continue;
    const b = bounds.get(key);
    if (b === undefined || b.min === undefined) continue;
    const path = key.split('.');
    const section = path[0]!;
    const candidates = [b.min, b.min + 1, Math.max(b.min, Math.min((b.max ?? b.min + 1000) - 1, b.min + 1000))];
    for (const value of candidates) {
      const raw = structuredClone(base) as Record<string, unknown>;
      let at = raw;
      for (const p of path.slice(0, -1)) at = (at[p] ??= {}) as Record<string, unknown>;
      at[path[path.length - 1]!] = value;
      // The simulated hardware section's keys exist only in that variant; others keep their section.
      if (section === 'hardware' && raw['hardware'] !== undefined) (raw['hardware'] as Record<string, unknown>)['kind'] ??= 'simulated';
      const parsed = configSchema.safeParse(raw);
      if (!parsed.success) continue;
      if (limit(parsed.data) !== limit(base)) {
        moving.push(key);
        break;
      }
    }
  }
  return moving;
}

function minimalConfig(): Config {
  return configSchema.parse({
    station: { id: '5b1f4a52-9c3e-4d7a-8e21-0c6f3b9a7d10', boxes: [{ number: 1, id: '0c2d7e3a-4b1f-4c8e-9a6d-000000000001' }] },
    server: { baseUrl: 'https://library.example/pickup' },
  });
}
