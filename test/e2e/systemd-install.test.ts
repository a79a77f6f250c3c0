/**
 * systemd/install.sh against a throwaway root (--root DIR): the files it lays out with their modes
 * and owners, a second run that changes nothing, an upgrade that keeps config and credentials, a
 * rollback, pruning to two releases, uninstall and purge, and the refusals (damaged bundle, wrong
 * Node, a missing or bad signature). Bundles are small fakes with the real unit file and config
 * template inside, signed with gpg by a vendor key this test generates. The live system is never
 * touched: systemctl/udevadm/apt-get calls are recorded instead, users and groups go into
 * DIR/etc/passwd and DIR/etc/group.
 */
import { requireTool, runs } from '../support/tools.js';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { disposeSigningKeys, makeSigningKeys, revokedKeyring, signDetached, type SigningKeys } from '../support/gpg.js';
import { CAN_SEAL, CredentialBoard } from '../support/credential-board.js';
import { installerFiles, releaseFiles } from '../support/installer-files.js';

const REPO = join(import.meta.dirname, '../..');
const SCRIPT = join(REPO, 'systemd/install.sh');
const UNIT = readFileSync(join(REPO, 'systemd/pickup-station.service'), 'utf8');
const KIOSK_SOCKET = readFileSync(join(REPO, 'systemd/pickup-station-kiosk.socket'), 'utf8');
const TECHNICIAN_SOCKET = readFileSync(join(REPO, 'systemd/pickup-station-technician.socket'), 'utf8');
const TEMPLATE = readFileSync(join(REPO, 'systemd/config.template.json'), 'utf8');
const HELPER = (what: 'repair' | 'upgrade') => readFileSync(join(REPO, `systemd/pickup-station-${what}.service`), 'utf8');
const IS_ROOT = process.getuid?.() === 0;
const HAVE_SYSTEMCTL = requireTool('systemctl', runs('systemctl', ['--version']), 'systemd');
const HAVE_GPG = requireTool('gpg', runs('gpg', ['--version']), 'gnupg') && requireTool('gpgv', runs('gpgv', ['--version']), 'gpgv');
const HAVE_CREDS = requireTool('systemd-creds, swtpm and unshare -m (root)', CAN_SEAL, 'systemd swtpm tpm2-tools util-linux');
const PASSWORD = 'AbCdEfGhIjKlMnOpQrSt';

let work: string;
let root: string;
let record: string;
/** The target board's own credential keys (its host key; no TPM): what install.sh seals with. */
let board: CredentialBoard;
/** The vendor's key and another one (gpg, made once for the file). */
let keys: SigningKeys;

beforeAll(() => {
  if (IS_ROOT && HAVE_SYSTEMCTL && HAVE_GPG) keys = makeSigningKeys(mkdtempSync(join(tmpdir(), 'install-keys-')));
});
afterAll(() => {
  if (keys !== undefined) disposeSigningKeys(keys);
});

beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'install-test-'));
  // Traversable as /run is on a board: the installer reads the daemon's files as the station's user.
  chmodSync(work, 0o755);
  root = join(work, 'root');
  record = join(work, 'record.txt');
  board = new CredentialBoard(join(work, 'board'));
  mkdirSync(join(root, 'etc'), { recursive: true });
  // A fresh Pi OS has root, daemon, dialout (20)...; gpio is left out here to see it created.
  writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n');
  writeFileSync(join(root, 'etc/group'), 'root:x:0:\ndaemon:x:1:\ndialout:x:20:\n');
});
afterEach(() => {
  rmSync(work, { recursive: true, force: true });
});

interface BundleOpts {
  readonly unitSuffix?: string;
  readonly nodeMajor?: number;
  readonly corrupt?: boolean;
  /**
   * Ship node/bin/node: a stand-in that answers --version with `version` and runs everything else
   * with this test's node (install.sh runs -e scripts with it). `runs: false`: it cannot execute
   * here (as a binary of another architecture); `tamper`: changed after the manifest was written.
   * Every run of it is recorded in `ranMarker` (when given).
   */
  readonly node?: { readonly version: string; readonly runs?: boolean; readonly tamper?: boolean; readonly ranMarker?: string };
  /** Who signs it (default the vendor); 'none': no .sig beside it. */
  readonly signer?: 'vendor' | 'other' | 'none';
  /** More files of the release (path in the bundle -> content). */
  readonly extra?: Record<string, string>;
}

function fakeNode(opts: NonNullable<BundleOpts['node']>): string {
  const mark = opts.ranMarker === undefined ? '' : `echo ran >> ${JSON.stringify(opts.ranMarker)}\n`;
  if (opts.runs === false) return `#!/bin/sh\n${mark}echo "cannot execute binary file: Exec format error" >&2\nexit 126\n`;
  return `#!/bin/sh\n${mark}[ "$1" = --version ] && { echo v${opts.version}; exit 0; }\nexec ${JSON.stringify(process.execPath)} "$@"\n`;
}

/** A release bundle as the bundle build makes it (top directory, manifest with checksums). */
function bundle(version: string, opts: BundleOpts = {}): string {
  const top = `pickup-station-${version}`;
  const dir = join(work, 'src', top);
  const files: Record<string, string> = {
    ...releaseFiles(version, opts.unitSuffix),
    ...opts.extra,
  };
  if (opts.node) files['node/bin/node'] = fakeNode(opts.node);
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(dir, f, '..'), { recursive: true });
    writeFileSync(join(dir, f), text);
  }
  const checksums: Record<string, string> = {};
  for (const f of ['app/main.js', 'package.json', ...(opts.node ? ['node/bin/node'] : [])]) checksums[f] = createHash('sha256').update(files[f]!).digest('hex');
  if (opts.node) chmodSync(join(dir, 'node/bin/node'), 0o755);
  if (opts.node?.tamper) writeFileSync(join(dir, 'node/bin/node'), `${files['node/bin/node']!}# tampered\n`);
  if (opts.corrupt) writeFileSync(join(dir, 'app/main.js'), '// tampered\n');
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({ name: 'pickup-station', version, arch: 'arm64', ...(opts.nodeMajor ? { nodeMajor: opts.nodeMajor } : {}), checksums }, null, 2),
  );
  const file = join(work, `pickup-station-${version}-linux-arm64.tar.gz`);
  const tar = spawnSync('tar', ['-czf', file, '-C', join(work, 'src'), top]);
  expect(tar.status).toBe(0);
  rmSync(`${file}.sig`, { force: true });
  const signer = opts.signer ?? 'vendor';
  if (signer !== 'none') signDetached(keys, signer, file);
  return file;
}

/** Runs install.sh into the root; a --bundle run gets the vendor's key (--key) unless it names one or `noKey`. */
function install(args: string[], env: NodeJS.ProcessEnv = {}, opts: { noKey?: boolean } = {}) {
  rmSync(record, { force: true });
  const key = args.includes('--bundle') && !args.includes('--key') && !opts.noKey ? ['--key', keys.vendorPublic] : [];
  const r = spawnSync('bash', [SCRIPT, '--root', root, ...args, ...key], {
    env: {
      PATH: process.env['PATH'],
      NODE: process.execPath,
      PICKUP_INSTALL_RECORD: record,
      SYSTEMD_CREDS: board.creds,
      PICKUP_CREDENTIAL_KEY: 'host',
      ...env,
    },
    encoding: 'utf8',
  });
  // The state steps the installer says in the journal are systemd-install-states.test.ts's.
  const commands = existsSync(record)
    ? readFileSync(record, 'utf8')
        .trim()
        .split('\n')
        .filter((c) => c !== '' && !/ -- installer state: /.test(c))
    : [];
  return { status: r.status, out: r.stdout + r.stderr, commands };
}

/** Every path under the root with type, mode, owner and content hash (or link target). */
function snapshot(dir = root): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = lstatSync(p);
      const mode = (st.mode & 0o7777).toString(8);
      const rel = relative(dir, p);
      if (st.isSymbolicLink()) out[rel] = `link ${readlinkSync(p)}`;
      else if (st.isDirectory()) {
        out[rel] = `dir ${mode} ${st.uid}:${st.gid}`;
        walk(p);
      } else out[rel] = `file ${mode} ${st.uid}:${st.gid} ${createHash('sha256').update(readFileSync(p)).digest('hex').slice(0, 16)}`;
    }
  };
  walk(dir);
  return out;
}

