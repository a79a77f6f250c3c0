/**
 * Reads a board profile. Its problems are ConfigErrors with dotted paths (exit 78), raised
 * before any line is touched.
 */
import { ConfigError, type ConfigProblem } from '../errors.js';
import { boardProfileSchema, type BoardProfile } from '../devices/board-config.js';
import { zodProblems } from './problems.js';
import { readJsonFile } from './read.js';

/**
 * Read and validate a profile. With `boxNumbers` (the station config's), every configured box
 * must be wired in the profile. Throws ConfigError naming the profile file and each path.
 */
export function loadBoardProfile(file: string, boxNumbers?: readonly number[]): BoardProfile {
  const raw = readJsonFile(file, `board profile ${file} (hardware.profile)`);
  const result = boardProfileSchema.safeParse(raw, { reportInput: true });
  const problems: ConfigProblem[] = result.success ? [] : zodProblems(result.error);
  if (result.success && boxNumbers) {
    const wired = new Set(result.data.boxes.map((b) => b.number));
    for (const n of boxNumbers) if (!wired.has(n)) problems.push({ path: 'boxes', message: `station.boxes has box ${n}, which this profile does not wire` });
  }
  if (!result.success || problems.length > 0) throw new ConfigError(`board profile ${file} (hardware.profile)`, problems);
  return result.data;
}
