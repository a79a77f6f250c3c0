/**
 * Whether USBGuard enforces the policy, as the station learns it (src/devices/usb/guard.ts): from the
 * state file usbguard.service's drop-in writes — its own ExecStartPost=/ExecStopPost= lines, taken
 * from systemd/usbguard-dropin.conf and run as systemd runs them (through sh, with the variables
 * systemd sets after a stop) in a temporary folder — followed by inotify. No file: not run since the
 * boot. Running: healthy. Killed, stopped, crashed: a problem naming how, which the core makes a
 * fault (out of service) like any device's. The kernel's default for new devices is read beside it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { guardProblem, UsbGuardWatch } from '../../src/devices/usb/guard.js';
import { waitFor } from '../support/shared.js';

const DROPIN = readFileSync(join(import.meta.dirname, '../../systemd/usbguard-dropin.conf'), 'utf8');

/** The drop-in's command for `key`, as systemd runs it: "-" dropped, "%%" is "%", the folder moved to `dir`. */
function command(key: 'ExecStartPost' | 'ExecStopPost', dir: string): string[] {
  const line = DROPIN.split('\n').find((l) => l.startsWith(`${key}=`));
  if (line === undefined) throw new Error(`no ${key}= in systemd/usbguard-dropin.conf`);
  const argv = /^[^=]+=-?\/bin\/sh -c '(.*)'$/.exec(line)?.[1];
  if (argv === undefined) throw new Error(`${key}= is not /bin/sh -c '...'`);
  return ['-c', argv.replaceAll('%%', '%').replace('d=/run/pickup-station-usbguard', `d=${dir}`)];
}

let dir = '';
let state = '';
let watch: UsbGuardWatch | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'usbguard-'));
  state = join(dir, 'run');
  mkdirSync(state);
  writeFileSync(join(dir, 'authorized_default'), '0\n');
});
afterEach(async () => {
  await watch?.close();
  rmSync(dir, { recursive: true, force: true });
});

function start(): UsbGuardWatch {
  watch = new UsbGuardWatch({ stateFile: join(state, 'state'), bootDefaultFile: join(dir, 'authorized_default'), log: pino({ level: 'silent' }) });
  watch.start();
  return watch;
}

/** Under the umask of Debian's usbguard.service (UMask=0077), as systemd runs the drop-in's lines. */
function run(key: 'ExecStartPost' | 'ExecStopPost', env: Record<string, string> = {}): void {
  const [, script] = command(key, state);
  const r = spawnSync('/bin/sh', ['-c', `umask 077; ${script}`], { env: { PATH: process.env['PATH'], ...env }, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
}

describe('USBGuard watched by its drop-in’s state file', () => {
  it('not run since the boot, running, killed, started again, stopped: each said, by events', async () => {
    const w = start();
    expect(w.enforcing()).toBe(false);
    expect(w.health().detail).toBe(
      'USB policy not enforced: usbguard.service has not run since the board booted (masked, not installed, or failed at its start)',
    );
    expect(w.bootDefault()).toBe('0');

    run('ExecStartPost');
    await waitFor('enforcing after its start', () => w.enforcing());
    expect(w.health()).toEqual({ ok: true, detail: null });

    // kill -9: systemd's variables after the main process died of a signal.
    run('ExecStopPost', { SERVICE_RESULT: 'signal', EXIT_CODE: 'killed', EXIT_STATUS: 'KILL' });
    await waitFor('a problem after the kill', () => !w.enforcing());
    expect(w.health().detail).toBe('USB policy not enforced: usbguard.service stopped (result signal, killed KILL)');

    run('ExecStartPost');
    await waitFor('enforcing again after its restart', () => w.enforcing());

    // systemctl stop: a clean stop is still a policy not enforced.
    run('ExecStopPost', { SERVICE_RESULT: 'success', EXIT_CODE: 'exited', EXIT_STATUS: '0' });
    await waitFor('a problem after the stop', () => !w.enforcing());
    expect(w.health().detail).toBe('USB policy not enforced: usbguard.service stopped (exited 0)');
  });

  it("the state file is readable by the station's user under the package unit's UMask=0077; one it cannot read is said as such", () => {
    run('ExecStartPost');
    expect(statSync(join(state, 'state')).mode & 0o777).toBe(0o644);
    run('ExecStopPost', { SERVICE_RESULT: 'signal', EXIT_CODE: 'killed', EXIT_STATUS: 'KILL' });
    expect(statSync(join(state, 'state')).mode & 0o777).toBe(0o644);
    // A state file the station cannot read (a folder in its place gives EISDIR even to root).
    rmSync(join(state, 'state'));
    mkdirSync(join(state, 'state'));
    const w = start();
    expect(w.enforcing()).toBe(false);
    expect(w.health().detail).toBe(`USB policy not known: usbguard.service's state file ${join(state, 'state')} cannot be read (EISDIR)`);
  });

  it('a kernel that authorises devices present at power-on is read as such; a folder that cannot be watched is a problem', () => {
    writeFileSync(join(dir, 'authorized_default'), '-1\n');
    rmSync(state, { recursive: true });
    const w = start();
    expect(w.bootDefault()).toBe('-1');
    expect(w.enforcing()).toBe(false);
    expect(w.health().detail).toMatch(/^USB policy not watched: .* cannot be watched \(ENOENT\)$/);
  });

  it('a state file with anything else in it is not taken for running', () => {
    expect(guardProblem('running\n')).toBeNull();
    expect(guardProblem('runningish\n')).toBe('USB policy not enforced: usbguard.service\'s state is unreadable ("runningish")');
    expect(guardProblem('')).toMatch(/state is unreadable/);
  });
});
