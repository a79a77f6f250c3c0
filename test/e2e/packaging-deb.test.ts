/**
 * The Debian package and the signed apt repository, with the real tools: packaging/deb/build.sh
 * (dpkg-deb) makes the package from a release tarball's layout, packaging/apt/publish.sh (reprepro)
 * puts it into a repository signed by a key this test generates, and apt-get — with its own
 * configuration and state in a temporary folder, trusting only the key named by signed-by= —
 * fetches it from file://. apt must refuse a package whose bytes changed after signing, a
 * repository signed by another key, and an InRelease changed after signing.
 *
 * The release inside is a small stand-in (the real one is 48 MB and takes a minute to compress);
 * the package made from a real bundle is installed and upgraded under systemd by
 * packaging/test/e2e.sh.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { disposeSigningKeys, makeSigningKeys, revokedKeyring, type SigningKeys } from '../support/gpg.js';
import { requireTool, runs } from '../support/tools.js';
import { PINO, RELEASE_FLAGS, addVendorFiles } from '../support/release-vendor.js';
import { installerFiles } from '../support/installer-files.js';

const REPO = join(import.meta.dirname, '../..');
const IS_ROOT = process.getuid?.() === 0;
const HAVE_TOOLS =
  requireTool('dpkg-deb', runs('dpkg-deb', ['--version']), 'dpkg') &&
  requireTool('reprepro', runs('reprepro', ['--version']), 'reprepro') &&
  requireTool('gpg', runs('gpg', ['--version']), 'gnupg') &&
  requireTool('apt-get', runs('apt-get', ['--version']), 'apt');

let work: string;
let keys: SigningKeys;

/** A release tarball with the layout scripts/bundle/build.sh makes (no Node inside: Depends nodejs). */
function releaseTarball(version: string, edit?: (dir: string) => void, policy = readFileSync(join(REPO, 'systemd/chromium-policy.json'), 'utf8')): string {
  const top = `pickup-station-${version}`;
  const dir = join(work, 'src', top);
  const files: Record<string, string> = {
    'app/main.js': `// pickup-station ${version}\n`,
    'app/stationctl.js': `// stationctl ${version}\n`,
    'node_modules/pino/package.json': JSON.stringify(PINO) + '\n',
    'package.json': JSON.stringify({ name: 'pickup-station', version, dependencies: { pino: PINO.version } }) + '\n',
    'systemd/pickup-station.service': readFileSync(join(REPO, 'systemd/pickup-station.service'), 'utf8'),
    'systemd/pickup-station-repair.service': readFileSync(join(REPO, 'systemd/pickup-station-repair.service'), 'utf8'),
    'systemd/pickup-station-upgrade.service': readFileSync(join(REPO, 'systemd/pickup-station-upgrade.service'), 'utf8'),
    'systemd/tmpfiles.conf': readFileSync(join(REPO, 'systemd/tmpfiles.conf'), 'utf8'),
    'systemd/journald@pickup-station.conf': readFileSync(join(REPO, 'systemd/journald@pickup-station.conf'), 'utf8'),
    'systemd/pickup-station-kiosk.socket': readFileSync(join(REPO, 'systemd/pickup-station-kiosk.socket'), 'utf8'),
    ...installerFiles(),
    'systemd/runtime-packages': readFileSync(join(REPO, 'systemd/runtime-packages'), 'utf8'),
    'systemd/config.template.json': readFileSync(join(REPO, 'systemd/config.template.json'), 'utf8'),
    'systemd/chromium-policy.json': policy,
    'systemd/logind-kiosk.conf': readFileSync(join(REPO, 'systemd/logind-kiosk.conf'), 'utf8'),
    'systemd/sysctl-kiosk.conf': readFileSync(join(REPO, 'systemd/sysctl-kiosk.conf'), 'utf8'),
    'systemd/system-keys.conf': readFileSync(join(REPO, 'systemd/system-keys.conf'), 'utf8'),
    'systemd/polkit-kiosk.rules': readFileSync(join(REPO, 'systemd/polkit-kiosk.rules'), 'utf8'),
    'hardware/99-pickup-station.rules': readFileSync(join(REPO, 'hardware/99-pickup-station.rules'), 'utf8'),
    'manifest.json': JSON.stringify({
      name: 'pickup-station',
      version,
      arch: 'x64',
      glibcMin: '2.34',
      nodeMajor: 20,
      git: { commit: 'abc123' },
      builtAt: '2026-01-01T00:00:00.000Z',
    }),
  };
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    writeFileSync(join(dir, f), text);
  }
  addVendorFiles(dir, version);
  edit?.(dir);
  const file = join(work, `${top}-linux-x64.tar.gz`);
  expect(spawnSync('tar', ['-czf', file, '-C', join(work, 'src'), top]).status).toBe(0);
  return file;
}

