/**
 * CI must pass from a clone at any path: a unix socket's path is limited to 108 bytes, and gpg's
 * agent puts its socket into the gpg home. The board's delivery run keeps its work under the
 * checkout (.board/apt-e2e/<hash>) and signs with a vendor key kept under .board/vendor-key; from a
 * clone whose path is over 100 characters, a gpg home there would make key generation and signing
 * fail ("No agent running"). Here the scripts run from such a clone: the test releases, their
 * packages and a signed repository (packaging/test/e2e.sh --prepare-only), and the board's bundle
 * signature (scripts/board/vendor-key.sh), both checked with the real gpgv. The release is a small
 * stand-in with a real release's layout.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool, runs } from '../support/tools.js';
import { PINO, addVendorFiles } from '../support/release-vendor.js';
import { installerFiles } from '../support/installer-files.js';

const REPO = join(import.meta.dirname, '../..');
const HAVE_TOOLS =
  requireTool('dpkg-deb', runs('dpkg-deb', ['--version']), 'dpkg') &&
  requireTool('reprepro', runs('reprepro', ['--version']), 'reprepro') &&
  requireTool('gpg', runs('gpg', ['--version']), 'gnupg') &&
  requireTool('gpgv', runs('gpgv', ['--version']), 'gpgv');

let base: string;
let clone: string;

/** A release tarball with a real one's layout (manifest with checksums, the installer's units). */
function releaseTarball(dir: string): string {
  const top = 'pickup-station-0.2.0';
  const files: Record<string, string> = {
    'app/main.js': '// pickup-station\n',
    'app/daemon.js': '// the daemon\n',
    'app/stationctl.js': '// stationctl\n',
    'node_modules/pino/package.json': JSON.stringify(PINO) + '\n',
    'package.json': JSON.stringify({ name: 'pickup-station', version: '0.2.0', dependencies: { pino: PINO.version } }) + '\n',
  };
  for (const f of [
    'pickup-station.service',
    'pickup-station-repair.service',
    'pickup-station-upgrade.service',
    'runtime-packages',
    'tmpfiles.conf',
    'journald@pickup-station.conf',
  ])
    files[`systemd/${f}`] = readFileSync(join(REPO, 'systemd', f), 'utf8');
  Object.assign(files, installerFiles());
  const checksums: Record<string, string> = {};
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(dir, top, f, '..'), { recursive: true });
    writeFileSync(join(dir, top, f), text);
  }
  for (const f of [...Object.keys(files), ...addVendorFiles(join(dir, top), '0.2.0')])
    checksums[f] = createHash('sha256')
      .update(readFileSync(join(dir, top, f)))
      .digest('hex');
  writeFileSync(
    join(dir, top, 'manifest.json'),
    JSON.stringify({ name: 'pickup-station', version: '0.2.0', arch: 'x64', glibcMin: '2.34', builtAt: '2026-01-01T00:00:00.000Z', checksums }, null, 2),
  );
  const file = join(dir, `${top}-linux-x64.tar.gz`);
  expect(spawnSync('tar', ['-czf', file, '-C', dir, top]).status).toBe(0);
  return file;
}

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'long-'));
  clone = join(base, 'a-ci-workspace-whose-path-is-long-as-they-are'.repeat(2), 'pickup-station');
  // The scripts the board's delivery run uses on the host, as a clone has them.
  for (const d of ['packaging', 'scripts/bundle', 'scripts/board', 'scripts/release', 'scripts/node', 'systemd'])
    cpSync(join(REPO, d), join(clone, d), { recursive: true });
  // A clone's dev tree (the SBOM check's ajv), as npm ci makes it.
  symlinkSync(join(REPO, 'node_modules'), join(clone, 'node_modules'));
});
afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

