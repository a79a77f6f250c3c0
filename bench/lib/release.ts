/**
 * What the bench runs, laid out as the release installs it: the app as scripts/app/build.mjs
 * bundles it (`npm run build` wrote app/ before the bench started), package.json beside it, and
 * node_modules for the externals (native addons). And the bench's own station children (memory,
 * scan, latency), bundled the same way, so they run the station code as the release ships it.
 */
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO } from './repo.js';

/** A release folder (stands in for /opt/pickup-station/current) under `dir`. */
export function stageRelease(dir: string): string {
  const release = join(dir, 'release');
  rmSync(release, { recursive: true, force: true });
  mkdirSync(release, { recursive: true });
  cpSync(join(REPO, 'app'), join(release, 'app'), { recursive: true });
  cpSync(join(REPO, 'package.json'), join(release, 'package.json'));
  symlinkSync(join(REPO, 'node_modules'), join(release, 'node_modules'));
  return release;
}

interface AppBuild {
  readonly buildApp: (opts: { out: string; entries: Record<string, string> }) => Promise<unknown>;
}

/** bench/children/<name>.ts bundled to <out>/<name>.js; returns name -> file. */
export async function bundleChildren(out: string, names: readonly string[]): Promise<Record<string, string>> {
  const { buildApp } = (await import(pathToFileURL(join(REPO, 'scripts/app/build.mjs')).href)) as AppBuild;
  await buildApp({ out, entries: Object.fromEntries(names.map((n) => [n, join(REPO, 'dist/bench/children', `${n}.js`)])) });
  // The bundled children resolve packages (serialport) from the repository's node_modules, and
  // find package.json (the version) above them: out is inside the repository.
  writeFileSync(join(out, 'README'), 'bench station children, bundled like the release (bench/lib/release.ts); rebuilt every run\n');
  return Object.fromEntries(names.map((n) => [n, join(out, `${n}.js`)]));
}
