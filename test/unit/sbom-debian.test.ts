/**
 * The board's SBOM from what dpkg says (src/sbom/): dpkg-query's lines, the licences a package's
 * machine-readable copyright file states (as SPDX ids where Debian's short name is one), the
 * dependencies resolved to installed packages, and the one document joining them with the release's
 * own SBOM. The command itself on a real Debian system: test/e2e/stationctl-sbom-system.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { dependencyGraph, licencesOfCopyright, parseDpkgQuery, spdxOf } from '../../src/sbom/debian.js';
import { systemBom } from '../../src/sbom/system-bom.js';

const REPO = join(import.meta.dirname, '../..');
const line = (...f: string[]) => `${f.join('\t')}\n`;
const LISTING = [
  line('ii ', 'libc6', '2.36-9+deb12u9', 'arm64', 'glibc', '2.36-9+deb12u9', '', 'libgcc-s1', ''),
  line('ii ', 'libgcc-s1', '12.2.0-14', 'arm64', 'gcc-12', '12.2.0-14', '', 'gcc-12-base (= 12.2.0-14), libc6 (>= 2.35)', ''),
  line('ii ', 'gcc-12-base', '12.2.0-14', 'arm64', 'gcc-12', '12.2.0-14', '', '', ''),
  line('ii ', 'libusb-1.0-0', '2:1.0.26-1', 'arm64', 'libusb-1.0', '', '', 'libc6 (>= 2.34), libudev1 (>= 183)', ''),
  line('iU ', 'libudev1', '252.33-1~deb12u1', 'arm64', 'systemd', '', '', 'libc6 (>= 2.34), libcap2 (>= 1:2.10)', ''),
  line('rc ', 'oldpkg', '1.0', 'arm64', '', '', '', '', ''),
  line('ii ', 'mawk', '1.3.4.20200120-3.1', 'arm64', '', '', '', 'libc6 (>= 2.34)', 'awk'),
  line('ii ', 'adduser', '3.134', 'all', '', '', 'debconf | debconf-2.0', 'passwd, awk', ''),
].join('');

it('parses dpkg-query: installed and half-installed packages, sources, dependencies; not removed ones', () => {
  const p = parseDpkgQuery(LISTING);
  expect(p.map((x) => x.name)).toEqual(['adduser', 'gcc-12-base', 'libc6', 'libgcc-s1', 'libudev1', 'libusb-1.0-0', 'mawk']);
  expect(p.find((x) => x.name === 'libusb-1.0-0')).toMatchObject({ version: '2:1.0.26-1', source: 'libusb-1.0', sourceVersion: '2:1.0.26-1', state: null });
  expect(p.find((x) => x.name === 'libudev1')).toMatchObject({ source: 'systemd', state: 'unpacked' });
  expect(p.find((x) => x.name === 'adduser')?.depends).toBe('debconf | debconf-2.0, passwd, awk');
  expect(p.find((x) => x.name === 'mawk')?.provides).toEqual(['awk']);
});

it('resolves each dependency to the installed package: the first alternative installed, virtual packages by Provides', () => {
  const g = dependencyGraph(parseDpkgQuery(LISTING));
  expect(g.get('deb:libgcc-s1:arm64')).toEqual(['deb:gcc-12-base:arm64', 'deb:libc6:arm64']);
  // debconf and passwd are not installed here: left out; awk is mawk's.
  expect(g.get('deb:adduser:all')).toEqual(['deb:mawk:arm64']);
  expect(g.get('deb:libusb-1.0-0:arm64')).toEqual(['deb:libc6:arm64', 'deb:libudev1:arm64']);
});

it("maps Debian's licence short names to SPDX ids that exist, and keeps the others as names", () => {
  const ids = new Set((JSON.parse(readFileSync(join(REPO, 'scripts/release/schema/spdx.SNAPSHOT.schema.json'), 'utf8')) as { enum: string[] }).enum);
  const names = [
    'GPL-2',
    'GPL-2+',
    'GPL-3+',
    'LGPL-2.1+',
    'LGPL-2',
    'LGPL-3',
    'AGPL-3+',
    'GFDL-1.2+',
    'Expat',
    'BSD-3-clause',
    'bsd-2-clause',
    'Apache-2.0',
    'ISC',
    'Zlib',
    'MPL-2.0',
    'CC0-1.0',
    'OpenSSL',
    'curl',
    'X11',
    'SIL-OFL-1.1',
    'Unicode-DFS-2016',
    'WTFPL',
    '0BSD',
    'BSL-1.0',
    'PSF-2.0',
    'Python-2.0',
    'CC-BY-SA-4.0',
    'Artistic-2.0',
  ];
  for (const n of names) {
    const id = spdxOf(n);
    expect(id, n).not.toBeNull();
    expect(ids.has(id ?? ''), `${n} -> ${id}`).toBe(true);
  }
  expect(spdxOf('GPL-2+')).toBe('GPL-2.0-or-later');
  expect(spdxOf('LGPL-2.1')).toBe('LGPL-2.1-only');
  expect(spdxOf('Expat')).toBe('MIT');
  for (const n of ['public-domain', 'Artistic', 'GPL-4+', 'permissive', 'other']) expect(spdxOf(n), n).toBeNull();
});

it('reads the licences of a machine-readable copyright file; a free-text one states none', () => {
  const dep5 = [
    'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/',
    'Upstream-Name: example',
    '',
    'Files: *',
    'Copyright: 2020 Someone',
    'License: LGPL-2.1+',
    '',
    'Files: src/compat/*',
    'License: GPL-2+ or Expat',
    '',
    'Files: debian/*',
    'License: public-domain',
    '',
    'License: LGPL-2.1+',
    ' The full text ...',
    '',
    'Files: tools/*',
    'License: GPL-2 with OpenSSL exception',
  ].join('\n');
  expect(licencesOfCopyright(dep5)).toEqual([
    { license: { id: 'LGPL-2.1-or-later' } },
    { license: { id: 'GPL-2.0-or-later' } },
    { license: { id: 'MIT' } },
    { license: { name: 'public-domain' } },
    { license: { name: 'GPL-2 with OpenSSL exception' } },
  ]);
  expect(licencesOfCopyright('This package was debianized by someone.\n\nIt is licensed under the GPL, see /usr/share/common-licenses/GPL.\n')).toBeNull();
});

it('joins the release SBOM and the packages: exact versions and purls, the release on the installed packages it declares, the kiosk marked, every ref defined once', () => {
  const release = {
    metadata: { component: { type: 'firmware', 'bom-ref': 'release:pickup-station', name: 'pickup-station', version: '0.2.0' } },
    components: [
      { type: 'library', 'bom-ref': 'npm:node_modules/pino', name: 'pino', version: '10.4.0' },
      { type: 'library', 'bom-ref': 'deb:libusb-1.0-0', name: 'libusb-1.0-0', scope: 'required' },
      { type: 'library', 'bom-ref': 'deb:gpiod', name: 'gpiod', scope: 'required' },
    ],
    dependencies: [
      { ref: 'release:pickup-station', dependsOn: ['deb:gpiod', 'deb:libusb-1.0-0', 'npm:node_modules/pino'] },
      { ref: 'npm:node_modules/pino', dependsOn: [] },
      { ref: 'deb:libusb-1.0-0', dependsOn: [] },
    ],
  };
  const bom = systemBom({
    release,
    packages: parseDpkgQuery(LISTING),
    licences: new Map([['libc6', [{ license: { id: 'LGPL-2.1-or-later' } }]]]),
    os: { id: 'debian', versionId: '12', codename: 'bookworm', prettyName: 'Debian GNU/Linux 12 (bookworm)' },
    kernel: '6.1.0-57-arm64',
    kioskPackages: ['mawk', 'chromium'],
    timestamp: '2026-12-05T12:00:00Z',
    serial: '00000000-0000-4000-8000-000000000000',
  }) as {
    metadata: { component: { properties: { name: string; value: string }[] } };
    components: Record<string, unknown>[];
    dependencies: { ref: string; dependsOn: string[] }[];
  };
  const byRef = new Map(bom.components.map((c) => [c['bom-ref'], c]));
  expect(byRef.get('deb:libusb-1.0-0:arm64')).toMatchObject({
    name: 'libusb-1.0-0',
    version: '2:1.0.26-1',
    purl: 'pkg:deb/debian/libusb-1.0-0@2%3A1.0.26-1?arch=arm64&distro=bookworm',
    properties: expect.arrayContaining([
      { name: 'pickup-station:debian-source', value: 'libusb-1.0 2:1.0.26-1' },
      { name: 'pickup-station:role', value: 'release-dependency' },
    ]),
  });
  expect(byRef.get('deb:libc6:arm64')).toMatchObject({ licenses: [{ license: { id: 'LGPL-2.1-or-later' } }] });
  expect(byRef.get('deb:libudev1:arm64')).toMatchObject({ properties: expect.arrayContaining([{ name: 'pickup-station:dpkg-state', value: 'unpacked' }]) });
  expect(byRef.get('deb:mawk:arm64')).toMatchObject({ properties: expect.arrayContaining([{ name: 'pickup-station:role', value: 'kiosk' }]) });
  // The declared (unversioned) Debian components of the release are replaced by the installed ones.
  expect(byRef.has('deb:libusb-1.0-0')).toBe(false);
  expect(byRef.get('npm:node_modules/pino')).toMatchObject({ version: '10.4.0' });
  expect(byRef.get('os')).toMatchObject({ type: 'operating-system', name: 'debian', version: '12' });
  const deps = new Map(bom.dependencies.map((d) => [d.ref, d.dependsOn]));
  expect(deps.get('release:pickup-station')).toEqual(['deb:libusb-1.0-0:arm64', 'npm:node_modules/pino']);
  expect(deps.get('station')).toEqual(['release:pickup-station', 'os']);
  expect(bom.metadata.component.properties).toEqual(
    expect.arrayContaining([
      { name: 'pickup-station:kiosk', value: 'installed: mawk' },
      { name: 'pickup-station:release-dependencies-missing', value: 'gpiod' },
    ]),
  );
  const refs = [...bom.components.map((c) => String(c['bom-ref'])), 'station'];
  expect(new Set(refs).size).toBe(refs.length);
  for (const d of bom.dependencies) for (const r of [d.ref, ...d.dependsOn]) expect(refs, r).toContain(r);
});

it("the kiosk's package list the release ships is the one the virtual board's kiosk image installs", () => {
  const shipped = readFileSync(join(REPO, 'systemd/kiosk-packages'), 'utf8')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter((l) => l !== '');
  const image = /^KIOSK_PACKAGES=\(([^)]*)\)/m
    .exec(readFileSync(join(REPO, 'scripts/board/image.sh'), 'utf8'))?.[1]
    ?.trim()
    .split(/\s+/);
  expect(shipped).toEqual(image);
});