// e2e.sh builds and signs five packages: minutes on a loaded 2-core machine.
describe.skipIf(!HAVE_TOOLS)('from a clone whose path is over 100 characters', { timeout: 300_000 }, () => {
  it('the clone is where a socket under it would not fit', () => {
    expect(clone.length).toBeGreaterThan(100);
    expect(join(clone, '.board/apt-e2e/0123456789ab/gnupg/S.gpg-agent.browser').length).toBeGreaterThan(108);
  });

  it('e2e.sh makes its key, the test packages and a signed repository under .board/', () => {
    const work = join(clone, '.board/apt-e2e/0123456789ab');
    const r = spawnSync('bash', [join(clone, 'packaging/test/e2e.sh'), '--prepare-only', '--bundle', releaseTarball(base), '--arch', 'x64', '--work', work], {
      encoding: 'utf8',
    });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    expect(
      readdirSync(join(work, 'debs'))
        .filter((f) => f.startsWith('pickup-station_'))
        .sort(),
    ).toEqual([
      'pickup-station_1.0.0_amd64.deb',
      'pickup-station_1.1.0_amd64.deb',
      'pickup-station_1.2.0_amd64.deb',
      'pickup-station_1.4.0_amd64.deb',
      'pickup-station_1.5.0_amd64.deb',
      'pickup-station_9.0.0_amd64.deb',
    ]);
    const inRelease = join(work, 'repo/dists/stable/InRelease');
    // Signed by the vendor's key and, during a handover, by the next one too (record 0154): both hold.
    const v = spawnSync('gpgv', ['--keyring', join(work, 'vendor.gpg'), '--keyring', join(work, 'vendor-next.gpg'), inRelease], { encoding: 'utf8' });
    expect(v.status, v.stderr).toBe(0);
    expect(v.stderr).toContain('Good signature from "e2e vendor <vendor@example.org>"');
    expect(readFileSync(inRelease, 'utf8')).toMatch(/^Valid-Until: /m);
  });

  it("the board's throwaway vendor key is made and kept under .board/ and signs the bundle", () => {
    const board = join(clone, '.board');
    const bundle = releaseTarball(mkdtempSync(join(base, 'b-')));
    const keyring = join(base, 'keyring.gpg');
    const sign = () =>
      spawnSync('bash', ['-c', `. "$ROOT/scripts/board/vendor-key.sh" && board_sign "$1" "$2"`, 'sign', bundle, keyring], {
        encoding: 'utf8',
        env: { ...process.env, ROOT: clone, BOARD: board },
      });
    mkdirSync(board, { recursive: true });
    let r = sign();
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    expect(existsSync(join(board, 'vendor-key/secret.key'))).toBe(true);
    const fpr = readFileSync(join(board, 'vendor-key/fingerprint'), 'utf8').trim();
    // Made once: the next run signs with the same key.
    r = sign();
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    expect(readFileSync(join(board, 'vendor-key/fingerprint'), 'utf8').trim()).toBe(fpr);
    const v = spawnSync('gpgv', ['--status-fd', '1', '--keyring', keyring, `${bundle}.sig`, bundle], { encoding: 'utf8' });
    expect(v.status, v.stderr).toBe(0);
    expect(v.stdout).toContain(`VALIDSIG ${fpr}`);
  });

  it("the board's ssh control socket is in a short folder, whatever the checkout's path", async () => {
    const { sshArgs } = (await import(join(clone, 'scripts/board/qemu.mjs'))) as {
      sshArgs: (o: { board: string; sshPort: number; sock?: string }) => string[];
    };
    const sock = mkdtempSync('/tmp/psb.');
    try {
      const path = sshArgs({ board: join(clone, '.board'), sshPort: 65535, sock }).find((a) => a.startsWith('ControlPath='))!;
      // ssh adds a random suffix of 17 characters while it makes the socket.
      expect(path.replace('ControlPath=', '').replace('%p', '65535').length + 17).toBeLessThan(108);
    } finally {
      rmSync(sock, { recursive: true, force: true });
    }
  });
});
