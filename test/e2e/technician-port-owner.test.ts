/**
 * The technician port is the station's or gets no token, on the real daemon and the real stationctl
 * (the squatting test the kiosk's port has, kiosk-socket.test.ts, run for the technician port):
 *
 * - Socket-activated (socket-holder.py holding the port as pickup-station-technician.socket does,
 *   named "technician"): the daemon serves it beside its unix socket and binds no TCP port itself;
 *   while it is stopped a squatter cannot bind the port (127.0.0.1, every interface, SO_REUSEADDR and
 *   SO_REUSEPORT alike); started again, `stationctl --url` reaches it.
 * - The daemon binding the port itself (`technician.listen` asks for TCP): stopped, a squatter of another
 *   user binds it; `stationctl status --url` refuses to send the token there, naming the owner, and
 *   the squatter hears nothing. The control: the same squatter counted as the station's own user
 *   (`STATIONCTL_PASSWD`) does get the token — the hole the check closes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DaemonRig, freePort, MAIN, UNIT_NODE_FLAGS, type DaemonProcess } from '../support/daemon.js';
import { waitFor } from '../support/shared.js';

const HOLDER = join(import.meta.dirname, '../support/socket-holder.py');
const STATIONCTL = join(import.meta.dirname, '../../dist/src/cli/stationctl.js');
/** The squatter's user: not root, not the station's. */
const SQUATTER_UID = 4242;
/** Debian's own python3 (a python3 first on root's PATH may lie where the squatter's user cannot run it). */
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/** Every way a local process could take the port, the first bind kept as a server recording what arrives (test/support/port-squatter.py). */
// Its text is passed with -c: the squatter's user may not read the checkout.
const SQUATTER = readFileSync(join(import.meta.dirname, '../support/port-squatter.py'), 'utf8');

