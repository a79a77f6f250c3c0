/**
 * The built daemon (dist/) as systemd would run it, minus systemd: $NOTIFY_SOCKET is a real unix
 * datagram socket (python3 child), $WATCHDOG_USEC is set, the password comes from
 * $CREDENTIALS_DIRECTORY, the server is the reference server. What systemd would see: READY=1
 * (with MAINPID = the daemon) once the station is up, WATCHDOG=1 while it runs, STOPPING=1 on
 * SIGTERM and then exit 0 — and nothing at all for a bad config (exit 78).
 *
 * The run is repeated under the unit's own system-call filter and address-family restriction
 * (support/sandbox-run.py, libseccomp), where python3-seccomp is installed: Node, the station,
 * its HTTP client, name lookup and the systemd-notify child all work inside that sandbox.
 */
import { anyExists, requireTool } from '../support/tools.js';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReferenceServer, defaultSeed } from '../../src/reference-server/index.js';
import { MAIN, spawnDaemon } from '../support/daemon.js';
import { sleep, STATION } from '../support/shared.js';
import { startNotifyReceiver, type NotifyReceiver } from '../support/notify-receiver.js';

const UNIT = join(import.meta.dirname, '../../systemd/pickup-station.service');
const SANDBOX = join(import.meta.dirname, '../support/sandbox-run.py');
const HAVE_TOOL = requireTool('systemd-notify', anyExists('/usr/bin/systemd-notify', '/bin/systemd-notify'), 'systemd');
const HAVE_SECCOMP = spawnSync('/usr/bin/python3', ['-c', 'import seccomp'], { stdio: 'ignore' }).status === 0;

function daemon(args: string[], env: NodeJS.ProcessEnv, sandboxed = false) {
  const argv = [process.execPath, MAIN, ...args];
  const [cmd, ...rest] = sandboxed ? ['/usr/bin/python3', SANDBOX, UNIT, ...argv] : argv;
  const p = spawnDaemon(cmd!, rest, env);
  const msgs = () => p.rawLines().map((l) => (JSON.parse(l) as { msg: string }).msg);
  return { child: p.child, exited: p.exited.then((e) => e.code), msgs, err: p.err };
}

let receiver: NotifyReceiver;
let server: ReferenceServer | undefined;
beforeEach(async () => {
  receiver = await startNotifyReceiver();
});
afterEach(async () => {
  await receiver.close();
  await server?.stop();
  server = undefined;
});

describe.skipIf(!HAVE_TOOL)('daemon under a (simulated) systemd notify socket', () => {
  it.each([{ sandboxed: false, name: 'plain' }, ...(HAVE_SECCOMP ? [{ sandboxed: true, name: "under the unit's syscall filter and address families" }] : [])])(
    'READY=1 after the station is up, WATCHDOG=1 while it runs, STOPPING=1 on SIGTERM, exit 0 ($name)',
    async ({ sandboxed }) => {
      server = new ReferenceServer({ stations: [STATION], ...defaultSeed(STATION) });
      const url = await server.start();
      const dir = mkdtempSync(join(tmpdir(), 'daemon-notify-'));
      writeFileSync(join(dir, 'station-password'), STATION.password);
      const file = join(dir, 'config.json');
      writeFileSync(
        file,
        JSON.stringify({
          station: { id: STATION.id, boxes: STATION.boxes.map((id, i) => ({ number: i + 1, id })) },
          server: { baseUrl: `http://localhost:${new URL(url).port}` },
          storage: { directory: join(dir, 'state') },
        }),
      );

      const p = daemon(['run', '--config', file], { CREDENTIALS_DIRECTORY: dir, NOTIFY_SOCKET: receiver.path, WATCHDOG_USEC: '2000000' }, sandboxed);
      const ready = await receiver.waitFor((m) => m.split('\n').includes('READY=1'));
      expect(ready.split('\n')).toEqual(expect.arrayContaining([`MAINPID=${p.child.pid}`, expect.stringMatching(/^STATUS=running, version /)]));
      // (sandbox-run.py execs node: same PID.) The first /state reaches the server — by name, so
      // getaddrinfo works without netlink: the station READY=1 announced is really running.
      await server.waitForRequest((r) => r.endpoint === 'state', 10_000);

      // Pings every WATCHDOG_USEC/2 = 1 s.
      const firstPing = receiver.messages().length;
      await receiver.waitFor((m) => m === 'WATCHDOG=1', 5_000, firstPing);
      await receiver.waitFor((m) => m === 'WATCHDOG=1', 5_000, receiver.messages().length);

      p.child.kill('SIGTERM');
      expect(await p.exited).toBe(0);
      if (sandboxed) expect(p.err()).toMatch(/sandbox-run: \d+ system calls allowed; socket\(\) for AF_INET AF_INET6 AF_UNIX AF_NETLINK only/);
      const all = receiver.messages();
      const stopAt = all.findIndex((m) => m.split('\n').includes('STOPPING=1'));
      expect(stopAt).toBeGreaterThan(0);
      expect(all.slice(stopAt + 1)).not.toContain('WATCHDOG=1'); // no ping once stopping
      expect(all.findIndex((m) => m.includes('READY=1'))).toBe(0);

      // The log tells the same story, in order, and never the password.
      const msgs = p.msgs();
      const at = (m: string) => msgs.indexOf(m);
      expect(at('starting')).toBeGreaterThanOrEqual(0);
      expect(at('systemd: READY=1 sent')).toBeGreaterThan(at('starting'));
      expect(at('systemd: health-gated watchdog on')).toBeGreaterThan(at('systemd: READY=1 sent'));
      expect(at('stopping')).toBeGreaterThan(at('systemd: health-gated watchdog on'));
    },
  );

  it('a bad config: exit 78 and systemd hears nothing (no READY=1 to a station that never started)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'daemon-notify-'));
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ station: { id: 'nope', boxes: [] }, server: { baseUrl: 'https://x.example' } }));
    const p = daemon(['run', '--config', file], { NOTIFY_SOCKET: receiver.path, WATCHDOG_USEC: '2000000' });
    expect(await p.exited).toBe(78);
    await sleep(300);
    expect(receiver.messages()).toEqual([]);
  });
});
