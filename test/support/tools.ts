/**
 * Whether a host tool a test needs is present. Outside CI a missing tool skips the test (with a
 * line saying what to install); under CI (`CI` set, as `.ci/run` does) it fails instead, so a
 * package that `.ci/run` forgot to install can never pass as a quiet skip.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const IN_CI = process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false';

/** True when `present` holds; otherwise skip (with a hint) or, in CI, throw at collection time. */
export function requireTool(what: string, present: boolean, debianPackage: string): boolean {
  if (present) return true;
  const line = `${what} not found (Debian package ${debianPackage})`;
  if (IN_CI) throw new Error(`${line}: .ci/run must install it; CI does not skip tests for a missing tool`);
  console.error(`${line}: skipping`);
  return false;
}

export function runs(cmd: string, args: readonly string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}

export function anyExists(...paths: string[]): boolean {
  return paths.some((p) => existsSync(p));
}
