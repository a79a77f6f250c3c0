/**
 * The installer as a release carries it: systemd/install.sh and its job files
 * systemd/installer/*.sh, which it sources and without which it does not run. For the tests that
 * make a stand-in release tree or bundle.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const REPO = join(import.meta.dirname, '../..');

/** The installer's files, path in a release tree (systemd/...) -> content. */
export function installerFiles(): Record<string, string> {
  const jobs = readdirSync(join(REPO, 'systemd/installer'))
    .filter((f) => f.endsWith('.sh'))
    .sort();
  return Object.fromEntries(['install.sh', ...jobs.map((f) => `installer/${f}`)].map((f) => [`systemd/${f}`, readFileSync(join(REPO, 'systemd', f), 'utf8')]));
}
