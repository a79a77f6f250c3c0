/**
 * The kiosk's systemd side, as shipped: pickup-station-kiosk.socket (verified by systemd-analyze,
 * its port, its fd's name and its secret where the station's defaults look for them), the kiosk
 * browser's unit (the secret as a credential, the start page in its own runtime directory, never
 * on Chromium's command line) and systemd/kiosk-secret.sh, run as the units run it: one secret per
 * boot, root-only, its hash readable by all; a start page only its user can read, carrying the
 * secret in the URL's fragment.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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
    expect(one(socketUnit, 'WantedBy')).toEqual(['sockets.target']);
    expect(one(socketUnit, 'ExecStartPre')).toEqual([`/opt/pickup-station/current/systemd/kiosk-secret.sh make ${dirname(KIOSK_SECRET_HASH_FILE)}`]);
  });

  it("the browser's unit needs the socket, takes the secret as a credential and opens a start page, never the secret on its command line", () => {
    const dir = dirname(KIOSK_SECRET_HASH_FILE);
    expect(one(browserUnit, 'Requires')).toEqual(['pickup-station-kiosk.socket']);
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
  it('make: a 256-bit secret (root only) and its hash (readable by all), kept across runs: one per boot', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'kiosk-secret-')), 'run');
    expect(run('make', dir).status).toBe(0);
    const secret = readFileSync(join(dir, 'secret'), 'utf8');
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(mode(join(dir, 'secret'))).toBe('600');
    expect(readFileSync(join(dir, 'secret.sha256'), 'utf8')).toBe(`sha256:${createHash('sha256').update(secret).digest('hex')}\n`);
    expect(mode(join(dir, 'secret.sha256'))).toBe('644');
    expect(mode(dir)).toBe('755');
    expect(run('make', dir).status).toBe(0);
    expect(readFileSync(join(dir, 'secret'), 'utf8')).toBe(secret);
    // A damaged one is made anew.
    writeFileSync(join(dir, 'secret'), 'x');
    expect(run('make', dir).status).toBe(0);
    expect(readFileSync(join(dir, 'secret'), 'utf8')).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(join(dir, 'secret'), 'utf8')).not.toBe(secret);
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
