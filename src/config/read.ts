/**
 * Reading a JSON file for a config problem report: size and depth caps, a byte-order mark
 * accepted, syntax errors as messages that never quote the file. No schema here, so that
 * safe-state reads its config without evaluating the station's whole schema
 * (docs/decisions/0050); load.ts re-exports all of it.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { ConfigError, errorMessage, type ConfigProblem } from '../errors.js';
import { dottedPath } from './problems.js';

/** Largest config file (or board profile) read: a config is a few KiB; anything near this is a wrong file. */
export const MAX_CONFIG_BYTES = 1_048_576;
/** Deepest nesting accepted: the schema's deepest key is 6 levels down (hardware.power.signal.argv.0). */
export const MAX_CONFIG_DEPTH = 32;

/**
 * Where `raw` nests deeper than `max` levels (the path down to that point), or null. Iterative:
 * a 100,000-deep file must not overflow the stack of what reports it.
 */
export function tooDeep(raw: unknown, max = MAX_CONFIG_DEPTH): PropertyKey[] | null {
  const stack: { v: unknown; path: PropertyKey[] }[] = [{ v: raw, path: [] }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { v, path } = item;
    if (typeof v !== 'object' || v === null) continue;
    if (path.length >= max) return path;
    const entries: [PropertyKey, unknown][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
    for (const [k, x] of entries) if (typeof x === 'object' && x !== null) stack.push({ v: x, path: [...path, k] });
  }
  return null;
}

export function deepProblem(path: readonly PropertyKey[]): ConfigProblem {
  return { path: dottedPath(path), message: `nested more than ${MAX_CONFIG_DEPTH} levels deep; a station config is at most 6` };
}

/**
 * A JSON syntax error as a problem message, without the file's text: V8 quotes the text around
 * the error ("Unexpected token 'a', "{"x": abc…" is not valid JSON"), and that text may be a
 * secret. The position becomes a line and column.
 */
export function jsonSyntaxMessage(e: SyntaxError, text?: string): string {
  const m = e.message;
  const at = /at position (\d+)/.exec(m);
  let where = '';
  if (at?.[1] !== undefined && text !== undefined) {
    const before = text.slice(0, Number(at[1]));
    const line = before.split('\n').length;
    where = ` at line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
  }
  const token = /^Unexpected token '(.+?)'/.exec(m)?.[1];
  if (token !== undefined) {
    const what = /^[A-Za-z0-9]/.test(token) ? 'a letter or digit outside quotes (a value without its quotes?)' : `the character ${JSON.stringify(token)}`;
    return `not valid JSON: unexpected ${what}${where}`;
  }
  const kind = m
    .replace(/ in JSON at position \d+.*$/s, '')
    .replace(/ at position \d+.*$/s, '')
    .replace(/, ".*$/s, '');
  return `not valid JSON: ${kind}${where}`;
}

/** Why a JSON file could not be read or parsed, for a config problem (never the file's text). */
export function readFailure(e: unknown, text?: string): string {
  return e instanceof SyntaxError ? jsonSyntaxMessage(e, text) : `cannot read: ${(e as NodeJS.ErrnoException).code ?? errorMessage(e)}`;
}

/**
 * Read and parse a JSON file: at most MAX_CONFIG_BYTES, a UTF-8 byte-order mark accepted (Windows
 * editors write one), nesting at most MAX_CONFIG_DEPTH. A failure is a ConfigError of `source`
 * (default: the file) with one problem.
 */
export function readJsonFile(file: string, source = file): unknown {
  return readJsonVersioned(file, source).raw;
}

/** The first 16 hex digits of the SHA-256 of a config file's bytes: which version of the file a station runs. */
export function configDigest(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

/** readJsonFile, and the digest of the bytes it parsed (configDigest). */
export function readJsonVersioned(file: string, source = file): { readonly raw: unknown; readonly version: string } {
  const fail = (path: string, message: string): never => {
    throw new ConfigError(source, [{ path, message }]);
  };
  let bytes: Buffer;
  try {
    const st = statSync(file);
    if (!st.isFile()) fail('', 'cannot read: not a regular file');
    if (st.size > MAX_CONFIG_BYTES) fail('', `the file has ${st.size} bytes; a config is at most ${MAX_CONFIG_BYTES} (is this the right file?)`);
    bytes = readFileSync(file);
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    return fail('', readFailure(e));
  }
  const version = configDigest(bytes);
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return fail('', readFailure(e, text));
  }
  const deep = tooDeep(raw);
  if (deep !== null) throw new ConfigError(source, [deepProblem(deep)]);
  return { raw, version };
}
