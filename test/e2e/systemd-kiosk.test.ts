/**
 * The kiosk's systemd side, as shipped: pickup-station-kiosk.socket (verified by systemd-analyze,
 * its port, its fd's name and its secret where the station's defaults look for them; bound to the
 * station's life, never what starts it), the kiosk browser's unit (bound to the socket unit; the
 * secret as a credential, the start page in its own runtime directory, never on Chromium's command
 * line) and systemd/kiosk-secret.sh, run as the units run it: a new secret each time the socket
 * unit starts, root-only, its hash readable by all, both removed when it stops; a start page only
 * its user can read, carrying the secret in the URL's fragment. And the development switch that
 * lets the daemon bind the kiosk's port itself is set in nothing that ships.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kioskDisplaySchema, KIOSK_SECRET_HASH_FILE } from '../../src/devices/input/schema.js';
import { KIOSK_FD_NAME } from '../../src/devices/kiosk/listener.js';
import { requireTool, runs } from '../support/tools.js';

const SYSTEMD = join(import.meta.dirname, '../../systemd');
const SCRIPT = join(SYSTEMD, 'kiosk-secret.sh');
const socketUnit = readFileSync(join(SYSTEMD, 'pickup-station-kiosk.socket'), 'utf8');
const browserUnit = readFileSync(join(SYSTEMD, 'pickup-station-kiosk.service'), 'utf8');
const one = (unit: string, key: string): string[] => [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]!.trim());
const mode = (f: string): string => (statSync(f).mode & 0o777).toString(8);

function run(...args: string[]): { status: number | null; out: string; err: string } {
  const r = spawnSync('sh', [SCRIPT, ...args], { encoding: 'utf8' });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

describe('pickup-station-kiosk.socket', () => {
  it('verifies; holds the kiosk port on loopback for the station, named as the daemon looks for it; makes the secret where the station reads its hash', () => {
    if (!requireTool('systemd-analyze', runs('systemd-analyze', ['--version']), 'systemd')) return;
    const r = spawnSync('systemd-analyze', ['verify', 'pickup-station-kiosk.socket'], { cwd: SYSTEMD, encoding: 'utf8' });
    // The release's script is not installed on this machine: that is the only thing verify may say.
    const problems = `${r.stdout}${r.stderr}`
      .split('\n')
      .filter((l) => l.includes('pickup-station-kiosk') && !l.includes('/opt/pickup-station/current/systemd/kiosk-secret.sh is not executable'));
    expect(problems).toEqual([]);
    const port = kioskDisplaySchema.parse({ kind: 'kiosk' }).port;
    expect(one(socketUnit, 'ListenStream')).toEqual([`127.0.0.1:${port}`]);
    expect(one(socketUnit, 'FileDescriptorName')).toEqual([KIOSK_FD_NAME]);
    expect(one(socketUnit, 'Service')).toEqual(['pickup-station.service']);
    expect(one(socketUnit, 'WantedBy')).toEqual(['pickup-station.service']);
    expect(one(socketUnit, 'ExecStartPre')).toEqual([`/opt/pickup-station/current/systemd/kiosk-secret.sh make ${dirname(KIOSK_SECRET_HASH_FILE)}`]);
    expect(one(socketUnit, 'ExecStopPost')).toEqual([`/opt/pickup-station/current/systemd/kiosk-secret.sh clear ${dirname(KIOSK_SECRET_HASH_FILE)}`]);
  });

  it('never starts the station: bound to its life, started only with it, never by a connection to a stopped or masked one; the station and the three units verify together', () => {
    // Stopped, failed or masked station: the socket unit is stopped with it (BindsTo=), so nothing
    // listens to trigger a start; it is started only as the station's want, never by itself.
    expect(one(socketUnit, 'BindsTo')).toEqual(['pickup-station.service']);
    expect(one(socketUnit, 'RefuseManualStart')).toEqual(['yes']);
    expect(socketUnit).not.toMatch(/^(Accept|Requires|Wants|PartOf)=/m);
    expect(socketUnit).not.toMatch(/^WantedBy=sockets\.target/m);
    // Nothing else is triggered by it, and the station needs nothing of it (it starts without its kiosk).
    const station = readFileSync(join(SYSTEMD, 'pickup-station.service'), 'utf8');
    expect(station).not.toMatch(/pickup-station-kiosk/);
    // The repair service (as root) is pulled in only by the station's own start.
    const repair = readFileSync(join(SYSTEMD, 'pickup-station-repair.service'), 'utf8');
    expect(one(repair, 'Before')).toEqual(['pickup-station.service']);
    expect(repair).not.toMatch(/^\[Install\]/m);
    expect(repair).not.toMatch(/^(WantedBy|RequiredBy|Sockets|ListenStream)=/m);
    if (!requireTool('systemd-analyze', runs('systemd-analyze', ['--version']), 'systemd')) return;
    const r = spawnSync(
      'systemd-analyze',
      ['verify', 'pickup-station.service', 'pickup-station-kiosk.socket', 'pickup-station-kiosk.service', 'pickup-station-repair.service'],
      {
        cwd: SYSTEMD,
        encoding: 'utf8',
      },
    );
    // Only what is not installed on this machine (the release's files, cage) may be named.
    const problems = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.trim() !== '' && !/ is not executable: No such file or directory$/.test(l));
    expect(problems).toEqual([]);
  });

  it("the browser's unit needs the socket, takes the secret as a credential and opens a start page, never the secret on its command line", () => {
    const dir = dirname(KIOSK_SECRET_HASH_FILE);
    expect(one(browserUnit, 'BindsTo')).toEqual(['pickup-station-kiosk.socket']);
    expect(browserUnit).not.toMatch(/^Requires=/m);
    expect(one(browserUnit, 'LoadCredential')).toEqual([`kiosk-secret:${dir}/secret`]);
    expect(one(browserUnit, 'RuntimeDirectoryMode')).toEqual(['0700']);
    expect(one(browserUnit, 'ExecStartPre')).toContain(
      '/opt/pickup-station/current/systemd/kiosk-secret.sh page %d/kiosk-secret %t/pickup-kiosk/start.html http://127.0.0.1:8091/',
    );
    expect(browserUnit).toMatch(/chromium --kiosk [^\n]*\\\n[^\n]*\\\n[^\n]* file:\/\/%t\/pickup-kiosk\/start\.html$/m);
    expect(browserUnit).not.toMatch(/#k=/);
  });
});

describe('systemd/kiosk-secret.sh', () => {
  it('make: a 256-bit secret (root only) and its hash (readable by all), a new one at each start of the socket unit; clear removes both', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'kiosk-secret-')), 'run');
    expect(run('make', dir).status).toBe(0);
    const secret = readFileSync(join(dir, 'secret'), 'utf8');
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(mode(join(dir, 'secret'))).toBe('600');
    expect(readFileSync(join(dir, 'secret.sha256'), 'utf8')).toBe(`sha256:${createHash('sha256').update(secret).digest('hex')}\n`);
    expect(mode(join(dir, 'secret.sha256'))).toBe('644');
    expect(mode(dir)).toBe('755');
    // The socket unit started again: a new secret, the hash beside it.
    expect(run('make', dir).status).toBe(0);
    const next = readFileSync(join(dir, 'secret'), 'utf8');
    expect(next).toMatch(/^[0-9a-f]{64}$/);
    expect(next).not.toBe(secret);
    expect(readFileSync(join(dir, 'secret.sha256'), 'utf8')).toBe(`sha256:${createHash('sha256').update(next).digest('hex')}\n`);
    // A damaged one is made anew.
    writeFileSync(join(dir, 'secret'), 'x');
    expect(run('make', dir).status).toBe(0);
    expect(readFileSync(join(dir, 'secret'), 'utf8')).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(join(dir, 'secret'), 'utf8')).not.toBe(secret);
    // The socket unit stopped: nothing left that a page could present or the station check against.
    expect(run('clear', dir).status).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('page: a start page only its user reads, sending the browser to the page with the secret in the fragment; nothing else accepted', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kiosk-page-'));
    expect(run('make', join(dir, 'run')).status).toBe(0);
    const secret = readFileSync(join(dir, 'run/secret'), 'utf8');
    const page = join(dir, 'start.html');
    const ok = run('page', join(dir, 'run/secret'), page, 'http://127.0.0.1:8091/');
    expect(ok.status, ok.err).toBe(0);
    expect(ok.out).toBe('');
    expect(mode(page)).toBe('600');
    expect(readFileSync(page, 'utf8')).toContain(`<meta http-equiv="refresh" content="0; url=http://127.0.0.1:8091/#k=${secret}">`);
    writeFileSync(join(dir, 'bad'), 'not a secret');
    expect(run('page', join(dir, 'bad'), page, 'http://127.0.0.1:8091/').status).toBe(1);
    expect(run('page', join(dir, 'run/secret'), page, 'http://evil.example/').status).toBe(1);
    expect(run('nonsense').status).toBe(2);
  });
});

describe('developmentOwnPort', () => {
  it('is set in nothing that ships: board profiles, displays, the config template, the package', () => {
    const root = join(import.meta.dirname, '../..');
    const shipped: string[] = [];
    const walk = (dir: string): void => {
      if (!existsSync(dir)) return;
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, e.name);
        if (e.isDirectory()) walk(path);
        else if (/\.(json|conf|template|service|socket)$/.test(e.name)) shipped.push(path);
      }
    };
    for (const dir of ['hardware', 'systemd', 'packaging', 'ops']) walk(join(root, dir));
    expect(shipped.length).toBeGreaterThan(5);
    expect(shipped.filter((f) => readFileSync(f, 'utf8').includes('developmentOwnPort'))).toEqual([]);
    // Off unless a config says otherwise.
    expect(kioskDisplaySchema.parse({ kind: 'kiosk' }).developmentOwnPort).toBe(false);
  });
});
