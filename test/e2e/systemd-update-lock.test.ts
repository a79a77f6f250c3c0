/**
 * The update lock (src/service/update-lock.ts + systemd/install.sh): the daemon holds
 * /run/pickup-station/updates.lock while someone uses the station, and an upgrade or rollback waits
 * for it — bounded, with a message — before it changes anything; --force does not wait. install.sh
 * runs into a throwaway root (--root), as in install.test.ts; the lock comes from the real daemon
 * (dist/) or, for the refusals, from a file naming a live or a dead pid.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { holdUpdateLock, UPDATE_LOCK_FILE } from '../../src/service/update-lock.js';
import { idle, startDebugHarness, type DebugHarness } from '../support/technician-harness.js';
import { CAN_SEAL, CredentialBoard } from '../support/credential-board.js';
import { DaemonRig } from '../support/daemon.js';
import { disposeSigningKeys, makeSigningKeys, signDetached, type SigningKeys } from '../support/gpg.js';
import { waitFor } from '../support/shared.js';
import { requireTool, runs } from '../support/tools.js';
import { installerFiles } from '../support/installer-files.js';

const REPO = join(import.meta.dirname, '../..');
const SCRIPT = join(REPO, 'systemd/install.sh');
const IS_ROOT = process.getuid?.() === 0;
const HAVE_SYSTEMCTL = requireTool('systemctl', runs('systemctl', ['--version']), 'systemd');
const HAVE_CREDS = requireTool('systemd-creds, swtpm and unshare -m (root)', CAN_SEAL, 'systemd swtpm tpm2-tools util-linux');
const HAVE_GPG = requireTool('gpg', runs('gpg', ['--version']), 'gpg') && requireTool('gpgv', runs('gpgv', ['--version']), 'gpgv');

describe('the daemon side: updates.lock follows the station', () => {
  let d: DebugHarness | undefined;
  afterEach(async () => {
    await d?.stop();
    d = undefined;
  });

  it('held with the reason while a box is open, released when it is closed, removed on close; a stale file is cleared at start', async () => {
    d = await startDebugHarness();
    const dir = mkdtempSync(join(tmpdir(), 'update-lock-'));
    const file = join(dir, UPDATE_LOCK_FILE);
    writeFileSync(file, '{"pid":1,"reason":"stale"}\n');
    const lock = holdUpdateLock(d.wp.supervisor, dir, d.h.log, 4242);
    expect(existsSync(file)).toBe(false);
    d.h.sim.forceOpen(3);
    await waitFor('lock written', () => existsSync(file));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ pid: 4242, reason: 'box 3 is open' });
    expect(lock.held()).toBe('box 3 is open');
    const { body } = await d.call('GET', '/api/status', { token: d.tokens.read });
    expect(body['activity']).toBe('box 3 is open');
    d.h.sim.closeDoor(3);
    await waitFor('lock released', () => !existsSync(file));
    d.h.sim.forceOpen(2);
    await waitFor('lock written again', () => existsSync(file));
    lock.close();
    expect(existsSync(file)).toBe(false);
  });
});

describe.skipIf(!IS_ROOT || !HAVE_SYSTEMCTL || !HAVE_GPG || !HAVE_CREDS)('install.sh waits for the update lock', { timeout: 90_000 }, () => {
  // Bundles are signed by a vendor key the installer is given (--key), as in the field.
  let keys: SigningKeys;
  beforeAll(() => {
    keys = makeSigningKeys(mkdtempSync(join(tmpdir(), 'update-lock-keys-')));
  });
  afterAll(() => {
    disposeSigningKeys(keys);
  });
  let work: string;
  let root: string;
  let rig: DaemonRig | undefined;
  // The password is sealed with the throwaway board's own host key, never this machine's.
  let board: CredentialBoard;
  beforeEach(() => {
    work = mkdtempSync(join(tmpdir(), 'install-lock-'));
    board = new CredentialBoard(join(work, 'board'));
    root = join(work, 'root');
    mkdirSync(join(root, 'etc'), { recursive: true });
    mkdirSync(join(root, 'run/pickup-station'), { recursive: true });
    writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
    writeFileSync(join(root, 'etc/group'), 'root:x:0:\ndialout:x:20:\n');
  });
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
    rmSync(work, { recursive: true, force: true });
  });

  /** A minimal release bundle (install.test.ts has the full one). */
  function bundle(version: string): string {
    const top = join(work, 'src', `pickup-station-${version}`);
    const files: Record<string, string> = {
      'app/main.js': `// ${version}\n`,
      'app/stationctl.js': `// ${version}\n`,
      'node_modules/pino/package.json': '{"name":"pino"}',
      'hardware/README.md': 'boards\n',
      'package.json': JSON.stringify({ name: 'pickup-station', version }),
      'systemd/pickup-station.service': readFileSync(join(REPO, 'systemd/pickup-station.service'), 'utf8'),
      'systemd/config.template.json': readFileSync(join(REPO, 'systemd/config.template.json'), 'utf8'),
      'systemd/runtime-packages': readFileSync(join(REPO, 'systemd/runtime-packages'), 'utf8'),
      'systemd/pickup-station-upgrade.service': readFileSync(join(REPO, 'systemd/pickup-station-upgrade.service'), 'utf8'),
      ...installerFiles(),
      'manifest.json': JSON.stringify({ name: 'pickup-station', version }),
    };
    for (const [f, text] of Object.entries(files)) {
      mkdirSync(join(top, f, '..'), { recursive: true });
      writeFileSync(join(top, f), text);
    }
    const file = join(work, `pickup-station-${version}.tar.gz`);
    expect(spawnSync('tar', ['-czf', file, '-C', join(work, 'src'), `pickup-station-${version}`]).status).toBe(0);
    signDetached(keys, 'vendor', file);
    return file;
  }
  const env = (): NodeJS.ProcessEnv => ({
    PATH: process.env['PATH'],
    NODE: process.execPath,
    PICKUP_INSTALL_RECORD: join(work, 'record.txt'),
    SYSTEMD_CREDS: board.creds,
    PICKUP_CREDENTIAL_KEY: 'host',
  });
  const install = (args: string[]) => {
    const key = args.includes('--bundle') ? ['--key', keys.vendorPublic] : [];
    // A station configured (its password in place): one that can run, and hold the lock.
    if (args.includes('--bundle') && !existsSync(join(root, 'etc/pickup-station/credentials/station-password.cred'))) {
      writeFileSync(join(work, 'pw'), 'AbCdEfGhIjKlMnOpQrSt');
      key.push('--password-file', join(work, 'pw'));
    }
    const r = spawnSync('bash', [SCRIPT, '--root', root, ...args, ...key], { env: env(), encoding: 'utf8' });
    return { status: r.status, out: r.stdout + r.stderr };
  };
  const current = (): string => readlinkSync(join(root, 'opt/pickup-station/current'));
  const lockFile = (): string => join(root, 'run/pickup-station', UPDATE_LOCK_FILE);

  it('held by a running process: the upgrade waits --lock-wait seconds, then installs and defers the switch; the upgrade service switches once the station is free', () => {
    expect(install(['--bundle', bundle('1.0.0')]).status).toBe(0);
    writeFileSync(lockFile(), JSON.stringify({ pid: process.pid, reason: 'box 3 is open', since: new Date().toISOString() }));
    const r = install(['--bundle', bundle('2.0.0'), '--lock-wait', '1']);
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain('waiting for the station to be free: box 3 is open (at most 1s)');
    expect(r.out).toContain('release 2.0.0 is installed; the switch waits: the station is in use (box 3 is open)');
    expect(current()).toBe('releases/1.0.0');
    expect(existsSync(join(root, 'opt/pickup-station/releases/2.0.0'))).toBe(true);
    expect(readFileSync(join(work, 'record.txt'), 'utf8')).toContain('systemctl start --no-block pickup-station-upgrade.service');
    rmSync(lockFile());
    expect(install(['--resume']).status).toBe(0);
    expect(current()).toBe('releases/2.0.0');
    // A rollback by hand does not defer: it waits, then gives up having changed nothing.
    writeFileSync(lockFile(), JSON.stringify({ pid: process.pid, reason: 'box 3 is open', since: new Date().toISOString() }));
    const back = install(['--rollback', '--lock-wait', '0']);
    expect(back.status).toBe(1);
    expect(back.out).toContain('nothing was changed');
    expect(current()).toBe('releases/2.0.0');
  });

  it('a reader typing a PIN: the upgrade is deferred, and done once the PIN is gone', async () => {
    expect(install(['--bundle', bundle('1.0.0')]).status).toBe(0);
    const d = await startDebugHarness();
    try {
      await idle(d);
      // The daemon's own lock writer, into the root's runtime directory.
      const lock = holdUpdateLock(d.wp.supervisor, join(root, 'run/pickup-station'), d.h.log, process.pid);
      d.h.sim.typePin('123', false);
      await waitFor('the lock says a PIN is being typed', () => existsSync(lockFile()) && readFileSync(lockFile(), 'utf8').includes('a PIN is being typed'));
      const r = install(['--bundle', bundle('2.0.0'), '--lock-wait', '0']);
      expect(r.status, r.out).toBe(0);
      expect(r.out).toContain('the switch waits: the station is in use (a PIN is being typed at the station)');
      expect(current()).toBe('releases/1.0.0');
      d.h.sim.pressCancel();
      await waitFor('the lock released', () => !existsSync(lockFile()));
      const done = install(['--resume']);
      expect(done.status, done.out).toBe(0);
      expect(current()).toBe('releases/2.0.0');
      lock.close();
    } finally {
      await d.stop();
    }
  });

  it('--force does not wait; a lock whose pid is not running is stale and ignored', () => {
    expect(install(['--bundle', bundle('1.0.0')]).status).toBe(0);
    writeFileSync(lockFile(), JSON.stringify({ pid: process.pid, reason: '/pin-enter in flight' }));
    const forced = install(['--bundle', bundle('2.0.0'), '--force']);
    expect(forced.status, forced.out).toBe(0);
    expect(forced.out).toContain('the station is in use (/pin-enter in flight); --force: not waiting');
    expect(current()).toBe('releases/2.0.0');

    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    writeFileSync(lockFile(), JSON.stringify({ pid: Number(dead), reason: 'box 1 is open' }));
    const stale = install(['--bundle', bundle('3.0.0'), '--lock-wait', '0']);
    expect(stale.status, stale.out).toBe(0);
    expect(stale.out).not.toContain('waiting');
  });

  it('with the real daemon: waits while a box is open and goes on once it is closed', async () => {
    expect(install(['--bundle', bundle('1.0.0')]).status).toBe(0);
    rig = await DaemonRig.create({ timing: { heartbeatIntervalMs: 2_000 } });
    const p = rig.start({ RUNTIME_DIRECTORY: join(root, 'run/pickup-station') });
    await rig.idle();
    expect(existsSync(lockFile())).toBe(false);
    rig.setDoor(2, 'OPEN');
    await waitFor('the daemon holds the lock', () => existsSync(lockFile()));

    const child = spawn('bash', [SCRIPT, '--root', root, '--bundle', bundle('2.0.0'), '--lock-wait', '60', '--key', keys.vendorPublic], { env: env() });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await waitFor('install.sh waits', () => out.includes('waiting for the station to be free: box 2 is open'), 30_000);
    expect(current()).toBe('releases/1.0.0');

    rig.setDoor(2, 'CLOSED');
    expect(await exited, out).toBe(0);
    expect(out).toMatch(/the station is free \(waited \d+s\)/);
    expect(current()).toBe('releases/2.0.0');
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
  });
});

