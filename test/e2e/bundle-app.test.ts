/**
 * The app as the release ships it (app/: scripts/app/build.mjs, run by `npm run build` before the
 * tests), started the way the unit starts it: the unit's own Exec lines (read by
 * bench/lib/unit.ts), its node flags and environment (the compile cache included), this checkout
 * standing in for /opt/pickup-station/current. What the e2e tests prove of dist/ is proven here of
 * the bundle where bundling could break it: the daemon reports in, a deposit goes through, its
 * technician port serves the API and the page, stationctl talks to it, SIGTERM stops it cleanly,
 * and simulated hardware loads no native addon; safe-state drives every lock OFF (the libgpiod tools
 * replaced by stand-ins at the hardware boundary) and checks only the lock lines; the demo runs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeGpiod, type FakeGpiod } from '../../bench/lib/fake-gpiod.js';
import { placeCommand, readUnit, type Command } from '../../bench/lib/unit.js';
import { SEED_BARCODES } from '../../src/reference-server/seed.js';
import { DaemonRig } from '../support/daemon.js';
import { box, sleep } from '../support/shared.js';

const REPO = join(import.meta.dirname, '../..');
const APP = join(REPO, 'app');
const unit = readUnit();

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'app-test-'));
});
afterEach(() => {
  rmSync(work, { recursive: true, force: true });
});

/** A unit Exec line with this checkout as the release and this test's config and cache folders. */
const placed = (exec: readonly string[], configFile: string): Command =>
  placeCommand(exec, unit, { node: process.execPath, release: REPO, configFile, cacheDir: join(work, 'cache') });

it('npm run build made the app: one file per mode, stationctl, the page', () => {
  for (const f of [
    'main.js',
    'daemon.js',
    'safe-state.js',
    'demo.js',
    'sim-server.js',
    'fleet.js',
    'stationctl.js',
    'page/technician.html',
    'page/technician.js',
    'page/technician.css',
    'page/kiosk.js',
    'page/kiosk.css',
  ])
    expect(existsSync(join(APP, f)), f).toBe(true);
});

describe('the daemon from app/, as the unit starts it', { timeout: 60_000 }, () => {
  let rig: DaemonRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('reports in, takes a deposit, serves its technician port and page, loads no addon, stops on SIGTERM', async () => {
    rig = await DaemonRig.create();
    const cmd = placed(unit.execStart, rig.configFile);
    expect(cmd.args[0]).toBe(join(APP, 'main.js'));
    const firstState = rig.server.waitForRequest((r) => r.endpoint === 'state', 30_000);
    const d = rig.start(cmd.env, { node: process.execPath, argv: [...cmd.nodeFlags, ...cmd.args] });
    expect((await firstState).status).toBe(200);
    await rig.idle();

    // A deposit through the technician port: box-open, lock pulse, door opens, /state OPEN; closed, /state CLOSED.
    const seq = rig.server.lastSeq;
    const opened = rig.server.waitForRequest((r) => r.endpoint === 'state' && JSON.stringify(r.body).includes(`"id":"${box(1)}","st":"OPEN"`), 10_000, {
      afterSeq: seq,
    });
    expect((await rig.tech('POST', '/api/inject/scan', { value: SEED_BARCODES[0] })).status).toBe(202);
    await opened;
    expect(rig.since(seq).find((r) => r.endpoint === 'item-identify')?.response).toMatchObject({ type: 'box-open' });
    await rig.simUntil((f) => f.doors['1'] === 'OPEN', 'door 1 open');
    const closed = rig.server.waitForRequest((r) => r.endpoint === 'state' && JSON.stringify(r.body).includes(`"id":"${box(1)}","st":"CLOSED"`), 10_000, {
      afterSeq: rig.server.lastSeq,
    });
    rig.setDoor(1, 'CLOSED');
    await closed;
    await rig.idle();

    // Technician port: the API with a token, the page and its script and style (read from app/page/) with its CSP.
    expect((await rig.tech('GET', '/api/status')).body).toMatchObject({ mode: 'idle' });
    const page = await raw(rig.socket, '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).toContain('<script src="/technician.js" defer></script>');
    const script = await raw(rig.socket, '/technician.js');
    expect(script.status).toBe(200);
    expect(script.body).toBe(readFileSync(join(APP, 'page/technician.js'), 'utf8'));
    expect((await raw(rig.socket, '/technician.css')).body).toContain(':root');

    // stationctl from app/, as the installed wrapper runs it.
    const tokenFile = join(work, 'token');
    writeFileSync(tokenFile, rig.token);
    const ctl = spawnSync(process.execPath, [join(APP, 'stationctl.js'), 'status', '--socket', rig.socket, '--token-file', tokenFile], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] },
    });
    expect(ctl.status, ctl.stderr).toBe(0);
    expect(ctl.stdout).toMatch(/idle/);

    // Simulated hardware: serialport, node-hid and epoll stay unloaded (the bundle requires them on demand).
    const maps = readFileSync(`/proc/${d.child.pid}/maps`, 'utf8');
    expect(maps).not.toMatch(/\.node\b/);

    d.child.kill('SIGTERM');
    expect((await d.exited).code).toBe(0);
    // Node >= 22 wrote its compile cache where the unit's Environment= points; Node 20 has none.
    const major = Number(process.versions.node.split('.')[0]);
    if (major >= 22) expect(readdirSync(join(work, 'cache')).length).toBeGreaterThan(0);
  });

  it("the daemon's code cache: the first start compiles and, once ready, writes it; the next start uses it", async () => {
    rig = await DaemonRig.create();
    const cmd = placed(unit.execStart, rig.configFile);
    const cacheDir = cmd.env['NODE_COMPILE_CACHE'];
    expect(cacheDir).toBe(join(work, 'cache/node-compile-cache'));
    const run = async (writes: boolean): Promise<{ starting: Record<string, unknown>; messages: string[] }> => {
      const firstState = rig!.server.waitForRequest((r) => r.endpoint === 'state', 30_000, { afterSeq: rig!.server.lastSeq });
      const d = rig!.start(cmd.env, { node: process.execPath, argv: [...cmd.nodeFlags, ...cmd.args] });
      expect((await firstState).status).toBe(200);
      await rig!.idle();
      // Written once the station is ready (after its technician port is up: idle() used it).
      if (writes) await expect.poll(() => d.lines().some((l) => l.msg === 'code cache written for the next start'), { timeout: 10_000 }).toBe(true);
      d.child.kill('SIGTERM');
      expect((await d.exited).code).toBe(0);
      const lines = d.lines();
      return { starting: lines.find((l) => l.msg === 'starting') ?? {}, messages: lines.map((l) => String(l.msg)) };
    };

    const first = await run(true);
    expect(first.starting['codeCache']).toBe('absent');
    expect(first.messages).toContain('code cache written for the next start');
    const written = readdirSync(cacheDir!).filter((n) => n.endsWith('.v8cache'));
    expect(written).toEqual([
      expect.stringMatching(new RegExp(`^daemon\\.cjs\\.[0-9a-f]{8}\\.${process.version.replace(/\./g, '\\.')}-${process.arch}\\.v8cache$`)),
    ]);

    const second = await run(false);
    expect(second.starting['codeCache']).toBe('used');
    expect(second.messages).not.toContain('code cache written for the next start');
    expect(readdirSync(cacheDir!).filter((n) => n.endsWith('.v8cache'))).toEqual(written);
  });
});

