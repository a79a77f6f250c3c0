/**
 * `stationctl` end to end: the built daemon (dist/) running against the reference server with its
 * technician port on a unix socket, and the built stationctl talking to it as separate processes.
 * Also: clear errors for a station that is not running, a wrong token, a read-only token and a
 * refused action; `token new`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, newToken } from '../../src/tokens/tokens.js';
import { ReferenceServer, SEED_BARCODES, defaultSeed, type RequestRecord } from '../../src/reference-server/index.js';
import { MAIN, spawnDaemon } from '../support/daemon.js';
import { idle, startDebugHarness } from '../support/technician-harness.js';
import { box, sleep, STATION, waitFor } from '../support/shared.js';

const CTL = join(import.meta.dirname, '../../dist/src/cli/stationctl.js');

interface Run {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

function stationctl(args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<Run> {
  const child = spawn(process.execPath, [CTL, ...args], { env: { PATH: process.env['PATH'], ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdin.end(opts.input ?? '');
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
}

interface Daemon {
  readonly server: ReferenceServer;
  readonly dir: string;
  readonly socket: string;
  readonly serviceFile: string;
  readonly readFile: string;
  readonly out: () => string;
  stop(): Promise<void>;
}

/** The built daemon with its technician port on a unix socket, a read and a service token, against a fresh reference server. */
async function startDaemon(): Promise<Daemon> {
  const server = new ReferenceServer({ stations: [STATION], ...defaultSeed(STATION) });
  const url = await server.start();
  const dir = mkdtempSync(join(tmpdir(), 'ctl-'));
  const socket = join(dir, 'technician.sock');
  writeFileSync(join(dir, 'station-password'), STATION.password);
  const service = newToken();
  const read = newToken();
  const serviceFile = join(dir, 'service-token');
  const readFile = join(dir, 'read-token');
  writeFileSync(serviceFile, `${service}\n`);
  writeFileSync(readFile, read);
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      station: { id: STATION.id, boxes: STATION.boxes.map((id, i) => ({ number: i + 1, id })) },
      server: { baseUrl: new URL(url).origin },
      locks: { pulseMs: 50 },
      timing: { doorOpenTimeoutMs: 500 },
      storage: { directory: join(dir, 'state') },
      technician: {
        listen: { socket },
        tokens: [
          { name: 'bob', scope: 'read', hash: hashToken(read) },
          { name: 'alice', scope: 'service', hash: hashToken(service) },
        ],
      },
    }),
  );
  const p = spawnDaemon(process.execPath, [MAIN, '--config', config], { CREDENTIALS_DIRECTORY: dir });
  await server.waitForRequest((r) => r.endpoint === 'state' && r.status === 200, 10_000);
  await p.waitForLine((l) => l['msg'] === 'technician port listening', 'the technician port', 5_000);
  return {
    server,
    dir,
    socket,
    serviceFile,
    readFile,
    out: p.out,
    async stop() {
      p.child.kill('SIGTERM');
      await p.exited;
      await server.stop();
    },
  };
}

const readTokenText = (file: string): string => readFileSync(file, 'utf8').trim();
const stateBody = (r: RequestRecord) => r.body as { st: string; errorMessage: string | null; boxes: { id: string; st: string }[] };
let d: Daemon;
const ctl = (args: string[], token = d.serviceFile, opts: { input?: string } = {}) => stationctl([...args, '--socket', d.socket, '--token-file', token], opts);

