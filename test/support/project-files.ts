/** The project's own files (what its documents and comments are), walked from the repository root. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export const PROJECT_ROOT = join(import.meta.dirname, '../..');

/** Build output, caches, downloaded packages and generated figures: not the project's own text. */
const SKIP = new Set(['node_modules', 'dist', 'app', 'release', '.cache', '.board', '.rig', '.git', 'coverage', 'test-artifacts', 'out']);

/** Every file below `dir` (the root by default) whose name `keep` accepts, outside the skipped folders. */
export function projectFiles(keep: (name: string) => boolean, dir = PROJECT_ROOT): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...projectFiles(keep, path));
    else if (entry.isFile() && keep(entry.name)) out.push(path);
  }
  return out;
}
