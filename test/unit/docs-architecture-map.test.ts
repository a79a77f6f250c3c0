/**
 * ARCHITECTURE.md's map is kept equal to the tree, as config-reference.test.ts keeps the key table
 * equal to the schema:
 * - every file and folder directly under src/ is a room the map names, and every folder directly
 *   under src/devices/ is a room under `devices/`; every file directly under src/devices/ is
 *   named in that room's entry (a `*` in a name stands for any characters: `board*.ts`);
 * - the rooms the map lists file by file — src/station/ and its pure core src/station/core/ —
 *   name every file they hold (a core file by its concern, the file's name without `.ts`);
 * - the Glossary names every folder and file directly under src/ once, and nothing else;
 * - every decision record is in the "Decision records by area" list, by its number or inside a
 *   range `[first] to [last]`.
 * A file or folder added without its line (or a line left behind for one removed) fails here.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const text = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
const section = (heading: string): string => text.split(new RegExp(`^## ${heading}$`, 'm'))[1]?.split(/^## /m)[0] ?? '';

/** The Rooms block: each room line (`  name   what it holds`) with its continuation lines. */
interface Room {
  readonly indent: number;
  readonly name: string;
  text: string;
}
function rooms(): Room[] {
  const block = section('Rooms').split('```')[1] ?? '';
  const out: Room[] = [];
  for (const line of block.split('\n')) {
    const indent = /^ */.exec(line)![0].length;
    // A continuation line is indented as deep as the descriptions are.
    if (indent > 6 && out.length > 0) {
      out[out.length - 1]!.text += ` ${line.trim()}`;
      continue;
    }
    const m = /^ *(\S+)(?: {2,}(.*))?$/.exec(line);
    if (m !== null) out.push({ indent, name: m[1]!, text: m[2] ?? '' });
  }
  return out;
}

/** The room lines between `devices/` and the next line at its own depth. */
function deviceRooms(all: readonly Room[]): { entry: Room; inside: Room[] } {
  const at = all.findIndex((r) => r.indent === 2 && r.name === 'devices/');
  const entry = all[at]!;
  const inside: Room[] = [];
  for (const r of all.slice(at + 1)) {
    if (r.indent <= 2) break;
    inside.push(r);
  }
  return { entry, inside };
}

const list = (dir: string): string[] => readdirSync(join(ROOT, dir)).map((n) => (statSync(join(ROOT, dir, n)).isDirectory() ? `${n}/` : n));
const named = (names: readonly string[], entry: string): boolean =>
  names.some((n) => (n.includes('*') ? new RegExp(`^${n.replaceAll('.', '\\.').replaceAll('*', '.*')}$`).test(entry) : n === entry));
const mentions = (words: string, name: string): boolean => new RegExp(`(^|[^\\w-])${name.replaceAll('.', '\\.')}([^\\w-]|$)`).test(words);

describe('ARCHITECTURE.md map against the tree', () => {
  const all = rooms();
  const top = all.filter((r) => r.indent === 2);

  it('every file and folder directly under src/ is a room the map names; no room named for nothing', () => {
    const entries = list('src');
    expect(
      entries.filter(
        (e) =>
          !named(
            top.map((r) => r.name),
            e,
          ),
      ),
    ).toEqual([]);
    // The rooms named at the top level that are under src/ (the others are the repository's own folders).
    const srcRooms = top
      .map((r) => r.name)
      .filter((n) => !['hardware/', 'systemd/', 'packaging/', 'ops/', 'scripts/', 'bench/', 'soak/', 'test/', 'docs/'].includes(n));
    expect(srcRooms.filter((n) => !entries.some((e) => named([n], e)))).toEqual([]);
  });

  it('every folder under src/devices/ is a room under devices/, and every file there is named in its entry', () => {
    const { entry, inside } = deviceRooms(all);
    const entries = list('src/devices');
    const folders = entries.filter((e) => e.endsWith('/'));
    expect(folders.filter((f) => !inside.some((r) => r.name === f))).toEqual([]);
    expect(inside.filter((r) => r.name.endsWith('/') && !folders.includes(r.name)).map((r) => r.name)).toEqual([]);
    const words = [entry.text, ...inside.map((r) => `${r.name} ${r.text}`)].join(' ');
    const globs = [...words.matchAll(/[\w*-]+\.ts/g)].map((m) => m[0]);
    expect(entries.filter((e) => !e.endsWith('/') && !named(globs, e))).toEqual([]);
  });

  it('station/ names each of its files, and each file of its pure core by its concern', () => {
    const station = all.find((r) => r.indent === 2 && r.name === 'station/')!;
    const files = list('src/station').filter((e) => e.endsWith('.ts'));
    expect(files.filter((f) => !mentions(station.text, f))).toEqual([]);
    const core = list('src/station/core').map((f) => f.replace(/\.ts$/, ''));
    expect(core.filter((c) => !mentions(station.text, c))).toEqual([]);
  });
});

