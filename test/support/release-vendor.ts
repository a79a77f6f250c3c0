/**
 * The vendor's release-build inputs as tests and CI give them (never a real address), and the
 * files a release build writes from them, for the tests that make a small stand-in release tree:
 * vendor.json and security.txt (scripts/release/inputs.sh), the security policy, a lockfile of the
 * tree's one package, and its SBOM made by the real scripts/release/sbom.mjs.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const REPO = join(import.meta.dirname, '../..');

export const TEST_SECURITY_CONTACT = 'mailto:security@vendor.test.invalid';
export const TEST_SECURITY_POLICY = 'https://vendor.test.invalid/security-policy';
export const TEST_SUPPORT_UNTIL = '2099-12-31';
/** The flags every release build takes (scripts/bundle/build.sh, packaging/deb/build.sh). */
export const RELEASE_FLAGS = [
  '--security-contact',
  TEST_SECURITY_CONTACT,
  '--security-policy',
  TEST_SECURITY_POLICY,
  '--support-until',
  TEST_SUPPORT_UNTIL,
] as const;

/** node_modules/pino as the stand-in trees ship it (package.json only). */
export const PINO = { name: 'pino', version: '10.4.0' } as const;

/**
 * A small stand-in release tree at `dir`: the built app, package.json naming {@link PINO}, the given
 * files of systemd/, node_modules/pino/package.json, and node_modules/prom-client linked from the
 * checkout (the one package the app loads from the release with simulated hardware: metrics).
 */
export function stageRelease(dir: string, version: string, systemdFiles: readonly string[] = ['runtime-packages']): void {
  cpSync(join(REPO, 'app'), join(dir, 'app'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'pickup-station', version, type: 'module', dependencies: { pino: PINO.version } }));
  mkdirSync(join(dir, 'systemd'));
  for (const f of systemdFiles) cpSync(join(REPO, 'systemd', f), join(dir, 'systemd', f));
  mkdirSync(join(dir, 'node_modules/pino'), { recursive: true });
  writeFileSync(join(dir, 'node_modules/pino/package.json'), JSON.stringify(PINO));
  symlinkSync(join(REPO, 'node_modules/prom-client'), join(dir, 'node_modules/prom-client'));
}

/**
 * Writes the vendor files, package-lock.json and sbom.cdx.json into a release tree `dir` that has
 * package.json, systemd/runtime-packages and node_modules/pino/package.json ({@link PINO}).
 * Returns the paths written (relative), for a manifest's checksums.
 */
export function addVendorFiles(
  dir: string,
  version: string,
  arch = 'x64',
  vendor = { securityContact: TEST_SECURITY_CONTACT, supportUntil: TEST_SUPPORT_UNTIL },
): string[] {
  const r = spawnSync(
    'bash',
    [
      '-c',
      '. "$1/scripts/release/inputs.sh" && SECURITY_CONTACT=$3 SECURITY_POLICY=$4 SUPPORT_UNTIL=$5 && write_vendor_files "$2" "$6" 1767225600',
      'vendor',
      REPO,
      dir,
      vendor.securityContact,
      TEST_SECURITY_POLICY,
      vendor.supportUntil,
      version,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`write_vendor_files: ${r.stderr}`);
  copyFileSync(join(REPO, 'SECURITY.md'), join(dir, 'SECURITY.md'));
  writeFileSync(
    join(dir, 'package-lock.json'),
    JSON.stringify({
      name: 'pickup-station',
      version,
      lockfileVersion: 3,
      packages: {
        '': { name: 'pickup-station', version, dependencies: { pino: PINO.version } },
        'node_modules/pino': { version: PINO.version, integrity: `sha512-${Buffer.alloc(64, 'p').toString('base64')}`, license: 'MIT' },
      },
    }),
  );
  const depends = spawnSync(process.execPath, [join(REPO, 'scripts/release/sbom.mjs'), 'depends', dir, '--glibc-min', '2.34'], { encoding: 'utf8' });
  const sbom = spawnSync(
    process.execPath,
    [
      join(REPO, 'scripts/release/sbom.mjs'),
      'write',
      dir,
      '--kind',
      'bundle',
      '--arch',
      arch,
      '--time',
      '1767225600',
      '--depends',
      depends.stdout.trim(),
      '--out',
      join(dir, 'sbom.cdx.json'),
    ],
    { encoding: 'utf8' },
  );
  if (sbom.status !== 0) throw new Error(`sbom.mjs: ${sbom.stderr}`);
  return ['vendor.json', 'security.txt', 'SECURITY.md', 'package-lock.json', 'sbom.cdx.json'];
}
