/**
 * The layers of src/ (ARCHITECTURE.md, "Layers") are kept by eslint: import-x/no-restricted-paths
 * with zones made from the one table in eslint.config.js. Here eslint is run on planted files
 * inside src/ (text only, never written) with that same table: an import from a layer above fails
 * in every form the code base uses (value, type, re-export, import()), an import from below or
 * from the same layer passes. Every file of src/ is in a layer, and src/ has no import cycle.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { LAYERS, layerOf, layersConfig, sourceFiles } from '../../eslint.config.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** Lint `text` as if it were the file `path` (relative to the repository), with the layer rule alone. */
async function lintAs(path: string, text: string): Promise<string[]> {
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, layersConfig(ROOT, [...new Set([...sourceFiles(ROOT), path])])],
  });
  const [result] = await eslint.lintText(text, { filePath: join(ROOT, path) });
  return result!.messages.map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`);
}

/** A relative specifier from `from` to `to` (both relative to the repository), as the code writes it. */
function specifier(from: string, to: string): string {
  const rel = relative(dirname(from), to).replace(/\.ts$/, '.js');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** One real file of each layer, to import from. */
const sample = new Map(LAYERS.map((row) => [row.layer, sourceFiles(ROOT).find((f) => layerOf(f) === row.layer)!]));

describe('the layer table', () => {
  it('puts every file of src/ in a layer, and every layer holds files', () => {
    const files = sourceFiles(ROOT);
    expect(files.length).toBeGreaterThan(150);
    expect(files.filter((f) => layerOf(f) === undefined)).toEqual([]);
    for (const row of LAYERS) expect(sample.get(row.layer), row.layer).toBeDefined();
  });

  it('claims single files out of a folder a later row takes whole', () => {
    expect(layerOf('src/devices/types.ts')).toBe('contracts');
    expect(layerOf('src/devices/board-config.ts')).toBe('config');
    expect(layerOf('src/devices/serial/scanner.ts')).toBe('adapters');
    expect(layerOf('src/station/core-types.ts')).toBe('core contract');
    expect(layerOf('src/station/runtime.ts')).toBe('station');
  });
});

describe('eslint keeps the layers', () => {
  it('fails a planted import from the layer right above, for every layer', async () => {
    for (let i = 0; i + 1 < LAYERS.length; i++) {
      const here = LAYERS[i]!;
      const above = sample.get(LAYERS[i + 1]!.layer)!;
      // The text is linted as if it were that layer's sample file (nothing is written).
      const planted = sample.get(here.layer)!;
      const messages = await lintAs(planted, `import * as above from '${specifier(planted, above)}';\nexport const x = above;\n`);
      expect(messages, `${here.layer} importing ${above}`).toEqual([
        expect.stringMatching(new RegExp(`^import-x/no-restricted-paths: .*a ${here.layer} file imports only`)),
      ]);
    }
  });

  it('fails type imports, re-exports and import() as well', async () => {
    const planted = 'src/journal/types.ts';
    const core = specifier(planted, 'src/station/core-types.ts');
    const supervisor = specifier(planted, 'src/supervisor/supervisor.ts');
    const messages = await lintAs(
      planted,
      [
        `import type { CoreState } from '${core}';`,
        `export type { Input } from '${core}';`,
        `export * from '${supervisor}';`,
        `export const later = (): Promise<unknown> => import('${supervisor}');`,
        `export type S = CoreState;`,
      ].join('\n'),
    );
    expect(messages, messages.join('\n')).toHaveLength(4);
    for (const m of messages) expect(m).toMatch(/^import-x\/no-restricted-paths: .*a contracts file imports only/);
  });

  it('passes imports from below and from the same layer', async () => {
    const planted = 'src/devices/serial/planted.ts';
    const text = [
      `import { DeviceBase } from '${specifier(planted, 'src/devices/device-base.ts')}';`,
      `import type { Display } from '${specifier(planted, 'src/devices/types.ts')}';`,
      `import { configSchema } from '${specifier(planted, 'src/config/schema.ts')}';`,
      `import { errorMessage } from '${specifier(planted, 'src/errors.ts')}';`,
      `export const all = [DeviceBase, configSchema, errorMessage] as const;`,
      `export type D = Display;`,
    ].join('\n');
    expect(await lintAs(planted, text)).toEqual([]);
  });

  it('the real eslint config carries the same rule for src/', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const config = (await eslint.calculateConfigForFile(join(ROOT, 'src/journal/types.ts'))) as { rules: Record<string, unknown> };
    const [severity, options] = config.rules['import-x/no-restricted-paths'] as [number, unknown];
    expect(severity).toBe(2);
    expect(options).toEqual(layersConfig(ROOT).rules['import-x/no-restricted-paths'][1]);
  });
});

describe('src/ has no import cycle', () => {
  it('no file reaches itself through its imports (types and import() included)', () => {
    const graph = new Map<string, string[]>();
    for (const f of sourceFiles(ROOT)) {
      const info = ts.preProcessFile(readFileSync(join(ROOT, f), 'utf8'), true, true);
      const deps = info.importedFiles
        .map((i) => i.fileName)
        .filter((s) => s.startsWith('.'))
        .map((s) => relative(ROOT, resolve(ROOT, dirname(f), s)).replace(/\.js$/, '.ts'));
      graph.set(f, deps);
    }
    expect(cycles(graph)).toEqual([]);
  });
});

/** The strongly connected groups of more than one file (Tarjan), each sorted. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}
