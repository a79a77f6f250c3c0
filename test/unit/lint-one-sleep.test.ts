/**
 * The one sleep (src/time.ts, docs/decisions/0078) is kept by eslint: a promise made only to wait
 * for a timer, and Node's promise timers, fail the lint anywhere in src/ but time.ts. Planted
 * files are linted with the rule the real config carries; the real config is asked that it does.
 */
import { describe, expect, it } from 'vitest';
import { ONE_SLEEP_IMPORTS, ONE_SLEEP_SYNTAX } from '../../eslint.config.js';
import { configuredRules, lintAs as lintWith } from '../support/lint.js';

const lintAs = (path: string, text: string): Promise<string[]> =>
  lintWith(path, text, {
    'no-restricted-syntax': ['error', ...ONE_SLEEP_SYNTAX],
    '@typescript-eslint/no-restricted-imports': ['error', { paths: ONE_SLEEP_IMPORTS }],
  });

describe('the one sleep, by lint', () => {
  it('an inline sleep fails, in either shape, and so do the promise timers', async () => {
    const path = 'src/devices/rfid/planted.ts';
    expect(await lintAs(path, 'export async function f(ms: number) { await new Promise((r) => setTimeout(r, ms)); }\n')).toEqual(['no-restricted-syntax']);
    expect(await lintAs(path, 'export async function f(ms: number) { await new Promise<void>((resolve) => { setTimeout(resolve, ms); }); }\n')).toEqual([
      'no-restricted-syntax',
    ]);
    expect(await lintAs(path, "import { setTimeout as wait } from 'node:timers/promises';\nexport const f = () => wait(5);\n")).toEqual([
      '@typescript-eslint/no-restricted-imports',
    ]);
  });

  it('a bounded wait or a timer beside other work is not a sleep', async () => {
    const path = 'src/devices/rfid/planted.ts';
    const text = [
      'export function f(ms: number, signal: AbortSignal) {',
      '  return new Promise<void>((resolve) => {',
      '    const t = setTimeout(resolve, ms);',
      "    signal.addEventListener('abort', () => { clearTimeout(t); resolve(); });",
      '  });',
      '}',
    ].join('\n');
    expect(await lintAs(path, text)).toEqual([]);
  });

  it('the real config carries the rule for src/, and lets time.ts have the one sleep', async () => {
    const exchange = await configuredRules('src/devices/rfid/exchange.ts');
    expect(exchange['no-restricted-syntax']).toEqual(expect.arrayContaining([...ONE_SLEEP_SYNTAX]));
    expect(JSON.stringify(exchange['@typescript-eslint/no-restricted-imports'])).toContain('node:timers/promises');
    const time = await configuredRules('src/time.ts');
    expect(time['no-restricted-syntax']).not.toEqual(expect.arrayContaining([...ONE_SLEEP_SYNTAX]));
  });
});
