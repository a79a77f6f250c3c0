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
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { disposeSigningKeys, makeSigningKeys, signDetached, type SigningKeys } from '../support/gpg.js';

const REPO = join(import.meta.dirname, '../..');
const SCRIPT = join(REPO, 'systemd/install.sh');
const UNIT = readFileSync(join(REPO, 'systemd/pickup-station.service'), 'utf8');
const KIOSK_SOCKET = readFileSync(join(REPO, 'systemd/pickup-station-kiosk.socket'), 'utf8');
const TEMPLATE = readFileSync(join(REPO, 'systemd/config.template.json'), 'utf8');
const IS_ROOT = process.getuid?.() === 0;
const HAVE_SYSTEMCTL = requireTool('systemctl', runs('systemctl', ['--version']), 'systemd');
const HAVE_GPG = requireTool('gpg', runs('gpg', ['--version']), 'gnupg') && requireTool('gpgv', runs('gpgv', ['--version']), 'gpgv');
const PASSWORD = 'AbCdEfGhIjKlMnOpQrSt';

let work: string;
let root: string;
let record: string;
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
  root = join(work, 'root');
  record = join(work, 'record.txt');
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
    'app/main.js': `// pickup-station ${version}\n`,
    'app/stationctl.js': `// stationctl ${version}\n`,
    'node_modules/pino/package.json': '{"name":"pino"}\n',
    'package.json': JSON.stringify({ name: 'pickup-station', version }) + '\n',
    'systemd/pickup-station.service': UNIT + (opts.unitSuffix ?? ''),
    'systemd/pickup-station-kiosk.socket': KIOSK_SOCKET,
    'systemd/config.template.json': TEMPLATE,
    'systemd/install.sh': readFileSync(SCRIPT, 'utf8'),
    'systemd/runtime-packages': readFileSync(join(SCRIPT, '../runtime-packages'), 'utf8'),
    'hardware/99-pickup-station.rules': 'SUBSYSTEM=="hidraw", GROUP="pickup-hid", MODE="0660"\n',
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
    env: { PATH: process.env['PATH'], NODE: process.execPath, PICKUP_INSTALL_RECORD: record, ...env },
    encoding: 'utf8',
  });
  const commands = existsSync(record) ? readFileSync(record, 'utf8').trim().split('\n').filter(Boolean) : [];
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

