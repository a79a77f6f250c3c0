/**
 * docs/security.md's vendor self-assessment (EN 303 645, CRA Annex I): every row names its
 * evidence, and every file a row names exists — a table that cites a moved or deleted file fails
 * here, not in front of an assessor.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/project-files.js';

const DOC = readFileSync(join(PROJECT_ROOT, 'docs/security.md'), 'utf8');
/** The rows of the tables under "Vendor self-assessment", up to the next section (header and rule lines excepted). */
const section = DOC.slice(DOC.indexOf('## Vendor self-assessment'));
const rows = section
  .slice(0, section.indexOf('\n## ', 1) === -1 ? undefined : section.indexOf('\n## ', 1))
  .split('\n')
  .filter((l) => l.startsWith('| ') && !l.startsWith('| provision') && !l.startsWith('| requirement'));
/** The repository paths a cell names in backticks (a path has a slash or a file extension). */
const pathsIn = (cell: string): string[] =>
  [...cell.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!).filter((p) => /^[A-Za-z.][\w./-]*$/.test(p) && (p.includes('/') || /\.\w+$/.test(p)));

it('has a row per provision and requirement, each with evidence or a stated reason', () => {
  expect(rows.length).toBeGreaterThanOrEqual(50);
  for (const row of rows) {
    const cells = row.split(' | ');
    expect(cells.length, row).toBe(4);
    const status = cells[3]!.replace(/\|$/, '').trim();
    expect(status, row).toMatch(/^(met|partly|not met|not applicable)/);
    if (status.startsWith('met') || status.startsWith('partly')) expect(pathsIn(cells[1]!).length, `no evidence file: ${row}`).toBeGreaterThan(0);
    else expect(status, row).toMatch(/: \S/);
  }
  for (const id of ['5.1-1', '5.2-1', '5.3-13', '5.13-1', '(2)(a)', '(2)(m)', '| (1) identify', '(8) updates']) expect(DOC).toContain(id);
});

it('names only files that exist', () => {
  const named = [...new Set(rows.flatMap((r) => r.split(' | ').slice(1, 3).flatMap(pathsIn)))];
  expect(named.length).toBeGreaterThan(30);
  const missing = named.filter((p) => !existsSync(join(PROJECT_ROOT, p)));
  expect(missing).toEqual([]);
});

it('the threat model names, for each person, the tests that prove its mitigations, and they exist', () => {
  const from = DOC.indexOf('## Threat model');
  expect(from).toBeGreaterThan(0);
  const model = DOC.slice(from, DOC.indexOf('\n## ', from + 1));
  const people = model
    .slice(model.indexOf('### Who, and what each gets'), model.indexOf('### What remains'))
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| person'));
  expect(people.length).toBeGreaterThanOrEqual(6);
  for (const row of people)
    expect(
      row
        .split(' | ')[3]!
        .split(/`/)
        .filter((p) => p.startsWith('test/') || p.startsWith('scripts/')).length,
      row,
    ).toBeGreaterThan(0);
  const named = [...new Set(pathsIn(model))].filter((p) => p.startsWith('test/') || p.startsWith('scripts/') || p.startsWith('src/'));
  expect(named.filter((p) => !existsSync(join(PROJECT_ROOT, p)))).toEqual([]);
  expect(model).toContain('secure boot');
});