/**
 * The Glossary's rooms: the names in backticks before a line's dash (`- \`a/\`, \`b.ts\` — meaning`).
 * Names after the dash are the meaning's own words and are not rooms.
 */
function glossaryRooms(): string[] {
  return section('Glossary')
    .split('\n')
    .filter((line) => line.startsWith('- '))
    .flatMap((line) => [...(line.split(' — ')[0] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

describe('ARCHITECTURE.md glossary against the tree', () => {
  const inGlossary = glossaryRooms();

  it('names every folder and file directly under src/, each once', () => {
    expect(inGlossary.length).toBeGreaterThan(0);
    expect(list('src').filter((e) => !inGlossary.includes(e))).toEqual([]);
    expect(inGlossary.filter((n, i) => inGlossary.indexOf(n) !== i)).toEqual([]);
  });

  it('names no room that is not directly under src/', () => {
    const entries = list('src');
    expect(inGlossary.filter((n) => !entries.includes(n))).toEqual([]);
  });
});

describe('ARCHITECTURE.md records by area', () => {
  it('lists every decision record, by its number or inside a range', () => {
    const list = section('Decision records by area');
    const listed = new Set<number>();
    for (const m of list.matchAll(/\[(\d{4})\]\([^)]*\)(?:\s+to\s+\[(\d{4})\])?/g)) {
      const first = Number(m[1]);
      const last = m[2] === undefined ? first : Number(m[2]);
      for (let n = first; n <= last; n++) listed.add(n);
    }
    const records = readdirSync(join(ROOT, 'docs/decisions'))
      .filter((f) => /^\d{4}-/.test(f))
      .map((f) => f.slice(0, 4));
    expect(records.filter((r) => !listed.has(Number(r)))).toEqual([]);
  });
});

describe('ARCHITECTURE.md: a driver never imports another kind’s driver', () => {
  /** What drivers share (not a driver), and the files that assemble drivers — as the rule names them. */
  const SHARED = ['serial/link.ts', 'serial/loss.ts'];
  const SHARED_ROOMS = ['vocabulary/'];
  const ASSEMBLIES = ['input/index.ts', 'simulated/hardware.ts', 'kiosk/simulated.ts'];
  const isSchema = (f: string): boolean => /(^|\/)[\w-]*schema\.ts$/.test(f);

  it('imports between src/devices/<kind>/ folders go only to what drivers share, from an assembly, or schema to schema', () => {
    const kinds = list('src/devices').filter((e) => e.endsWith('/'));
    const wrong: string[] = [];
    const walk = (dir: string): string[] =>
      readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((d) =>
        d.isDirectory() ? walk(`${dir}/${d.name}`) : d.name.endsWith('.ts') ? [`${dir}/${d.name}`] : [],
      );
    for (const kind of kinds) {
      for (const file of walk(`src/devices/${kind.slice(0, -1)}`)) {
        const from = file.slice('src/devices/'.length);
        const source = readFileSync(join(ROOT, file), 'utf8');
        for (const m of source.matchAll(/from '((?:\.\.\/)+[^']+)\.js'/g)) {
          const target = join('src/devices', from, '..', `${m[1]!}.ts`).replaceAll('\\', '/').slice('src/devices/'.length);
          const targetKind = target.includes('/') ? `${target.split('/')[0]!}/` : null;
          if (targetKind === null || targetKind === kind || !kinds.includes(targetKind)) continue;
          if (SHARED.includes(target) || SHARED_ROOMS.includes(targetKind) || ASSEMBLIES.includes(from) || (isSchema(from) && isSchema(target))) continue;
          wrong.push(`${from} -> ${target}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
