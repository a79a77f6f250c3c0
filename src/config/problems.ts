/**
 * Config problems as a technician reads them (exit-78 message, the technician reload's 422 body):
 * the path and the kind of problem, and the offending value only when it cannot be a secret.
 *
 * Why values are filtered at all: a token or a password pasted into the wrong key is the most
 * common config mistake around secrets, and the message about that mistake goes to the journal and
 * over the technician port. So a value is shown only when it is a number, a boolean, null or a
 * string that neither sits under a secret-looking key nor looks like a secret itself; objects and
 * arrays are described by their shape (keys, length), never printed, since they may hold one.
 *
 * Rendering never throws, whatever the input (deep, huge, cyclic-looking): it is what reports
 * broken input.
 */
import type * as z from '../schema.js';
import type { ConfigProblem } from '../errors.js';
import { UUID_ANY_CASE_RE } from '../uuid.js';

/** A key under which a value must never be shown (any segment of the path). */
const SECRET_KEY_RE = /pass(word|wd|phrase)?|secret|token|bearer|auth|credential|api[-_]?key|private|hash|^key$|cookie|session/i;

/**
 * Whether a string looks like a credential: a technician token (`pst_`), an HTTP credential
 * (`Basic …`, `Bearer …`), a station password (20 alphanumerics), or a long run of mixed letters
 * and digits (a JWT, an API key, a base64 secret: some piece between - _ . : of 16 or more
 * characters with digits and letters). UUIDs (station and box ids), URLs, paths, texts and names
 * like `rpi4-12-boxes.json` are not.
 */
export function looksLikeSecret(s: string): boolean {
  if (/^pst_/i.test(s) || /^(basic|bearer)\s+\S/i.test(s) || /^[A-Za-z0-9]{20}$/.test(s)) return true;
  if (s.length < 16 || /\s/.test(s) || s.includes('/') || UUID_ANY_CASE_RE.test(s)) return false;
  return s.split(/[-_.:]/).some((piece) => piece.length >= 16 && /[0-9]/.test(piece) && /[A-Za-z]/.test(piece));
}

/**
 * Whether the key a value sits under (the last named segment of its path: `tokens` for
 * `technician.tokens.0`) names something secret. Keys that name a file (`passwordFile`) hold paths:
 * their values are judged by looksLikeSecret alone.
 */
export function isSecretPath(path: readonly PropertyKey[]): boolean {
  const key = [...path].reverse().find((k): k is string => typeof k === 'string');
  return key !== undefined && !/(File|Path|Dir|Directory)$/.test(key) && SECRET_KEY_RE.test(key);
}

/** A key name as it may be printed (a key can be a pasted secret too). */
function keyName(k: string): string {
  if (looksLikeSecret(k)) return `(a ${k.length}-character key, not shown: it looks like a secret)`;
  return k.length > 40 ? `${JSON.stringify(k.slice(0, 37))}...` : JSON.stringify(k);
}

/** The value as a problem shows it; undefined when nothing should be shown. */
export function renderValue(v: unknown, path: readonly PropertyKey[]): string | undefined {
  try {
    if (v === undefined) return undefined;
    if (v === null || typeof v === 'number' || typeof v === 'boolean') return String(v);
    if (typeof v === 'string') {
      if (isSecretPath(path) || looksLikeSecret(v)) return `a ${v.length}-character string, not shown: it may be a secret`;
      const s = JSON.stringify(v);
      return s.length > 80 ? `${s.slice(0, 77)}...` : s;
    }
    if (Array.isArray(v)) return `an array of ${v.length}`;
    if (typeof v === 'object') {
      const keys = Object.keys(v);
      const shown = keys.slice(0, 6).map(keyName).join(', ');
      return keys.length === 0 ? 'an empty object' : `an object with keys ${shown}${keys.length > 6 ? `, … (${keys.length} in all)` : ''}`;
    }
    return typeof v;
  } catch {
    return undefined;
  }
}

/** Dotted path of a problem: "station.boxes.2.id"; very deep paths are shortened in the middle. */
export function dottedPath(segments: readonly PropertyKey[], prefix = ''): string {
  const parts = [prefix, ...segments.map((s) => (typeof s === 'string' && looksLikeSecret(s) ? '(hidden key)' : String(s)))].filter(Boolean);
  if (parts.length <= 12) return parts.join('.');
  return [...parts.slice(0, 6), `…(${parts.length - 9} more)…`, ...parts.slice(-3)].join('.');
}

/** zod issues -> problems with dotted paths and, where safe, the bad value. */
export function zodProblems(error: Pick<z.core.$ZodError, 'issues'>, prefix = ''): ConfigProblem[] {
  const issues = error.issues.length > MAX_PROBLEMS ? error.issues.slice(0, MAX_PROBLEMS) : error.issues;
  const problems = issues.map((issue): ConfigProblem => {
    const path = dottedPath(issue.path, prefix);
    // zod's own text for unknown keys quotes them; a key can be a pasted secret.
    const message =
      issue.code === 'unrecognized_keys'
        ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map(keyName).join(', ')} (a typo? unknown keys are errors)`
        : issue.message;
    const value = issue.code === 'unrecognized_keys' ? undefined : 'input' in issue ? renderValue(issue.input, issue.path) : undefined;
    return value === undefined ? { path, message } : { path, message, value };
  });
  if (error.issues.length > MAX_PROBLEMS)
    problems.push({ path: prefix, message: `… and ${error.issues.length - MAX_PROBLEMS} more problems (fix these first)` });
  return problems;
}

/** Problems kept per validation: a 1 MiB file of wrong values would otherwise make a 422 body of megabytes. */
export const MAX_PROBLEMS = 200;
