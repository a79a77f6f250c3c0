/**
 * The decision records keep one numbering rule (docs/decisions/README.md): numbered in the order
 * they are decided, one after another; a number never reused; a skipped number named in the
 * README; every record listed in the index exactly once, under its own number; every record in the
 * template's shape, and a "superseded by" pointing at a record that exists.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = join(import.meta.dirname, '../../docs/decisions');

interface Record {
  readonly file: string;
  readonly number: number;
  readonly text: string;
}

function records(): Record[] {
  return readdirSync(DIR)
    .filter((f) => f !== 'README.md')
    .map((file) => ({ file, number: Number(file.slice(0, 4)), text: readFileSync(join(DIR, file), 'utf8') }));
}

/** Numbers the README names as skipped ("0066 has no record"). */
function skipped(readme: string): number[] {
  return [...readme.matchAll(/(\d{4}) has no record/g)].map((m) => Number(m[1]));
}

/** The numbers a set of records should have under the rule, and what breaks it. */
function numberingProblems(numbers: readonly number[], skips: readonly number[]): string[] {
  const problems: string[] = [];
  const seen = new Set<number>();
  for (const n of numbers) {
    if (seen.has(n)) problems.push(`${String(n).padStart(4, '0')} is used twice`);
    seen.add(n);
  }
  const max = Math.max(0, ...numbers);
  for (let n = 1; n <= max; n++) {
    if (!seen.has(n) && !skips.includes(n)) problems.push(`${String(n).padStart(4, '0')} is missing (not named as skipped)`);
    if (seen.has(n) && skips.includes(n)) problems.push(`${String(n).padStart(4, '0')} is named as skipped but has a record`);
  }
  return problems;
}

describe('docs/decisions', () => {
  const all = records();
  const readme = readFileSync(join(DIR, 'README.md'), 'utf8');
  const index = readme.split(/^## Index$/m)[1] ?? '';

  it('every file is NNNN-slug.md and its heading carries the same number', () => {
    const wrong = all.filter((r) => !/^\d{4}-[a-z0-9-]+\.md$/.test(r.file) || !r.text.startsWith(`# ${r.file.slice(0, 4)}. `)).map((r) => r.file);
    expect(wrong).toEqual([]);
  });

  it('numbers run one after another from 0001, none twice, a gap only where the README names it skipped', () => {
    expect(
      numberingProblems(
        all.map((r) => r.number),
        skipped(readme),
      ),
    ).toEqual([]);
  });

  it('the rule can fail: a gap, a number twice, a skip that has a record', () => {
    expect(numberingProblems([1, 2, 4], [])).toEqual(['0003 is missing (not named as skipped)']);
    expect(numberingProblems([1, 2, 2], [])).toEqual(['0002 is used twice']);
    expect(numberingProblems([1, 2, 3], [2])).toEqual(['0002 is named as skipped but has a record']);
    expect(numberingProblems([1, 3], [2])).toEqual([]);
  });

  it('the index lists every record exactly once, under its own number, and nothing else', () => {
    const listed = [...index.matchAll(/^- \[(\d{4})\]\(([^)]+)\)/gm)].map((m) => ({ shown: m[1]!, file: m[2]! }));
    expect(listed.filter((l) => !l.file.startsWith(`${l.shown}-`)).map((l) => l.file)).toEqual([]);
    const files = listed.map((l) => l.file);
    expect(files.filter((f, i) => files.indexOf(f) !== i)).toEqual([]);
    expect(all.map((r) => r.file).filter((f) => !files.includes(f))).toEqual([]);
    expect(files.filter((f) => !all.some((r) => r.file === f))).toEqual([]);
  });

  it('every record has its status and date; a record superseded names one that exists', () => {
    const wrong: string[] = [];
    for (const r of all) {
      if (!/^- Status: /m.test(r.text)) wrong.push(`${r.file}: no Status`);
      if (!/^- Date: \d{4}-\d{2}-\d{2}/m.test(r.text)) wrong.push(`${r.file}: no Date`);
      for (const m of r.text.matchAll(/superseded by \[(\d{4})\]\(([^)]+)\)/gi)) {
        if (!all.some((x) => x.file === m[2])) wrong.push(`${r.file}: superseded by a missing ${m[2]}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
