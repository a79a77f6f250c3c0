/**
 * stationctl as a clumsy technician uses it, the built CLI as a process against
 * the built daemon: options before or after the command; `logs -f` and `events -f` ride out a
 * station restart (one line when it goes, one when it is back, the new lines follow, Ctrl-C ends
 * with 0); messages name the limit or the command to type next.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReferenceServer, defaultSeed } from '../../src/reference-server/index.js';
import { STATION, waitFor } from '../support/shared.js';
import { startDaemon, type Daemon } from '../support/daemon.js';

const CTL = join(import.meta.dirname, '../../dist/src/cli/stationctl.js');

interface Running {
  readonly child: ChildProcess;
  out: string;
  err: string;
  readonly exited: Promise<number | null>;
}

function stationctl(args: string[], env: NodeJS.ProcessEnv = {}): Running {
  const child = spawn(process.execPath, [CTL, ...args], { env: { PATH: process.env['PATH'], ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const r: Running = { child, out: '', err: '', exited: new Promise((res) => child.once('exit', res)) };
  child.stdout?.on('data', (b: Buffer) => (r.out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (r.err += b.toString()));
  return r;
}
async function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; err: string }> {
  const r = stationctl(args, env);
  const code = await r.exited;
  return { code, out: r.out, err: r.err };
}

let server: ReferenceServer;
let daemon: Daemon;
let tokenFile: string;
beforeAll(async () => {
  server = new ReferenceServer({ stations: [STATION], ...defaultSeed(STATION) });
  const url = await server.start();
  daemon = await startDaemon(new URL(url).origin, { timing: { heartbeatIntervalMs: 500 } });
  tokenFile = join(daemon.dir, 'token');
  writeFileSync(tokenFile, `${daemon.token}\n`);
});
afterAll(async () => {
  await daemon?.stop();
  await server?.stop();
});

describe('stationctl options before or after the command', () => {
  it.each([
    [['--token-file', 'TOKEN', '--url', 'URL', 'status']],
    [['status', '--url', 'URL', '--token-file', 'TOKEN']],
    [['--url', 'URL', 'status', '--token-file', 'TOKEN', '--json']],
    [['--json', '--url=URL', '--token-file=TOKEN', 'events', '-n', '3']],
  ])('%j', async (args) => {
    const r = await run(args.map((a) => a.replace('TOKEN', tokenFile).replace('URL', daemon.url)));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  });
});

describe('messages name the limit or the command to type', () => {
  it('-n beyond what a station keeps names the limit (exit 2)', async () => {
    const logs = await run(['logs', '-n', '99999999', '--url', daemon.url, '--token-file', tokenFile]);
    expect(logs.code).toBe(2);
    expect(logs.err).toContain('-n 99999999 is more than 10000, the most log lines a station keeps (technician.logLines is at most 10000)');
    const events = await run(['events', '-n', '500', '--url', daemon.url, '--token-file', tokenFile]);
    expect(events.code).toBe(2);
    expect(events.err).toContain('-n 500 is more than 100');
    const word = await run(['logs', '-n', 'lots', '--url', daemon.url, '--token-file', tokenFile]);
    expect(word.err).toContain('-n takes a whole number from 0 to 10000, got "lots"');
  });

  it('an action with a read token says how to get a service token (selftest outside service mode: test/e2e/technician-stationctl)', async () => {
    const r = await run(['selftest', '--url', daemon.url, '--token-file', tokenFile]);
    expect(r.code).toBe(1);
    // A read token: refused for its scope first, with how to get a service token.
    expect(r.err).toContain('stationctl token new --scope service');
  });

  it('a station that is not running: where it looked and what to check', async () => {
    const r = await run(['status', '--url', 'http://127.0.0.1:9', '--token-file', tokenFile]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('station not running at http://127.0.0.1:9 (ECONNREFUSED): is the service up? (systemctl status pickup-station');
  });
});

describe('logs -f and events -f across a station restart', () => {
  it("one line when it goes, one when it is back, the new process's lines follow, Ctrl-C exits 0", async () => {
    const env = { STATIONCTL_TOKEN: daemon.token };
    const logs = stationctl(['logs', '-f', '-n', '5', '--json', '--url', daemon.url], env);
    const events = stationctl(['--url', daemon.url, 'events', '-f', '--json'], env);
    await waitFor(
      'both followers see the running station',
      () => logs.out.includes('"msg":"event answered"') && events.out.includes('"event":"event-done"'),
      15_000,
    );

    const restartedAt = new Date().toISOString();
    daemon = await daemon.restart();
    // (pino's base has no pid here: the new process is told by its "starting" line's time.)
    const startedAgain = (): string | undefined =>
      logs.out.split('\n').find((l) => l.includes('"msg":"starting"') && (JSON.parse(l) as { time: string }).time > restartedAt);
    await waitFor("logs -f shows the new process's lines", startedAgain, 20_000);
    const eventsBefore = events.out.length;
    await waitFor(
      "events -f shows the new station's events",
      () => events.out.length > eventsBefore && events.out.slice(eventsBefore).includes('"event":"event-done"'),
      20_000,
    );

    logs.child.kill('SIGINT');
    events.child.kill('SIGINT');
    expect(await logs.exited).toBe(0);
    expect(await events.exited).toBe(0);
    for (const f of [logs, events]) {
      const notices = f.err.trim().split('\n');
      expect(notices).toHaveLength(2);
      expect(notices[0]).toMatch(
        /^stationctl: the station closed the stream \(restarting\?\); reconnecting to http:\/\/127\.0\.0\.1:\d+ until it answers \(Ctrl-C to stop\)$/,
      );
      expect(notices[1]).toMatch(/^stationctl: reconnected to http:\/\/127\.0\.0\.1:\d+; /);
    }
    // The new process's start-up lines are there (its ring's backlog), none of the old ones twice.
    const lines = logs.out.trim().split('\n');
    expect(new Set(lines).size).toBe(lines.length);
    expect(lines.filter((l) => l.includes('"msg":"starting"') && (JSON.parse(l) as { time: string }).time > restartedAt)).toHaveLength(1);
  }, 60_000);
});
