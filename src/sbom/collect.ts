/**
 * `stationctl sbom --system`: what is installed on this board, read where Debian keeps it —
 * `dpkg-query` (every package, its version, architecture, source and dependencies),
 * `/usr/share/doc/<package>/copyright` (the licences it states), `/etc/os-release`, the running
 * kernel — joined with the running release's own SBOM into one CycloneDX document (system-bom.ts).
 * Reads only what every user may read: no root needed.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { release as kernelRelease } from 'node:os';
import { join } from 'node:path';
import { DPKG_QUERY_FORMAT, type Licence, licencesOfCopyright, parseDpkgQuery } from './debian.js';
import { type OsRelease, type ReleaseBom, systemBom } from './system-bom.js';

export class SystemSbomError extends Error {
  override readonly name = 'SystemSbomError';
}

/** Where the board's files are: `/` on a station (a test or an image builder may point elsewhere). */
export interface SystemPaths {
  /** The running release's folder (its sbom.cdx.json, systemd/kiosk-packages). */
  readonly releaseRoot: string;
  readonly osRelease: string;
  readonly docDir: string;
}

export const STATION_PATHS = { osRelease: '/etc/os-release', docDir: '/usr/share/doc' } as const;

function parseOsRelease(text: string): OsRelease {
  const fields = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m !== null) fields.set(m[1] ?? '', (m[2] ?? '').replace(/^"(.*)"$/, '$1'));
  }
  const id = fields.get('ID') ?? '';
  if (id === '') throw new SystemSbomError('os-release has no ID=');
  return {
    id,
    versionId: fields.get('VERSION_ID') ?? '',
    codename: fields.get('VERSION_CODENAME') ?? '',
    prettyName: fields.get('PRETTY_NAME') ?? id,
  };
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new SystemSbomError(`${what}: cannot read ${file}: ${(e as Error).message}`);
  }
}

/** The kiosk's packages the release names (one a line, "#" a comment); none in an older release. */
function kioskPackages(releaseRoot: string): string[] {
  let text: string;
  try {
    text = readFileSync(join(releaseRoot, 'systemd/kiosk-packages'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter((l) => l !== '')
    .map((l) => l.split(/\s+/)[0] ?? '');
}

/** The system SBOM of this board, as a CycloneDX 1.5 JSON text. */
export function collectSystemSbom(paths: SystemPaths): string {
  const releaseText = readText(join(paths.releaseRoot, 'sbom.cdx.json'), 'the release SBOM (a development build has none)');
  let release: ReleaseBom;
  try {
    release = JSON.parse(releaseText) as ReleaseBom;
  } catch {
    throw new SystemSbomError(`${join(paths.releaseRoot, 'sbom.cdx.json')} is not JSON`);
  }
  if (typeof release.metadata?.component?.version !== 'string') throw new SystemSbomError('the release SBOM has no metadata.component');
  let listing: string;
  try {
    listing = execFileSync('dpkg-query', ['-W', `-f=${DPKG_QUERY_FORMAT}`], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (e) {
    throw new SystemSbomError(`dpkg-query failed (not a Debian system?): ${(e as Error).message.split('\n')[0] ?? ''}`);
  }
  const packages = parseDpkgQuery(listing);
  if (packages.length === 0) throw new SystemSbomError('dpkg-query lists no installed package');
  const licences = new Map<string, readonly Licence[]>();
  for (const p of packages) {
    if (licences.has(p.name)) continue;
    let copyright: string;
    try {
      copyright = readFileSync(join(paths.docDir, p.name, 'copyright'), 'utf8');
    } catch {
      continue; // no copyright file: nothing stated
    }
    const found = licencesOfCopyright(copyright);
    if (found !== null) licences.set(p.name, found);
  }
  const bom = systemBom({
    release,
    packages,
    licences,
    os: parseOsRelease(readText(paths.osRelease, 'the operating system')),
    kernel: kernelRelease(),
    kioskPackages: kioskPackages(paths.releaseRoot),
    timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    serial: randomUUID(),
  });
  return `${JSON.stringify(bom, null, 2)}\n`;
}