/** The squatter as another user; resolves once it said how each bind went. */
function squatter(
  port: number,
  serveMs: number,
): Promise<{ child: ChildProcess; binds: Record<string, string>; heard: () => Promise<{ authorization: boolean }[]> }> {
  const child = spawn(
    'setpriv',
    ['--reuid', String(SQUATTER_UID), '--regid', String(SQUATTER_UID), '--clear-groups', PYTHON, '-c', SQUATTER, String(port), String(serveMs), '503'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = (): Record<string, unknown>[] =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const binds = waitFor('the squatter binds', () => lines().find((l) => 'binds' in l), 30_000);
  const heard = async (): Promise<{ authorization: boolean }[]> => {
    await exited;
    return (lines().find((l) => 'heard' in l)?.['heard'] ?? []) as { authorization: boolean }[];
  };
  return binds.then((b) => ({ child, binds: b['binds'] as Record<string, string>, heard }));
}

function stationctl(rig: DaemonRig, args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [STATIONCTL, ...args], {
    env: { PATH: process.env['PATH'], STATIONCTL_TOKEN: rig.token, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The TCP sockets `pid` listens on (its fds' inodes in /proc/net/tcp and tcp6): local address:port in hex. */
function tcpListeners(pid: number): string[] {
  const inodes = new Set(
    readdirSync(`/proc/${pid}/fd`)
      .map((fd) => {
        try {
          return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        } catch {
          return undefined;
        }
      })
      .filter((i): i is string => i !== undefined),
  );
  return ['tcp', 'tcp6'].flatMap((f) =>
    readFileSync(`/proc/net/${f}`, 'utf8')
      .split('\n')
      .slice(1)
      .map((l) => l.trim().split(/\s+/))
      .filter((c) => c[3] === '0A' && inodes.has(c[9] ?? ''))
      .map((c) => c[1] ?? ''),
  );
}

let rig: DaemonRig | undefined;
let proc: DaemonProcess | undefined;
let tmp = '';
afterEach(async () => {
  proc?.child.kill('SIGTERM');
  await proc?.exited;
  proc = undefined;
  await rig?.close();
  rig = undefined;
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  tmp = '';
});

const listeningLine = (p: DaemonProcess) => p.waitForLine((l) => l['msg'] === 'technician port listening', 'the technician port', 30_000);

describe('the technician port is the station’s or gets no token', () => {
  it('socket-activated: served beside the unix socket, never bound by the daemon; no squatter can bind it while the daemon is down', async () => {
    rig = await DaemonRig.create();
    const port = await freePort();
    const daemon = [process.execPath, ...UNIT_NODE_FLAGS, MAIN, 'run', '--config', rig.configFile];
    proc = rig.start({}, { node: 'python3', argv: [HOLDER, String(port), '212992', '--name', 'technician', '--', ...daemon] });
    const line = await listeningLine(proc);
    expect(line['socketActivated']).toBe(true);
    expect(line['addresses']).toEqual([`http://127.0.0.1:${port}`, `unix:${rig.socket}`]);
    await rig.idle(30_000);
    const ok = stationctl(rig, ['status', '--url', `http://127.0.0.1:${port}`]);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('station ');

    // Stopped (SIGUSR1: the holder keeps the port): nobody else can take it.
    const exits = () => proc!.lines().filter((l) => l['holder'] === 'exited').length;
    const before = exits();
    proc.child.kill('SIGUSR1');
    await proc.waitForLine(() => exits() > before, 'the daemon stopped');
    const during = await squatter(port, 0);
    expect(during.binds).toEqual({
      loopback: 'Address already in use',
      any: 'Address already in use',
      reuseaddr: 'Address already in use',
      reuseport: 'Address already in use',
    });

    const starts = proc.lines().filter((l) => l['holder'] === 'started').length;
    proc.child.kill('SIGUSR2');
    await proc.waitForLine(
      () =>
        proc!.lines().filter((l) => l['msg'] === 'technician port listening').length > 1 &&
        proc!.lines().filter((l) => l['holder'] === 'started').length > starts,
      'the daemon again',
    );
    await rig.idle(30_000);
    expect(stationctl(rig, ['status', '--url', `http://127.0.0.1:${port}`]).status).toBe(0);
  }, 120_000);

  it("without systemd's socket and without a TCP listen in its config, the daemon binds no TCP port: only its unix socket", async () => {
    rig = await DaemonRig.create();
    proc = rig.start();
    const line = await listeningLine(proc);
    expect(line['socketActivated']).toBe(false);
    expect(line['addresses']).toEqual([`unix:${rig.socket}`]);
    expect(tcpListeners(proc.child.pid ?? 0)).toEqual([]);
  }, 60_000);

  it('bound by the daemon itself (the config asks): stopped, a squatter takes the port; stationctl refuses to send it the token', async () => {
    const port = await freePort();
    rig = await DaemonRig.create({ technician: { listen: { host: '127.0.0.1', port } } });
    proc = rig.start();
    await listeningLine(proc);
    await rig.idle(30_000).catch(() => undefined);
    expect(stationctl(rig, ['status', '--url', `http://127.0.0.1:${port}`]).status).toBe(0);
    proc.child.kill('SIGTERM');
    await proc.exited;
    proc = undefined;

    const squat = await squatter(port, 8_000);
    expect(squat.binds['loopback']).toBe('bound');
    const refused = stationctl(rig, ['status', '--url', `http://127.0.0.1:${port}`]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`refusing to send the token to 127.0.0.1:${port}: the socket listening there belongs to uid ${SQUATTER_UID}`);
    // The control: the same squatter taken for the station's own user gets the token.
    tmp = mkdtempSync(join(tmpdir(), 'passwd-'));
    const passwd = join(tmp, 'passwd');
    writeFileSync(passwd, `root:x:0:0::/root:/bin/sh\npickup-station:x:${SQUATTER_UID}:${SQUATTER_UID}::/var/lib/pickup-station:/usr/sbin/nologin\n`);
    chmodSync(tmp, 0o755);
    const leaked = stationctl(rig, ['status', '--url', `http://127.0.0.1:${port}`], { STATIONCTL_PASSWD: passwd });
    expect(leaked.status).toBe(1);
    const heard = await squat.heard();
    expect(heard.filter((h) => h.authorization)).toHaveLength(1);
  }, 120_000);
});
