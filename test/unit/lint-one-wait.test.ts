/**
 * One way to wait (src/time.ts, docs/decisions/0155) is kept by eslint: `await sleep()` inside a
 * loop — polling for a condition, or a retry schedule of its own — fails the lint anywhere in src/;
 * a condition is waited for with waitUntil, a retry pauses with Backoff. Planted files are linted
 * with the rule the real config carries; the real config is asked that it does, and every place
 * in src/ that keeps a paced loop says why at its line.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Linter } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ONE_WAIT_SYNTAX, sourceFiles } from '../../eslint.config.js';
import { configuredRules, lintAs } from '../support/lint.js';
import { PROJECT_ROOT as ROOT } from '../support/project-files.js';

const rules: Linter.RulesRecord = { 'no-restricted-syntax': ['error', ...ONE_WAIT_SYNTAX] };
const planted = 'src/technician/planted.ts';
const head = "import { Backoff, sleep, waitUntil } from '../time.js';\n";

describe('one way to wait, by lint', () => {
  it('a polling loop fails, in every loop statement, and so does a retry loop that sleeps', async () => {
    const loops = [
      'export async function f(done: () => boolean) { while (!done()) await sleep(10); }',
      'export async function f(done: () => boolean) { for (;;) { if (done()) return; await sleep(10); } }',
      'export async function f(done: () => boolean) { do { await sleep(10); } while (!done()); }',
      'export async function f(xs: number[]) { for (const x of xs) await sleep(x); }',
      'export async function f(send: () => Promise<void>) { for (let i = 0; i < 3; i++) { try { return await send(); } catch { await sleep(50 * i); } } }',
    ];
    for (const text of loops) expect(await lintAs(planted, head + text, rules), text).toEqual(['no-restricted-syntax']);
  });

  it('a wait on events, a Backoff pause in a loop and a sleep outside a loop pass', async () => {
    const fine = [
      'export const f = (on: (w: () => void) => () => void, done: () => true | undefined) => waitUntil({ check: done, wake: on, limitMs: 5 });',
      'export async function f(send: () => Promise<void>, b: Backoff) { for (;;) { try { return await send(); } catch { await b.pause(); } } }',
      'export async function f(ms: number) { await sleep(ms); }',
    ];
    for (const text of fine) expect(await lintAs(planted, head + text, rules), text).toEqual([]);
  });

  it('the real config carries the rule for src/, time.ts included', async () => {
    for (const f of ['src/technician/actions.ts', 'src/time.ts', 'src/fleet/wait.ts'])
      expect((await configuredRules(f))['no-restricted-syntax'], f).toEqual(expect.arrayContaining([...ONE_WAIT_SYNTAX]));
  });

  it('each paced loop left in src/ says why at its line', () => {
    const disabled = sourceFiles(ROOT).flatMap((f) =>
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .flatMap((line, i, lines) => {
          const above = lines[i - 1] ?? '';
          return /await sleep\(/.test(line) && above.includes('eslint-disable-next-line no-restricted-syntax')
            ? [{ f, why: above.split(' -- ')[1]?.trim() ?? '' }]
            : [];
        }),
    );
    expect(disabled.map((d) => d.f)).toEqual(['src/devices/gpio/matrix-keypad.ts', 'src/fleet/fleet.ts', 'src/service/reload-command.ts']);
    for (const d of disabled) expect(d.why.length, d.f).toBeGreaterThan(20);
  });
});