describe('stationctl against a running station', () => {
  beforeAll(async () => {
    d = await startDaemon();
  });
  afterAll(() => d.stop());

  it('status: readable and --json', async () => {
    const r = await ctl(['status']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`station ${STATION.id}`);
    expect(r.out).toMatch(/mode\s+idle/);
    expect(r.out).toMatch(/alarms\s+none/);
    expect(r.out).toContain('signed in as alice (service)');
    const j = await ctl(['status', '--json']);
    const s = JSON.parse(j.out) as { mode: string; boxes: unknown[] };
    expect(s.boxes).toHaveLength(8);
  });

  it('events lists events with trace ids; logs prints the tail; logs -f follows until Ctrl-C', async () => {
    const ev = await ctl(['events', '-n', '3']);
    expect(ev.code).toBe(0);
    expect(ev.out).toMatch(/\/state\s+wait-for-input\s+attempts=1 .* trace=[0-9a-f-]{36}/);
    const logs = await ctl(['logs', '-n', '2']);
    expect(logs.code).toBe(0);
    expect(logs.out.trim().split('\n')).toHaveLength(2);
    expect(logs.out).toMatch(/ (INFO|DEBUG|WARN) /);

    const child = spawn(process.execPath, [CTL, 'logs', '-f', '-n', '1', '--json', '--socket', d.socket, '--token-file', d.serviceFile], {
      env: { PATH: process.env['PATH'] },
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    // Following once the backlog line arrived; what comes next must arrive live.
    for (let i = 0; i < 400 && out === ''; i++) await sleep(25);
    await ctl(['service', 'off']); // an audit line at warn in the daemon's log
    for (let i = 0; i < 200 && !out.includes('technician action: service mode off'); i++) await sleep(25);
    expect(out).toContain('"technician":"alice"');
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('a read-only token may look but not act; a wrong token is refused', async () => {
    expect((await ctl(['status'], d.readFile)).code).toBe(0);
    const act = await ctl(['service', 'on'], d.readFile);
    expect(act.code).toBe(1);
    expect(act.err).toMatch(/read scope only/);
    const wrong = join(d.dir, 'wrong-token');
    writeFileSync(wrong, newToken());
    const w = await ctl(['status'], wrong);
    expect(w.code).toBe(1);
    expect(w.err).toContain('token refused');
    const env = await stationctl(['status', '--socket', d.socket], { env: { STATIONCTL_TOKEN: newToken() } });
    expect(env.code).toBe(1);
    expect(env.err).toContain('token refused');
  });

  it('scan and pin reach the server through the station (the PIN read from stdin, never printed)', async () => {
    const scan = await ctl(['scan', '39999999999990']);
    expect(scan.err).toBe('');
    expect(scan.out.trim()).toBe('scan injected; /item-identify sent');
    const q = await d.server.waitForRequest((r) => r.endpoint === 'item-identify');
    expect(q.body).toMatchObject({ identifierValue: '39999999999990' });
    await sleep(100);
    const pin = await ctl(['pin', '-'], d.serviceFile, { input: '000111\n' });
    expect(pin.err).toBe('');
    expect(pin.out).not.toContain('000111');
    const p = await d.server.waitForRequest((r) => r.endpoint === 'pin-enter');
    expect(p.body).toMatchObject({ pin: '000111' });
    expect(d.out()).not.toContain('000111');
  });

  it('open <box> opens it and reports through /state; another open while it stands open is refused (409) with the reason', async () => {
    await sleep(100);
    const r = await ctl(['open', '2']);
    expect(r.err).toBe('');
    expect(r.out.trim()).toBe('box 2 opened');
    await d.server.waitForRequest((q) => q.endpoint === 'state' && stateBody(q).boxes.some((b) => b.id === box(2) && b.st === 'OPEN'));
    const again = await ctl(['open', '3']);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/refused \(409\): not now: box 2 is open/);
    expect(d.out()).not.toContain(readTokenText(d.serviceFile));
  });
});

describe('stationctl service mode and self-test against a running station', () => {
  beforeAll(async () => {
    d = await startDaemon();
  });
  afterAll(() => d.stop());

  it('selftest is refused outside service mode; service on -> DOWN "service"; selftest reports each box; service off -> UP', async () => {
    const refused = await ctl(['selftest']);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/refused \(409\): .*service mode.*`stationctl service on`/);
    const on = await ctl(['service', 'on']);
    expect(on.out).toContain('service mode on');
    const down = await d.server.waitForRequest((q) => q.endpoint === 'state' && stateBody(q).st === 'DOWN');
    expect(stateBody(down).errorMessage).toBe('service');
    const t = await ctl(['selftest']);
    expect(t.err).toBe('');
    expect(t.code).toBe(0);
    for (let n = 1; n <= 8; n++) expect(t.out).toMatch(new RegExp(`box ${n}\\s+pulse ok\\s+door opened after \\d+ ms`));
    expect(t.out).toContain('self-test passed');
    await ctl(['service', 'off']);
    await d.server.waitForRequest((q) => q.endpoint === 'state' && stateBody(q).st === 'UP', 5_000, { afterSeq: down.seq });
  });
});

describe('stationctl over TCP (--url, $STATIONCTL_TOKEN)', () => {
  it('status and events -f follow a deposit live', async () => {
    const h = await startDebugHarness();
    try {
      await idle(h);
      const env = { STATIONCTL_TOKEN: h.tokens.read, STATIONCTL_URL: h.url };
      const st = await stationctl(['status'], { env });
      expect(st.err).toBe('');
      expect(st.out).toContain('signed in as reader-tech (read)');
      const child = spawn(process.execPath, [CTL, 'events', '-f'], { env: { PATH: process.env['PATH'], ...env } });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      await waitFor('stationctl subscribed', () => h.wp.supervisor.observer.subscribers === 1, 10_000);
      h.h.sim.scanBarcode(SEED_BARCODES[0]);
      for (let i = 0; i < 200 && !/box 1 OPEN/.test(out); i++) await sleep(25);
      expect(out).toMatch(/\/item-identify\s+box-open\s+attempts=1/);
      expect(out).toContain('box 1 OPEN');
      const exited = new Promise<number | null>((r) => child.once('exit', r));
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      await h.stop();
    }
  });
});

describe('stationctl without a station', () => {
  it('says the station is not running (socket or URL), exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ctl-none-'));
    const sock = await stationctl(['status', '--socket', join(dir, 'none.sock')], { env: { STATIONCTL_TOKEN: newToken() } });
    expect(sock.code).toBe(1);
    expect(sock.err).toContain(`station not running at unix:${join(dir, 'none.sock')}`);
    const url = await stationctl(['status', '--url', 'http://127.0.0.1:9'], { env: { STATIONCTL_TOKEN: newToken() } });
    expect(url.code).toBe(1);
    expect(url.err).toContain('station not running at http://127.0.0.1:9');
  });

  it('usage errors exit 2: no token, a token in the URL, a bad argument', async () => {
    expect((await stationctl(['status'])).code).toBe(2);
    expect((await stationctl(['status', '--url', 'http://127.0.0.1:9/?token=x'], { env: { STATIONCTL_TOKEN: 'x' } })).code).toBe(2);
    expect((await stationctl(['service', 'maybe'], { env: { STATIONCTL_TOKEN: 'x' } })).code).toBe(2);
  });

  it('token new prints a token once and the config entry with its hash', async () => {
    const r = await stationctl(['token', 'new', '--scope', 'service', '--name', 'carol', '--json']);
    expect(r.code).toBe(0);
    const { token, entry } = JSON.parse(r.out) as { token: string; entry: { name: string; scope: string; hash: string } };
    expect(token).toMatch(/^pst_/);
    expect(entry).toEqual({ name: 'carol', scope: 'service', hash: hashToken(token) });
    const readable = await stationctl(['token', 'new']);
    expect(readable.out).toMatch(/"scope":"read"/);
    expect(readable.out).toMatch(/pst_[A-Za-z0-9_-]{43}/);
  });
});
