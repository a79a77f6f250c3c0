/**
 * One retry schedule (Backoff in src/time.ts, docs/decisions/0156) is kept by eslint: a delay grown
 * by a power (`**`, Math.pow) or multiplied in an assignment (`*=`, `x = Math.min(x * 2, max)`)
 * fails the lint anywhere in src/ but time.ts. Planted files are linted with the rule the real
 * config carries; the real config is asked that it does, and that time.ts keeps the one.
 */
import type { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ONE_BACKOFF_SYNTAX } from '../../eslint.config.js';
import { configuredRules, lintAs } from '../support/lint.js';

const rules: Linter.RulesRecord = { 'no-restricted-syntax': ['error', ...ONE_BACKOFF_SYNTAX] };
const planted = 'src/cli/technician/planted.ts';

describe('one retry schedule, by lint', () => {
  it('a backoff of its own fails, in each shape', async () => {
    const shapes = [
      'export const delay = (retry: number) => 50 * 2 ** retry;',
      'export const delay = (retry: number) => 50 * Math.pow(2, retry);',
      'export function f() { let wait = 500; wait *= 2; return wait; }',
      'export function f(max: number) { let wait = 500; wait = Math.min(wait * 2, max); return wait; }',
    ];
    for (const text of shapes) expect(await lintAs(planted, text, rules), text).toEqual(['no-restricted-syntax']);
  });

  it('the one Backoff, and a configured time scaled once, pass', async () => {
    const text = [
      "import { Backoff } from '../../time.js';",
      'export const retry = new Backoff({ initialMs: 500, maxMs: 5_000, factor: 2 });',
      'export const twice = (answerTimeoutMs: number) => answerTimeoutMs * 2;',
    ].join('\n');
    expect(await lintAs(planted, text, rules)).toEqual([]);
  });

  it('the real config carries the rule for src/, and lets time.ts keep the one', async () => {
    expect((await configuredRules('src/cli/technician/follow.ts'))['no-restricted-syntax']).toEqual(expect.arrayContaining([...ONE_BACKOFF_SYNTAX]));
    expect((await configuredRules('src/time.ts'))['no-restricted-syntax']).not.toEqual(expect.arrayContaining([...ONE_BACKOFF_SYNTAX]));
  });
});