const idOf = (file: 'passwd' | 'group', name: string): number | undefined => {
  const line = readFileSync(join(root, 'etc', file), 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  return line === undefined ? undefined : Number(line.split(':')[2]);
};
const stat = (rel: string) => {
  const st = lstatSync(join(root, rel));
  return { mode: (st.mode & 0o7777).toString(8), owner: `${st.uid}:${st.gid}` };
};
const link = (rel: string) => readlinkSync(join(root, rel));
const read = (rel: string) => readFileSync(join(root, rel), 'utf8');
/** The installer's record (opt/pickup-station/install-status.json). */
const installRecord = (): Record<string, unknown> => JSON.parse(read('opt/pickup-station/install-status.json')) as Record<string, unknown>;

describe.skipIf(!IS_ROOT || !HAVE_SYSTEMCTL || !HAVE_GPG || !HAVE_CREDS)('install.sh into a throwaway root', { timeout: 180_000 }, () => {
  it('fresh install from a bundle: layout, modes, owners, accounts, and the commands it would run', () => {
    const pw = join(work, 'pw');
    writeFileSync(pw, PASSWORD);
    const r = install(['--bundle', bundle('1.0.0'), '--password-file', pw]);
    expect(r.status, r.out).toBe(0);

    const gid = idOf('group', 'pickup-station')!;
    expect(gid).toBeGreaterThan(0);
    // Accounts: the system user with its own group, no login; the device groups exist.
    const user = read('etc/passwd')
      .split('\n')
      .find((l) => l.startsWith('pickup-station:'))!
      .split(':');
    expect(user[3]).toBe(String(gid));
    expect(user[5]).toBe('/var/lib/pickup-station');
    expect(user[6]).toBe('/usr/sbin/nologin');
    expect(Number(user[2])).toBeLessThan(1000); // a system uid
    for (const g of ['gpio', 'pickup-hid']) expect(idOf('group', g)).toBeDefined();
    expect(idOf('group', 'dialout')).toBe(20); // an existing group is left alone

    // The release, root-owned and read-only to others; current points at it.
    expect(link('opt/pickup-station/current')).toBe('releases/1.0.0');
    expect(existsSync(join(root, 'opt/pickup-station/previous'))).toBe(false);
    expect(stat('opt/pickup-station/releases/1.0.0')).toEqual({ mode: '755', owner: '0:0' });
    expect(stat('opt/pickup-station/releases/1.0.0/app/main.js')).toEqual({ mode: '644', owner: '0:0' });
    expect(read('opt/pickup-station/current/manifest.json')).toContain('"version": "1.0.0"');

    // The release's own unit where systemd looks for locally installed units, enabled for
    // multi-user.target; nothing in /etc/systemd/system but the [Install] links (that folder is the
    // administrator's): the station's and its technician port's socket. The installer's own units run a copy of the installer.
    expect(read('usr/local/lib/systemd/system/pickup-station.service')).toBe(UNIT);
    expect(stat('usr/local/lib/systemd/system/pickup-station.service')).toEqual({ mode: '644', owner: '0:0' });
    expect(link('etc/systemd/system/multi-user.target.wants/pickup-station.service')).toBe('/usr/local/lib/systemd/system/pickup-station.service');
    expect(readdirSync(join(root, 'etc/systemd/system'))).toEqual(['multi-user.target.wants', 'pickup-station.service.wants']);
    expect(read('usr/local/lib/systemd/system/pickup-station-repair.service')).toContain('ExecStart=/usr/local/lib/pickup-station/install.sh --repair');
    expect(read('usr/local/lib/systemd/system/pickup-station-upgrade.service')).toContain('ExecStart=/usr/local/lib/pickup-station/install.sh --resume');
    for (const [f, text] of Object.entries(installerFiles())) {
      const copy = f.replace(/^systemd\//, 'usr/local/lib/pickup-station/');
      expect(read(copy), copy).toBe(text);
      expect(stat(copy), copy).toEqual({ mode: f === 'systemd/install.sh' ? '755' : '644', owner: '0:0' });
    }
    expect(existsSync(join(root, 'usr/local/lib/pickup-station/installer.partial'))).toBe(false);
    expect(read('usr/local/lib/tmpfiles.d/pickup-station.conf')).toContain('d /run/pickup-station-metrics 0755 pickup-station pickup-station');
    // The tty classes the unit's DeviceAllow= names, registered at boot before it starts.
    expect(read('usr/local/lib/modules-load.d/pickup-station.conf')).toMatch(/^usbserial$/m);
    // The journal namespace's retention, as a drop-in an operator's own in /etc/systemd overrides.
    expect(read('usr/local/lib/systemd/journald@pickup-station.conf.d/50-pickup-station.conf')).toContain('MaxRetentionSec=14day');
    // The kiosk page's socket beside it, not enabled (a kiosk station enables it).
    expect(read('usr/local/lib/systemd/system/pickup-station-kiosk.socket')).toBe(KIOSK_SOCKET);
    expect(stat('usr/local/lib/systemd/system/pickup-station-kiosk.socket')).toEqual({ mode: '644', owner: '0:0' });
    expect(existsSync(join(root, 'etc/systemd/system/sockets.target.wants/pickup-station-kiosk.socket'))).toBe(false);
    // The technician port's socket, enabled with the station: systemd holds 127.0.0.1:8470 while it runs.
    expect(read('usr/local/lib/systemd/system/pickup-station-technician.socket')).toBe(TECHNICIAN_SOCKET);
    expect(link('etc/systemd/system/pickup-station.service.wants/pickup-station-technician.socket')).toBe(
      '/usr/local/lib/systemd/system/pickup-station-technician.socket',
    );
    expect(stat('etc/udev/rules.d/99-pickup-station.rules')).toEqual({ mode: '644', owner: '0:0' });
    // The installer's record: installed, running and proven.
    expect(installRecord()).toMatchObject({ installed: '1.0.0', running: '1.0.0', proof: 'proven', proven: '1.0.0', pending: '', knownBad: '', result: 'ok' });

    // Config readable by the service's group only; credentials root-only.
    expect(stat('etc/pickup-station')).toEqual({ mode: '750', owner: `0:${gid}` });
    expect(stat('etc/pickup-station/config.json')).toEqual({ mode: '640', owner: `0:${gid}` });
    expect(read('etc/pickup-station/config.json')).toBe(TEMPLATE);
    expect(stat('etc/pickup-station/credentials')).toEqual({ mode: '700', owner: '0:0' });
    // Encrypted for the board: no plain text on the card, and they decrypt there.
    expect(readdirSync(join(root, 'etc/pickup-station/credentials')).sort()).toEqual(['station-password.cred', 'technician-tokens.cred']);
    expect(stat('etc/pickup-station/credentials/station-password.cred')).toEqual({ mode: '600', owner: '0:0' });
    expect(read('etc/pickup-station/credentials/station-password.cred')).not.toContain(PASSWORD);
    expect(board.decrypt('station-password', join(root, 'etc/pickup-station/credentials/station-password.cred'))).toBe(PASSWORD);
    expect(stat('etc/pickup-station/credentials/technician-tokens.cred')).toEqual({ mode: '600', owner: '0:0' });
    expect(board.decrypt('technician-tokens', join(root, 'etc/pickup-station/credentials/technician-tokens.cred'))).toBe('');

    // Wrappers for technicians.
    expect(stat('usr/local/bin/stationctl')).toEqual({ mode: '755', owner: '0:0' });
    // The node the unit runs (the release's own when it has one), the release's layout (app/, or dist/src/ before bundling).
    expect(read('usr/local/bin/stationctl')).toContain('[ -x /opt/pickup-station/current/node/bin/node ] && node=/opt/pickup-station/current/node/bin/node');
    expect(read('usr/local/bin/stationctl')).toContain(
      '[ -f /opt/pickup-station/current/app/stationctl.js ] && exec "$node" /opt/pickup-station/current/app/stationctl.js "$@"',
    );
    expect(read('usr/local/bin/stationctl')).toContain('exec "$node" /opt/pickup-station/current/dist/src/cli/stationctl.js "$@"');

    // What it would have done to the live system.
    expect(r.commands).toEqual([
      // Everything the release's addons link (systemd/runtime-packages), the libgpiod tools, kill (ExecReload=).
      'apt-get install -y --no-install-recommends libusb-1.0-0 libudev1 libstdc++6 libgcc-s1 gpiod procps espeak-ng alsa-utils usbguard unattended-upgrades',
      'systemd-tmpfiles --create /usr/local/lib/tmpfiles.d/pickup-station.conf',
      'modprobe -a usbserial cdc_acm',
      'systemctl daemon-reload',
      'udevadm control --reload',
      'udevadm trigger --subsystem-match=hidraw --subsystem-match=gpio --subsystem-match=tty',
      'systemctl restart pickup-station',
      // Only the board profile's USB devices: its rules written, USBGuard restarted with them, changes followed.
      '/usr/local/bin/pickup-station usb-policy --config /etc/pickup-station/config.json',
      'udevadm control --reload',
      'udevadm trigger --subsystem-match=hidraw --subsystem-match=input --action=change',
      'systemctl restart usbguard.service',
      'systemctl enable --now --quiet pickup-station-usb-policy.path',
    ]);
    expect(stat('etc/usbguard/pickup-station-daemon.conf')).toEqual({ mode: '600', owner: '0:0' });
    expect(stat('etc/usbguard/pickup-station-local.conf')).toEqual({ mode: '600', owner: '0:0' });
    expect(stat('etc/usbguard/pickup-station.d')).toEqual({ mode: '700', owner: '0:0' });
    expect(read('usr/local/lib/systemd/system/usbguard.service.d/pickup-station.conf')).toContain('-c /etc/usbguard/pickup-station-daemon.conf');
    // The password never reaches the output.
    expect(r.out).not.toContain(PASSWORD);
  });

  it('without a password it installs and enables, but does not start, and says what is missing', () => {
    const r = install(['--bundle', bundle('1.0.0')]);
    expect(r.status, r.out).toBe(0);
    expect(r.commands).not.toContain('systemctl restart pickup-station');
    expect(r.out).toContain('not started yet');
    expect(existsSync(join(root, 'etc/pickup-station/credentials/station-password.cred'))).toBe(false);
    expect(r.out).toContain('install.sh --password-file FILE: it is encrypted for this board');
  });

  it('is idempotent: a second run with the same bundle changes no file and restarts nothing', () => {
    const b = bundle('1.0.0');
    const pw = join(work, 'pw');
    writeFileSync(pw, PASSWORD);
    expect(install(['--bundle', b, '--password-file', pw]).status).toBe(0);
    const before = snapshot();
    const again = install(['--bundle', b, '--password-file', pw]);
    expect(again.status, again.out).toBe(0);
    expect(snapshot()).toEqual(before);
    expect(again.commands.filter((c) => c.startsWith('systemctl') || c.startsWith('udevadm'))).toEqual([]);
    expect(again.out).toContain('nothing changed');
  });

  it('upgrade keeps config and credentials; rollback switches back (unit file included); only two releases are kept', () => {
    const pw = join(work, 'pw');
    writeFileSync(pw, PASSWORD);
    expect(install(['--bundle', bundle('1.0.0'), '--password-file', pw]).status).toBe(0);
    // The technician configures the station.
    const config = '{"station":{"id":"configured"}}\n';
    writeFileSync(join(root, 'etc/pickup-station/config.json'), config);
    board.encrypt('technician-tokens', 'sha256:abc\n', join(root, 'etc/pickup-station/credentials/technician-tokens.cred'), 'host');
    chmodSync(join(root, 'etc/pickup-station/credentials/technician-tokens.cred'), 0o600);
    const credsBefore = snapshot(join(root, 'etc/pickup-station'));

    const up = install(['--bundle', bundle('1.1.0', { unitSuffix: '# 1.1.0\n' })]);
    expect(up.status, up.out).toBe(0);
    expect(link('opt/pickup-station/current')).toBe('releases/1.1.0');
    expect(link('opt/pickup-station/previous')).toBe('releases/1.0.0');
    expect(read('usr/local/lib/systemd/system/pickup-station.service')).toContain('# 1.1.0');
    expect(snapshot(join(root, 'etc/pickup-station'))).toEqual(credsBefore);
    expect(up.commands).toEqual(expect.arrayContaining(['systemctl daemon-reload', 'systemctl restart pickup-station']));

    const back = install(['--rollback']);
    expect(back.status, back.out).toBe(0);
    expect(link('opt/pickup-station/current')).toBe('releases/1.0.0');
    expect(link('opt/pickup-station/previous')).toBe('releases/1.1.0');
    expect(read('usr/local/lib/systemd/system/pickup-station.service')).toBe(UNIT);
    expect(back.commands).toEqual([
      'systemctl stop pickup-station',
      'systemctl daemon-reload',
      'systemctl restart pickup-station',
      expect.stringMatching(/^logger .* rolled back by hand from 1\.1\.0 to 1\.0\.0$/),
    ]);
    expect(snapshot(join(root, 'etc/pickup-station'))).toEqual(credsBefore);
    // Installed and running differ (the fleet sees it); nothing but an operator or a newer release brings 1.1.0 back.
    expect(installRecord()).toMatchObject({ installed: '1.1.0', running: '1.0.0', proof: 'proven', pending: '', knownBad: '' });
    expect(install(['--repair']).commands).toEqual([]);

    // Rolling back twice is rolling forward.
    expect(install(['--rollback']).status).toBe(0);
    expect(link('opt/pickup-station/current')).toBe('releases/1.1.0');
    expect(installRecord()).toMatchObject({ running: '1.1.0', proof: 'proven', knownBad: '' });

    // A third release: the oldest goes.
    expect(install(['--bundle', bundle('1.2.0')]).status).toBe(0);
    expect(readdirSync(join(root, 'opt/pickup-station/releases')).sort()).toEqual(['1.1.0', '1.2.0']);
    expect(link('opt/pickup-station/previous')).toBe('releases/1.1.0');
    expect(read('etc/pickup-station/config.json')).toBe(config);
  });

  it("an earlier release's plain-text credentials are encrypted for the board and removed; --password-file into an image is refused", () => {
    expect(install(['--bundle', bundle('1.0.0')]).status).toBe(0);
    const creds = join(root, 'etc/pickup-station/credentials');
    writeFileSync(join(creds, 'station-password'), PASSWORD, { mode: 0o600 });
    writeFileSync(join(creds, 'technician-tokens'), 'sha256:abc\n', { mode: 0o600 });
    const r = install(['--bundle', bundle('1.0.0')]);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain('encrypted the credential station-password');
    expect(readdirSync(creds).sort()).toEqual(['station-password.cred', 'technician-tokens.cred']);
    expect(board.decrypt('station-password', join(creds, 'station-password.cred'))).toBe(PASSWORD);
    expect(board.decrypt('technician-tokens', join(creds, 'technician-tokens.cred'))).toBe('sha256:abc\n');
    for (const f of readdirSync(creds)) expect(readFileSync(join(creds, f), 'latin1'), f).not.toContain(PASSWORD);

    // An image prepared elsewhere has no board keys: the password is refused, not written in plain text.
    const pw = join(work, 'pw');
    writeFileSync(pw, 'AnotherPassword12345');
    const image = install(['--bundle', bundle('1.0.0'), '--password-file', pw], { SYSTEMD_CREDS: '' });
    expect(image.status).not.toBe(0);
    expect(image.out).toContain('run install.sh --password-file on the board');
    expect(board.decrypt('station-password', join(creds, 'station-password.cred'))).toBe(PASSWORD);
  });

  it("the Pi's cmdline.txt keeps every USB device unauthorised until USBGuard judges it: set once, another value replaced, removed on uninstall", () => {
    const cmdline = join(root, 'boot/firmware/cmdline.txt');
    mkdirSync(join(root, 'boot/firmware'), { recursive: true });
    // Bookworm's stub in /boot says where the real one is; it is not touched.
    const stub = 'DO NOT EDIT THIS FILE\n\nThe file you are looking for has moved to /boot/firmware/cmdline.txt\n';
    writeFileSync(join(root, 'boot/cmdline.txt'), stub);
    const line = 'console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 fsck.repair=yes rootwait';
    writeFileSync(cmdline, `${line} usbcore.authorized_default=-1 quiet\n`);
    const first = install(['--bundle', bundle('1.0.0')]);
    expect(first.status, first.out).toBe(0);
    expect(read('boot/firmware/cmdline.txt')).toBe(`${line} quiet usbcore.authorized_default=0\n`);
    expect(first.out).toContain('now keeps every USB device unauthorised until USBGuard judges it (usbcore.authorized_default=0): from the next boot');
    expect(read('boot/cmdline.txt')).toBe(stub);
    const again = install(['--bundle', bundle('1.0.0')]);
    expect(again.out).not.toContain('now keeps every USB device unauthorised');
    expect(read('boot/firmware/cmdline.txt')).toBe(`${line} quiet usbcore.authorized_default=0\n`);
    const un = install(['--uninstall']);
    expect(un.status, un.out).toBe(0);
    expect(read('boot/firmware/cmdline.txt')).toBe(`${line} quiet\n`);

    // Not a Pi's boot partition: said, what to do named.
    rmSync(join(root, 'boot'), { recursive: true });
    const elsewhere = install(['--bundle', bundle('1.0.0')]);
    expect(elsewhere.out).toContain('no cmdline.txt (/boot/firmware or /boot)');
  });

  it('with a TPM the password is sealed to it and the host key, its policy on PCR 7 as the record says (read from the header)', async () => {
    await board.plugTpm(join(work, 'tpm'));
    try {
      const pw = join(work, 'pw');
      writeFileSync(pw, PASSWORD);
      const r = install(['--bundle', bundle('1.0.0'), '--password-file', pw], { ...board.env(), PICKUP_CREDENTIAL_KEY: 'host+tpm2' });
      expect(r.status, r.out).toBe(0);
      const file = join(root, 'etc/pickup-station/credentials/station-password.cred');
      expect(board.decrypt('station-password', file)).toBe(PASSWORD);
      // systemd's header: the key kind's id, four le32 sizes, the iv (padded to 8 bytes), then the TPM policy's le64 PCR mask.
      const header = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
      expect(header.subarray(0, 16).toString('hex')).toBe('93a894094874449090caf2fc93cab553');
      const at = Math.ceil((32 + header.readUInt32LE(24)) / 8) * 8;
      expect(header.readBigUInt64LE(at)).toBe(1n << 7n);
    } finally {
      await board.unplugTpm();
    }
  });

  it('uninstall removes what it installed and keeps config and credentials; --purge removes those and the account', () => {
    const pw = join(work, 'pw');
    writeFileSync(pw, PASSWORD);
    const pristine = snapshot();
    expect(install(['--bundle', bundle('1.0.0'), '--password-file', pw]).status).toBe(0);

    const un = install(['--uninstall']);
    expect(un.status, un.out).toBe(0);
    for (const gone of [
      'opt/pickup-station',
      'usr/local/lib/systemd/system/pickup-station.service',
      'usr/local/lib/systemd/system/pickup-station-kiosk.socket',
      'usr/local/lib/systemd/system/pickup-station-technician.socket',
      'usr/local/lib/systemd/system/pickup-station-repair.service',
      'usr/local/lib/systemd/system/pickup-station-upgrade.service',
      'usr/local/lib/pickup-station',
      'usr/local/lib/tmpfiles.d/pickup-station.conf',
      'usr/local/lib/modules-load.d/pickup-station.conf',
      'usr/local/lib/systemd/journald@pickup-station.conf.d',
      'etc/systemd/system/multi-user.target.wants/pickup-station.service',
      'etc/udev/rules.d/99-pickup-station.rules',
      'usr/local/bin/stationctl',
      'usr/local/bin/pickup-station',
    ])
      expect(existsSync(join(root, gone)), gone).toBe(false);
    expect(board.decrypt('station-password', join(root, 'etc/pickup-station/credentials/station-password.cred'))).toBe(PASSWORD);
    expect(existsSync(join(root, 'etc/pickup-station/config.json'))).toBe(true);
    expect(un.commands).toEqual([
      'systemctl disable --now --quiet pickup-station-kiosk.socket',
      'systemctl disable --now --quiet pickup-station-technician.socket',
      'systemctl stop pickup-station',
      'systemctl disable --now --quiet pickup-station-usb-policy.path',
      'systemctl daemon-reload',
      'udevadm control --reload',
    ]);

    // The namespace's journal as journald keeps it (persistent and volatile): kept by a plain uninstall.
    const journals = ['var/log/journal/0123456789abcdef0123456789abcdef.pickup-station', 'run/log/journal/0123456789abcdef0123456789abcdef.pickup-station'];
    for (const j of journals) {
      mkdirSync(join(root, j), { recursive: true });
      writeFileSync(join(root, j, 'system.journal'), 'lines');
    }
    mkdirSync(join(root, 'var/log/journal/0123456789abcdef0123456789abcdef'));
    const purge = install(['--uninstall', '--purge']);
    expect(purge.status, purge.out).toBe(0);
    expect(purge.commands).toContain(
      'systemctl stop systemd-journald@pickup-station.socket systemd-journald-varlink@pickup-station.socket systemd-journald@pickup-station.service',
    );
    for (const j of journals) expect(existsSync(join(root, j)), j).toBe(false);
    // The system's own journal stays.
    expect(existsSync(join(root, 'var/log/journal/0123456789abcdef0123456789abcdef'))).toBe(true);
    expect(existsSync(join(root, 'etc/pickup-station'))).toBe(false);
    expect(idOf('passwd', 'pickup-station')).toBeUndefined();
    expect(idOf('group', 'pickup-station')).toBeUndefined();
    // What is left beyond the pristine root: the shared device groups, empty directories, and
    // the backups useradd/groupadd keep (passwd-, group-).
    // (/opt itself stays: an empty system directory.)
    const left = Object.keys(snapshot()).filter((p) => !(p in pristine));
    for (const p of left)
      expect(p).toMatch(
        /^(opt|run(\/log(\/journal)?)?|var(\/log(\/journal(\/0123456789abcdef0123456789abcdef)?)?)?|etc\/(passwd-|group-|usbguard|systemd(\/system(\/multi-user\.target\.wants)?)?|udev(\/rules\.d)?)|usr(\/local(\/bin|\/lib(\/systemd(\/system)?|\/tmpfiles\.d|\/modules-load\.d)?)?|\/share(\/keyrings)?)?)$/,
      );
    expect(existsSync(join(root, 'usr/share/keyrings/pickup-station-archive-keyring.gpg'))).toBe(false);
    expect(idOf('group', 'pickup-hid')).toBeDefined();
  });

  it("the lockdown: logind, systemd and sysctl files applied, the VTs' gettys and ctrl-alt-del.target masked, Chromium's policy behind a link, an administrator's edit kept across upgrades, removed with --purge", () => {
    const lockdown = (policy: string) => ({
      extra: {
        'systemd/chromium-policy.json': policy,
        'systemd/logind-kiosk.conf': readFileSync(join(REPO, 'systemd/logind-kiosk.conf'), 'utf8'),
        'systemd/sysctl-kiosk.conf': readFileSync(join(REPO, 'systemd/sysctl-kiosk.conf'), 'utf8'),
        'systemd/system-keys.conf': readFileSync(join(REPO, 'systemd/system-keys.conf'), 'utf8'),
        'systemd/polkit-kiosk.rules': readFileSync(join(REPO, 'systemd/polkit-kiosk.rules'), 'utf8'),
      },
    });
    // An administrator's own unit under one of the names the installer masks: theirs, left alone.
    mkdirSync(join(root, 'usr/local/lib/systemd/system'), { recursive: true });
    writeFileSync(join(root, 'usr/local/lib/systemd/system/getty@tty6.service'), '[Service]\nExecStart=/bin/true\n');
    const shipped = readFileSync(join(REPO, 'systemd/chromium-policy.json'), 'utf8');
    const pw = join(work, 'pw');
    writeFileSync(pw, PASSWORD);
    const r = install(['--bundle', bundle('1.0.0', lockdown(shipped)), '--password-file', pw]);
    expect(r.status, r.out).toBe(0);
    expect(read('usr/local/lib/systemd/logind.conf.d/pickup-station.conf')).toContain('NAutoVTs=0');
    expect(read('usr/local/lib/systemd/logind.conf.d/pickup-station.conf')).toContain('HandlePowerKey=ignore');
    expect(read('usr/local/lib/sysctl.d/90-pickup-station.conf')).toContain('kernel.sysrq = 0');
    expect(r.commands).toContain('/usr/lib/systemd/systemd-sysctl 90-pickup-station.conf');
    // No getty on a VT, no reboot from Ctrl+Alt+Del: masked where the installer's units go, systemd's
    // drop-in beside them; systemd reads them (daemon-reload), logind its drop-in (SIGHUP).
    for (const unit of [1, 2, 3, 4, 5].map((n) => `getty@tty${n}.service`).concat('ctrl-alt-del.target'))
      expect(link(`usr/local/lib/systemd/system/${unit}`), unit).toBe('/dev/null');
    expect(read('usr/local/lib/systemd/system/getty@tty6.service')).toBe('[Service]\nExecStart=/bin/true\n');
    expect(read('usr/local/lib/systemd/system.conf.d/pickup-station.conf')).toContain('CtrlAltDelBurstAction=none');
    expect(r.commands).toContain('systemctl daemon-reload');
    expect(r.commands).toContain('systemctl kill --signal=SIGHUP systemd-logind.service');
    // Installed again: nothing changed, logind not signalled again.
    const again = install(['--bundle', bundle('1.0.0', lockdown(shipped))]);
    expect(again.status, again.out).toBe(0);
    expect(again.commands).not.toContain('systemctl kill --signal=SIGHUP systemd-logind.service');
    // The kiosk user's one polkit action (cage's seat through logind), in the folder polkitd reads.
    expect(read('etc/polkit-1/rules.d/50-pickup-station-kiosk.rules')).toContain("action.id === 'org.freedesktop.login1.chvt'");
    expect(stat('etc/polkit-1/rules.d/50-pickup-station-kiosk.rules')).toEqual({ mode: '644', owner: '0:0' });
    expect(read('etc/pickup-station-kiosk/chromium-policy.json')).toBe(shipped);
    expect(stat('etc/pickup-station-kiosk/chromium-policy.json')).toEqual({ mode: '644', owner: '0:0' });
    expect(link('etc/chromium/policies/managed/pickup-station.json')).toBe('../../../pickup-station-kiosk/chromium-policy.json');
    expect(read('etc/chromium/policies/managed/pickup-station.json')).toBe(shipped);

    // A new release's policy replaces the one the installer wrote...
    const v2 = shipped.replace('"SearchSuggestEnabled": false', '"SearchSuggestEnabled": false,\n  "SpellcheckEnabled": false');
    expect(install(['--bundle', bundle('1.1.0', lockdown(v2))]).status).toBe(0);
    expect(read('etc/pickup-station-kiosk/chromium-policy.json')).toBe(v2);
    // ...but not one an administrator edited: kept, and said so (output and journal).
    const edited = v2.replace('"file:///run/pickup-kiosk/start.html"]', '"file:///run/pickup-kiosk/start.html", "https://catalogue.library.example/"]');
    writeFileSync(join(root, 'etc/pickup-station-kiosk/chromium-policy.json'), edited);
    const v3 = v2.replace('"TranslateEnabled": false', '"TranslateEnabled": false,\n  "ShowHomeButton": false');
    const kept = install(['--bundle', bundle('1.2.0', lockdown(v3))]);
    expect(kept.status, kept.out).toBe(0);
    expect(read('etc/pickup-station-kiosk/chromium-policy.json')).toBe(edited);
    expect(kept.out).toContain('kept /');
    expect(kept.out).toContain("etc/pickup-station-kiosk/chromium-policy.json as edited here; release 1.2.0's own is");
    expect(kept.commands.some((c) => c.startsWith('logger -t pickup-station-install -p daemon.notice -- kept '))).toBe(true);
    // Nothing of ours beside it in Chromium's folder (Chromium reads every file there).
    expect(readdirSync(join(root, 'etc/chromium/policies/managed'))).toEqual(['pickup-station.json']);

    expect(install(['--uninstall']).status).toBe(0);
    expect(existsSync(join(root, 'usr/local/lib/systemd/logind.conf.d/pickup-station.conf'))).toBe(false);
    expect(existsSync(join(root, 'usr/local/lib/systemd/system.conf.d/pickup-station.conf'))).toBe(false);
    expect(existsSync(join(root, 'usr/local/lib/systemd/system/ctrl-alt-del.target'))).toBe(false);
    expect(existsSync(join(root, 'usr/local/lib/systemd/system/getty@tty1.service'))).toBe(false);
    expect(existsSync(join(root, 'usr/local/lib/systemd/system/getty@tty6.service'))).toBe(true);
    expect(existsSync(join(root, 'usr/local/lib/sysctl.d/90-pickup-station.conf'))).toBe(false);
    expect(existsSync(join(root, 'etc/polkit-1/rules.d/50-pickup-station-kiosk.rules'))).toBe(false);
    expect(read('etc/pickup-station-kiosk/chromium-policy.json')).toBe(edited);
    expect(install(['--uninstall', '--purge']).status).toBe(0);
    expect(existsSync(join(root, 'etc/pickup-station-kiosk'))).toBe(false);
    expect(existsSync(join(root, 'etc/chromium/policies/managed/pickup-station.json'))).toBe(false);
  }, 240_000);

  it("the units' copy of the installer is replaced as a set: a job file the new set lacks goes, and a copy caught half replaced hands its run to the release's own installer", () => {
    const pw = join(work, 'pw');
    writeFileSync(pw, PASSWORD);
    expect(install(['--bundle', bundle('1.0.0'), '--password-file', pw]).status).toBe(0);
    const copy = join(root, 'usr/local/lib/pickup-station');
    const runCopy = (args: string[]) => {
      const r = spawnSync('bash', [join(copy, 'install.sh'), '--root', root, ...args], {
        env: { PATH: process.env['PATH'], NODE: process.execPath, SYSTEMD_CREDS: board.creds, PICKUP_CREDENTIAL_KEY: 'host' },
        encoding: 'utf8',
      });
      return { status: r.status, out: r.stdout + r.stderr };
    };
    expect(runCopy(['--status']).status).toBe(0);

    // Cut off while the copy was replaced: its flag beside it, one job file of another installer.
    writeFileSync(join(copy, 'installer.partial'), '');
    writeFileSync(join(copy, 'installer/switch.sh'), 'exit 97\n');
    const handed = runCopy(['--status']);
    expect(handed.out).toContain("this installer's files are half replaced");
    expect(handed.out).toContain('current 1.0.0, previous ; installed 1.0.0, proven');
    expect(handed.status, handed.out).toBe(0);
    // Without the flag that copy would run as it is; a job file missing is named.
    rmSync(join(copy, 'installer.partial'));
    rmSync(join(copy, 'installer/switch.sh'));
    const incomplete = runCopy(['--status']);
    expect(incomplete.status).toBe(1);
    expect(incomplete.out).toContain(`incomplete installer: no ${copy}/installer/switch.sh`);

    // The next install writes the whole set again, and a job file its set lacks goes.
    writeFileSync(join(copy, 'installer.partial'), '');
    writeFileSync(join(copy, 'installer/gone.sh'), '# an older job file\n');
    const again = install(['--bundle', bundle('1.1.0'), '--password-file', pw]);
    expect(again.status, again.out).toBe(0);
    expect(readdirSync(join(copy, 'installer')).sort()).toEqual(
      Object.keys(installerFiles())
        .filter((f) => f.startsWith('systemd/installer/'))
        .map((f) => f.slice('systemd/installer/'.length)),
    );
    expect(existsSync(join(copy, 'installer.partial'))).toBe(false);
    expect(runCopy(['--status']).status).toBe(0);
  });

  it('refuses a damaged bundle and installs nothing', () => {
    const r = install(['--bundle', bundle('1.0.0', { corrupt: true })]);
    expect(r.status).not.toBe(0);
    expect(r.out).toContain('checksum mismatch: app/main.js');
    expect(existsSync(join(root, 'opt/pickup-station'))).toBe(false);
  });

  it('refuses a bundle built for another Node major (its addons would not load)', () => {
    const major = Number(process.versions.node.split('.')[0]);
    const r = install(['--bundle', bundle('1.0.0', { nodeMajor: major + 1 })]);
    expect(r.status).not.toBe(0);
    expect(r.out).toContain(`built for Node ${major + 1}`);
  });

  it('fails clearly on a Node older than 20.11 (Bookworm ships 18)', () => {
    const fake = join(work, 'node18');
    writeFileSync(fake, '#!/bin/sh\necho v18.19.0\n');
    chmodSync(fake, 0o755);
    const r = install(['--bundle', bundle('1.0.0')], { NODE: fake });
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/Node 18\.19\.0 .* too old: 20\.11\.0 or newer/);
    expect(r.out).toContain('NodeSource');
  });

  it('a release with its own Node: needs no Node on the board, checks and uses the bundled one', () => {
    const tooOld = join(work, 'node18');
    writeFileSync(tooOld, '#!/bin/sh\necho v18.19.0\n');
    chmodSync(tooOld, 0o755);
    const r = install(['--bundle', bundle('1.0.0', { nodeMajor: 24, node: { version: '24.21.0' } })], { NODE: tooOld });
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain('the release ships Node 24.21.0 (node/bin/node): the unit runs it');
    expect(stat('opt/pickup-station/releases/1.0.0/node/bin/node')).toEqual({ mode: '755', owner: '0:0' });
    // The unit finds it first (ExecSearchPath=), so it is the one the addons were built for.
    expect(read('usr/local/lib/systemd/system/pickup-station.service')).toContain('ExecSearchPath=/opt/pickup-station/current/node/bin:/usr/bin');
  });

  it('refuses a bundled node whose checksum does not match, without running it', () => {
    const ran = join(work, 'ran');
    const r = install(['--bundle', bundle('1.0.0', { nodeMajor: 24, node: { version: '24.21.0', tamper: true, ranMarker: ran } })]);
    expect(r.status).not.toBe(0);
    expect(r.out).toContain('checksum mismatch: node/bin/node');
    expect(existsSync(ran)).toBe(false);
    expect(existsSync(join(root, 'opt/pickup-station'))).toBe(false);
  });

  it('refuses a bundled node that does not run on this board (another architecture)', () => {
    const r = install(['--bundle', bundle('1.0.0', { nodeMajor: 24, node: { version: '24.21.0', runs: false } })]);
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/node\/bin\/node does not run on this board: .*Exec format error/);
    expect(existsSync(join(root, 'opt/pickup-station'))).toBe(false);
  });

  it('refuses a bundle whose addons need another major than its own node', () => {
    const r = install(['--bundle', bundle('1.0.0', { nodeMajor: 20, node: { version: '24.21.0' } })]);
    expect(r.status).not.toBe(0);
    expect(r.out).toContain('built for Node 20, this board has Node 24.21.0');
  });

  it('--rollback without a previous release says so', () => {
    expect(install(['--bundle', bundle('1.0.0')]).status).toBe(0);
    const r = install(['--rollback']);
    expect(r.status).not.toBe(0);
    expect(r.out).toContain('no proven release before 1.0.0 to roll back to');
  });

  it('accepts a bundle without a top directory too', () => {
    bundle('2.0.0');
    const flat = join(work, 'flat.tar.gz');
    expect(spawnSync('tar', ['-czf', flat, '-C', join(work, 'src/pickup-station-2.0.0'), '.']).status).toBe(0);
    signDetached(keys, 'vendor', flat);
    const r = install(['--bundle', flat]);
    expect(r.status, r.out).toBe(0);
    expect(link('opt/pickup-station/current')).toBe('releases/2.0.0');
  });
});

