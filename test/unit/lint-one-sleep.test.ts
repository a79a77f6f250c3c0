/**
 * The one sleep (src/time.ts, docs/decisions/0078) is kept by eslint: a promise made only to wait
 * for a timer, and Node's promise timers, fail the lint anywhere in src/ but time.ts. Planted
 * files are linted with the rule the real config carries; the real config is asked that it does.
 */
import { join, resolve } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { ONE_SLEEP_IMPORTS, ONE_SLEEP_SYNTAX } from '../../eslint.config.js';

const ROOT = resolve(import.meta.dirname, '../..');

async function lintAs(path: string, text: string): Promise<string[]> {
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: { parser: tseslint.parser },
        plugins: { '@typescript-eslint': tseslint.plugin },
        rules: {
          'no-restricted-syntax': ['error', ...ONE_SLEEP_SYNTAX],
          '@typescript-eslint/no-restricted-imports': ['error', { paths: ONE_SLEEP_IMPORTS }],
        },
      },
    ],
  });
  const [result] = await eslint.lintText(text, { filePath: join(ROOT, path) });
  return result!.messages.map((m) => m.ruleId ?? 'parse');
}

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
    const eslint = new ESLint({ cwd: ROOT });
    const rules = async (f: string) => ((await eslint.calculateConfigForFile(join(ROOT, f))) as { rules: Record<string, unknown[]> }).rules;
    const exchange = await rules('src/devices/rfid/exchange.ts');
    expect(exchange['no-restricted-syntax']).toEqual(expect.arrayContaining([...ONE_SLEEP_SYNTAX]));
    expect(JSON.stringify(exchange['@typescript-eslint/no-restricted-imports'])).toContain('node:timers/promises');
    const time = await rules('src/time.ts');
    expect(time['no-restricted-syntax']).not.toEqual(expect.arrayContaining([...ONE_SLEEP_SYNTAX]));
  });
});
