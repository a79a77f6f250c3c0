/**
 * The touchscreen kiosk page in real headless Chromium at the 7" panel's 800×480 with touch
 * events, against the reference server: a pickup by touch from PIN to box-open (masked digits,
 * backspace, clear, the idle clear), the screen following the display lines live, the cancel button offered only
 * while a deposit can be cancelled (and cancelling by touch), the PIN throttle's lock-out after
 * wrong PINs typed by touch. Keys at least 9 mm (47 px) on the panel, no text cut, no console
 * errors; and the kiosk server serves nothing but its page (loopback only, own Host only).
 * Screenshots: test-artifacts/kiosk-*.png.
 */
import { request } from 'node:http';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startStation, type Station } from '../../src/app.js';
import { validateConfig } from '../../src/config/load.js';
import { SimulatedStation } from '../../src/devices/sim/station.js';
import { KioskPanel } from '../../src/devices/kiosk/panel.js';
import { withKioskPanel } from '../../src/devices/kiosk/front-panel.js';
import { ReferenceServer, defaultSeed, SEED_BARCODES, SEED_PIN_SINGLE } from '../../src/sim/index.js';
import { MemoryJournal } from '../../src/journal/memory.js';
import { launchChromium } from '../support/chromium.js';
import { STATION, box, waitFor } from '../support/shared.js';

const POLL = { timeout: 5_000, interval: 25 };
const ARTIFACTS = join(import.meta.dirname, '../../test-artifacts');
/** 9 mm on the 7" panel: 800 px across 154 mm. */
const MIN_KEY_PX = Math.ceil((9 * 800) / 154);

let browser: Browser;
let context: BrowserContext;
let page: Page;
let server: ReferenceServer;
let station: Station;
let sim: SimulatedStation;
let panel: KioskPanel;
const problems: string[] = [];

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  server = new ReferenceServer({ stations: [STATION], ...defaultSeed(STATION) });
  const url = await server.start();
  const { config, problems: p } = validateConfig({
    station: { id: STATION.id, boxes: STATION.boxes.map((id, i) => ({ number: i + 1, id })) },
    hardware: { kind: 'simulated', doorSpringMs: 20 },
    log: { level: 'silent' },
    storage: { directory: null },
    server: { baseUrl: new URL(url).origin, answerTimeoutMs: 2_000 },
    timing: { heartbeatIntervalMs: 1_000, messageMs: 300, doorOpenTimeoutMs: 5_000, pinIdleMs: 5_000 },
    locks: { pulseMs: 50 },
    pin: { maxFailures: 2 },
  });
  if (!config) throw new Error(JSON.stringify(p));
  const log = pino({ level: 'silent' });
  sim = new SimulatedStation({ boxNumbers: STATION.boxes.map((_, i) => i + 1), doorSpringMs: 20, inputVoltage: 12.4, internetSignalStrength: 87 });
  panel = new KioskPanel({ port: 0, cancelLabel: 'Cancel', keepAliveMs: 15_000, reconnect: { initialMs: 100, maxMs: 1_000, factor: 2 }, log });
  await panel.start();
  station = await startStation({ config, password: STATION.password, log, hardware: withKioskPanel(sim, panel), journal: new MemoryJournal() });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 800, height: 480 }, hasTouch: true, isMobile: true, deviceScaleFactor: 1 });
  page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`http://127.0.0.1:${panel.port}/`);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await station?.stop();
  await server?.stop();
});

const screenText = (): Promise<string[]> => page.locator('#lines > div').allTextContents();
const shown = (): string[] => [...panel.display.lastShown()];
const tap = (key: string): Promise<void> => page.tap(`[data-key="${key}"]`);
const shoot = (name: string): Promise<Buffer> => page.screenshot({ path: join(ARTIFACTS, `kiosk-${name}.png`) });
const mode = (): string => station.runtime.snapshot().mode.kind;
/** The page shows what the display was last given (compared afresh on every poll: the lines move on). */
const screenFollows = (): Promise<void> => expect.poll(async () => JSON.stringify(await screenText()) === JSON.stringify(shown()), POLL).toBe(true);