describe.skipIf(!IS_ROOT || !HAVE_SYSTEMCTL || !HAVE_GPG)('install.sh into a throwaway root', { timeout: 90_000 }, () => {
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

    // The unit and the udev rules, enabled for multi-user.target.
    expect(read('etc/systemd/system/pickup-station.service')).toBe(UNIT);
    expect(stat('etc/systemd/system/pickup-station.service')).toEqual({ mode: '644', owner: '0:0' });
    expect(link('etc/systemd/system/multi-user.target.wants/pickup-station.service')).toBe('/etc/systemd/system/pickup-station.service');
    // The kiosk page's socket beside it, not enabled (a kiosk station enables it).
    expect(read('etc/systemd/system/pickup-station-kiosk.socket')).toBe(KIOSK_SOCKET);
    expect(stat('etc/systemd/system/pickup-station-kiosk.socket')).toEqual({ mode: '644', owner: '0:0' });
    expect(existsSync(join(root, 'etc/systemd/system/sockets.target.wants/pickup-station-kiosk.socket'))).toBe(false);
    expect(stat('etc/udev/rules.d/99-pickup-station.rules')).toEqual({ mode: '644', owner: '0:0' });

    // Config readable by the service's group only; credentials root-only.
    expect(stat('etc/pickup-station')).toEqual({ mode: '750', owner: `0:${gid}` });
    expect(stat('etc/pickup-station/config.json')).toEqual({ mode: '640', owner: `0:${gid}` });
    expect(read('etc/pickup-station/config.json')).toBe(TEMPLATE);
    expect(stat('etc/pickup-station/credentials')).toEqual({ mode: '700', owner: '0:0' });
    expect(stat('etc/pickup-station/credentials/station-password')).toEqual({ mode: '600', owner: '0:0' });
    expect(read('etc/pickup-station/credentials/station-password')).toBe(PASSWORD);
    expect(stat('etc/pickup-station/credentials/technician-tokens')).toEqual({ mode: '600', owner: '0:0' });

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
      'apt-get install -y --no-install-recommends libusb-1.0-0 libudev1 libstdc++6 libgcc-s1 gpiod procps espeak-ng alsa-utils',
      'systemctl daemon-reload',
      'udevadm control --reload',
      'udevadm trigger --subsystem-match=hidraw --subsystem-match=gpio --subsystem-match=tty',
      'systemctl restart pickup-station',
    ]);
    // The password never reaches the output.
    expect(r.out).not.toContain(PASSWORD);
  });

  it('without a password it installs and enables, but does not start, and says what is missing', () => {
    const r = install(['--bundle', bundle('1.0.0')]);
    expect(r.status, r.out).toBe(0);
    expect(r.commands).not.toContain('systemctl restart pickup-station');
    expect(r.out).toContain('not started yet');
    expect(existsSync(join(root, 'etc/pickup-station/credentials/station-password'))).toBe(false);
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
    writeFileSync(join(root, 'etc/pickup-station/credentials/technician-tokens'), 'sha256:abc\n');
    const credsBefore = snapshot(join(root, 'etc/pickup-station'));

    const up = install(['--bundle', bundle('1.1.0', { unitSuffix: '# 1.1.0\n' })]);
    expect(up.status, up.out).toBe(0);
    expect(link('opt/pickup-station/current')).toBe('releases/1.1.0');
    expect(link('opt/pickup-station/previous')).toBe('releases/1.0.0');
    expect(read('etc/systemd/system/pickup-station.service')).toContain('# 1.1.0');
    expect(snapshot(join(root, 'etc/pickup-station'))).toEqual(credsBefore);
    expect(up.commands).toEqual(expect.arrayContaining(['systemctl daemon-reload', 'systemctl restart pickup-station']));

    const back = install(['--rollback']);
    expect(back.status, back.out).toBe(0);
    expect(link('opt/pickup-station/current')).toBe('releases/1.0.0');
    expect(link('opt/pickup-station/previous')).toBe('releases/1.1.0');
    expect(read('etc/systemd/system/pickup-station.service')).toBe(UNIT);
    expect(back.commands).toEqual(['systemctl daemon-reload', 'systemctl restart pickup-station']);
    expect(snapshot(join(root, 'etc/pickup-station'))).toEqual(credsBefore);

    // Rolling back twice is rolling forward.
    expect(install(['--rollback']).status).toBe(0);
    expect(link('opt/pickup-station/current')).toBe('releases/1.1.0');

    // A third release: the oldest goes.
    expect(install(['--bundle', bundle('1.2.0')]).status).toBe(0);
    expect(readdirSync(join(root, 'opt/pickup-station/releases')).sort()).toEqual(['1.1.0', '1.2.0']);
    expect(link('opt/pickup-station/previous')).toBe('releases/1.1.0');
    expect(read('etc/pickup-station/config.json')).toBe(config);
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
      'etc/systemd/system/pickup-station.service',
      'etc/systemd/system/pickup-station-kiosk.socket',
      'etc/systemd/system/multi-user.target.wants/pickup-station.service',
      'etc/udev/rules.d/99-pickup-station.rules',
      'usr/local/bin/stationctl',
      'usr/local/bin/pickup-station',
    ])
      expect(existsSync(join(root, gone)), gone).toBe(false);
    expect(read('etc/pickup-station/credentials/station-password')).toBe(PASSWORD);
    expect(existsSync(join(root, 'etc/pickup-station/config.json'))).toBe(true);
    expect(un.commands).toEqual([
      'systemctl disable --now --quiet pickup-station-kiosk.socket',
      'systemctl stop pickup-station',
      'systemctl daemon-reload',
      'udevadm control --reload',
    ]);

    const purge = install(['--uninstall', '--purge']);
    expect(purge.status, purge.out).toBe(0);
    expect(existsSync(join(root, 'etc/pickup-station'))).toBe(false);
    expect(idOf('passwd', 'pickup-station')).toBeUndefined();
    expect(idOf('group', 'pickup-station')).toBeUndefined();
    // What is left beyond the pristine root: the shared device groups, empty directories, and
    // the backups useradd/groupadd keep (passwd-, group-).
    // (/opt itself stays: an empty system directory.)
    const left = Object.keys(snapshot()).filter((p) => !(p in pristine));
    for (const p of left)
      expect(p).toMatch(
        /^(opt|etc\/(passwd-|group-|systemd(\/system(\/multi-user\.target\.wants)?)?|udev(\/rules\.d)?)|usr(\/local(\/bin)?|\/share(\/keyrings)?)?)$/,
      );
    expect(existsSync(join(root, 'usr/share/keyrings/pickup-station-archive-keyring.gpg'))).toBe(false);
    expect(idOf('group', 'pickup-hid')).toBeDefined();
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
    expect(read('etc/systemd/system/pickup-station.service')).toContain('ExecSearchPath=/opt/pickup-station/current/node/bin:/usr/bin');
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
    expect(r.out).toContain('no previous release');
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