describe.skipIf(!IS_ROOT || !HAVE_SYSTEMCTL || !HAVE_GPG || !HAVE_CREDS)('install.sh: signed bundles', { timeout: 90_000 }, () => {
  const KEY = 'usr/share/keyrings/pickup-station-archive-keyring.gpg';

  it('the first install checks the signature against --key and installs that key; the next upgrade is checked against it', () => {
    const r = install(['--bundle', bundle('1.0.0')]);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain(`signature ok: signed by ${keys.vendorId}`);
    expect(readFileSync(join(root, KEY))).toEqual(readFileSync(keys.vendorPublic));
    expect(stat(KEY)).toEqual({ mode: '644', owner: '0:0' });
    const up = install(['--bundle', bundle('1.1.0')], {}, { noKey: true });
    expect(up.status, up.out).toBe(0);
    expect(link('opt/pickup-station/current')).toBe('releases/1.1.0');
    // Signed by someone else: refused against the installed key, nothing changes.
    const other = install(['--bundle', bundle('1.2.0', { signer: 'other' })], {}, { noKey: true });
    expect(other.status).not.toBe(0);
    expect(other.out).toContain('bad signature: pickup-station-1.2.0-linux-arm64.tar.gz is not signed by a valid vendor key');
    expect(link('opt/pickup-station/current')).toBe('releases/1.1.0');
    expect(other.commands).toEqual([
      expect.stringMatching(/^logger -t pickup-station-install -p daemon\.err -- refused pickup-station-1\.2\.0-linux-arm64\.tar\.gz/),
    ]);
  });

  it("after a rotation and the old key's revocation: a bundle signed by the new key installs, one signed by the revoked key is refused", () => {
    // The keyring the keyring package ships after a revocation: the new key, the old one revoked.
    const keyring = revokedKeyring(keys, 'vendor', join(work, 'revoked.gpg'));
    const r = install(['--bundle', bundle('1.0.0', { signer: 'other' }), '--key', keyring]);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain(`signature ok: signed by ${keys.otherId}`);
    // gpgv itself exits 0 for a good signature by a revoked key: the installer does not.
    const stolen = install(['--bundle', bundle('1.1.0')], {}, { noKey: true });
    expect(stolen.status).not.toBe(0);
    expect(stolen.out).toContain('(REVKEYSIG: signed by a key the vendor has revoked)');
    expect(link('opt/pickup-station/current')).toBe('releases/1.0.0');
    expect(stolen.commands).toEqual([
      expect.stringMatching(/^logger -t pickup-station-install -p daemon\.err -- refused pickup-station-1\.1\.0-linux-arm64\.tar\.gz: .*REVKEYSIG/),
    ]);
  });

  it('without a key installed or given, a bundle is refused', () => {
    const r = install(['--bundle', bundle('1.0.0')], {}, { noKey: true });
    expect(r.status).not.toBe(0);
    expect(r.out).toContain('no vendor key');
    expect(existsSync(join(root, 'opt/pickup-station'))).toBe(false);
  });

  it('refuses an unsigned bundle, and one changed after signing, before running anything from it', () => {
    const ran = join(work, 'ran');
    const unsigned = install(['--bundle', bundle('1.0.0', { signer: 'none', nodeMajor: 24, node: { version: '24.21.0', ranMarker: ran } })]);
    expect(unsigned.status).not.toBe(0);
    expect(unsigned.out).toContain('refusing an unsigned release');
    const file = bundle('1.0.0', { nodeMajor: 24, node: { version: '24.21.0', ranMarker: ran } });
    writeFileSync(file, Buffer.concat([readFileSync(file), Buffer.from([0])]));
    const changed = install(['--bundle', file]);
    expect(changed.status).not.toBe(0);
    expect(changed.out).toContain('bad signature');
    expect(existsSync(ran)).toBe(false);
    expect(existsSync(join(root, 'opt/pickup-station'))).toBe(false);
  });

  it('--insecure-skip-signature installs an unsigned bundle and leaves a warning in the journal', () => {
    const r = install(['--bundle', bundle('1.0.0', { signer: 'none' }), '--insecure-skip-signature'], {}, { noKey: true });
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain('WARNING: --insecure-skip-signature');
    expect(r.commands[0]).toBe(
      'logger -t pickup-station-install -p daemon.warning -- installing pickup-station-1.0.0-linux-arm64.tar.gz without checking its signature (--insecure-skip-signature)',
    );
    expect(link('opt/pickup-station/current')).toBe('releases/1.0.0');
  });
});

