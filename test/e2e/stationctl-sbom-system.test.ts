/**
 * `stationctl sbom --system` on a real Debian system (this machine: CI's Debian, with chromium, one
 * of the kiosk's packages, installed by .ci/run): the release's app run from a release folder as
 * the wrapper runs it, its SBOM written by the real scripts/release/sbom.mjs. The document is
 * checked by scripts/release/check-sbom.mjs (the vendored CycloneDX 1.5 schema and the CycloneDX
 * library's own strict validator) and against dpkg-query itself: every package installed, at its
 * version and architecture, nothing else; the release's npm components kept. The same command on
 * the virtual board's arm64 image: scripts/board/parts/sbom.mjs.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PINO, addVendorFiles, stageRelease } from '../support/release-vendor.js';
import { requireTool, runs } from '../support/tools.js';

const REPO = join(import.meta.dirname, '../..');
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const HAVE =
  requireTool('dpkg-query', runs('dpkg-query', ['--version']), 'dpkg') && requireTool('chromium', runs('dpkg-query', ['-W', 'chromium']), 'chromium');

interface Bom {
  metadata: { component: { 'bom-ref': string; properties: { name: string; value: string }[] } };
  components: { 'bom-ref': string; name: string; version?: string; purl?: string; licenses?: unknown[]; properties?: { name: string; value: string }[] }[];
  dependencies: { ref: string; dependsOn: string[] }[];
}

let work: string;
let release: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'sbom-system-test-'));
  release = join(work, `pickup-station-${VERSION}`);
  stageRelease(release, VERSION, ['runtime-packages', 'kiosk-packages']);
  addVendorFiles(release, VERSION);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const stationctl = (...args: string[]) =>
  spawnSync(process.execPath, [join(release, 'app/stationctl.js'), ...args], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] },
    maxBuffer: 64 * 1024 * 1024,
  });

it.skipIf(!HAVE)(
  "lists the release and every Debian package installed, at dpkg's versions; valid by both CycloneDX validators",
  () => {
    const r = stationctl('sbom', '--system');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const file = join(work, 'system.cdx.json');
    writeFileSync(file, r.stdout);
    const check = spawnSync(process.execPath, [join(REPO, 'scripts/release/check-sbom.mjs'), file], { encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.stdout).toContain('cyclonedx-library');
    expect(check.status).toBe(0);

    const bom = JSON.parse(r.stdout) as Bom;
    // dpkg's own answer, asked separately: the document has each installed package, and only those.
    const listed = spawnSync('dpkg-query', ['-W', '-f=${db:Status-Abbrev} ${Package} ${Version} ${Architecture}\n'], { encoding: 'utf8' })
      .stdout.split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter((f) => f.length === 4 && f[0]?.[1] !== 'n' && f[0]?.[1] !== 'c')
      .map(([, name, version, arch]) => `${name}@${version}?${arch}`)
      .sort();
    const debs = bom.components.filter((c) => c['bom-ref'].startsWith('deb:'));
    const inBom = debs.map((c) => `${c.name}@${c.version}?${c['bom-ref'].split(':').pop()}`).sort();
    expect(listed.length).toBeGreaterThan(100);
    expect(inBom).toEqual(listed);
    for (const c of debs) expect(c.purl).toMatch(/^pkg:deb\/debian\/[^@]+@[^?]+\?arch=[a-z0-9]+&distro=[a-z]+$/);
    // Licences where the package states them machine-readably: systemd's libudev1 (LGPL-2.1+ among others).
    const udev = debs.find((c) => c.name === 'libudev1');
    expect(udev?.licenses).toEqual(expect.arrayContaining([{ license: { id: 'LGPL-2.1-or-later' } }]));
    expect(udev?.properties).toEqual(expect.arrayContaining([{ name: 'pickup-station:debian-source', value: expect.stringMatching(/^systemd /) }]));
    // The release and what it ships; its Debian dependencies are the installed packages now.
    const release = bom.components.find((c) => c['bom-ref'] === 'release:pickup-station');
    expect(release?.version).toBe(VERSION);
    expect(bom.components.find((c) => c['bom-ref'] === 'npm:node_modules/pino')?.version).toBe(PINO.version);
    const releaseDeps = bom.dependencies.find((d) => d.ref === 'release:pickup-station')?.dependsOn ?? [];
    expect(releaseDeps).toEqual(
      expect.arrayContaining([expect.stringMatching(/^deb:libc6:/), expect.stringMatching(/^deb:libudev1:/), 'npm:node_modules/pino']),
    );
    // The kiosk's packages marked where installed (chromium here).
    expect(debs.find((c) => c.name === 'chromium')?.properties).toEqual(expect.arrayContaining([{ name: 'pickup-station:role', value: 'kiosk' }]));
    expect(bom.metadata.component.properties).toEqual(
      expect.arrayContaining([{ name: 'pickup-station:kiosk', value: expect.stringMatching(/^installed: .*chromium/) }]),
    );
    // Every reference points at a component of the document, and each is defined once.
    const refs = [...bom.components.map((c) => c['bom-ref']), bom.metadata.component['bom-ref']];
    expect(new Set(refs).size).toBe(refs.length);
    const known = new Set(refs);
    const dangling = bom.dependencies.flatMap((d) => [d.ref, ...d.dependsOn]).filter((ref) => !known.has(ref));
    expect(dangling).toEqual([]);
  },
  300_000,
);

it.skipIf(!HAVE)(
  'refuses an unknown option, and says why without a release SBOM (a development build)',
  () => {
    const bad = stationctl('sbom', '--all');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('sbom takes only --system, not --all');
    rmSync(join(release, 'sbom.cdx.json'));
    const none = stationctl('sbom', '--system');
    expect(none.status).toBe(1);
    expect(none.stderr).toContain('stationctl: sbom --system: the release SBOM (a development build has none): cannot read');
  },
  120_000,
);
