/**
 * What dpkg says about the packages installed on a board, read for the system's SBOM: the lines of
 * `dpkg-query -W -f=DPKG_QUERY_FORMAT`, the licences a package states in its machine-readable
 * `/usr/share/doc/<package>/copyright` (DEP-5), and which installed package each one's dependencies
 * resolve to. Pure: the caller reads the files and runs dpkg-query (collect.ts).
 */

/** Tab-separated, one package a line: what {@link parseDpkgQuery} reads. */
export const DPKG_QUERY_FORMAT =
  '${db:Status-Abbrev}\\t${Package}\\t${Version}\\t${Architecture}\\t${source:Package}\\t${source:Version}\\t${Pre-Depends}\\t${Depends}\\t${Provides}\\n';

export interface DebPackage {
  readonly name: string;
  readonly version: string;
  /** arm64, amd64, all, ... */
  readonly architecture: string;
  /** The source package (what Debian's security tracker and DSAs name) and its version. */
  readonly source: string;
  readonly sourceVersion: string;
  /** dpkg's state when not plainly installed ("unpacked", "half-configured", ...), else null. */
  readonly state: string | null;
  /** Pre-Depends and Depends, as dpkg writes them ("libc6 (>= 2.34), libfoo1 | libbar1"). */
  readonly depends: string;
  /** Provides, names only. */
  readonly provides: readonly string[];
}

const STATES: Readonly<Record<string, string>> = {
  H: 'half-installed',
  U: 'unpacked',
  F: 'half-configured',
  W: 'triggers-awaiting',
  t: 'triggers-pending',
};

