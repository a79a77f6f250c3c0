// The board's SBOM as a station makes it: `stationctl sbom --system` in the guest (the installed
// release's own command, run by the release's Node, reading the image's dpkg database) — once as
// root and once as `nobody` (it needs no privilege). On the host the document is checked by
// scripts/release/check-sbom.mjs (the vendored CycloneDX 1.5 schema and @cyclonedx/cyclonedx-library's
// strict validator) and against the guest's own `dpkg-query`: every package of the image at its
// version and architecture, nothing else; the release's components as its own sbom.cdx.json names
// them; the running kernel's package; on the kiosk image (BOARD_IMAGE=kiosk: `--parts sbom,…` with
// a kiosk part, or --full) the kiosk's packages marked. The document is kept as
// test-artifacts/board-<image>-system.cdx.json (a CI artifact): the image's SBOM.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const title =
  "the board's SBOM: stationctl sbom --system lists the release and every Debian package of the image, valid by the CycloneDX library's own validator";
export const ci = true;

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');

export default async function sbom(board) {
  const { g, check, figure, say } = board;
  const image = process.env.BOARD_IMAGE ?? 'base';
  let t = performance.now();
  const text = await g('stationctl sbom --system', { timeoutMs: 900_000 });
  figure('stationctl sbom --system on the board (emulated), s', ((performance.now() - t) / 1000).toFixed(1));
  const out = join(ROOT, 'test-artifacts', `board-${image}-system.cdx.json`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
  const v = spawnSync(process.execPath, [join(ROOT, 'scripts/release/check-sbom.mjs'), out], { encoding: 'utf8' });
  check(
    v.status === 0 && v.stdout.includes('cyclonedx-library'),
    `check-sbom (vendored schema, cyclonedx-library strict): ${(v.stdout + v.stderr).trim().slice(0, 600)}`,
  );

  const bom = JSON.parse(text);
  const debs = bom.components.filter((c) => c['bom-ref'].startsWith('deb:'));
  const inBom = debs.map((c) => `${c.name} ${c.version} ${c['bom-ref'].split(':').pop()}`).sort();
  const listed = (await g("dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${Version} ${Architecture}\\n'"))
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f.length === 4 && f[0][1] !== 'n' && f[0][1] !== 'c')
    .map((f) => f.slice(1).join(' '))
    .sort();
  const missing = listed.filter((p) => !inBom.includes(p));
  const extra = inBom.filter((p) => !listed.includes(p));
  check(
    listed.length > 100 && missing.length === 0 && extra.length === 0,
    `every package dpkg-query lists in the guest is in it at its version and architecture (${listed.length}; missing: ${missing.slice(0, 5).join(', ') || 'none'}; extra: ${extra.slice(0, 5).join(', ') || 'none'})`,
  );
  const withLicence = debs.filter((c) => (c.licenses ?? []).length > 0).length;
  const purls = debs.filter((c) => /^pkg:deb\/debian\/[^@]+@[^?]+\?arch=(arm64|all)&distro=bookworm$/.test(c.purl ?? '')).length;
  check(purls === debs.length, `every package has a pkg:deb/debian purl with its version, arch and distro (${purls} of ${debs.length})`);

  // The release's own SBOM: its components (npm packages, the bundled Node) are all in it.
  const release = JSON.parse(await g('cat /opt/pickup-station/current/sbom.cdx.json'));
  const byRef = new Map(bom.components.map((c) => [c['bom-ref'], c]));
  const lost = release.components.filter((c) => !c['bom-ref'].startsWith('deb:') && byRef.get(c['bom-ref'])?.version !== c.version);
  const deps = bom.dependencies.find((d) => d.ref === release.metadata.component['bom-ref'])?.dependsOn ?? [];
  const declared = release.components.filter((c) => c['bom-ref'].startsWith('deb:')).map((c) => c.name);
  const resolved = declared.filter((n) => deps.some((r) => r.startsWith(`deb:${n}:`)));
  check(
    lost.length === 0 && resolved.length === declared.length,
    `the release's ${release.components.length - declared.length} components kept; its ${declared.length} Debian dependencies resolved to installed packages (${resolved.length}; unresolved: ${declared.filter((n) => !resolved.includes(n)).join(', ') || 'none'})`,
  );
  const kernel = (await g('uname -r')).trim();
  check(
    debs.some((c) => c.name === `linux-image-${kernel}`),
    `the running kernel's package linux-image-${kernel} is in it`,
  );
  check(
    debs.some((c) => c.name === 'unattended-upgrades'),
    'unattended-upgrades (the OS security fixes) is in it',
  );

  const kiosk = (await g('cat /opt/pickup-station/current/systemd/kiosk-packages'))
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean);
  const marked = debs.filter((c) => (c.properties ?? []).some((p) => p.name === 'pickup-station:role' && p.value === 'kiosk')).map((c) => c.name);
  const kioskProp = bom.metadata.component.properties.find((p) => p.name === 'pickup-station:kiosk')?.value;
  if (image === 'kiosk')
    check(
      kiosk.every((n) => marked.includes(n)),
      `kiosk image: the kiosk's packages marked (${marked.join(' ')})`,
    );
  else check(marked.length === 0 && kioskProp === 'not installed', `base image: no kiosk package, and it says so ("${kioskProp}")`);

  t = performance.now();
  const asNobody = await g('runuser -u nobody -- stationctl sbom --system', { timeoutMs: 900_000 });
  const theirs = JSON.parse(asNobody).components.filter((c) => c['bom-ref'].startsWith('deb:')).length;
  check(theirs === debs.length, `the same as nobody (no privilege needed): ${theirs} packages`);
  figure('the board SBOM: Debian packages / with a licence stated / size, bytes', `${debs.length} / ${withLicence} / ${text.length}`);
  say(`image SBOM kept: ${out}`);
}
