/**
 * Every step that runs as root writes only where the station's user cannot, or as that user
 * (docs/security.md, "Privileged steps"; record 0144):
 *
 * - The inventory: every root `Exec…=` line of the shipped units (no `User=`, or a `+`/`!` prefix),
 *   the USBGuard drop-in's, and every maintainer script, is a row of the table in docs/security.md.
 * - Each step run as systemd or dpkg runs it (as root, with the files and folders of a board: the
 *   station's user owns its runtime, state, cache and metrics folders), first to learn the names it
 *   writes in those folders (inotify), then again with a symbolic link and a hard link planted at
 *   every such name (and a few more) pointing at files of root's elsewhere: none of them changes
 *   owner, mode or content. The credential check, the installer (an install, an upgrade that reads
 *   the daemon's update lock, --uninstall --purge), the kiosk's secret, and the package's postrm
 *   (remove and purge, in a private mount namespace with the board's folders bound over /opt, /run,
 *   /etc, /boot, /var/lib, /var/cache and /var/log).
 * - The check can fail: a root write through one of the planted links is seen.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  watch,
  writeFileSync,
  type FSWatcher,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runs } from '../support/tools.js';

const REPO = join(import.meta.dirname, '../..');
const SECURITY = readFileSync(join(REPO, 'docs/security.md'), 'utf8');
/** The station's user on the test's board (its files and folders are its own). */
const S = 4242;
const CAN = process.getuid?.() === 0 && runs('setpriv', ['--version']) && runs('unshare', ['-m', 'true']) && runs('systemctl', ['--version']);

// --- the inventory -----------------------------------------------------------------------------

/** The rows of the "Privileged steps" table: their first cell. */
function inventoryRows(): string[] {
  const from = SECURITY.indexOf('## Privileged steps');
  const table = SECURITY.slice(from)
    .split('\n')
    .filter((l) => l.startsWith('| `'));
  return table.map((l) => l.split(' | ')[0] ?? '');
}

/** Every Exec line of a unit that runs as root: "<unit> <Key>=". */
function rootExecLines(file: string, unit: string): string[] {
  const text = readFileSync(file, 'utf8');
  const user = /^User=\S+/m.test(text);
  const out: string[] = [];
  for (const m of text.matchAll(/^(Exec(?:Condition|StartPre|Start|StartPost|Reload|Stop|StopPost))=([-+!@:]*)(\S*)/gm)) {
    const [, key, prefix = '', command = ''] = m;
    if (command === '') continue;
    if (!user || prefix.includes('+') || prefix.includes('!')) out.push(`${unit} ${key}=`);
  }
  return out;
}

describe('the inventory of privileged steps', () => {
  it('names every root Exec line of the shipped units and the USBGuard drop-in, and every maintainer script', () => {
    const rows = inventoryRows();
    const named = (unit: string, key: string): boolean => rows.some((r) => r.includes(`\`${unit}\``) && r.includes(`\`${key}\``));
    const missing: string[] = [];
    for (const f of readdirSync(join(REPO, 'systemd')).filter((n) => /\.(service|socket|path|timer)$/.test(n))) {
      for (const line of rootExecLines(join(REPO, 'systemd', f), f)) {
        const [unit = '', key = ''] = line.split(' ');
        if (!named(unit, key)) missing.push(line);
      }
    }
    for (const line of rootExecLines(join(REPO, 'systemd/usbguard-dropin.conf'), 'usbguard.service')) {
      const [, key = ''] = line.split(' ');
      if (!rows.some((r) => r.includes('`usbguard.service`') && (r.includes(`\`${key}\``) || key === 'ExecStart='))) missing.push(line);
    }
    for (const script of ['preinst', 'postinst', 'prerm', 'postrm']) if (!rows.some((r) => r.includes(`packaging/deb/debian/${script}`))) missing.push(script);
    if (!rows.some((r) => r.includes('`install.sh`'))) missing.push('install.sh');
    if (!rows.some((r) => r.includes('systemd/tmpfiles.conf'))) missing.push('tmpfiles.conf');
    expect(missing).toEqual([]);
    // The check can fail: a unit line the table does not name.
    expect(rows.some((r) => r.includes('`pickup-station.service`') && r.includes('`ExecStartPost=`'))).toBe(false);
  });
});