describe.skipIf(!IS_ROOT || !HAVE_SYSTEMCTL || !HAVE_GPG || !HAVE_CREDS)(
  "install.sh --package-release (the Debian package's postinst)",
  { timeout: 90_000 },
  () => {
    const PACKAGED_UNIT = 'usr/lib/systemd/system/pickup-station.service';
    /**
     * Lay out what dpkg unpacks: the release tree (new inodes for every file, as dpkg's rename of a
     * new file over the old one makes them), this installer's units, and dpkg's list of them.
     */
    function unpackPackage(version: string, opts: BundleOpts = {}): string {
      bundle(version, opts);
      const tree = join(root, 'usr/lib/pickup-station/release');
      rmSync(tree, { recursive: true, force: true });
      mkdirSync(join(tree, '..'), { recursive: true });
      expect(spawnSync('cp', ['-a', join(work, 'src', `pickup-station-${version}`), tree]).status).toBe(0);
      mkdirSync(join(root, 'usr/lib/systemd/system'), { recursive: true });
      for (const h of ['repair', 'upgrade'] as const) writeFileSync(join(root, `usr/lib/systemd/system/pickup-station-${h}.service`), HELPER(h));
      mkdirSync(join(root, 'var/lib'), { recursive: true });
      writeFileSync(
        join(root, 'var/lib/pickup-station.files'),
        ['/usr/lib/systemd/system/pickup-station-repair.service', '/usr/lib/systemd/system/pickup-station-upgrade.service'].join('\n') + '\n',
      );
      return tree;
    }
    const configured = (): string => {
      const pw = join(work, 'pw');
      writeFileSync(pw, PASSWORD);
      return pw;
    };
    /** The daemon holds its update lock: someone uses the station (a live pid: this test's). */
    const busy = (reason = 'box 3 is open') => {
      mkdirSync(join(root, 'run/pickup-station'), { recursive: true });
      writeFileSync(join(root, 'run/pickup-station/updates.lock'), `${JSON.stringify({ pid: process.pid, reason, since: new Date().toISOString() })}\n`);
    };
    const free = () => rmSync(join(root, 'run/pickup-station/updates.lock'), { force: true });
    const starts = (commands: string[]) => commands.filter((c) => /^systemctl (restart|start|stop) pickup-station$/.test(c));

    it("installs the unpacked release as hard links with the release's own unit; leaves udev rules, commands and its own units to the package; records what it proved", () => {
      const tree = unpackPackage('1.0.0');
      const r = install(['--package-release', tree, '--password-file', configured()]);
      expect(r.status, r.out).toBe(0);
      expect(link('opt/pickup-station/current')).toBe('releases/1.0.0');
      expect(lstatSync(join(root, 'opt/pickup-station/releases/1.0.0/app/main.js')).ino).toBe(lstatSync(join(tree, 'app/main.js')).ino);
      // The unit comes with the switch, from the release switched to: not at dpkg's unpack.
      expect(read(PACKAGED_UNIT)).toBe(UNIT);
      expect(link('etc/systemd/system/multi-user.target.wants/pickup-station.service')).toBe('/usr/lib/systemd/system/pickup-station.service');
      for (const f of ['etc/systemd/system/pickup-station.service', 'etc/udev/rules.d/99-pickup-station.rules', 'usr/local/bin/stationctl', 'usr/local/lib'])
        expect(existsSync(join(root, f)), f).toBe(false);
      expect(read('usr/lib/systemd/system/pickup-station-repair.service')).toBe(HELPER('repair'));
      expect(read('etc/pickup-station/config.json')).toBe(TEMPLATE);
      // dpkg brought the dependencies; no apt-get inside a maintainer script (dpkg holds the lock).
      expect(r.commands.some((c) => c.startsWith('apt-get'))).toBe(false);
      expect(r.commands).toContain('systemctl restart pickup-station');
      expect(installRecord()).toMatchObject({ installed: '1.0.0', running: '1.0.0', proof: 'proven', proven: '1.0.0', result: 'ok' });
    });

    it("an upgrade keeps the older release intact when dpkg replaces the package files; each release runs under its own unit, a rollback's included", () => {
      expect(install(['--package-release', unpackPackage('1.0.0'), '--password-file', configured()]).status).toBe(0);
      // dpkg unpacks the next version by renaming new files over the old ones.
      const tree = unpackPackage('1.1.0', { unitSuffix: '# 1.1.0\n' });
      // Unpacked, not configured: the running release's unit is still its own.
      expect(read(PACKAGED_UNIT)).toBe(UNIT);
      const up = install(['--package-release', tree]);
      expect(up.status, up.out).toBe(0);
      expect(starts(up.commands)).toEqual(['systemctl stop pickup-station', 'systemctl restart pickup-station']);
      expect(up.commands.indexOf('systemctl daemon-reload')).toBeGreaterThan(up.commands.indexOf('systemctl stop pickup-station'));
      expect(read('opt/pickup-station/releases/1.0.0/app/main.js')).toBe('// pickup-station 1.0.0\n');
      expect(link('opt/pickup-station/previous')).toBe('releases/1.0.0');
      expect(read(PACKAGED_UNIT)).toBe(`${UNIT}# 1.1.0\n`);
      // Back to 1.0.0 by hand: its own unit comes back with it; /etc/systemd/system is not touched.
      const back = install(['--rollback']);
      expect(back.status, back.out).toBe(0);
      expect(read(PACKAGED_UNIT)).toBe(UNIT);
      expect(existsSync(join(root, 'etc/systemd/system/pickup-station.service'))).toBe(false);
      expect(install(['--rollback']).status).toBe(0);
      expect(read(PACKAGED_UNIT)).toBe(`${UNIT}# 1.1.0\n`);
      // --uninstall is the package manager's job here.
      const un = install(['--uninstall']);
      expect(un.status).not.toBe(0);
      expect(un.out).toContain('apt-get remove pickup-station');
    });

    it('a reinstall of the running version (dpkg unpacks the same files again) changes nothing and restarts nothing', () => {
      expect(install(['--package-release', unpackPackage('1.1.0'), '--password-file', configured()]).status).toBe(0);
      const before = snapshot(join(root, 'opt'));
      const again = install(['--package-release', unpackPackage('1.1.0')]);
      expect(again.status, again.out).toBe(0);
      expect(again.out).toContain('release 1.1.0 is already installed');
      expect(again.out).toContain('nothing changed');
      expect(again.commands.filter((c) => c.startsWith('systemctl') || c.startsWith('udevadm'))).toEqual([]);
      const after = snapshot(join(root, 'opt'));
      delete before['pickup-station/install-status.json'];
      delete after['pickup-station/install-status.json'];
      expect(after).toEqual(before);
    });

    it('a busy station defers the switch: the package configures at once, pickup-station-upgrade.service switches when the station is free', () => {
      expect(install(['--package-release', unpackPackage('1.0.0'), '--password-file', configured()]).status).toBe(0);
      busy();
      const up = install(['--package-release', unpackPackage('1.1.0'), '--lock-wait', '0']);
      expect(up.status, up.out).toBe(0);
      expect(up.out).toContain('release 1.1.0 is installed; the switch waits: the station is in use (box 3 is open)');
      expect(link('opt/pickup-station/current')).toBe('releases/1.0.0');
      expect(starts(up.commands)).toEqual([]);
      expect(up.commands).toContain('systemctl start --no-block pickup-station-upgrade.service');
      expect(installRecord()).toMatchObject({ installed: '1.1.0', running: '1.0.0', proof: 'proven', pending: '1.1.0', result: 'pending' });
      // The service, while the station is still in use, waits (bounded by DEFER_WAIT) and changes nothing.
      mkdirSync(join(root, 'etc/default'), { recursive: true });
      writeFileSync(join(root, 'etc/default/pickup-station'), 'DEFER_WAIT=1\n');
      const waiting = install(['--resume']);
      expect(waiting.status).not.toBe(0);
      expect(waiting.out).toContain('release 1.1.0 waits for the station: box 3 is open');
      expect(link('opt/pickup-station/current')).toBe('releases/1.0.0');
      free();
      const done = install(['--resume']);
      expect(done.status, done.out).toBe(0);
      expect(starts(done.commands)).toEqual(['systemctl stop pickup-station', 'systemctl restart pickup-station']);
      expect(link('opt/pickup-station/current')).toBe('releases/1.1.0');
      expect(installRecord()).toMatchObject({ installed: '1.1.0', running: '1.1.0', proof: 'proven', pending: '', result: 'ok' });
    });

    it('a release that fails its proof is rolled back, remembered and not retried by later runs until a newer one arrives or --retry-failed', () => {
      expect(install(['--package-release', unpackPackage('1.0.0'), '--password-file', configured()]).status).toBe(0);
      const bad = install(['--package-release', unpackPackage('1.1.0')], { PICKUP_INSTALL_UNHEALTHY: '1.1.0' });
      // The package configures (dpkg stays clean); the outcome is in the record, the journal and the output.
      expect(bad.status, bad.out).toBe(0);
      expect(bad.out).toContain('rolled back: 1.0.0 is running again');
      expect(bad.commands).toContain(
        'logger -t pickup-station-install -p daemon.err -- upgrade from 1.0.0 to 1.1.0 failed: PICKUP_INSTALL_UNHEALTHY=1.1.0 (--root); rolling back to 1.0.0',
      );
      expect(link('opt/pickup-station/current')).toBe('releases/1.0.0');
      // `previous` never names the failed release (there is no proven one before 1.0.0).
      expect(existsSync(join(root, 'opt/pickup-station/previous'))).toBe(false);
      expect(installRecord()).toMatchObject({
        installed: '1.1.0',
        running: '1.0.0',
        proof: 'proven',
        proven: '1.0.0',
        knownBad: '1.1.0',
        result: 'rolled-back',
      });
      // The next configure of the same version (dpkg --configure -a, a reinstall): not tried again, nothing restarted.
      const again = install(['--package-release', unpackPackage('1.1.0')]);
      expect(again.status, again.out).toBe(0);
      expect(again.out).toContain('release 1.1.0 failed its proof before (PICKUP_INSTALL_UNHEALTHY=1.1.0 (--root)): not tried again; 1.0.0 keeps running');
      expect(starts(again.commands)).toEqual([]);
      // An operator forces it (through apt: the environment reaches the postinst).
      const forced = install(['--package-release', unpackPackage('1.1.0')], { PICKUP_STATION_RETRY_FAILED: '1' });
      expect(forced.status, forced.out).toBe(0);
      expect(link('opt/pickup-station/current')).toBe('releases/1.1.0');
      expect(installRecord()).toMatchObject({ running: '1.1.0', proof: 'proven', knownBad: '' });
    });

    it("a downgrade to an older release's package is a switch like an upgrade, and ends a failed release's mismatch (installed = running)", () => {
      expect(install(['--package-release', unpackPackage('1.0.0'), '--password-file', configured()]).status).toBe(0);
      expect(install(['--package-release', unpackPackage('1.1.0')]).status).toBe(0);
      expect(install(['--package-release', unpackPackage('1.2.0')], { PICKUP_INSTALL_UNHEALTHY: '1.2.0' }).status).toBe(0);
      expect(installRecord()).toMatchObject({ installed: '1.2.0', running: '1.1.0', knownBad: '1.2.0' });
      const down = install(['--package-release', unpackPackage('1.0.0')]);
      expect(down.status, down.out).toBe(0);
      expect(starts(down.commands)).toEqual(['systemctl stop pickup-station', 'systemctl restart pickup-station']);
      expect(link('opt/pickup-station/current')).toBe('releases/1.0.0');
      expect(link('opt/pickup-station/previous')).toBe('releases/1.1.0');
      expect(read(PACKAGED_UNIT)).toBe(UNIT);
      expect(installRecord()).toMatchObject({ installed: '1.0.0', running: '1.0.0', proof: 'proven', proven: '1.0.0', result: 'ok' });
    });

    it('--rollback after an automatic rollback goes to the last proven release, never to the failed one', () => {
      expect(install(['--package-release', unpackPackage('1.0.0'), '--password-file', configured()]).status).toBe(0);
      expect(install(['--package-release', unpackPackage('1.1.0')]).status).toBe(0);
      expect(install(['--package-release', unpackPackage('1.2.0')], { PICKUP_INSTALL_UNHEALTHY: '1.2.0' }).status).toBe(0);
      expect(link('opt/pickup-station/current')).toBe('releases/1.1.0');
      expect(link('opt/pickup-station/previous')).toBe('releases/1.0.0');
      const back = install(['--rollback']);
      expect(back.status, back.out).toBe(0);
      expect(link('opt/pickup-station/current')).toBe('releases/1.0.0');
      // A rollback whose target does not prove itself switches back to where it came from.
      expect(install(['--rollback']).status).toBe(0);
      expect(link('opt/pickup-station/current')).toBe('releases/1.1.0');
      const failing = install(['--rollback'], { PICKUP_INSTALL_UNHEALTHY: '1.0.0' });
      expect(failing.status).not.toBe(0);
      expect(failing.out).toContain('1.0.0 is not healthy either');
      expect(link('opt/pickup-station/current')).toBe('releases/1.1.0');
      expect(installRecord()).toMatchObject({ running: '1.1.0', proof: 'proven' });
    });

    it("the administrator's choices stand: a masked unit stays masked and is not started, the switch waits for its next start", () => {
      expect(install(['--package-release', unpackPackage('1.0.0'), '--password-file', configured()]).status).toBe(0);
      symlinkSync('/dev/null', join(root, 'etc/systemd/system/pickup-station.service'));
      const up = install(['--package-release', unpackPackage('1.1.0')]);
      expect(up.status, up.out).toBe(0);
      expect(up.out).toContain('the switch waits: the unit is masked');
      expect(starts(up.commands)).toEqual([]);
      expect(up.commands.some((c) => /unmask|enable/.test(c))).toBe(false);
      expect(link('etc/systemd/system/pickup-station.service')).toBe('/dev/null');
      expect(link('opt/pickup-station/current')).toBe('releases/1.0.0');
      expect(installRecord()).toMatchObject({ pending: '1.1.0', result: 'pending' });
      // The repair before its next start hands the switch to the upgrade service; that one waits while masked.
      expect(install(['--repair']).commands).toEqual(['systemctl start --no-block pickup-station-upgrade.service']);
      expect(install(['--resume']).out).toContain('release 1.1.0 waits: the unit is masked');
      rmSync(join(root, 'etc/systemd/system/pickup-station.service'));
      const later = install(['--resume']);
      expect(later.status, later.out).toBe(0);
      expect(link('opt/pickup-station/current')).toBe('releases/1.1.0');
    });

    it('a disabled unit stays disabled and is not started by an upgrade (deb-systemd-helper: enabled on the first install only)', () => {
      expect(install(['--package-release', unpackPackage('1.0.0'), '--password-file', configured()]).status).toBe(0);
      expect(spawnSync('systemctl', [`--root=${root}`, 'disable', 'pickup-station'], { encoding: 'utf8' }).status).toBe(0);
      const up = install(['--package-release', unpackPackage('1.1.0')]);
      expect(up.status, up.out).toBe(0);
      expect(up.out).toContain('the switch waits: the unit is disabled and not running');
      expect(starts(up.commands)).toEqual([]);
      expect(existsSync(join(root, 'etc/systemd/system/multi-user.target.wants/pickup-station.service'))).toBe(false);
      expect(installRecord()).toMatchObject({ running: '1.0.0', pending: '1.1.0' });
    });

    it("an administrator's unit in /etc/systemd/system stays; a copy an earlier installer made there is removed", () => {
      expect(install(['--package-release', unpackPackage('1.0.0'), '--password-file', configured()]).status).toBe(0);
      writeFileSync(join(root, 'etc/systemd/system/pickup-station.service'), UNIT); // what the earlier installer copied there
      expect(install(['--package-release', unpackPackage('1.1.0')]).status).toBe(0);
      expect(existsSync(join(root, 'etc/systemd/system/pickup-station.service'))).toBe(false);
      const own = `${UNIT}# the administrator's\n`;
      writeFileSync(join(root, 'etc/systemd/system/pickup-station.service'), own);
      mkdirSync(join(root, 'etc/systemd/system/pickup-station.service.d'));
      writeFileSync(join(root, 'etc/systemd/system/pickup-station.service.d/local.conf'), '[Service]\nTimeoutStartSec=600s\n');
      const up = install(['--package-release', unpackPackage('1.2.0')]);
      expect(up.status, up.out).toBe(0);
      expect(up.out).toContain("is an administrator's unit: it is used instead of the release's own");
      expect(read('etc/systemd/system/pickup-station.service')).toBe(own);
      expect(read('etc/systemd/system/pickup-station.service.d/local.conf')).toBe('[Service]\nTimeoutStartSec=600s\n');
    });

    it('interrupted anywhere: the repair before a start puts the proven release back and hands the other one to the upgrade service', () => {
      expect(install(['--package-release', unpackPackage('1.0.0'), '--password-file', configured()]).status).toBe(0);
      expect(install(['--package-release', unpackPackage('1.1.0', { unitSuffix: '# 1.1.0\n' })]).status).toBe(0);
      const state = installRecord();
      // A power cut after the switch to 1.2.0, before its proof: current and its unit are 1.2.0's, the record says unproven.
      expect(install(['--package-release', unpackPackage('1.2.0', { unitSuffix: '# 1.2.0\n' }), '--no-start']).status).toBe(0);
      const cut = (over: Record<string, unknown>, current: string) => {
        writeFileSync(join(root, 'opt/pickup-station/install-status.json'), `${JSON.stringify({ ...state, installed: '1.2.0', ...over })}\n`);
        rmSync(join(root, 'opt/pickup-station/current'));
        symlinkSync(`releases/${current}`, join(root, 'opt/pickup-station/current'));
        writeFileSync(join(root, PACKAGED_UNIT), current === '1.0.0' ? UNIT : `${UNIT}# ${current}\n`);
      };
      for (const [what, over, current, pending] of [
        ['after the switch, before the proof', { running: '1.2.0', proof: 'unproven', pending: '1.2.0', attempts: 1 }, '1.2.0', '1.2.0'],
        ['half switched (current moved, the record not yet)', { switching: '1.1.0>1.2.0', pending: '1.2.0', attempts: 1 }, '1.2.0', '1.2.0'],
        ['during the rollback (1.2.0 failed)', { running: '1.2.0', proof: 'failed', knownBad: '1.2.0', switching: '1.2.0>1.1.0' }, '1.2.0', ''],
      ] as const) {
        cut(over, current);
        const r = install(['--repair']);
        expect(r.status, `${what}: ${r.out}`).toBe(0);
        expect(link('opt/pickup-station/current'), what).toBe('releases/1.1.0');
        expect(read(PACKAGED_UNIT), what).toBe(`${UNIT}# 1.1.0\n`);
        expect(installRecord(), what).toMatchObject({ running: '1.1.0', proof: 'proven', switching: '', pending });
        expect(r.commands, what).toEqual(expect.arrayContaining(['systemctl daemon-reload', 'systemctl start --no-block pickup-station-upgrade.service']));
        expect(starts(r.commands), what).toEqual([]);
      }
      // Half switched the other way round (the record moved, current not yet): nothing to put back.
      cut({ switching: '1.1.0>1.2.0', pending: '1.2.0', attempts: 1 }, '1.1.0');
      const half = install(['--repair']);
      expect(half.commands).toEqual(['systemctl start --no-block pickup-station-upgrade.service']);
      expect(installRecord()).toMatchObject({ running: '1.1.0', proof: 'proven', switching: '', pending: '1.2.0' });
      // The upgrade service tries 1.2.0 again once the station runs; a release cut off every time is given up.
      cut({ running: '1.1.0', pending: '1.2.0', attempts: 3 }, '1.1.0');
      const r = install(['--resume']);
      expect(r.out).toContain('release 1.2.0 is not tried again: its switch was cut off 3 times before it could prove itself');
      expect(link('opt/pickup-station/current')).toBe('releases/1.1.0');
      expect(installRecord()).toMatchObject({ knownBad: '1.2.0', pending: '' });
    });

    it('a record of an earlier installer after an automatic rollback: the failed release is known bad and `previous` no longer names it', () => {
      expect(install(['--package-release', unpackPackage('1.0.0'), '--password-file', configured()]).status).toBe(0);
      expect(install(['--package-release', unpackPackage('1.1.0')]).status).toBe(0);
      // What the earlier installer left: current back on 1.0.0, previous on the failed 1.1.0, an old-format record.
      rmSync(join(root, 'opt/pickup-station/current'));
      symlinkSync('releases/1.0.0', join(root, 'opt/pickup-station/current'));
      rmSync(join(root, 'opt/pickup-station/previous'));
      symlinkSync('releases/1.1.0', join(root, 'opt/pickup-station/previous'));
      writeFileSync(
        join(root, 'opt/pickup-station/install-status.json'),
        '{"installed":"1.1.0","running":"1.0.0","result":"rolled-back","reason":"it exited"}\n',
      );
      // The shell-readable copy this installer wrote beside its own record stays, bound to that record's hash: stale, not read.
      expect(read('opt/pickup-station/install-status.tsv')).toMatch(/^json\t[0-9a-f]{64}\n/);
      mkdirSync(join(root, 'opt/pickup-station/releases/.new-1.1.0.4242/app'), { recursive: true });
      const r = install(['--rollback']);
      expect(r.status).not.toBe(0);
      expect(r.out).toContain('no proven release before 1.0.0 to roll back to');
      expect(existsSync(join(root, 'opt/pickup-station/previous'))).toBe(false);
      const again = install(['--package-release', unpackPackage('1.1.0')]);
      expect(again.out).toContain('not tried again');
      expect(existsSync(join(root, 'opt/pickup-station/releases/.new-1.1.0.4242'))).toBe(false);
      expect(installRecord()).toMatchObject({ running: '1.0.0', proof: 'proven', knownBad: '1.1.0', knownBadReason: 'it exited' });
    });

    it("the next run removes the temporary files of a run cut off before its rename (record, current, previous, unit), not a live run's", () => {
      expect(install(['--package-release', unpackPackage('1.0.0'), '--password-file', configured()]).status).toBe(0);
      // A pid that was alive and is not any more: a run of the installer cut off by a power cut.
      const gone = spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim();
      const live = String(process.pid);
      const opt = join(root, 'opt/pickup-station');
      const stale = [
        `${opt}/install-status.json.new.${gone}`,
        `${opt}/current.new.${gone}`,
        `${opt}/previous.new.${gone}`,
        `${join(root, PACKAGED_UNIT)}.new.${gone}`,
      ];
      writeFileSync(stale[0]!, '{"installed":"1.0.0"');
      symlinkSync('releases/1.0.0', stale[1]!);
      symlinkSync('releases/0.9.0', stale[2]!);
      writeFileSync(stale[3]!, UNIT.slice(0, 40));
      const running = `${opt}/install-status.json.new.${live}`;
      writeFileSync(running, '{');
      const r = install(['--repair']);
      expect(r.status, r.out).toBe(0);
      for (const f of stale) {
        expect(existsSync(f) || lstatSync(f, { throwIfNoEntry: false }) !== undefined, f).toBe(false);
        expect(r.out).toContain(`removed ${f.slice(f.lastIndexOf('/') + 1)}, left by an interrupted run`);
      }
      // Another run of the installer still alive owns its file (the installer's lock keeps two runs apart; the pid decides here).
      expect(existsSync(running)).toBe(true);
      expect(link('opt/pickup-station/current')).toBe('releases/1.0.0');
      expect(read(PACKAGED_UNIT)).toBe(UNIT);
    });
  },
);