/** Packages on the system (installed, or unpacked and not yet configured); removed ones and leftover config files are not. */
export function parseDpkgQuery(text: string): DebPackage[] {
  const packages: DebPackage[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const [abbrev = '', name = '', version = '', architecture = '', source = '', sourceVersion = '', pre = '', depends = '', provides = ''] = line.split('\t');
    const status = abbrev[1] ?? 'n';
    if (status === 'n' || status === 'c' || name === '' || version === '') continue;
    packages.push({
      name,
      version,
      architecture,
      source: source || name,
      sourceVersion: sourceVersion || version,
      state: status === 'i' ? null : (STATES[status] ?? status),
      depends: [pre, depends].filter((d) => d.trim() !== '').join(', '),
      provides: provides
        .split(',')
        .map((p) => p.trim().split(/[\s(]/)[0] ?? '')
        .filter((p) => p !== ''),
    });
  }
  return packages.sort((a, b) => cmp(a.name, b.name) || cmp(a.architecture, b.architecture));
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The bom-ref of an installed package: one per name and architecture (Multi-Arch: same installs several). */
export const debRef = (p: Pick<DebPackage, 'name' | 'architecture'>) => `deb:${p.name}:${p.architecture}`;

/**
 * Each package's dependencies as the installed packages that satisfy them: per clause, the first
 * alternative installed (by name, the same architecture first, or by a package providing it).
 * Clauses nothing installed satisfies are left out (dpkg --audit's business, not the SBOM's).
 */
export function dependencyGraph(packages: readonly DebPackage[]): Map<string, string[]> {
  const byName = new Map<string, DebPackage[]>();
  const add = (key: string, p: DebPackage) => byName.set(key, [...(byName.get(key) ?? []), p]);
  for (const p of packages) add(p.name, p);
  const providers = new Map<string, DebPackage[]>();
  for (const p of packages) for (const v of p.provides) providers.set(v, [...(providers.get(v) ?? []), p]);
  const graph = new Map<string, string[]>();
  for (const p of packages) {
    const refs = new Set<string>();
    for (const clause of p.depends.split(',')) {
      for (const alternative of clause.split('|')) {
        const name = alternative.trim().split(/[\s(:]/)[0] ?? '';
        if (name === '') continue;
        const candidates = byName.get(name) ?? providers.get(name) ?? [];
        const hit = candidates.find((c) => c.architecture === p.architecture) ?? candidates[0];
        if (hit !== undefined) {
          if (hit !== p) refs.add(debRef(hit));
          break;
        }
      }
    }
    graph.set(debRef(p), [...refs].sort());
  }
  return graph;
}

/** A licence as CycloneDX takes it: an SPDX id where the package's short name is one, else its name. */
export type Licence = { readonly license: { readonly id: string } } | { readonly license: { readonly name: string } };

/** Debian's short names (DEP-5) that are SPDX ids under another spelling; the GNU family is mapped by rule. */
const SPDX_OF: Readonly<Record<string, string>> = {
  'apache-2.0': 'Apache-2.0',
  'apache-1.1': 'Apache-1.1',
  'artistic-2.0': 'Artistic-2.0',
  'bsd-2-clause': 'BSD-2-Clause',
  'bsd-3-clause': 'BSD-3-Clause',
  'bsd-4-clause': 'BSD-4-Clause',
  'bsl-1.0': 'BSL-1.0',
  'cc0-1.0': 'CC0-1.0',
  'cc-by-3.0': 'CC-BY-3.0',
  'cc-by-4.0': 'CC-BY-4.0',
  'cc-by-sa-3.0': 'CC-BY-SA-3.0',
  'cc-by-sa-4.0': 'CC-BY-SA-4.0',
  curl: 'curl',
  expat: 'MIT',
  isc: 'ISC',
  mit: 'MIT',
  'mpl-1.1': 'MPL-1.1',
  'mpl-2.0': 'MPL-2.0',
  openssl: 'OpenSSL',
  'python-2.0': 'Python-2.0',
  'psf-2.0': 'PSF-2.0',
  'sil-ofl-1.1': 'OFL-1.1',
  'ofl-1.1': 'OFL-1.1',
  'unicode-dfs-2016': 'Unicode-DFS-2016',
  unlicense: 'Unlicense',
  wtfpl: 'WTFPL',
  x11: 'X11',
  zlib: 'Zlib',
  '0bsd': '0BSD',
};

/** The SPDX id of a DEP-5 short name ("GPL-2+" -> GPL-2.0-or-later, "Expat" -> MIT), or null. */
export function spdxOf(shortName: string): string | null {
  const gnu = /^(A?GPL|LGPL|GFDL)-(\d)(?:\.(\d))?(\+)?$/i.exec(shortName);
  if (gnu !== null) {
    const [, family = '', major = '', minor, later] = gnu;
    const f = family.toUpperCase();
    const known: Readonly<Record<string, readonly string[]>> = {
      GPL: ['1.0', '2.0', '3.0'],
      LGPL: ['2.0', '2.1', '3.0'],
      AGPL: ['1.0', '3.0'],
      GFDL: ['1.1', '1.2', '1.3'],
    };
    const version = `${major}.${minor ?? '0'}`;
    if (!(known[f] ?? []).includes(version)) return null;
    return `${f}-${version}-${later ? 'or-later' : 'only'}`;
  }
  return SPDX_OF[shortName.toLowerCase()] ?? null;
}

/**
 * The licences a package states in its copyright file, when the file is machine-readable (DEP-5:
 * its first paragraph has a Format: field); every short name of every License: field (expressions
 * split at "or", "and", ","), in the order first seen. Null when the file is free text: the
 * package states no licence a machine can read.
 */
export function licencesOfCopyright(text: string): Licence[] | null {
  const first = text.split(/\n\s*\n/)[0] ?? '';
  if (!/^Format:\s*https?:\/\/(www\.)?debian\.org\/doc\/packaging-manuals\/copyright-format\//im.test(first)) return null;
  const names: string[] = [];
  for (const m of text.matchAll(/^License:[ \t]*(.*)$/gim)) {
    for (const part of (m[1] ?? '').split(/\s+or\s+|\s+and\s+|,|\s+and\/or\s+/i)) {
      const name = part.trim();
      if (name !== '' && !names.includes(name)) names.push(name);
    }
  }
  if (names.length === 0) return null;
  const seen = new Set<string>();
  const out: Licence[] = [];
  for (const name of names) {
    const id = /\s/.test(name) ? null : spdxOf(name);
    const key = id ?? `name:${name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(id !== null ? { license: { id } } : { license: { name } });
  }
  return out;
}
