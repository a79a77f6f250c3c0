/**
 * Code, tests and documents say why in their own words: a comment or a paragraph that cites the
 * tracker's number it came from is a history the next reader cannot open, and a code
 * comment pointing outside the repository at the spec is one the bundle does not carry (the code
 * cites `docs/protocol/`, which names the spec's section). Decision records hold the history. A
 * source file a comment in src/ names exists: a name left behind by a move sends the reader nowhere.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT as ROOT, projectFiles } from '../support/project-files.js';

const TEXT = /\.(ts|mts|mjs|js|sh|md|yml|yaml|service|rules)$/;

function hits(pattern: RegExp, files: string[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (pattern.test(line)) out.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
      });
  }
  return out;
}

describe('citations in code and documents', () => {
  const files = projectFiles((name) => TEXT.test(name));

  it('walks the project (the walk itself is not empty)', () => {
    expect(files.some((f) => f.endsWith('src/daemon.ts'))).toBe(true);
    expect(files.some((f) => f.endsWith('ARCHITECTURE.md'))).toBe(true);
  });

  it('no issue number of this project in a comment, a test or a document', () => {
    expect(hits(/\b[Ii]ssues? #?\d+\b/, files)).toEqual([]);
  });

  it('no code comment points at the spec outside the repository', () => {
    const code = files.filter((f) => /\.(ts|mts|mjs|js)$/.test(f));
    expect(hits(/shared\/specs\//, code)).toEqual([]);
  });

  it('every source file a comment in src/ names exists (beside it, under src/, from the root, or by its path anywhere)', () => {
    const code = files.filter((f) => /^src\/.*\.ts$/.test(relative(ROOT, f)));
    const tails = files.map((f) => `/${relative(ROOT, f)}`);
    const named = /(?<![\w./-])((?:[\w.-]+\/)*[\w-]+\.(?:ts|mts|mjs|js|sh|py))\b/g;
    const missing: string[] = [];
    for (const file of code) {
      const comments = readFileSync(file, 'utf8').match(/\/\*[\s\S]*?\*\/|\/\/.*$/gm) ?? [];
      for (const comment of comments)
        for (const [, ref] of comment.matchAll(named)) {
          const asTs = ref!.replace(/\.js$/, '.ts');
          const here = [join(dirname(file), ref!), join(dirname(file), asTs), join(ROOT, 'src', ref!), join(ROOT, 'src', asTs), join(ROOT, ref!)];
          if (here.some((p) => existsSync(p)) || tails.some((t) => t.endsWith(`/${ref}`) || t.endsWith(`/${asTs}`))) continue;
          missing.push(`${relative(ROOT, file)}: ${ref}`);
        }
    }
    expect(missing).toEqual([]);
  });
});