describe.skipIf(!IS_ROOT || !HAVE_SYSTEMCTL || !HAVE_GPG)('install.sh: signed bundles', { timeout: 90_000 }, () => {
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
    expect(other.out).toContain('bad signature: pickup-station-1.2.0-linux-arm64.tar.gz is not signed by the vendor key');
    expect(link('opt/pickup-station/current')).toBe('releases/1.1.0');
    expect(other.commands).toEqual([
      expect.stringMatching(/^logger -t pickup-station-install -p daemon\.err -- refused pickup-station-1\.2\.0-linux-arm64\.tar\.gz/),
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

describe.skipIf(!IS_ROOT || !HAVE_SYSTEMCTL || !HAVE_GPG)("install.sh --package-release (the Debian package's postinst)", { timeout: 90_000 }, () => {
  /** Lay out what dpkg unpacks: the release tree and the unit in /lib/systemd/system. */
  function unpackPackage(version: string, opts: BundleOpts = {}): string {
    bundle(version, opts);
    const tree = join(root, 'usr/lib/pickup-station/release');
    rmSync(tree, { recursive: true, force: true });
    mkdirSync(join(tree, '..'), { recursive: true });
    expect(spawnSync('cp', ['-a', join(work, 'src', `pickup-station-${version}`), tree]).status).toBe(0);
    mkdirSync(join(root, 'lib/systemd/system'), { recursive: true });
    writeFileSync(join(root, 'lib/systemd/system/pickup-station.service'), readFileSync(join(tree, 'systemd/pickup-station.service')));
    return tree;
  }

  it('installs the unpacked release as hard links, leaves unit, udev rules and commands to the package, records what it installed', () => {
    const pw = join(work, 'pw');
    writeFileSync(pw, PASSWORD);
    const tree = unpackPackage('1.0.0');
    const r = install(['--package-release', tree, '--password-file', pw]);
    expect(r.status, r.out).toBe(0);
    expect(link('opt/pickup-station/current')).toBe('releases/1.0.0');
    expect(lstatSync(join(root, 'opt/pickup-station/releases/1.0.0/app/main.js')).ino).toBe(lstatSync(join(tree, 'app/main.js')).ino);
    for (const f of ['etc/systemd/system/pickup-station.service', 'etc/udev/rules.d/99-pickup-station.rules', 'usr/local/bin/stationctl'])
      expect(existsSync(join(root, f)), f).toBe(false);
    expect(read('etc/pickup-station/config.json')).toBe(TEMPLATE);
    // dpkg brought the dependencies; no apt-get inside a maintainer script (dpkg holds the lock).
    expect(r.commands.some((c) => c.startsWith('apt-get'))).toBe(false);
    expect(r.commands).toContain('systemctl restart pickup-station');
    expect(JSON.parse(read('opt/pickup-station/install-status.json'))).toMatchObject({ installed: '1.0.0', running: '1.0.0', result: 'ok' });
  });

  it('an upgrade keeps the older release intact when dpkg replaces the package files; a release with another unit gets it as an override', () => {
    const pw = join(work, 'pw');
    writeFileSync(pw, PASSWORD);
    expect(install(['--package-release', unpackPackage('1.0.0'), '--password-file', pw]).status).toBe(0);
    // dpkg unpacks the next version by renaming new files over the old ones.
    const tree = unpackPackage('1.1.0', { unitSuffix: '# 1.1.0\n' });
    const up = install(['--package-release', tree]);
    expect(up.status, up.out).toBe(0);
    expect(up.commands.indexOf('systemctl stop pickup-station')).toBeLessThan(up.commands.indexOf('systemctl restart pickup-station'));
    expect(read('opt/pickup-station/releases/1.0.0/app/main.js')).toBe('// pickup-station 1.0.0\n');
    expect(link('opt/pickup-station/previous')).toBe('releases/1.0.0');
    expect(existsSync(join(root, 'etc/systemd/system/pickup-station.service'))).toBe(false);
    // Back to 1.0.0 by hand: its unit is not the package's (1.1.0's), so it overrides it.
    const back = install(['--rollback']);
    expect(back.status, back.out).toBe(0);
    expect(read('etc/systemd/system/pickup-station.service')).toBe(UNIT);
    expect(install(['--rollback']).status).toBe(0);
    expect(existsSync(join(root, 'etc/systemd/system/pickup-station.service'))).toBe(false);
    // --uninstall is the package manager's job here.
    const un = install(['--uninstall']);
    expect(un.status).not.toBe(0);
    expect(un.out).toContain('apt-get remove pickup-station');
  });
});

describe('install.sh static checks', () => {
  it('parses (bash -n) and, where shellcheck is installed, passes it', () => {
    expect(spawnSync('bash', ['-n', SCRIPT]).status).toBe(0);
    const sc = spawnSync('shellcheck', [SCRIPT], { encoding: 'utf8' });
    if (sc.error === undefined) expect(sc.status, sc.stdout).toBe(0);
  });
});