function runBuild(tarball: string, flags: readonly string[] = RELEASE_FLAGS) {
  const out = join(work, 'debs');
  const r = spawnSync(
    'bash',
    [join(REPO, 'packaging/deb/build.sh'), ...flags, '--arch', 'x64', '--bundle', tarball, '--out', out, '--key', keys.vendorPublic],
    {
      encoding: 'utf8',
    },
  );
  return { ...r, out };
}

function buildDeb(version: string, tarball = releaseTarball(version)): { deb: string; out: string } {
  const r = runBuild(tarball);
  const out = r.out;
  expect(r.status, r.stderr).toBe(0);
  return { deb: join(out, `pickup-station_${version}_amd64.deb`), out: r.stdout };
}

function publish(repo: string, args: string[], signer: 'vendor' | 'other' = 'vendor') {
  const id = signer === 'vendor' ? keys.vendorId : keys.otherId;
  return spawnSync('bash', [join(REPO, 'packaging/apt/publish.sh'), '--repo', repo, '--key-id', id, ...args], {
    encoding: 'utf8',
    env: { ...process.env, GNUPGHOME: keys.dir },
  });
}

/** apt-get with a private configuration: only `sources` (deb822), nothing of the host's apt. */
function apt(name: string, sources: string) {
  const dir = join(work, `apt-${name}`);
  for (const d of ['state/lists/partial', 'cache/archives/partial', 'etc/apt.conf.d', 'etc/preferences.d', 'etc/trusted.gpg.d', 'download'])
    mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, 'state/status'), '');
  writeFileSync(join(dir, 'etc/pickup-station.sources'), sources);
  const opts = [
    '-o',
    `Dir::State=${dir}/state`,
    '-o',
    `Dir::State::status=${dir}/state/status`,
    '-o',
    `Dir::Cache=${dir}/cache`,
    '-o',
    `Dir::Etc=${dir}/etc`,
    '-o',
    'Dir::Etc::SourceList=/dev/null',
    '-o',
    `Dir::Etc::SourceParts=${dir}/etc`,
    '-o',
    `Dir::Etc::Trusted=${dir}/etc/trusted.gpg`,
    '-o',
    `Dir::Etc::TrustedParts=${dir}/etc/trusted.gpg.d`,
    '-o',
    'APT::Architecture=amd64',
    '-o',
    'APT::Architectures::=amd64',
    '-o',
    'APT::Sandbox::User=root',
    '-o',
    'Debug::NoLocking=1',
  ];
  const run = (args: string[], cwd = dir) => {
    const r = spawnSync('apt-get', [...opts, ...args], { encoding: 'utf8', cwd });
    return { status: r.status, out: `${r.stdout}${r.stderr}` };
  };
  return {
    update: () => run(['update']),
    download: () => run(['download', 'pickup-station'], join(dir, 'download')),
    downloaded: () => readdirSync(join(dir, 'download')),
  };
}

const sources = (repo: string, key: string, suite = 'stable') => `Types: deb\nURIs: file://${repo}\nSuites: ${suite}\nComponents: main\nSigned-By: ${key}\n`;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'deb-test-'));
  if (IS_ROOT && HAVE_TOOLS) keys = makeSigningKeys(mkdtempSync(join(tmpdir(), 'deb-keys-')));
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
  if (keys !== undefined) disposeSigningKeys(keys);
});

