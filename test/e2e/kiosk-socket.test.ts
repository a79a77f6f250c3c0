/**
 * A kiosk only the kiosk can use, across a restart of the daemon, in Chromium:
 *
 * - Socket-activated (socket-holder.py holding the port as pickup-station-kiosk.socket does), the
 *   daemon takes the listening socket from LISTEN_FDS; while it is stopped a squatter process
 *   cannot bind the port (127.0.0.1, every interface, SO_REUSEADDR and SO_REUSEPORT alike), and the
 *   page, left open in the kiosk's browser, reconnects to the restarted station by itself: its
 *   screen follows and its keys reach the new daemon.
 * - The same restart with the daemon binding the port itself: the squatter binds it, and the page
 *   reconnects to the squatter and hands it its requests — the hole the socket unit closes (and
 *   why the secret alone would not be enough). The daemon says so at start under systemd.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.js';
import { KioskDaemon } from '../support/kiosk-daemon.js';

const POLL = { timeout: 15_000, interval: 50 };

/** A local process trying to take the port every way a squatter could (test/support/port-squatter.py). */
// Its text is passed with -c: the squatter's user may not read the checkout.
const SQUATTER = readFileSync(join(import.meta.dirname, '../support/port-squatter.py'), 'utf8');

function squat(port: number, serveMs = 0): { binds: Record<string, string>; heard: { request: string; authorization: boolean }[] } {
  const r = spawnSync('python3', ['-c', SQUATTER, String(port), String(serveMs), 'sse'], { encoding: 'utf8', timeout: serveMs + 10_000 });
  const lines = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { binds: (lines[0]?.['binds'] ?? {}) as Record<string, string>, heard: (lines[1]?.['heard'] ?? []) as { request: string; authorization: boolean }[] };
}

let browser: Browser;
let k: KioskDaemon | undefined;
beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await k?.close();
  k = undefined;
});

async function openPage(kiosk: KioskDaemon): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 800, height: 480 }, hasTouch: true });
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${kiosk.port}/#k=${kiosk.secret}`);
  await expect.poll(() => page.locator('#lines > div').allTextContents(), POLL).toEqual(['Scan an item', 'or enter your PIN']);
  return page;
}

describe('the kiosk port across a restart of the daemon', () => {
  it('socket-activated: no squatter can bind it while the daemon is down; the page reconnects to the new daemon and its keys reach it', async () => {
    k = await KioskDaemon.start({ activated: true });
    expect(k.logs().some((l) => l['msg'] === 'kiosk page on the socket systemd holds' && l['socketActivated'] === true)).toBe(true);
    const page = await openPage(k);
    const firstPid = k.daemonPid;

    await k.stopDaemon();
    await expect.poll(() => page.isVisible('#offline'), POLL).toBe(true);
    const during = squat(k.port);
    expect(during.binds).toEqual({
      loopback: 'Address already in use',
      any: 'Address already in use',
      reuseaddr: 'Address already in use',
      reuseport: 'Address already in use',
    });

    await k.startDaemon();
    expect(k.daemonPid).not.toBe(firstPid);
    await expect.poll(() => page.isHidden('#offline'), POLL).toBe(true);
    await page.tap('[data-key="7"]');
    // The new daemon has the digit: its display shows the mask, and the page follows.
    await expect.poll(() => page.locator('#lines > div').allTextContents(), POLL).toContain('PIN: *');
    await page.context().close();
  }, 120_000);

  it('binding the port itself (no socket unit): a squatter takes it while the daemon restarts, and the page talks to the squatter', async () => {
    k = await KioskDaemon.start({ activated: false });
    const page = await openPage(k);
    await k.stopDaemon();
    // The squatter binds and answers for 4 s: long enough for the page's reconnect (≤ 5 s backoff... its first retries are sooner).
    const squatter = squat(k.port, 4_000);
    // (A plain bind may still meet the old connections in TIME_WAIT; SO_REUSEADDR gets past them.)
    expect(Object.values(squatter.binds)).toContain('bound');
    expect(squatter.heard.length).toBeGreaterThan(0);
    // What the kiosk browser sent the squatter: its event stream, with its credentials.
    expect(squatter.heard.some((h) => h.request.startsWith('GET /events') && h.authorization)).toBe(true);
    await page.context().close();
  }, 120_000);

  it('a reload restarts the station in-process on the same listening socket: the port is never let go, the page follows the new station', async () => {
    k = await KioskDaemon.start({ activated: false });
    const page = await openPage(k);
    const listens = () => k!.logs().filter((l) => l['msg'] === 'kiosk page listening').length;
    expect(listens()).toBe(1);
    k.rig.configInput = { ...k.rig.configInput, messages: { locale: 'cs' } };
    k.rig.writeConfig();
    const r = await k.rig.tech('POST', '/api/reload');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await expect.poll(() => page.locator('#lines > div').allTextContents(), POLL).toEqual(['Naskenujte položku', 'nebo zadejte PIN']);
    await expect.poll(() => page.getAttribute('html', 'lang'), POLL).toBe('cs');
    expect(await page.textContent('#speech')).toBe('Řeč');
    // The new station's kiosk server took over the listener the process kept: nothing was bound again.
    expect(listens()).toBe(2);
    expect(k.logs().filter((l) => l['msg'] === 'kiosk page not ready')).toEqual([]);
    await page.tap('[data-key="4"]');
    await expect.poll(() => page.locator('#lines > div').allTextContents(), POLL).toContain('PIN: *');
    await page.context().close();
  }, 120_000);

  it('under systemd (INVOCATION_ID set) without the socket unit, the daemon warns that the port is its own', async () => {
    k = await KioskDaemon.start({ activated: false, env: { INVOCATION_ID: '0123456789abcdef0123456789abcdef' } });
    expect(k.logs().some((l) => typeof l['msg'] === 'string' && l['msg'].includes('enable pickup-station-kiosk.socket'))).toBe(true);
    const activated = await KioskDaemon.start({ activated: true, env: { INVOCATION_ID: '0123456789abcdef0123456789abcdef' } });
    try {
      expect(activated.logs().some((l) => typeof l['msg'] === 'string' && l['msg'].includes('enable pickup-station-kiosk.socket'))).toBe(false);
    } finally {
      await activated.close();
    }
  }, 120_000);
});
