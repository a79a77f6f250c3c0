/**
 * The patron's screen is seen and heals: the built daemon (socket-activated, as the field runs it)
 * and its kiosk page in real Chromium, started by the tests' kiosk unit (support/kiosk-browser.mjs:
 * the shipped kiosk-secret.sh's start page, the secret in the fragment) — at first by the test, as
 * systemd does at boot, and then by the station itself through its browser restart command.
 *
 * - The page on the screen: its event stream and its heartbeat; /state UP with no errorMessage,
 *   `pickup_station_device_up{role="display"}` 1.
 * - Chromium's renderer killed (SIGKILL), and separately its network service: no page for
 *   `pageTimeoutMs` is the display's fault — in the log, the technician status, /state's
 *   errorMessage (st UP: the simulated station takes PINs without its screen) and device_up 0 —
 *   the station starts the browser again, the page is back and the fault cleared.
 * - A browser that cannot show the page: started again `restartLimit` times, then never again;
 *   the fault stays and says so.
 * - Bad input: a page that connects and never sends a heartbeat; heartbeats without the kiosk
 *   secret (401, the refusal's log line, named in the fault) — the station up throughout.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/daemon.js';
import { KioskDaemon } from '../support/kiosk-daemon.js';
import { parseExposition } from '../support/prom-text.js';
import { sleep, waitFor } from '../support/shared.js';

const KIOSK_BROWSER = join(import.meta.dirname, '../support/kiosk-browser.mjs');
const PAGE_TIMEOUT_MS = 2_000;
/** A browser start on this shared machine takes up to ~10 s before its page is drawn: twice that. */
const START_MS = 20_000;
const WAIT = 60_000;

