/**
 * One exit (src/exit.ts, docs/decisions/0133, 0156) is kept by eslint: `process.exit`, called or
 * handed on, fails the lint anywhere in src/ but exit.ts, whose exitProcess lets the pool threads
 * go first. Planted files are linted with the rule the real config carries; the real config is
 * asked that it does, and that it lets exit.ts have the one.
 */
import type { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ONE_EXIT_SYNTAX } from '../../eslint.config.js';
import { configuredRules, lintAs } from '../support/lint.js';

const rules: Linter.RulesRecord = { 'no-restricted-syntax': ['error', ...ONE_EXIT_SYNTAX] };

describe('one exit, by lint', () => {
  it('process.exit fails, called or handed on as a function', async () => {
    const path = 'src/cli/planted.ts';
    expect(await lintAs(path, 'export function f(code: number) { process.exit(code); }\n', rules)).toEqual(['no-restricted-syntax']);
    expect(await lintAs(path, 'export const f = (p: Promise<number>) => p.then(process.exit);\n', rules)).toEqual(['no-restricted-syntax']);
  });

  it('exitProcess and an exit code set for later pass', async () => {
    const text = "import { exitProcess } from '../exit.js';\nexport function f(code: number) { process.exitCode = code; exitProcess(code); }\n";
    expect(await lintAs('src/cli/planted.ts', text, rules)).toEqual([]);
  });

  it('the real config carries the rule for src/, and lets exit.ts have the one exit', async () => {
    expect((await configuredRules('src/main.ts'))['no-restricted-syntax']).toEqual(expect.arrayContaining([...ONE_EXIT_SYNTAX]));
    expect((await configuredRules('src/cli/stationctl.ts'))['no-restricted-syntax']).toEqual(expect.arrayContaining([...ONE_EXIT_SYNTAX]));
    expect((await configuredRules('src/exit.ts'))['no-restricted-syntax']).not.toEqual(expect.arrayContaining([...ONE_EXIT_SYNTAX]));
  });
});