describe.skipIf(!IS_ROOT || !HAVE_TOOLS)('the Debian package and the signed apt repository', { timeout: 120_000 }, () => {
  it('the package: control fields, Depends from the release, what it installs (all under /usr; not the unit), maintainer scripts, conffile', () => {
    const tarball = releaseTarball('1.0.0');
    const { deb, out } = buildDeb('1.0.0', tarball);
    expect(out).toContain('pickup-station_1.0.0_amd64.deb');
    const field = (f: string) => spawnSync('dpkg-deb', ['-f', deb, f], { encoding: 'utf8' }).stdout.trim();
    expect(field('Package')).toBe('pickup-station');
    expect(field('Version')).toBe('1.0.0');
    expect(field('Architecture')).toBe('amd64');
    // What systemd/runtime-packages lists (the addons' libraries, gpiod, procps, usbguard, unattended-upgrades), glibc and systemd; Node from Debian (none inside).
    expect(field('Depends')).toBe(
      'libusb-1.0-0, libudev1, libstdc++6, libgcc-s1, gpiod, procps, espeak-ng, alsa-utils, usbguard, unattended-upgrades, libc6 (>= 2.34), systemd (>= 250), nodejs (>= 20.11), pickup-station-archive-keyring',
    );
    const list = spawnSync('dpkg-deb', ['-c', deb], { encoding: 'utf8' }).stdout;
    for (const f of [
      './usr/lib/systemd/system/pickup-station-repair.service',
      './usr/lib/systemd/system/pickup-station-upgrade.service',
      './usr/lib/udev/rules.d/99-pickup-station.rules',
      './usr/lib/tmpfiles.d/pickup-station.conf',
      './usr/bin/stationctl',
      './usr/bin/pickup-station',
      './usr/lib/sysusers.d/pickup-station.conf',
      './usr/lib/pickup-station/release/app/main.js',
      // The installer the postinst and the installer's units run: install.sh and its job files.
      ...Object.keys(installerFiles()).map((f) => `./usr/lib/pickup-station/release/${f}`),
      './etc/default/pickup-station',
      // The kiosk's lockdown: Chromium's policy (a conffile) and the link where Chromium reads it,
      // no gettys on other consoles, no magic SysRq, the kiosk user's one polkit action.
      './etc/pickup-station-kiosk/chromium-policy.json',
      './etc/chromium/policies/managed/pickup-station.json -> ../../../pickup-station-kiosk/chromium-policy.json',
      './usr/lib/systemd/logind.conf.d/pickup-station.conf',
      './usr/lib/sysctl.d/90-pickup-station.conf',
      './usr/share/polkit-1/rules.d/50-pickup-station-kiosk.rules',
      // No getty on any VT, no key that turns the station off (records 0135, 0136).
      './usr/lib/systemd/system.conf.d/pickup-station.conf',
      ...[1, 2, 3, 4, 5, 6].map((n) => `./usr/lib/systemd/system/getty@tty${n}.service -> /dev/null`),
      // The OS's security fixes and the vendor's releases unattended; the reboot they need, once free.
      './etc/apt/apt.conf.d/52pickup-station-unattended-upgrades',
      './usr/lib/systemd/system/pickup-station-reboot.path',
      './usr/lib/systemd/system/pickup-station-reboot.service',
      './usr/lib/systemd/system/paths.target.wants/pickup-station-reboot.path -> ../pickup-station-reboot.path',
    ])
      expect(list, f).toContain(f);
    // Nothing under /lib (Debian's merged /usr); the release's unit comes with the switch, not with the
    // unpack; the key is a package of its own.
    expect(list).not.toMatch(/ \.\/lib\//);
    expect(list).not.toContain('./usr/lib/systemd/system/pickup-station.service');
    expect(list).not.toContain('keyrings');
    // No config, credentials or state in the package: the postinst makes the config once, never overwrites.
    expect(list).not.toContain('./etc/pickup-station/');
    const keyring = join(work, 'debs/pickup-station-archive-keyring_1.0.0_all.deb');
    const kfield = (f: string) => spawnSync('dpkg-deb', ['-f', keyring, f], { encoding: 'utf8' }).stdout.trim();
    // It takes over a file of older pickup-station packages: Replaces with Breaks (Debian policy 7.6.1).
    expect([kfield('Package'), kfield('Architecture'), kfield('Replaces'), kfield('Breaks')]).toEqual([
      'pickup-station-archive-keyring',
      'all',
      'pickup-station (<< 0.2~)',
      'pickup-station (<< 0.2~)',
    ]);
    expect(spawnSync('dpkg-deb', ['-c', keyring], { encoding: 'utf8' }).stdout).toContain('./usr/share/keyrings/pickup-station-archive-keyring.gpg');
    const control = join(work, 'control');
    expect(spawnSync('dpkg-deb', ['-e', deb, control]).status).toBe(0);
    expect(readFileSync(join(control, 'conffiles'), 'utf8')).toBe(
      '/etc/default/pickup-station\n/etc/apt/apt.conf.d/52pickup-station-unattended-upgrades\n/etc/pickup-station-kiosk/chromium-policy.json\n',
    );
    // Chromium's files changing runs the postinst, which asks for the reboot as a kernel package does.
    expect(readFileSync(join(control, 'triggers'), 'utf8')).toBe('interest-noawait /usr/lib/chromium\n');
    expect(readFileSync(join(control, 'postinst'), 'utf8')).toMatch(/triggered\)[\s\S]*\/usr\/lib\/chromium\)[\s\S]*touch \/run\/reboot-required/);
    expect(readFileSync(join(control, 'postinst'), 'utf8')).toContain('/usr/lib/systemd/systemd-sysctl 90-pickup-station.conf');
    // ctrl-alt-del.target is systemd's name under /usr/lib: masked in /etc by the postinst, unmasked
    // at "remove" only while it is that mask (deb-systemd-helper's record).
    expect(readFileSync(join(control, 'postinst'), 'utf8')).toContain('deb-systemd-helper mask ctrl-alt-del.target');
    expect(readFileSync(join(control, 'postrm'), 'utf8')).toContain('deb-systemd-helper unmask ctrl-alt-del.target');
    expect(readFileSync(join(control, 'postinst'), 'utf8')).toContain('--package-release "$RELEASE"');
    expect(readFileSync(join(control, 'prerm'), 'utf8')).toContain('systemctl stop pickup-station.service');
    expect(readFileSync(join(control, 'preinst'), 'utf8')).toContain('/run/systemd/system/pickup-station.service');
    // The same release gives the same bytes (file times from the release, SOURCE_DATE_EPOCH).
    const first = readFileSync(deb);
    buildDeb('1.0.0', tarball);
    expect(readFileSync(deb).equals(first)).toBe(true);
  });

  it('carries the vendor inputs, the policy and a CycloneDX SBOM of the package in /usr/share/doc/pickup-station', () => {
    const { deb } = buildDeb('1.1.0');
    const root = join(work, 'x-1.1.0');
    expect(spawnSync('dpkg-deb', ['-x', deb, root]).status).toBe(0);
    const doc = join(root, 'usr/share/doc/pickup-station');
    expect(JSON.parse(readFileSync(join(doc, 'vendor.json'), 'utf8'))).toMatchObject({
      securityContact: 'mailto:security@vendor.test.invalid',
      securityPolicyUrl: 'https://vendor.test.invalid/security-policy',
      supportUntil: '2099-12-31',
      supportUntilReason: null,
    });
    const txt = readFileSync(join(doc, 'security.txt'), 'utf8');
    expect(txt).toContain('Contact: mailto:security@vendor.test.invalid\n');
    // RFC 9116: an https Policy:, and Expires under a year after the build (2026-01-01), not the support end.
    expect(txt).toContain('Policy: https://vendor.test.invalid/security-policy\n');
    expect(txt).toContain('Expires: 2026-12-31T00:00:00Z\n');
    expect(readFileSync(join(doc, 'SECURITY.md'), 'utf8')).toContain('coordinated-disclosure window');
    const sbom = JSON.parse(readFileSync(join(doc, 'sbom.cdx.json'), 'utf8')) as {
      specVersion: string;
      metadata: { component: { purl: string } };
      components: { 'bom-ref': string; properties?: { name: string; value: string }[] }[];
    };
    expect(sbom.specVersion).toBe('1.5');
    expect(sbom.metadata.component.purl).toBe('pkg:deb/pickup-station/pickup-station@1.1.0?arch=amd64');
    // The package's Depends as declared dependencies, the keyring included; pino as it ships.
    const refs = sbom.components.map((c) => c['bom-ref']);
    expect(refs).toEqual(expect.arrayContaining(['npm:node_modules/pino', 'deb:nodejs', 'deb:libc6', 'deb:pickup-station-archive-keyring']));
    const check = spawnSync(
      process.execPath,
      [join(REPO, 'scripts/release/check-sbom.mjs'), join(doc, 'sbom.cdx.json'), '--tree', join(root, 'usr/lib/pickup-station/release')],
      { encoding: 'utf8' },
    );
    expect(check.status, check.stderr).toBe(0);
    expect(existsSync(join(doc, 'NEWS.Debian.gz'))).toBe(true);
  });

  it('refuses a build without a security contact, policy or support period, naming the flag; and one whose inputs differ from the bundle', () => {
    const tarball = releaseTarball('1.2.0');
    const contact = ['--security-contact', 'mailto:security@vendor.test.invalid'];
    const policy = ['--security-policy', 'https://vendor.test.invalid/security-policy'];
    const noContact = runBuild(tarball, [...policy, '--support-until', '2099-12-31']);
    expect(noContact.status).toBe(2);
    expect(noContact.stderr).toContain('--security-contact is required');
    const noPolicy = runBuild(tarball, [...contact, '--support-until', '2099-12-31']);
    expect(noPolicy.status).toBe(2);
    expect(noPolicy.stderr).toContain('--security-policy is required');
    const noSupport = runBuild(tarball, [...contact, ...policy]);
    expect(noSupport.status).toBe(2);
    expect(noSupport.stderr).toContain('--support-until is required');
    const badDate = runBuild(tarball, [...contact, ...policy, '--support-until', '2099-02-30']);
    expect(badDate.status).toBe(2);
    expect(badDate.stderr).toContain('--support-until "2099-02-30" is not a date');
    const other = runBuild(tarball, [...contact, ...policy, '--support-until', '2098-12-31']);
    expect(other.status).toBe(1);
    expect(other.stderr).toContain('--support-until "2098-12-31" differs from the bundle\'s ("2099-12-31")');
    const reason = runBuild(tarball, [...RELEASE_FLAGS, '--support-until-reason', 'a reason the bundle does not have']);
    expect(reason.status).toBe(1);
    expect(reason.stderr).toContain('--support-until-reason "a reason the bundle does not have" differs from the bundle\'s ("")');
    expect(existsSync(join(work, 'debs/pickup-station_1.2.0_amd64.deb'))).toBe(false);
  });

  it('fails the build when the release SBOM fails the CycloneDX schema, or misses a module that ships', () => {
    const broken = releaseTarball('1.3.0', (dir) => {
      const file = join(dir, 'sbom.cdx.json');
      const bom = JSON.parse(readFileSync(file, 'utf8')) as { bomFormat: string };
      bom.bomFormat = 'SPDX';
      writeFileSync(file, JSON.stringify(bom));
    });
    const r = runBuild(broken);
    expect(r.status, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/check-sbom: .*: schema: \/bomFormat must be equal to one of the allowed values/);
    expect(r.stderr).toContain("the release's SBOM failed its check");
    const missing = releaseTarball('1.3.1', (dir) => {
      mkdirSync(join(dir, 'node_modules/left-pad'), { recursive: true });
      writeFileSync(join(dir, 'node_modules/left-pad/package.json'), '{"name":"left-pad","version":"1.3.0"}');
    });
    const m = runBuild(missing);
    expect(m.status, m.stderr).toBe(1);
    expect(m.stderr).toContain('shipped module missing from the SBOM: node_modules/left-pad (left-pad@1.3.0)');
  });

  it('apt autoremove keeps the keyring when nothing depends on it any more (its APT::NeverAutoRemove), and would take it without', () => {
    buildDeb('1.4.0');
    const keyring = join(work, 'debs/pickup-station-archive-keyring_1.4.0_all.deb');
    const files = join(work, 'keyring-files');
    expect(spawnSync('dpkg-deb', ['-x', keyring, files]).status).toBe(0);
    const control = join(work, 'keyring-control');
    expect(spawnSync('dpkg-deb', ['-e', keyring, control]).status).toBe(0);
    expect(readFileSync(join(control, 'conffiles'), 'utf8')).toBe('/etc/apt/apt.conf.d/50pickup-station-archive-keyring\n');
    // A system after `apt-get remove pickup-station`: the keyring installed, automatic (it came as a dependency).
    const dir = join(work, 'apt-autoremove');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'status'), `${readFileSync(join(control, 'control'), 'utf8').trimEnd()}\nStatus: install ok installed\n\n`);
    writeFileSync(join(dir, 'extended_states'), 'Package: pickup-station-archive-keyring\nArchitecture: all\nAuto-Installed: 1\n\n');
    // The package's apt.conf.d file given with -c (apt reads its configuration parts before -o options).
    const autoremove = (config: readonly string[]) =>
      spawnSync(
        'apt-get',
        [
          ...config,
          '-o',
          `Dir::State=${dir}`,
          '-o',
          `Dir::State::status=${dir}/status`,
          '-o',
          `Dir::State::extended_states=${dir}/extended_states`,
          '-o',
          `Dir::Cache=${dir}`,
          '-o',
          'Dir::Etc::SourceList=/dev/null',
          '-o',
          'Dir::Etc::SourceParts=/nonexistent',
          '-o',
          'APT::Architecture=amd64',
          '-o',
          'Debug::NoLocking=1',
          '-s',
          'autoremove',
        ],
        { encoding: 'utf8' },
      );
    const without = autoremove([]);
    expect(without.stdout).toMatch(/^Remv pickup-station-archive-keyring/m);
    const withPackage = autoremove(['-c', join(files, 'etc/apt/apt.conf.d/50pickup-station-archive-keyring')]);
    expect(withPackage.status, withPackage.stderr).toBe(0);
    expect(withPackage.stdout).not.toContain('Remv pickup-station-archive-keyring');
  });

  it("an administrator's edit of the kiosk's Chromium policy is kept by dpkg on upgrade, and dpkg's copies of the new one stay out of Chromium's policy folder", () => {
    // The package's files and conffiles as built, its maintainer scripts left out (they need a
    // booted system: packaging/test/e2e.sh runs them): dpkg --root into a throwaway tree.
    const bare = (version: string, policy?: string) => {
      const { deb } = buildDeb(version, releaseTarball(version, undefined, policy));
      const tree = join(work, `bare-${version}`);
      rmSync(tree, { recursive: true, force: true });
      expect(spawnSync('dpkg-deb', ['-R', deb, tree]).status).toBe(0);
      for (const f of ['preinst', 'postinst', 'prerm', 'postrm']) rmSync(join(tree, 'DEBIAN', f));
      const out = join(work, `bare-${version}.deb`);
      const r = spawnSync('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z1', '--build', tree, out], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return out;
    };
    const target = mkdtempSync(join(tmpdir(), 'deb-root-'));
    for (const d of ['var/lib/dpkg/info', 'var/lib/dpkg/updates']) mkdirSync(join(target, d), { recursive: true });
    writeFileSync(join(target, 'var/lib/dpkg/status'), '');
    const dpkg = (deb: string) =>
      spawnSync('dpkg', ['--root', target, '--force-depends', '--force-confdef', '--force-confold', '--path-exclude=/usr/lib/pickup-station/*', '-i', deb], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    const conf = join(target, 'etc/pickup-station-kiosk/chromium-policy.json');
    const managed = join(target, 'etc/chromium/policies/managed');
    const shipped = readFileSync(join(REPO, 'systemd/chromium-policy.json'), 'utf8');
    try {
      const first = dpkg(bare('1.0.0'));
      expect(first.status, first.stderr).toBe(0);
      expect(readFileSync(conf, 'utf8')).toBe(shipped);
      expect(readFileSync(join(managed, 'pickup-station.json'), 'utf8')).toBe(shipped);
      // The library adds its own catalogue page to the allow list.
      const edited = shipped.replace('"file:///run/pickup-kiosk/start.html"]', '"file:///run/pickup-kiosk/start.html", "https://catalogue.library.example/"]');
      expect(edited).not.toBe(shipped);
      writeFileSync(conf, edited);
      // An upgrade whose policy is unchanged: kept silently.
      const same = dpkg(bare('1.1.0'));
      expect(same.status, same.stderr).toBe(0);
      expect(readFileSync(conf, 'utf8')).toBe(edited);
      // An upgrade whose policy changed too: kept (--force-confold, as unattended upgrades run),
      // the package's new one beside it as .dpkg-dist — outside the folder Chromium reads whole.
      const newer = shipped.replace('"SearchSuggestEnabled": false', '"SearchSuggestEnabled": false,\n  "SpellcheckEnabled": false');
      const changed = dpkg(bare('1.2.0', newer));
      expect(changed.status, changed.stderr).toBe(0);
      expect(`${changed.stdout}${changed.stderr}`).toContain('chromium-policy.json');
      expect(readFileSync(conf, 'utf8')).toBe(edited);
      expect(readFileSync(`${conf}.dpkg-dist`, 'utf8')).toBe(newer);
      expect(readdirSync(managed)).toEqual(['pickup-station.json']);
      expect(readFileSync(join(managed, 'pickup-station.json'), 'utf8')).toBe(edited);
    } finally {
      rmSync(target, { recursive: true, force: true });
    }
  });

  it("the package's sysusers.d declares the unit's user and every group of its SupplementaryGroups=", () => {
    const { deb } = buildDeb('1.0.0', releaseTarball('1.0.0'));
    const sysusers = spawnSync('sh', ['-c', 'dpkg-deb --fsys-tarfile "$1" | tar -xO ./usr/lib/sysusers.d/pickup-station.conf', 'sh', deb], {
      encoding: 'utf8',
    });
    expect(sysusers.status).toBe(0);
    const declared = (kind: string) =>
      sysusers.stdout
        .split('\n')
        .map((l) => l.trim().split(/\s+/))
        .filter((w) => w[0] === kind)
        .map((w) => w[1]);
    const unit = readFileSync(join(REPO, 'systemd/pickup-station.service'), 'utf8');
    const groups = /^SupplementaryGroups=(.*)$/m.exec(unit)?.[1]?.trim().split(/\s+/) ?? [];
    expect(groups.length).toBeGreaterThan(0);
    for (const g of groups) expect(declared('g'), `group ${g}`).toContain(g);
    expect(declared('u')).toContain(/^User=(.*)$/m.exec(unit)?.[1]?.trim());
  });

  it('apt fetches the package from the repository signed by the vendor key, and refuses one whose bytes changed after signing', () => {
    const repo = join(work, 'repo');
    const pub = publish(repo, ['--dist', 'stable', buildDeb('1.0.0').deb]);
    expect(pub.status, pub.stderr).toBe(0);
    const inRelease = readFileSync(join(repo, 'dists/stable/InRelease'), 'utf8');
    expect(inRelease).toContain('-----BEGIN PGP SIGNED MESSAGE-----');
    // Valid-Until (30 days after Date): frozen metadata runs out.
    const date = Date.parse(/^Date: (.*)$/m.exec(inRelease)![1]!);
    const until = Date.parse(/^Valid-Until: (.*)$/m.exec(inRelease)![1]!);
    expect((until - date) / 86_400_000).toBe(30);

    const good = apt('good', sources(repo, keys.vendorPublic));
    expect(good.update().status).toBe(0);
    const got = good.download();
    expect(got.status, got.out).toBe(0);
    expect(good.downloaded()).toEqual(['pickup-station_1.0.0_amd64.deb']);

    // One byte appended to the package in the pool: the signed index says another size and hash.
    const pool = join(repo, 'pool/main/p/pickup-station/pickup-station_1.0.0_amd64.deb');
    appendFileSync(pool, Buffer.from([0]));
    const tampered = apt('tampered', sources(repo, keys.vendorPublic));
    expect(tampered.update().status).toBe(0);
    const refused = tampered.download();
    expect(refused.status).not.toBe(0);
    expect(refused.out).toMatch(/Hash Sum mismatch|File has unexpected size/);
    expect(tampered.downloaded()).toEqual([]);
  });

  it('apt refuses a repository signed by another key, and an InRelease changed after signing', () => {
    const repo = join(work, 'repo-other');
    expect(publish(repo, ['--dist', 'stable', buildDeb('1.0.0').deb], 'other').status).toBe(0);
    const other = apt('other', sources(repo, keys.vendorPublic));
    const r = other.update();
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/NO_PUBKEY|is not signed/);
    expect(other.download().status).not.toBe(0);

    const repo2 = join(work, 'repo-edited');
    expect(publish(repo2, ['--dist', 'stable', buildDeb('1.0.0').deb]).status).toBe(0);
    const inRelease = join(repo2, 'dists/stable/InRelease');
    writeFileSync(inRelease, readFileSync(inRelease, 'utf8').replace('Label: pickup-station', 'Label: pickup-statioN'));
    const edited = apt('edited', sources(repo2, keys.vendorPublic));
    const e = edited.update();
    expect(e.status).not.toBe(0);
    expect(e.out).toMatch(/BADSIG|is not signed/);
  });

  it("the signing key's life: a handover keyring trusts both keys; after the old key's revocation apt refuses what it signs", () => {
    const deb = buildDeb('1.0.0').deb;
    const keyringOf = (version: string, ...files: string[]) => {
      const out = join(work, `keyring-${version}`);
      const r = spawnSync('bash', [join(REPO, 'packaging/deb/keyring.sh'), '--version', version, ...files.flatMap((f) => ['--key', f]), '--out', out], {
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
      const pkg = join(out, `pickup-station-archive-keyring_${version}_all.deb`);
      expect(spawnSync('dpkg-deb', ['-x', pkg, join(out, 'x')]).status).toBe(0);
      return {
        pkg,
        keyring: join(out, 'x/usr/share/keyrings/pickup-station-archive-keyring.gpg'),
        description: spawnSync('dpkg-deb', ['-f', pkg, 'Description'], { encoding: 'utf8' }).stdout,
      };
    };
    // The handover: the new key (other) and the current one (vendor) in one keyring package.
    const handover = keyringOf('2026.12.1', keys.otherPublic, keys.vendorPublic);
    expect(handover.description).toContain(`${keys.vendorId} (valid, no expiry)`);
    expect(handover.description).toContain(`${keys.otherId} (valid, no expiry)`);
    // Signed by both: a board with the old keyring and one with the handover keyring both verify it.
    const both = join(work, 'repo-both');
    const signed = spawnSync(
      'bash',
      [join(REPO, 'packaging/apt/publish.sh'), '--repo', both, '--key-id', keys.vendorId, '--key-id', keys.otherId, '--dist', 'stable', deb],
      {
        encoding: 'utf8',
        env: { ...process.env, GNUPGHOME: keys.dir },
      },
    );
    expect(signed.status, signed.stderr).toBe(0);
    for (const [name, keyring] of [
      ['old', keys.vendorPublic],
      ['new', keys.otherPublic],
      ['handover', handover.keyring],
    ] as const) {
      const a = apt(`both-${name}`, sources(both, keyring));
      expect(a.update().status, name).toBe(0);
    }
    // Then by the new key alone: the handover keyring verifies it.
    const next = join(work, 'repo-next');
    expect(publish(next, ['--dist', 'stable', deb], 'other').status).toBe(0);
    expect(apt('next-handover', sources(next, handover.keyring)).update().status).toBe(0);
    // The old key signs a repository (a stolen key): verified while the keyring trusts it...
    const stolen = join(work, 'repo-stolen');
    expect(publish(stolen, ['--dist', 'stable', deb], 'vendor').status).toBe(0);
    expect(apt('stolen-handover', sources(stolen, handover.keyring)).update().status).toBe(0);
    // ... refused once the keyring package carries its revocation.
    const revoked = keyringOf('2026.12.2', keys.otherPublic, revokedKeyring(keys, 'vendor', join(work, 'revoked.gpg')));
    expect(revoked.description).toContain(`${keys.vendorId} (REVOKED, no expiry)`);
    const board = apt('stolen-revoked', sources(stolen, revoked.keyring));
    const r = board.update();
    expect(r.status).not.toBe(0);
    expect(r.out).toContain(`REVKEYSIG ${keys.vendorId.slice(-16)}`);
    expect(board.download().status).not.toBe(0);
    expect(apt('next-revoked', sources(next, revoked.keyring)).update().status).toBe(0);
  });

  it('--refresh signs both suites again with a new Valid-Until', () => {
    const repo = join(work, 'repo-refresh');
    expect(publish(repo, ['--dist', 'stable', '--valid-for', '7d', buildDeb('1.0.0').deb]).status).toBe(0);
    const validity = (suite: string) => {
      const text = readFileSync(join(repo, `dists/${suite}/InRelease`), 'utf8');
      return (Date.parse(/^Valid-Until: (.*)$/m.exec(text)![1]!) - Date.parse(/^Date: (.*)$/m.exec(text)![1]!)) / 86_400_000;
    };
    expect(validity('stable')).toBe(7);
    const r = publish(repo, ['--refresh', '--valid-for', '9d']);
    expect(r.status, r.stderr).toBe(0);
    expect([validity('stable'), validity('canary')]).toEqual([9, 9]);
    const fleet = apt('refresh', sources(repo, keys.vendorPublic, 'stable'));
    expect(fleet.update().status).toBe(0);
    expect(fleet.download().status).toBe(0);
  });

  it('canary first: a release published to canary reaches stable only when promoted', () => {
    const repo = join(work, 'repo-canary');
    expect(publish(repo, ['--dist', 'stable', buildDeb('1.0.0').deb]).status).toBe(0);
    expect(publish(repo, ['--dist', 'canary', buildDeb('1.1.0').deb]).status).toBe(0);
    const version = (suite: string) => readFileSync(join(repo, `dists/${suite}/main/binary-amd64/Packages`), 'utf8').match(/^Version: (.*)$/m)?.[1];
    expect(version('canary')).toBe('1.1.0');
    expect(version('stable')).toBe('1.0.0');
    const p = publish(repo, ['--promote', 'canary', 'stable']);
    expect(p.status, p.stderr).toBe(0);
    expect(version('stable')).toBe('1.1.0');
    const fleet = apt('fleet', sources(repo, keys.vendorPublic, 'stable'));
    expect(fleet.update().status).toBe(0);
    expect(fleet.download().status).toBe(0);
    expect(fleet.downloaded()).toEqual(['pickup-station_1.1.0_amd64.deb']);
  });
});
