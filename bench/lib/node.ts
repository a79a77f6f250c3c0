/**
 * The Node versions a bench run measures: the one running the bench (Debian's nodejs 20 on the
 * project's machines) and the Node LTS the arm64 release ships (scripts/node/versions.sh, fetched
 * from the npm registry by scripts/node/fetch.sh into .cache/node/). Every station figure is taken
 * with each, beside bare Node of the same version.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './repo.js';

export interface NodeUnderTest {
  /** e.g. "node 20" */
  readonly label: string;
  readonly path: string;
  /** process.version of that binary, e.g. "v24.21.0". */
  readonly version: string;
  /** Where it comes from, for the report. */
  readonly origin: string;
}

export function pinnedLtsVersion(): string {
  const text = readFileSync(join(REPO, 'scripts/node/versions.sh'), 'utf8');
  const v = /^NODE_LTS_VERSION=([0-9.]+)$/m.exec(text)?.[1];
  if (v === undefined) throw new Error('scripts/node/versions.sh: no NODE_LTS_VERSION');
  return v;
}

function describe(path: string, origin: string): NodeUnderTest {
  const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();
  return { label: `node ${version.slice(1).split('.')[0] ?? '?'}`, path, version, origin };
}

/**
 * This process's node, then the pinned LTS (unless it is the same major). `onlyHost`: skip the
 * download (e.g. offline); a failed fetch is reported and the run goes on with the host's node.
 */
export function nodesUnderTest(opts: { onlyHost: boolean; progress: (msg: string) => void }): NodeUnderTest[] {
  const host = describe(process.execPath, process.execPath);
  if (opts.onlyHost) return [host];
  const version = pinnedLtsVersion();
  if (host.version === `v${version}`) return [host];
  const pkg = `node-linux-${process.arch}`;
  try {
    const dir = execFileSync('bash', [join(REPO, 'scripts/node/fetch.sh'), pkg, version], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
    return [host, describe(`${dir}/bin/node`, `${pkg}@${version} (npm registry; what the arm64 release ships)`)];
  } catch (e) {
    opts.progress(`cannot fetch ${pkg}@${version} (${e instanceof Error ? e.message.split('\n')[0] : String(e)}): measuring ${host.version} only`);
    return [host];
  }
}