// --- the links planted -----------------------------------------------------------------------

let dir = '';
let victims: string[] = [];

/** A file of root's outside every folder of the station's user, as /etc/shadow is. */
function victim(name: string): string {
  const f = join(dir, 'elsewhere', name);
  writeFileSync(f, `root's own ${name}\n`, { mode: 0o640 });
  chmodSync(f, 0o640);
  victims.push(f);
  return f;
}

function fingerprint(f: string): string {
  const st = lstatSync(f);
  return `${st.uid}:${st.gid} ${(st.mode & 0o7777).toString(8)} ${createHash('sha256').update(readFileSync(f)).digest('hex')}`;
}

/** A folder of the station's user (0755, as systemd and tmpfiles make them). */
function userFolder(path: string): string {
  mkdirSync(path, { recursive: true });
  chownSync(path, S, S);
  chmodSync(path, 0o755);
  return path;
}

const SENTINEL = '.privileged-steps-sentinel';

/**
 * The names created, renamed or removed in `folders` while `run` runs (inotify). A folder's events
 * come in order: once the sentinel made after the run is seen, every event of the run has been.
 */
async function namesWritten(folders: readonly string[], run: () => void): Promise<Map<string, Set<string>>> {
  const seen = new Map<string, Set<string>>(folders.map((f) => [f, new Set()]));
  const watchers: FSWatcher[] = [];
  const done: Promise<void>[] = [];
  for (const f of folders) {
    if (!existsSync(f)) continue;
    const before = new Set(readdirSync(f));
    done.push(
      new Promise((resolve) => {
        watchers.push(
          watch(f, (_e, name) => {
            if (name === SENTINEL) resolve();
            else if (name !== null && !before.has(name)) seen.get(f)?.add(name);
          }),
        );
      }),
    );
  }
  run();
  for (const f of folders) if (existsSync(f)) writeFileSync(join(f, SENTINEL), '');
  await Promise.all(done);
  for (const w of watchers) w.close();
  for (const f of folders) rmSync(join(f, SENTINEL), { force: true });
  return seen;
}

/**
 * A link of `kind` at each of `names` in `folder` (replacing what is there), each to a victim of its
 * own; returns the victims' fingerprints.
 */
function plant(folder: string, names: Iterable<string>, kind: 'symlink' | 'hardlink'): Map<string, string> {
  const before = new Map<string, string>();
  for (const name of names) {
    const at = join(folder, name);
    rmSync(at, { recursive: true, force: true });
    const v = victim(`${basename(folder)}-${name}-${kind}`);
    if (kind === 'symlink') symlinkSync(v, at);
    else linkSync(v, at);
    before.set(v, fingerprint(v));
  }
  return before;
}

