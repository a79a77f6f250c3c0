/** The software version, read once from package.json (reported in User-Agent and to technicians). */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageJson(): { name: string; version: string; root: string } {
  // Works from src/ (tests, tsx) and from dist/src/ (built, bundled).
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'pickup-station' && pkg.version) return { name: pkg.name, version: pkg.version, root: dir };
    } catch {
      // not here; go up
    }
    dir = dirname(dir);
  }
  throw new Error('package.json of pickup-station not found');
}

const pkg = findPackageJson();
export const VERSION: string = pkg.version;
export const USER_AGENT = `pickup-station/${VERSION}`;
/** The folder of that package.json: the release (/opt/pickup-station/current) or the checkout. */
export const PACKAGE_ROOT: string = pkg.root;