/**
 * A process killed in the middle of a box action (the watchdog, the OOM killer) takes its lock with
 * it; until the next one has restored the action from its journal, the unit between the two
 * processes is the only sign that the station is in use. The installer's own functions, as
 * install.sh sources them on a live system, asking a `systemctl` that answers with the unit states
 * systemd goes through: a file of `ActiveState SubState [queued job]` lines, the next line at each
 * question for ActiveState (the last one stays), SubState and the job list answering from that line.
 */
describe('install.sh: a unit between two processes is a station in use', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'unit-transition-'));
    mkdirSync(join(dir, 'bin'));
    writeFileSync(
      join(dir, 'bin/systemctl'),
      [
        '#!/bin/bash',
        `states="${dir}/states"; at="${dir}/at"`,
        'if [ "$1 $3" = "show ActiveState" ]; then n=$(( $(cat "$at" 2>/dev/null || echo 0) + 1 )); [ "$n" -le "$(wc -l < "$states")" ] || n=$((n - 1)); echo "$n" > "$at"; fi',
        'read -r active sub job < <(sed -n "$(cat "$at")p" "$states")',
        'case "$1 $3" in',
        '  "show ActiveState") printf "ActiveState=%s\\nSubState=%s\\n" "$active" "$sub" ;;',
        '  list-jobs*) [ -z "$job" ] || echo "7 pickup-station.service $job waiting" ;;',
        'esac',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const ask = (states: string[], script: string): { out: string; status: number | null } => {
    writeFileSync(join(dir, 'states'), `${states.join('\n')}\n`);
    const r = spawnSync(
      'bash',
      [
        '-c',
        `set -euo pipefail; NAME=pickup-station; LIVE=1; FORCE=0; ROOT=; UPDATE_LOCK=${dir}/updates.lock
         say() { printf '%s: %s\\n' "$NAME" "$*"; }
         . systemd/installer/common.sh; . systemd/installer/switch.sh; . systemd/installer/reboot.sh
         ${script}`,
      ],
      // stdin not a socket: bash would take itself for a remote shell's and read ~/.bashrc.
      { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: `${dir}/bin:${process.env['PATH'] ?? ''}` } },
    );
    return { out: r.stdout + r.stderr, status: r.status };
  };

  it('a station waiting to be started again after its process was killed: an upgrade that may not wait defers, and says why', () => {
    const r = ask(['activating auto-restart'], 'if wait_for_station 0; then echo FREE; else echo "BUSY=$BUSY"; fi');
    expect(r.out).toBe('BUSY=it is restarting: activating/auto-restart\n');
  });

  it('stopping, restarting, starting, then running: the upgrade waits through each and goes on once it runs', () => {
    // systemd's restart job waits for the repair unit before it with the station's unit inactive.
    const r = ask(
      ['deactivating stop-watchdog', 'activating auto-restart', 'inactive dead restart', 'activating start', 'active running'],
      'wait_for_station 30 && echo FREE',
    );
    expect(r.status, r.out).toBe(0);
    expect(r.out).toContain('waiting for the station to be free: it is restarting: deactivating/stop-watchdog (at most 30s)');
    expect(r.out).toMatch(/the station is free \(waited 3s\)\nFREE\n$/);
  });

  it('while a box is open (the update lock held by a live process) the wait asks the lock alone, never systemd', () => {
    writeFileSync(join(dir, 'updates.lock'), `{"pid":${process.pid},"reason":"a box action is in progress (closing)"}\n`);
    // The station's user does not exist here: the file is read as it is.
    const r = ask(['activating start'], 'station_read() { cat "$1"; }; wait_for_station 0 || echo "BUSY=$BUSY"');
    expect(r.out).toBe('BUSY=a box action is in progress (closing)\n');
    expect(existsSync(join(dir, 'at')), 'systemctl show was called').toBe(false);
  });

  it('a reboot waits for a station that is starting or has a restart job queued; a running, free one may reboot; --force does not wait', () => {
    expect(ask(['activating start'], 'reboot_busy').out).toBe('the station is in use (it is restarting: activating/start)\n');
    expect(ask(['inactive dead restart'], 'reboot_busy').out).toBe('the station is in use (it is restarting: inactive/dead, a restart job waiting)\n');
    expect(
      ask(['active running'], 'dpkg_busy() { return 1; }; systemctl() { [ "$1" != is-active ] && command systemctl "$@"; }; echo "[$(reboot_busy)]"').out,
    ).toBe('[]\n');
    expect(ask(['activating auto-restart'], 'FORCE=1; wait_for_station 0 && echo FREE').out).toContain('--force: not waiting\nFREE\n');
  });
});