/** Poll an asynchronous `probe` until it gives something truthy (the shared waitFor takes a plain predicate). */
async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = WAIT): Promise<T> {
  const start = performance.now();
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (performance.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

/** A kiosk unit's folder: the port, the DevTools port, the secret. */
interface Unit {
  readonly dir: string;
  readonly cdp: number;
}

let k: KioskDaemon | undefined;
let unit: Unit | undefined;
let cdp: Browser | undefined;
afterEach(async () => {
  await cdp?.close().catch(() => undefined);
  cdp = undefined;
  if (unit) for (const p of browserProcesses(unit)) kill(p.pid);
  await k?.close();
  if (unit) rmSync(unit.dir, { recursive: true, force: true });
  k = undefined;
  unit = undefined;
});

async function kioskStation(browser: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<{ k: KioskDaemon; unit: Unit }> {
  const dir = mkdtempSync(join(tmpdir(), 'kiosk-unit-'));
  const u = { dir, cdp: await freePort() };
  const station = await KioskDaemon.start({
    activated: true,
    kiosk: {
      pageTimeoutMs: PAGE_TIMEOUT_MS,
      browser: { restartCommand: [process.execPath, KIOSK_BROWSER, 'restart', dir], startMs: START_MS, restartLimit: 2, commandTimeoutMs: 30_000, ...browser },
      ...extra,
    },
  });
  writeFileSync(join(dir, 'port'), String(station.port));
  writeFileSync(join(dir, 'cdp-port'), String(u.cdp));
  writeFileSync(join(dir, 'secret'), station.secret, { mode: 0o600 });
  k = station;
  unit = u;
  return { k: station, unit: u };
}

/** What systemd does at boot: the kiosk unit started. */
function startKioskUnit(u: Unit): void {
  const r = spawnSync(process.execPath, [KIOSK_BROWSER, 'restart', u.dir], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
}

const starts = (u: Unit): number => {
  try {
    return readFileSync(join(u.dir, 'starts'), 'utf8').trim().split('\n').length;
  } catch {
    return 0;
  }
};

/** The kiosk page in the unit's browser, through its DevTools port, with the station's screen on it. */
async function kioskPage(u: Unit, port: number): Promise<Page> {
  await cdp?.close().catch(() => undefined);
  cdp = await until('the DevTools port', () => chromium.connectOverCDP(`http://127.0.0.1:${u.cdp}`).catch(() => undefined));
  const browser = cdp;
  const page = await waitFor(
    'the kiosk page',
    () =>
      browser
        .contexts()
        .flatMap((c) => c.pages())
        .find((p) => p.url().startsWith(`http://127.0.0.1:${port}/`)),
    WAIT,
  );
  await expect.poll(() => page.locator('#lines > div').allTextContents(), { timeout: WAIT }).toEqual(['Scan an item', 'or enter your PIN']);
  return page;
}

/** The unit's browser processes (by its own folder in their command line), with Chromium's process type. */
function browserProcesses(u: Unit): { pid: number; type: string }[] {
  const out: { pid: number; type: string }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let args: string[];
    try {
      // Chromium's zygote children rewrite their command line as one string: split on spaces too.
      args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split(/[\0 ]/);
    } catch {
      continue;
    }
    if (!args.some((a) => a.startsWith(`--user-data-dir=${u.dir}`))) continue;
    const type = args.find((a) => a.startsWith('--type='))?.slice(7) ?? 'browser';
    const sub = args.find((a) => a.startsWith('--utility-sub-type='))?.slice(19);
    out.push({ pid: Number(name), type: sub ?? type });
  }
  return out;
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The metrics' display sample (1 up, 0 not). */
async function displayUp(station: KioskDaemon): Promise<number> {
  const text = await new Promise<string>((resolve, reject) => {
    const req = request({ socketPath: station.rig.socket, path: '/metrics', headers: { authorization: `Bearer ${station.rig.token}` } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
    req.end();
  });
  return parseExposition(text).value('pickup_station_device_up', { role: 'display' });
}

/** The last /state the reference server received. */
function lastState(station: KioskDaemon): { st: string; errorMessage: string | null } {
  const s = station.rig.server.requests.filter((r) => r.endpoint === 'state').at(-1);
  return s?.body as { st: string; errorMessage: string | null };
}

async function stateUntil(station: KioskDaemon, what: string, pred: (s: { st: string; errorMessage: string | null }) => boolean) {
  return waitFor(what, () => (pred(lastState(station)) ? lastState(station) : undefined), WAIT);
}

const displayDetail = async (station: KioskDaemon): Promise<string | null> => {
  const devices = (await station.rig.tech('GET', '/api/status')).body['devices'] as { name: string; ok: boolean; detail: string | null }[];
  return devices.find((d) => d.name.startsWith('display (kiosk page'))?.detail ?? null;
};

const count = (station: KioskDaemon, msg: string): number => station.logs().filter((l) => l['msg'] === msg).length;

/** The page gone by `kill`: the fault raised in every place, the browser started again by the station, the page back and the fault cleared. */
async function killedAndHealed(station: KioskDaemon, u: Unit, kill: () => number) {
  const before = { starts: starts(u), missing: count(station, 'kiosk page not on the screen'), back: count(station, 'kiosk page on the screen again') };
  const killed = kill();
  expect(killed).toBeGreaterThan(0);
  const t0 = performance.now();
  const down = await stateUntil(station, 'the display fault in /state', (s) => s.errorMessage?.includes('no page on the screen') === true);
  expect(down.st).toBe('UP');
  expect(down.errorMessage).toMatch(/^display \(kiosk page 127\.0\.0\.1:\d+\): no page on the screen for 2 s: /);
  expect(await displayUp(station)).toBe(0);
  expect(await displayDetail(station)).toContain('no page on the screen for 2 s');
  expect(count(station, 'kiosk page not on the screen')).toBe(before.missing + 1);
  // The station starts the browser again (its command: the unit's restart), the page comes back.
  await waitFor('the station restarting the kiosk browser', () => starts(u) > before.starts || undefined, WAIT);
  const page = await kioskPage(u, station.port);
  await stateUntil(station, 'the display fault cleared in /state', (s) => s.errorMessage === null && s.st === 'UP');
  const healedS = (performance.now() - t0) / 1000;
  expect(await displayUp(station)).toBe(1);
  expect(await displayDetail(station)).toBeNull();
  expect(count(station, 'kiosk page on the screen again')).toBe(before.back + 1);
  expect(station.logs().some((l) => l['msg'] === 'kiosk page not on the screen: starting the kiosk browser again')).toBe(true);
  return { page, healedS, fault: down.errorMessage };
}

describe("the patron's screen is seen and heals", () => {
  it('the renderer killed, then the network service killed: the fault raised and cleared, the browser started again by the station each time', async () => {
    const { k: station, unit: u } = await kioskStation();
    startKioskUnit(u);
    await kioskPage(u, station.port);
    await station.process.waitForLine((l) => l['msg'] === 'kiosk page on the screen', 'the page on the screen', WAIT);
    await stateUntil(station, 'UP without an error', (s) => s.st === 'UP' && s.errorMessage === null);
    expect(await displayUp(station)).toBe(1);

    const renderer = await killedAndHealed(station, u, () => {
      const rs = browserProcesses(u).filter((p) => p.type === 'renderer');
      rs.forEach((p) => kill(p.pid));
      return rs.length;
    });
    expect(renderer.fault).toContain('its event stream has closed (the browser or its page ended)');

    // The network service: Chromium starts a new one. Whether the page then comes back by itself (its
    // stream and heartbeats through the new service) or through the station, it must be back, and
    // stay: over three page time-outs the heartbeats must go through the new network service.
    const network = browserProcesses(u).filter((p) => p.type === 'network.mojom.NetworkService');
    expect(network.length).toBe(1);
    const startsBefore = starts(u);
    const faultsBefore = count(station, 'kiosk page not on the screen');
    kill(network[0]!.pid);
    await expect
      .poll(() => browserProcesses(u).some((p) => p.type === 'network.mojom.NetworkService' && p.pid !== network[0]!.pid), { timeout: WAIT })
      .toBe(true);
    await sleep(3 * PAGE_TIMEOUT_MS);
    await stateUntil(station, 'the page on the screen after the network service died', (s) => s.errorMessage === null);
    await until('the display up after the network service died', async () => (await displayUp(station)) === 1);
    const raised = count(station, 'kiosk page not on the screen') - faultsBefore;
    console.error(
      `kiosk screen: renderer killed -> page back in ${renderer.healedS.toFixed(1)} s (pageTimeoutMs ${PAGE_TIMEOUT_MS}, startMs ${START_MS}); ` +
        `network service killed -> display faults raised: ${raised}, browser starts by the station: ${starts(u) - startsBefore}`,
    );
  }, 180_000);

  it('a browser that cannot show the page: started again restartLimit times, then never again; the fault stays and says so, the station UP', async () => {
    const { k: station, unit: u } = await kioskStation();
    startKioskUnit(u);
    await kioskPage(u, station.port);
    // The browser's binary made unstartable, then the running browser ended.
    writeFileSync(join(u.dir, 'binary'), '/bin/false');
    const first = starts(u);
    for (const p of browserProcesses(u)) kill(p.pid);
    const gaveUp = await stateUntil(station, 'the restarts given up', (s) => s.errorMessage?.includes('no more restarts') === true);
    expect(gaveUp.st).toBe('UP');
    expect(gaveUp.errorMessage).toMatch(
      /no page on the screen for 2 s: .*; the kiosk browser was started again 2 times without the page coming back: no more restarts \(journalctl -u pickup-station-kiosk\)$/,
    );
    expect(starts(u) - first).toBe(2);
    // No loop: a start period and more later, nothing more was started, the fault and its words stay.
    await sleep(START_MS + 5_000);
    expect(starts(u) - first).toBe(2);
    expect(lastState(station)).toMatchObject({ st: gaveUp.st, errorMessage: gaveUp.errorMessage });
    expect(await displayUp(station)).toBe(0);
    expect(count(station, 'kiosk page not on the screen: starting the kiosk browser again')).toBe(2);
    expect(station.logs().filter((l) => typeof l['msg'] === 'string' && l['msg'].includes('no more restarts'))).toHaveLength(1);
    const ctl = (await station.rig.tech('GET', '/api/status')).body;
    expect(ctl['mode']).toBe('idle');
  }, 180_000);
});

describe('bad input', () => {
  /** A raw request to the kiosk port. */
  function kioskRequest(station: KioskDaemon, method: string, path: string, secret: string | null, body?: string) {
    return new Promise<{ status: number; res: IncomingMessage }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: station.port,
          method,
          path,
          headers: { ...(secret === null ? {} : { authorization: `Bearer ${secret}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        },
        (res) => resolve({ status: res.statusCode ?? 0, res }),
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  it('a page that connects and never sends a heartbeat: the fault names it, in the log and the technician status; the station stays UP', async () => {
    const { k: station } = await kioskStation({ restartCommand: null });
    const stream = await kioskRequest(station, 'GET', '/events', station.secret);
    expect(stream.status).toBe(200);
    const line = await station.process.waitForLine((l) => l['msg'] === 'kiosk page not on the screen', 'the fault', WAIT);
    expect(line['problem']).toBe(
      "no page on the screen for 2 s: its event stream is open, but the page sends no heartbeat (not this station's page, or its script stopped)",
    );
    expect(await displayDetail(station)).toContain('but the page sends no heartbeat');
    const s = await stateUntil(station, 'the fault in /state', (x) => x.errorMessage !== null);
    expect(s.st).toBe('UP');
    // A heartbeat with the secret on another connection, while the stream is open: the page is there.
    const beat = await kioskRequest(station, 'POST', '/heartbeat', station.secret, '{}');
    expect(beat.status).toBe(204);
    await stateUntil(station, 'the fault cleared', (x) => x.errorMessage === null);
    stream.res.destroy();
  }, 120_000);

  it('heartbeats without the kiosk secret: 401, the refusal logged, named in the fault, never counted', async () => {
    const { k: station } = await kioskStation({ restartCommand: null }, { refusalLogIntervalMs: 200 });
    const stream = await kioskRequest(station, 'GET', '/events', station.secret);
    for (const secret of [null, '0'.repeat(64), 'not hex']) {
      const r = await kioskRequest(station, 'POST', '/heartbeat', secret, '{}');
      expect(r.status).toBe(401);
    }
    const refused = await station.process.waitForLine(
      (l) => l['msg'] === 'kiosk page: requests refused (keys, heartbeats and streams need the kiosk secret)',
      'the refusal line',
      WAIT,
    );
    expect(refused['refusal']).toBe('no-secret');
    const s = await stateUntil(station, 'the fault in /state', (x) => x.errorMessage !== null);
    expect(s).toMatchObject({ st: 'UP' });
    expect(s.errorMessage).toMatch(/sends no heartbeat .*; heartbeats without the kiosk secret were refused$/);
    expect(JSON.stringify(station.logs())).not.toContain(station.secret);
    stream.res.destroy();
  }, 120_000);
});