/** Nothing inside `selector` overflows its box (cut or scrolled away). */
async function overflowing(selector: string): Promise<string[]> {
  return page.$$eval(selector, (els) =>
    els
      .filter((e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
      .map((e) => `${e.id || e.textContent}: ${e.scrollWidth}x${e.scrollHeight} in ${e.clientWidth}x${e.clientHeight}`),
  );
}

describe('kiosk page at 800x480 with touch', () => {
  it('shows the display lines live; keys are at least 9 mm; nothing is cut', async () => {
    await waitFor('idle', () => mode() === 'idle');
    await screenFollows();
    expect(shown().length).toBeGreaterThan(0);
    const keys = await page.locator('.key:visible').all();
    expect(keys.length).toBe(13);
    for (const k of keys) {
      const b = await k.boundingBox();
      expect(Math.min(b?.width ?? 0, b?.height ?? 0), (await k.textContent()) ?? '').toBeGreaterThanOrEqual(MIN_KEY_PX);
    }
    expect(await overflowing('#screen, #lines, .key')).toEqual([]);
    await shoot('idle');
  });

  it('a pickup by touch: masked digits, backspace, clear, Enter -> the box opens, the screen follows', async () => {
    await tap('9');
    await expect.poll(screenText, POLL).toContain('PIN: *');
    await tap('clear');
    await expect.poll(screenText, POLL).not.toContain('PIN: *');
    const n = SEED_PIN_SINGLE.length;
    for (const d of SEED_PIN_SINGLE.slice(0, -1)) await tap(d);
    await tap('7');
    await expect.poll(screenText, POLL).toContain(`PIN: ${'*'.repeat(n)}`);
    await tap('backspace');
    await expect.poll(screenText, POLL).toContain(`PIN: ${'*'.repeat(n - 1)}`);
    await tap(SEED_PIN_SINGLE.slice(-1));
    await expect.poll(screenText, POLL).toContain(`PIN: ${'*'.repeat(n)}`);
    const text = (await screenText()).join(' ');
    expect(text).not.toMatch(/[0-9]{3}/);
    await shoot('pin-masked');
    await tap('enter');
    await waitFor('box 4 open', () => station.runtime.snapshot().boxes[box(4)] === 'OPEN');
    await waitFor('closing', () => mode() === 'closing');
    expect(sim.locks.isEnergized(4) || station.runtime.snapshot().boxes[box(4)] === 'OPEN').toBe(true);
    await screenFollows();
    expect((await screenText()).join(' ')).toMatch(/4/);
    expect(await page.isHidden('#cancel')).toBe(true);
    expect(await overflowing('#screen, #lines, .key')).toEqual([]);
    await shoot('pickup-box-open');
    sim.closeDoor(4);
    await waitFor('idle after pickup', () => mode() === 'idle');
    await screenFollows();
  });

  it('the cancel button appears only while a deposit can be cancelled; a tap cancels it', async () => {
    expect(await page.isHidden('#cancel')).toBe(true);
    sim.scanBarcode(SEED_BARCODES[0]);
    await waitFor('closing', () => mode() === 'closing');
    await expect.poll(() => page.isVisible('#cancel'), POLL).toBe(true);
    expect(await page.textContent('#cancel')).toBe('Cancel');
    await screenFollows();
    expect(await overflowing('#screen, #lines, .key')).toEqual([]);
    await shoot('deposit-cancel-offered');
    await page.tap('#cancel');
    await server.waitForRequest((r) => r.endpoint === 'cancel');
    await expect.poll(() => page.isHidden('#cancel'), POLL).toBe(true);
    await screenFollows();
    sim.closeDoor(1);
    await waitFor('idle after the deposit', () => mode() === 'idle');
  });

  it("a PIN left half-typed is cleared by the core's idle timeout, as a hardware keypad's", async () => {
    await tap('4');
    await tap('2');
    await expect.poll(screenText, POLL).toContain('PIN: **');
    await expect.poll(screenText, { timeout: 15_000, interval: 100 }).not.toContain('PIN: **');
    expect(station.runtime.snapshot().pin).toBe('');
  });

  it('wrong PINs by touch reach the PIN throttle: the lock-out shows', async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      for (const d of '000000') await tap(d);
      await expect.poll(screenText, POLL).toContain('PIN: ******');
      const seq = server.lastSeq;
      await tap('enter');
      // The tap's POST reaches the station asynchronously: wait for the server to see the PIN, then for its answer.
      await server.waitForRequest((r) => r.endpoint === 'pin-enter', 5_000, { afterSeq: seq });
      await waitFor('answer', () => station.runtime.snapshot().inFlight === null && mode() === 'idle');
    }
    await expect.poll(() => screenText().then((t) => t.join(' ')), POLL).toMatch(/Too many wrong PINs/);
    await tap('1');
    await expect.poll(screenText, POLL).not.toContain('PIN: *');
    expect(await overflowing('#screen, #lines, .key')).toEqual([]);
    await shoot('pin-lockout');
    expect(problems).toEqual([]);
  });
});

describe('kiosk server', () => {
  const get = (path: string, host?: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: panel.port, path, headers: host ? { host } : {} }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });

  it('serves the page and nothing else; only under its own Host', async () => {
    expect(await get('/')).toBe(200);
    for (const p of ['/state', '/api/status', '/api/boxes/1/open', '/metrics', '/healthz', '/journal', '/../etc/passwd']) expect(await get(p), p).toBe(404);
    expect(await get('/', 'evil.example:80')).toBe(421);
  });

  it('a key posted as anything but JSON is refused (a cross-site form cannot send one; JSON from elsewhere needs a preflight it never gets)', async () => {
    const status = await page.evaluate(async (port) => {
      const r = await fetch(`http://127.0.0.1:${port}/key`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"key":"1"}' });
      return r.status;
    }, panel.port);
    expect(status).toBe(415);
  });
});
