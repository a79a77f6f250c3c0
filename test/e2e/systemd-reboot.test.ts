/**
 * The reboot an update needs (systemd/install.sh --reboot-when-free, run by the package's
 * pickup-station-reboot.service when /run/reboot-required appears): it waits while the station is in
 * use (the daemon's update lock, a live pid) and while a package run holds dpkg's lock, then reboots
 * — and not before; none is asked for, none happens; still busy after REBOOT_WAIT, it fails and says
 * why. install.sh runs into a throwaway root (--root), where `systemctl reboot` is recorded, not run.
 * On the virtual board the whole path runs (packaging/test/e2e.sh, step security).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/shared.js';
import { requireTool, runs } from '../support/tools.js';

const REPO = join(import.meta.dirname, '../..');
const SCRIPT = join(REPO, 'systemd/install.sh');
const IS_ROOT = process.getuid?.() === 0;
const HAVE = requireTool('lslocks and flock', runs('lslocks', ['--version']) && runs('flock', ['--version']), 'util-linux');

describe.skipIf(!IS_ROOT || !HAVE)('install.sh --reboot-when-free', { timeout: 120_000 }, () => {
  let work: string;
  let root: string;
  const record = () => join(work, 'record.txt');
  const commands = () => (existsSync(record()) ? readFileSync(record(), 'utf8').trim().split('\n').filter(Boolean) : []);
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'reboot-when-free-'));
    root = join(work, 'root');
    for (const d of ['etc/default', 'run/pickup-station', 'var/lib/dpkg', 'var/lib/apt/lists']) mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
    writeFileSync(join(root, 'etc/group'), 'root:x:0:\n');
    writeFileSync(join(root, 'etc/default/pickup-station'), 'REBOOT_WAIT=600\n');
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  /** install.sh --reboot-when-free, running: its output so far, and its end. */
  function start() {
    const c = spawn('bash', [SCRIPT, '--root', root, '--reboot-when-free'], {
      env: { PATH: process.env['PATH'], PICKUP_INSTALL_RECORD: record() },
    });
    let out = '';
    c.stdout.on('data', (d: Buffer) => (out += d.toString()));
    c.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const done = new Promise<number | null>((resolve) => c.on('close', resolve));
    return { out: () => out, done };
  }
  const required = (...pkgs: string[]) => {
    writeFileSync(join(root, 'run/reboot-required'), '');
    writeFileSync(join(root, 'run/reboot-required.pkgs'), pkgs.map((p) => `${p}\n`).join(''));
  };

  it('no reboot asked for: none happens', async () => {
    const r = start();
    expect(await r.done).toBe(0);
    expect(r.out()).toContain('no reboot required');
    expect(commands()).toEqual([]);
  });

  it('waits while the station is in use, reboots once it is free, naming what asked for it', async () => {
    required('linux-image-6.1.0-99-arm64', 'chromium');
    const lock = join(root, 'run/pickup-station/updates.lock');
    writeFileSync(lock, JSON.stringify({ pid: process.pid, reason: 'box 3 is open', since: new Date().toISOString() }));
    const r = start();
    await waitFor('it waits for the station', () => r.out().includes('waits: the station is in use (box 3 is open)'), 60_000);
    expect(commands().filter((c) => c.includes('systemctl reboot'))).toEqual([]);
    rmSync(lock);
    expect(await r.done).toBe(0);
    expect(r.out()).toContain('the station is free: rebooting for chromium linux-image-6.1.0-99-arm64');
    expect(commands()).toEqual([
      expect.stringMatching(
        /^logger -t pickup-station-install -p daemon\.notice -- the reboot for chromium linux-image-6\.1\.0-99-arm64 waits: the station is in use/,
      ),
      expect.stringMatching(/^logger -t pickup-station-install -p daemon\.warning -- rebooting for chromium linux-image-6\.1\.0-99-arm64: the station is free/),
      'systemctl reboot',
    ]);
  });

  it("waits while a package run holds dpkg's lock (unattended-upgrades still installing)", async () => {
    required('linux-image-6.1.0-99-arm64');
    const holder = spawn('flock', [join(root, 'var/lib/dpkg/lock-frontend'), 'sleep', '600'], { stdio: 'ignore' });
    try {
      await waitFor(
        'the lock held',
        () =>
          spawnSync('lslocks', ['--noheadings', '--raw', '--output', 'PATH'], { encoding: 'utf8' }).stdout.includes(join(root, 'var/lib/dpkg/lock-frontend')),
        30_000,
      );
      const r = start();
      await waitFor('it waits for dpkg', () => r.out().includes("waits: a package run is in progress (dpkg's lock)"), 60_000);
      expect(commands().filter((c) => c.includes('systemctl reboot'))).toEqual([]);
      holder.kill();
      expect(await r.done).toBe(0);
      expect(commands().at(-1)).toBe('systemctl reboot');
    } finally {
      holder.kill();
    }
  });

  it('still in use after REBOOT_WAIT: fails, says why, does not reboot (the path unit starts it again)', async () => {
    writeFileSync(join(root, 'etc/default/pickup-station'), 'REBOOT_WAIT=1\n');
    required();
    writeFileSync(join(root, 'run/pickup-station/updates.lock'), JSON.stringify({ pid: process.pid, reason: 'a PIN is being typed' }));
    const r = start();
    expect(await r.done).toBe(1);
    expect(r.out()).toContain('the station is still busy after 1s (the station is in use (a PIN is being typed)): no reboot yet');
    expect(commands().filter((c) => c.includes('systemctl reboot'))).toEqual([]);
    expect(commands().at(-1)).toMatch(/daemon\.err -- the reboot for an updated package still waits after 1s/);
  });
});
