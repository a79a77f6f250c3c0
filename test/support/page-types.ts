/**
 * A page script's type check (`npm run check` runs tsc on each page's tsconfig), run with the
 * TypeScript API so that a test can plant a change in the script's text (nothing is written) and see
 * the check fail: the proof that a page is checked against the server's own types.
 */
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '../..');

/** tsc's diagnostics for the page's tsconfig, with `script` (relative to the repository) read as `text` if given. */
export function pageDiagnostics(tsconfig: string, script: string, text?: string): string[] {
  const configFile = join(ROOT, tsconfig);
  const read = ts.readConfigFile(configFile, (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(configFile));
  const host = ts.createCompilerHost(parsed.options);
  const planted = join(ROOT, script);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) =>
    text !== undefined && resolve(name) === planted ? ts.createSourceFile(name, text, version) : getSourceFile(name, version, onError, create);
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, host });
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}
