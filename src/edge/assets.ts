/**
 * A port's static page files — the technician page and the kiosk page, each an HTML file or
 * template, a script and a style — found and read one way (record 0161). Each lives in its room's
 * `page/` folder beside the module that serves it: `src/<room>/page/` when the sources run (tests),
 * `app/page/` in a bundle (every module is one file in `app/`, scripts/app/build.mjs copies the
 * pages there), and tsc's `dist/src/<room>/` finds them in the package's `src/<room>/page/`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where `name` is for the module at `moduleUrl` (its `import.meta.url`); throws naming where it looked. */
export function assetPath(moduleUrl: string, name: string): string {
  const here = dirname(fileURLToPath(moduleUrl));
  const dist = `${sep}dist${sep}src${sep}`;
  const at = here.lastIndexOf(dist);
  const candidates = [join(here, 'page', name), ...(at < 0 ? [] : [join(`${here.slice(0, at)}${sep}src${sep}${here.slice(at + dist.length)}`, 'page', name)])];
  const found = candidates.find((c) => existsSync(c));
  if (found !== undefined) return found;
  throw new Error(`page asset ${name} not found (looked in ${candidates.join(', ')})`);
}

/** The text of the page file `name` of the module at `moduleUrl`. */
export function readAsset(moduleUrl: string, name: string): string {
  return readFileSync(assetPath(moduleUrl, name), 'utf8');
}