describe('a stop during start-up', { timeout: 60_000 }, () => {
  let rig: DaemonRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it('SIGTERM the moment the first /state arrives (technician port still loading): the same clean stop, exit 0', async () => {
    rig = await DaemonRig.create();
    const cmd = placed(unit.execStart, rig.configFile);
    const firstState = rig.server.waitForRequest((r) => r.endpoint === 'state', 30_000);
    const d = rig.start(cmd.env, { node: process.execPath, argv: [...cmd.nodeFlags, ...cmd.args] });
    await firstState;
    d.child.kill('SIGTERM');
    expect(await d.exited).toEqual({ code: 0, signal: null });
    expect(d.lines().map((l) => l.msg)).toContain('stopping');
  });
});

describe('safe-state from app/, as ExecStartPre runs it', { timeout: 60_000 }, () => {
  let gpio: FakeGpiod | undefined;
  afterEach(() => {
    gpio?.close();
    gpio = undefined;
  });

  type Profile = { gpio: { backend: string }; boxes: { number: number; lock: Record<string, unknown> }[]; scanners?: unknown };
  function setup(edit: (p: Profile) => void): { config: string; run: () => Promise<{ code: number | null; out: string; err: string }> } {
    const profile = JSON.parse(readFileSync(join(REPO, 'hardware/rpi4-12-boxes.json'), 'utf8')) as Profile;
    profile.gpio.backend = 'cdev';
    edit(profile);
    writeFileSync(join(work, 'profile.json'), JSON.stringify(profile));
    const config = join(work, 'config.json');
    // Only the hardware section: safe-state needs nothing else (not even a valid station section).
    writeFileSync(config, JSON.stringify({ hardware: { kind: 'board', profile: 'profile.json' } }));
    gpio = fakeGpiod(work, ['pinctrl-bcm2711', 'mcp23017']);
    const cmd = placed(unit.execStartPre, config);
    const bin = gpio.binDir;
    const run = () =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(process.execPath, [...cmd.nodeFlags, ...cmd.args], { env: { ...cmd.env, PATH: `${bin}:${process.env['PATH'] ?? ''}` } });
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        child.on('exit', (code) => resolve({ code, out, err }));
      });
    return { config, run };
  }

  it('drives all 12 lock lines OFF in one gpioset run and exits 0', async () => {
    const s = setup(() => undefined);
    const line = new Promise<string>((resolve) => void gpio!.next((l) => l.includes('=0'), 30_000).then(() => resolve('seen')));
    const r = await s.run();
    expect(r.code, r.err).toBe(0);
    expect(await line).toBe('seen');
    expect(r.out).toMatch(/safe-state: 12 lock output\(s\) OFF via cdev/);
  });

  it('a broken lock line is a config problem (exit 78, its path); a broken scanner section is not its business', async () => {
    const bad = setup((p) => {
      p.boxes[0]!.lock['offset'] = -1;
    });
    const r = await bad.run();
    expect(r.code).toBe(78);
    // zod's English message: safe-state sets the locale itself (it loads zod/mini, not zod's full API).
    expect(r.err).toContain('boxes.0.lock.offset: Too small: expected number to be >=0 (got -1)');
    gpio?.close();
    rmSync(join(work, 'gpioset.fifo'));
    const other = setup((p) => {
      p.scanners = 'not a list';
    });
    const r2 = await other.run();
    expect(r2.code, r2.err).toBe(0);
  });
});

it('the demo from app/ shows its prompt and quits', { timeout: 60_000 }, async () => {
  const child = spawn(process.execPath, [join(APP, 'main.js'), 'demo'], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env['PATH'] } });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  for (let i = 0; i < 300 && !out.includes('Scan an item'); i++) await sleep(100);
  expect(out).toContain('Scan an item');
  child.stdin.write('quit\n');
  expect(await exited).toBe(0);
});

function raw(socketPath: string, path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