describe('install.sh static checks', () => {
  // shellcheck follows every job file (-x -a): tens of seconds on a loaded 2-core machine.
  it('parses (bash -n) and, where shellcheck is installed, passes it with its job files (-x -a: as install.sh sources them)', { timeout: 90_000 }, () => {
    for (const f of Object.keys(installerFiles()).filter((f) => f.endsWith('.sh'))) expect(spawnSync('bash', ['-n', join(REPO, f)]).status, f).toBe(0);
    const sc = spawnSync('shellcheck', ['-x', '-a', SCRIPT], { encoding: 'utf8' });
    if (sc.error === undefined) expect(sc.status, sc.stdout).toBe(0);
  });

  it('sources every job file of installer/ (so shellcheck and a run see them all), each once, and names each in its map', () => {
    const text = readFileSync(SCRIPT, 'utf8');
    const jobs = Object.keys(installerFiles())
      .filter((f) => f.startsWith('systemd/installer/') && f.endsWith('.sh'))
      .map((f) => f.slice('systemd/installer/'.length));
    const sourced = [...text.matchAll(/^\. "\$INSTALLER_HOME\/installer\/([a-z-]+\.sh)"$/gm)].map((m) => m[1]);
    expect([...sourced].sort()).toEqual(jobs);
    const checked = /^for job in ([a-z -]+); do$/m
      .exec(text)?.[1]
      ?.split(' ')
      .map((j) => `${j}.sh`);
    expect(checked).toEqual(sourced);
    for (const j of jobs) expect(text, j).toMatch(new RegExp(`^#   ${j.replace('.', '\\.')} `, 'm'));
  });
});
