/**
 * The project's own eslint rules, asked of planted files: a text linted as if it were at a path of
 * the repository with only the rules given (the real config's parser, no type information), and
 * the rules the real config (eslint.config.js) gives a file.
 */
import { join } from 'node:path';
import { ESLint, type Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { PROJECT_ROOT as ROOT } from './project-files.js';

/** The rule ids `text` breaks when linted at `path` with `rules` alone. */
export async function lintAs(path: string, text: string, rules: Linter.RulesRecord): Promise<string[]> {
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, plugins: { '@typescript-eslint': tseslint.plugin }, rules }],
  });
  const [result] = await eslint.lintText(text, { filePath: join(ROOT, path) });
  return result!.messages.map((m) => m.ruleId ?? `parse: ${m.message}`);
}

/** The rules the real config gives `file` (a path relative to the repository). */
export async function configuredRules(file: string): Promise<Record<string, unknown[]>> {
  const eslint = new ESLint({ cwd: ROOT });
  return ((await eslint.calculateConfigForFile(join(ROOT, file))) as { rules: Record<string, unknown[]> }).rules;
}
