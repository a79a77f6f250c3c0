/**
 * Every test file is where test/README.md says it goes: in one of the five kind folders, named
 * `<area>-<topic>.test.ts` (or `<area>.test.ts`) with an area the README lists, or one of the
 * whole-station files it names. A newcomer guesses a test's path from that page; this keeps the
 * page and the tree saying the same thing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const TEST = join(import.meta.dirname, '..');
const KINDS = ['unit', 'integration', 'e2e', 'fuzz', 'hw'];
const readme = readFileSync(join(TEST, 'README.md'), 'utf8');

/** The bullet that starts "- `<area>` is" up to the next bullet: its code spans are the areas and the whole-station files. */
function areaBullet(): string {
  const start = readme.indexOf('- `<area>` is');
  const end = readme.indexOf('\n- ', start + 1);
  return readme.slice(start, end);
}

const spans = [...areaBullet().matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
const areas = new Set(spans.filter((s) => /^[a-z0-9]+$/.test(s)));
const wholeStation = new Set(spans.filter((s) => s.startsWith('test/')));

describe('test file names', () => {
  it('the README lists areas and whole-station files (the bullet was found)', () => {
    expect(areas.size).toBeGreaterThan(20);
    expect(wholeStation.size).toBeGreaterThan(0);
  });

  it('only the five kinds hold tests, and every test file is named by an area the README lists', () => {
    const folders = readdirSync(TEST, { withFileTypes: true })
      .filter((e) => e.isDirectory() && readdirSync(join(TEST, e.name)).some((f) => f.endsWith('.test.ts')))
      .map((e) => e.name);
    expect(folders.sort()).toEqual([...KINDS].sort());
    const misnamed: string[] = [];
    for (const kind of KINDS) {
      for (const file of readdirSync(join(TEST, kind)).filter((f) => f.endsWith('.test.ts'))) {
        const path = `test/${kind}/${file}`;
        const area = file.replace(/\.test\.ts$/, '').split('-')[0]!;
        if (!wholeStation.has(path) && !areas.has(area)) misnamed.push(path);
      }
    }
    expect(misnamed).toEqual([]);
  });

  it('every whole-station file the README names exists', () => {
    for (const path of wholeStation) expect(existsSync(join(TEST, '..', path)), path).toBe(true);
  });
});
