/**
 * Config keys that were renamed: the old name is still read, moved to the new one before
 * validation (so the schema, the reload classes and every reader know only the new name), and
 * reported as a warning the station logs once per reading of the file. Both names in one file is a
 * problem (exit 78): which of the two is meant cannot be guessed. How long an old name is read:
 * docs/decisions/0164-names-that-say-what-a-thing-is.md.
 */
import type { ConfigProblem } from '../errors.js';

export interface RenamedKey {
  /** The top-level key as older config files write it. */
  readonly old: string;
  /** Its name now. */
  readonly now: string;
  /** The first release that no longer reads the old name: a major version, never a patch of a supported line (record 0164). */
  readonly removedIn: string;
}

export const RENAMED_KEYS: readonly RenamedKey[] = [{ old: 'debug', now: 'technician', removedIn: '1.0.0' }];

/** Something the loader accepted but the technician should change; logged at warn, never fatal. */
export interface ConfigWarning {
  readonly kind: 'renamed-key';
  /** The key as the file writes it. */
  readonly path: string;
  /** What to write instead. */
  readonly replacement: string;
  readonly message: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `raw` with every old top-level name moved to its new one (a copy; `raw` is not changed), the
 * warnings for the old names found, and a problem for each key written under both names.
 * Anything that is not an object is left for the schema to report.
 */
export function moveRenamedKeys(raw: unknown): { raw: unknown; warnings: ConfigWarning[]; problems: ConfigProblem[]; moved: RenamedKey[] } {
  const warnings: ConfigWarning[] = [];
  const problems: ConfigProblem[] = [];
  const moved: RenamedKey[] = [];
  if (!isRecord(raw)) return { raw, warnings, problems, moved };
  let out: Record<string, unknown> = raw;
  for (const { old, now, removedIn } of RENAMED_KEYS) {
    if (!Object.hasOwn(out, old)) continue;
    const { [old]: value, ...rest } = out;
    if (Object.hasOwn(out, now)) {
      // Reported once here, not again by the schema as an unknown key.
      problems.push({ path: old, message: `the old name of "${now}", which is written too: keep only "${now}"` });
      out = rest;
      continue;
    }
    out = { ...rest, [now]: value };
    moved.push({ old, now, removedIn });
    warnings.push({
      kind: 'renamed-key',
      path: old,
      replacement: now,
      message: `config key "${old}" is now called "${now}": rename it in the file (releases before ${removedIn} still read the old name)`,
    });
  }
  return { raw: out, warnings, problems, moved };
}

/** A problem's path as the file writes it: under the old name where the section was moved from it. */
export function pathAsWritten(problem: ConfigProblem, moved: readonly RenamedKey[]): ConfigProblem {
  const renamed = moved.find((r) => problem.path === r.now || problem.path.startsWith(`${r.now}.`));
  return renamed === undefined ? problem : { ...problem, path: renamed.old + problem.path.slice(renamed.now.length) };
}
