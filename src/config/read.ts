/**
 * Reading a JSON file and turning zod issues into config problems: what the station config, the
 * board profile, safe-state and the portal CLI share. No schema here, so importing it costs
 * nothing else (safe-state is timed: it runs before every start, ARCHITECTURE.md "Start-up").
 */
import { readFileSync } from 'node:fs';
import type * as z from 'zod';
import { ConfigError, type ConfigProblem } from '../errors.js';

function renderValue(v: unknown): string {
  const s = JSON.stringify(v);
  if (s === undefined) return String(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/** zod issues -> problems with dotted paths and the bad value. */
export function zodProblems(error: z.ZodError, prefix = ''): ConfigProblem[] {
  return error.issues.map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    const value = 'input' in issue && issue.input !== undefined ? renderValue(issue.input) : undefined;
    return value === undefined ? { path, message: issue.message } : { path, message: issue.message, value };
  });
}

/** Why a JSON file could not be read or parsed, for a config problem. */
export function readFailure(e: unknown): string {
  return e instanceof SyntaxError ? `not valid JSON: ${e.message}` : `cannot read: ${(e as NodeJS.ErrnoException).code ?? String(e)}`;
}

/** Read and parse a JSON file; a failure is a ConfigError of `source` (default: the file). */
export function readJsonFile(file: string, source = file): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError(source, [{ path: '', message: readFailure(e) }]);
  }
}
