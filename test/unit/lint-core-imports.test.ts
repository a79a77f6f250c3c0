/**
 * The pure core's import allow-list (eslint.config.js CORE_ALLOWED, record 0159): planted files
 * inside the core (text only, never written) fail for every value import from outside the list —
 * a package, a Node module, the logger, a device, the runtime, a re-export, an import() — and pass
 * for the list itself and for types from anywhere. The real config carries the rule for every core
 * file, and every real core file passes it.
 */
import { join, resolve } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { CORE_ALLOWED, coreConfig, sourceFiles } from '../../eslint.config.js';

const ROOT = resolve(import.meta.dirname, '../..');

function linter(): ESLint {
  // Other rules' disable comments in the real files are not this rule's concern.
  return new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, linterOptions: { reportUnusedDisableDirectives: 'off' } }, coreConfig],
  });
}

async function lintAs(path: string, text: string): Promise<string[]> {
  const [result] = await linter().lintText(text, { filePath: join(ROOT, path) });
  return result!.messages.map((m) => m.ruleId ?? `parse: ${m.message}`);
}

const PLANTED = 'src/station/core/planted.ts';
const REFUSED = ['pickup-core/imports'];

describe("the pure core's imports, by lint", () => {
  it('refuses a value from outside the list, in every form', async () => {
    const refused = [
      "import { pino } from 'pino';\nexport const p = pino;\n",
      "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
      "import { createLogger } from '../../log.js';\nexport const c = createLogger;\n",
      "import { sleep } from '../../time.js';\nexport const s = sleep;\n",
      "import { StationRuntime } from '../runtime.js';\nexport const r = StationRuntime;\n",
      "import { HARD_MAX_PULSE_MS } from '../../devices/types.js';\nexport const m = HARD_MAX_PULSE_MS;\n",
      "import * as z from '../../schema.js';\nexport const s = z;\n",
      "export { maskIdentifier } from '../../log.js';\n",
      "export * from '../../errors.js';\n",
      "import '../../log.js';\n",
      "export async function later() { return import('./context.js'); }\n",
      // A folder of the list holds files, not subfolders.
      "import { x } from './deeper/x.js';\nexport const y = x;\n",
    ];
    for (const text of refused) expect(await lintAs(PLANTED, text), text).toEqual(REFUSED);
  });

  it('lets the list in, and types from anywhere', async () => {
    const allowed = [
      "import { sound } from './context.js';\nexport const s = sound;\n",
      "import { PIN_LENGTH } from '../../protocol/types.js';\nexport const n = PIN_LENGTH;\n",
      "import { maskIdentifier } from '../../mask.js';\nexport const m = maskIdentifier;\n",
      "import type { Logger } from '../../log.js';\nexport type L = Logger;\n",
      "import { type RunningStation } from '../../app.js';\nexport type R = RunningStation;\n",
      "export type { Journal } from '../../journal/types.js';\n",
      "export type T = import('../runtime.js').StationRuntime;\n",
    ];
    for (const text of allowed) expect(await lintAs(PLANTED, text), text).toEqual([]);
    // core.ts and core-types.ts sit one folder up: the same list, by path.
    expect(await lintAs('src/station/core.ts', "import { onInput } from './core/input.js';\nexport const i = onInput;\n")).toEqual([]);
    expect(await lintAs('src/station/core.ts', "import { runtimeFor } from './runtime.js';\nexport const r = runtimeFor;\n")).toEqual(REFUSED);
    expect(await lintAs('src/station/core-types.ts', "import { UUID_RE } from '../uuid.js';\nexport const u = UUID_RE;\n")).toEqual(REFUSED);
  });

  it('is what the real config carries for the core, and every core file passes it', async () => {
    expect(CORE_ALLOWED).toContain('src/mask.ts');
    const eslint = new ESLint({ cwd: ROOT });
    const config = (await eslint.calculateConfigForFile(join(ROOT, 'src/station/core/rfid.ts'))) as { rules: Record<string, unknown[]> };
    expect(config.rules['pickup-core/imports']).toEqual([2]);
    const outside = (await eslint.calculateConfigForFile(join(ROOT, 'src/station/runtime.ts'))) as { rules: Record<string, unknown[]> };
    expect(outside.rules['pickup-core/imports']).toBeUndefined();

    const core = sourceFiles(ROOT).filter((f) => f === 'src/station/core.ts' || f === 'src/station/core-types.ts' || f.startsWith('src/station/core/'));
    expect(core.length).toBeGreaterThan(15);
    const results = await linter().lintFiles(core.map((f) => join(ROOT, f)));
    expect(results.flatMap((r) => r.messages.map((m) => `${r.filePath}: ${m.message}`))).toEqual([]);
  });
});