function changed(before: Map<string, string>): string[] {
  return [...before].filter(([f, print]) => fingerprint(f) !== print).map(([f]) => basename(f));
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'privileged-'));
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'elsewhere'), { mode: 0o700 });
  victims = [];
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!CAN)('privileged steps and links planted by the station’s user', { timeout: 900_000 }, () => {
  it('the credential check (ExecCondition=+): its file written as the folder’s owner; links at its names change nothing', async () => {
    const metrics = userFolder(join(dir, 'run/pickup-station-metrics'));
    const creds = join(dir, 'etc/pickup-station/credentials');
    mkdirSync(creds, { recursive: true, mode: 0o700 });
    const check = (): void => {
      // As systemd runs it: root, no credential loaded (these are missing: the check says so and exits 1).
      const r = spawnSync('bash', [join(REPO, 'systemd/credentials-check.sh')], {
        env: { PATH: process.env['PATH'], PICKUP_CREDENTIALS_DIR: creds, PICKUP_METRICS_DIR: metrics },
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(1);
    };
    const names = (await namesWritten([metrics], check)).get(metrics)!;
    expect([...names]).toContain('pickup-station-credentials.prom');
    // The old, guessable temp names too (".prom.<pid>"), for the pids around this one.
    for (let p = process.pid; p < process.pid + 50; p++) names.add(`.pickup-station-credentials.prom.${p}`);
    for (const kind of ['symlink', 'hardlink'] as const) {
      const before = plant(metrics, names, kind);
      check();
      expect(changed(before), kind).toEqual([]);
      expect(statSync(join(metrics, 'pickup-station-credentials.prom'))).toMatchObject({ uid: S, gid: S });
    }
    // The check can fail: root writing through one of the links is seen.
    const before = plant(metrics, ['pickup-station-credentials.prom'], 'symlink');
    writeFileSync(join(metrics, 'pickup-station-credentials.prom'), 'written as root\n');
    expect(changed(before)).toHaveLength(1);
  });

  it('the kiosk secret (its socket unit’s ExecStartPre=, root): only in a folder of root’s; a folder of the user’s refused', () => {
    const theirs = userFolder(join(dir, 'run/pickup-station-kiosk'));
    const before = plant(theirs, ['secret', 'secret.new', 'secret.sha256', 'secret.sha256.new'], 'symlink');
    const r = spawnSync('sh', [join(REPO, 'systemd/kiosk-secret.sh'), 'make', theirs], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('is not root');
    expect(changed(before)).toEqual([]);
    const ours = join(dir, 'run/kiosk-root');
    const ok = spawnSync('sh', [join(REPO, 'systemd/kiosk-secret.sh'), 'make', ours], { encoding: 'utf8' });
    expect(ok.status, ok.stderr).toBe(0);
    expect(statSync(join(ours, 'secret'))).toMatchObject({ uid: 0, mode: expect.any(Number) });
  });

  describe('the installer (--root: a board’s tree)', () => {
    let root = '';
    let folders: string[] = [];

    /** A release bundle with the repository's own systemd/ folder (unsigned: --insecure-skip-signature). */
    function bundle(version: string): string {
      const top = join(dir, 'src', `pickup-station-${version}`);
      mkdirSync(join(top, 'app'), { recursive: true });
      writeFileSync(join(top, 'app/main.js'), `// ${version}\n`);
      writeFileSync(join(top, 'app/stationctl.js'), `// ${version}\n`);
      mkdirSync(join(top, 'node_modules/x'), { recursive: true });
      writeFileSync(join(top, 'node_modules/x/package.json'), '{}\n');
      writeFileSync(join(top, 'package.json'), JSON.stringify({ name: 'pickup-station', version }));
      cpSync(join(REPO, 'systemd'), join(top, 'systemd'), { recursive: true });
      cpSync(join(REPO, 'hardware'), join(top, 'hardware'), { recursive: true });
      writeFileSync(join(top, 'manifest.json'), JSON.stringify({ name: 'pickup-station', version, arch: 'x64' }));
      const file = join(dir, `pickup-station-${version}.tar.gz`);
      expect(spawnSync('tar', ['-czf', file, '-C', join(dir, 'src'), basename(top)]).status).toBe(0);
      return file;
    }

    function install(args: string[]): { status: number | null; out: string } {
      const r = spawnSync('bash', [join(REPO, 'systemd/install.sh'), '--root', root, ...args], {
        env: { PATH: process.env['PATH'], NODE: process.execPath, SYSTEMD_CREDS: '' },
        encoding: 'utf8',
      });
      return { status: r.status, out: r.stdout + r.stderr };
    }

    beforeEach(() => {
      root = join(dir, 'root');
      mkdirSync(join(root, 'etc'), { recursive: true });
      writeFileSync(join(root, 'etc/passwd'), `root:x:0:0:root:/root:/bin/bash\npickup-station:x:${S}:${S}::/var/lib/pickup-station:/usr/sbin/nologin\n`);
      writeFileSync(join(root, 'etc/group'), `root:x:0:\npickup-station:x:${S}:\n`);
      folders = ['run/pickup-station', 'run/pickup-station-metrics', 'var/lib/pickup-station', 'var/cache/pickup-station'].map((f) =>
        userFolder(join(root, f)),
      );
      mkdirSync(join(root, 'etc/pickup-station/credentials'), { recursive: true, mode: 0o700 });
      // A station with its password: the installer may (re)start it.
      writeFileSync(join(root, 'etc/pickup-station/credentials/station-password.cred'), 'sealed\n', { mode: 0o600 });
    });

    it('an install, an upgrade that reads the update lock, --uninstall --purge: no link in the user’s folders is followed', async () => {
      const seen = await namesWritten(folders, () => expect(install(['--bundle', bundle('1.0.0'), '--insecure-skip-signature']).status).toBe(0));
      for (const [f, names] of seen) expect([...names], f).toEqual([]);

      // The daemon's update lock and release.json, links to root's files: one that reads like a lock
      // held by a live process, whose reason must never reach the installer's output.
      const secret = victim('shadow');
      writeFileSync(secret, `{"pid":${process.pid},"reason":"ROOT-ONLY-TEXT"}\n`);
      const before = new Map([[secret, fingerprint(secret)]]);
      symlinkSync(secret, join(root, 'run/pickup-station/updates.lock'));
      symlinkSync(secret, join(root, 'run/pickup-station/release.json'));
      for (const f of folders) for (const [v, p] of plant(f, ['pickup-station.prom', 'journal.log', 'x'], 'hardlink')) before.set(v, p);
      const up = install(['--bundle', bundle('1.1.0'), '--insecure-skip-signature', '--lock-wait', '1']);
      expect(up.status, up.out).toBe(0);
      expect(up.out).not.toContain('ROOT-ONLY-TEXT');
      expect(up.out).toContain('release 1.1.0 is healthy');
      expect(changed(before)).toEqual([]);

      // --purge removes the station's state folder: its links go, never what they point to.
      for (const [v, p] of plant(join(root, 'var/lib/pickup-station'), ['journal.log', 'pin-throttle.json'], 'symlink')) before.set(v, p);
      for (const [v, p] of plant(join(root, 'var/lib/pickup-station'), ['state.json'], 'hardlink')) before.set(v, p);
      const purge = install(['--uninstall', '--purge']);
      expect(purge.status, purge.out).toBe(0);
      expect(existsSync(join(root, 'var/lib/pickup-station'))).toBe(false);
      expect(changed(before)).toEqual([]);
    });
  });

  it("the package's postrm (remove, purge) in a private mount namespace: the user's folders removed, their links' targets untouched", () => {
    const board = join(dir, 'board');
    for (const d of ['opt/pickup-station/releases', 'etc/pickup-station', 'boot/firmware', 'var/log/journal', 'etc/systemd/system'])
      mkdirSync(join(board, d), { recursive: true });
    writeFileSync(join(board, 'boot/firmware/cmdline.txt'), 'console=tty1 root=/dev/mmcblk0p2 rootwait usbcore.authorized_default=0\n');
    const userFolders = ['run/pickup-station-metrics', 'var/lib/pickup-station', 'var/cache/pickup-station'].map((f) => userFolder(join(board, f)));
    const before = new Map<string, string>();
    for (const f of userFolders) {
      for (const [v, p] of plant(f, ['pickup-station.prom', 'journal.log'], 'symlink')) before.set(v, p);
      for (const [v, p] of plant(f, ['pickup-station-credentials.prom', 'state.json'], 'hardlink')) before.set(v, p);
    }
    const binds = ['opt', 'run', 'etc', 'boot', 'var/lib', 'var/cache', 'var/log'].map((d) => `mount --bind ${join(board, d)} /${d}`).join(' && ');
    for (const how of ['remove', 'purge']) {
      for (const d of ['run', 'var/lib', 'var/cache', 'var/log']) mkdirSync(join(board, d), { recursive: true });
      const r = spawnSync('unshare', ['-m', 'sh', '-c', `${binds} && sh ${join(REPO, 'packaging/deb/debian/postrm')} ${how}`], { encoding: 'utf8' });
      expect(r.status, `${how}: ${r.stderr}`).toBe(0);
    }
    expect(existsSync(join(board, 'run/pickup-station-metrics'))).toBe(false);
    expect(existsSync(join(board, 'var/lib/pickup-station'))).toBe(false);
    expect(existsSync(join(board, 'var/cache/pickup-station'))).toBe(false);
    expect(readFileSync(join(board, 'boot/firmware/cmdline.txt'), 'utf8')).toBe('console=tty1 root=/dev/mmcblk0p2 rootwait\n');
    expect(changed(before)).toEqual([]);
  });
});
