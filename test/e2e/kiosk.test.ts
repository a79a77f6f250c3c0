/**
 * The touchscreen kiosk page in real headless Chromium at the 7" panel's 800×480 with touch,
 * against the reference server, held to WCAG 2.1 AA:
 *
 * - axe-core (run inside the page) reports no violation of WCAG 2.0/2.1 A and AA, nor of its best
 *   practices, on every screen — idle, PIN entry, the time-limit warning, box open, a deposit's
 *   cancel, wrong PIN, lock-out, an error, and the Czech page — in both themes; in the high-contrast
 *   theme also none of WCAG's 7:1 rule (color-contrast-enhanced), and every text measured here at 7:1
 *   or more in both themes. The results (test-artifacts/kiosk-axe-<screen>.json) and screenshots of
 *   both themes (test-artifacts/kiosk-<screen>-<theme>.png) are CI artifacts.
 * - `lang` per locale; the display lines in a live region; every control a labelled button reached
 *   by Tab, with a visible focus ring; nothing animated; keys at least 9 mm (47 px) in both text
 *   sizes; no text cut on any screen in any mode; large text larger.
 * - The patron's settings (contrast, text size) stay through a pickup and go when the station says
 *   the patron has gone. A key held on the page, the speech and volume buttons and the more-time
 *   button reach the station's core as a hardware keypad's and buttons' do.
 * - A pickup by touch (masked digits, backspace, clear, Enter), the idle clear, the cancel button
 *   only while a deposit can be cancelled, the PIN throttle's lock-out.
 * - Only the kiosk browser can use it: keys, holds, cancels, help requests and the event stream
 *   without the kiosk's secret get 401 and reach nothing; the server serves nothing but its page,
 *   only under its own Host.
 * - A keyboard's shortcuts stay in the page: every chord with Ctrl or Alt and every function key has
 *   its default prevented before Chromium sees it back; Tab, arrows and characters stay the page's.
 */
import { request } from 'node:http';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startStation, type RunningStation } from '../../src/app.js';
import { validateConfig } from '../../src/config/load.js';
import type { Locale } from '../../src/config/messages.js';
import { kioskDisplaySchema } from '../../src/devices/input/schema.js';
import { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import { KioskPanel } from '../../src/devices/kiosk/panel.js';
import { withKioskPanel } from '../../src/devices/kiosk/front-panel.js';
import { kioskSecretHash } from '../../src/devices/kiosk/secret.js';
import { ReferenceServer, defaultSeed, SEED_BARCODES, SEED_PIN_SINGLE, SEED_UNKNOWN_BARCODE } from '../../src/reference-server/index.js';
import { MemoryJournal } from '../../src/journal/memory.js';
import { launchChromium } from '../support/chromium.js';
import { STATION, box, waitFor } from '../support/shared.js';

/** The few DOM types the in-page checks use (the project compiles without the DOM library). */
interface El {
  readonly id: string;
  readonly tagName: string;
  readonly textContent: string | null;
  readonly scrollWidth: number;
  readonly clientWidth: number;
  readonly scrollHeight: number;
  readonly clientHeight: number;
  readonly offsetParent: unknown;
  readonly parentElement: El | null;
  readonly dataset: Record<string, string | undefined>;
  getAttribute(name: string): string | null;
  blur(): void;
}
interface Style {
  readonly color: string;
  readonly backgroundColor: string;
  readonly fontSize: string;
  readonly outlineStyle: string;
  readonly outlineWidth: string;
  readonly animationName: string;
  readonly transitionDuration: string;
}
declare const document: { readonly activeElement: El | null; readonly body: { readonly className: string } };
declare function getComputedStyle(e: El): Style;

const POLL = { timeout: 5_000, interval: 25 };
const ARTIFACTS = join(import.meta.dirname, '../../test-artifacts');
/** 9 mm on the 7" panel: 800 px across 154 mm. */
const MIN_KEY_PX = Math.ceil((9 * 800) / 154);
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** What axe checks: WCAG 2.0 and 2.1, levels A and AA, and its best practices. */
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
const SECRET = randomBytes(32).toString('hex');
const HOLD_MS = 600;

let browser: Browser;
let server: ReferenceServer;

interface Kiosk {
  station: RunningStation;
  sim: SimulatedHardware;
  panel: KioskPanel;
  context: BrowserContext;
  page: Page;
  problems: string[];
}

async function startKiosk(locale: Locale): Promise<Kiosk> {
  const { config, problems: p } = validateConfig({
    station: { id: STATION.id, boxes: STATION.boxes.map((id, i) => ({ number: i + 1, id })) },
    hardware: { kind: 'simulated', doorSpringMs: 20 },
    log: { level: 'silent' },
    storage: { directory: null },
    server: { baseUrl: new URL(server.url).origin, answerTimeoutMs: 2_000 },
    messages: { locale },
    timing: { heartbeatIntervalMs: 1_000, messageMs: 300, doorOpenTimeoutMs: 5_000, pinIdleMs: 600_000, sessionEndMs: 600_000 },
    speech: { holdMs: HOLD_MS },
    locks: { pulseMs: 50 },
    pin: { maxFailures: 2 },
  });
  if (!config) throw new Error(JSON.stringify(p));
  const log = pino({ level: 'silent' });
  const sim = new SimulatedHardware({ boxNumbers: STATION.boxes.map((_, i) => i + 1), doorSpringMs: 20, inputVoltage: 12.4, internetSignalStrength: 87 });
  const panel = new KioskPanel({
    port: 0,
    cancelLabel: locale === 'cs' ? 'Zrušit' : 'Cancel',
    lang: locale,
    words: config.messages.assist.kiosk,
    holdMs: HOLD_MS,
    secret: { kind: 'hash', hash: kioskSecretHash(SECRET) },
    ownPort: true,
    limits: kioskDisplaySchema.parse({ kind: 'kiosk' }),
    reconnect: { initialMs: 100, maxMs: 1_000, factor: 2 },
    pageTimeoutMs: kioskDisplaySchema.parse({ kind: 'kiosk' }).pageTimeoutMs,
    // The page here is the test's own, not a kiosk unit's (test/e2e/kiosk-screen.test.ts has that).
    browser: { ...kioskDisplaySchema.parse({ kind: 'kiosk' }).browser, restartCommand: null },
    log,
  });
  await panel.start();
  const station = await startStation({ config, password: STATION.password, log, hardware: withKioskPanel(sim, panel), journal: new MemoryJournal() });
  const context = await browser.newContext({ viewport: { width: 800, height: 480 }, hasTouch: true, isMobile: true, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(`http://127.0.0.1:${panel.port}/#k=${SECRET}`);
  await page.evaluate(AXE);
  return { station, sim, panel, context, page, problems };
}

async function stopKiosk(k: Kiosk | undefined): Promise<void> {
  await k?.context.close();
  await k?.station.stop();
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  server = new ReferenceServer({ stations: [STATION], ...defaultSeed(STATION) });
  await server.start();
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

// --- what the tests look at -------------------------------------------------------------------------

const screenText = (k: Kiosk): Promise<string[]> => k.page.locator('#lines > div').allTextContents();
const shown = (k: Kiosk): string[] => [...k.panel.display.lastShown()];
const tap = (k: Kiosk, key: string): Promise<void> => k.page.tap(`[data-key="${key}"]`);
const mode = (k: Kiosk): string => k.station.runtime.snapshot().mode.kind;
/** The page shows what the display was last given (compared afresh on every poll: the lines move on). */
const screenFollows = (k: Kiosk): Promise<void> => expect.poll(async () => JSON.stringify(await screenText(k)) === JSON.stringify(shown(k)), POLL).toBe(true);

async function setModes(k: Kiosk, contrast: boolean, large: boolean): Promise<void> {
  for (const [id, on] of [
    ['contrast', contrast],
    ['large', large],
  ] as const) {
    if ((await k.page.getAttribute(`#${id}`, 'aria-pressed')) !== String(on)) await k.page.tap(`#${id}`);
    await expect.poll(() => k.page.getAttribute(`#${id}`, 'aria-pressed'), POLL).toBe(String(on));
  }
}

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown; failureSummary?: string }[] }[];
  passes: { id: string }[];
}

/** Nothing inside the page overflows its box (cut or scrolled away). */
function overflowing(k: Kiosk): Promise<string[]> {
  return k.page.$$eval('#screen, #lines, button:not([hidden])', (els: El[]) =>
    els
      .filter((e) => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
      .map((e) => `${e.id || e.textContent}: ${e.scrollWidth}x${e.scrollHeight} in ${e.clientWidth}x${e.clientHeight}`),
  );
}

/**
 * The contrast of every visible text on the page against the background it is drawn on (WCAG's
 * relative luminance; the nearest opaque background up the tree).
 */
function textContrasts(k: Kiosk): Promise<{ text: string; ratio: number }[]> {
  return k.page.$$eval('#lines div, #offline, button', (els: El[]) => {
    const rgb = (c: string): [number, number, number, number] => {
      const m = /rgba?\(([\d.]+), ([\d.]+), ([\d.]+)(?:, ([\d.]+))?\)/.exec(c);
      return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])] : [0, 0, 0, 0];
    };
    const lum = ([r, g, b]: [number, number, number, number]): number => {
      const f = (v: number) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : Math.pow((s + 0.055) / 1.055, 2.4);
      };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    return els
      .filter((e) => e.offsetParent !== null && (e.textContent ?? '').trim() !== '')
      .map((e) => {
        let bg: El | null = e;
        while (bg && rgb(getComputedStyle(bg).backgroundColor)[3] === 0) bg = bg.parentElement;
        const a = lum(rgb(getComputedStyle(e).color));
        const b = lum(rgb(bg ? getComputedStyle(bg).backgroundColor : 'rgb(255, 255, 255)'));
        return { text: (e.textContent ?? '').trim(), ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05) };
      });
  });
}

/**
 * One screen checked in both themes (each at both text sizes for the cut and size checks): axe
 * (and its 7:1 rule in high contrast), the measured contrasts, key sizes, nothing cut. Results and
 * screenshots to test-artifacts/.
 */
async function checkScreen(k: Kiosk, name: string): Promise<void> {
  const report: Record<string, unknown> = {};
  for (const theme of ['standard', 'high-contrast'] as const) {
    for (const large of [false, true]) {
      await setModes(k, theme === 'high-contrast', large);
      const what = `${name} ${theme}${large ? ' large' : ''}`;
      expect(await overflowing(k), what).toEqual([]);
      for (const b of await k.page.locator('button:visible').all()) {
        const box = await b.boundingBox();
        expect(Math.min(box?.width ?? 0, box?.height ?? 0), `${what}: ${await b.textContent()}`).toBeGreaterThanOrEqual(MIN_KEY_PX);
      }
      for (const c of await textContrasts(k)) expect(c.ratio, `${what}: "${c.text}"`).toBeGreaterThanOrEqual(7);
      // Both themes of every screen; large text once (the idle screen), enough to see it.
      if (!large || name === 'idle') await k.page.screenshot({ path: join(ARTIFACTS, `kiosk-${name}-${theme}${large ? '-large' : ''}.png`) });
      if (large) continue;
      const result = await k.page.evaluate(
        (tags) =>
          (globalThis as unknown as { axe: { run(c: unknown, o: unknown): Promise<unknown> } }).axe.run(document, { runOnly: { type: 'tag', values: tags } }),
        theme === 'high-contrast' ? [...AXE_TAGS, 'wcag2aaa'] : AXE_TAGS,
      );
      const { violations, passes } = result as AxeResult;
      report[theme] = { violations, passes: passes.map((p) => p.id) };
      expect(
        violations.map((v) => `${v.id} (${v.impact}): ${v.help} — ${JSON.stringify(v.nodes.map((n) => n.target))}`),
        what,
      ).toEqual([]);
      expect(
        passes.map((p) => p.id),
        what,
      ).toEqual(expect.arrayContaining(['color-contrast', 'button-name', 'html-has-lang', 'html-lang-valid']));
      if (theme === 'high-contrast')
        expect(
          passes.map((p) => p.id),
          what,
        ).toContain('color-contrast-enhanced');
    }
  }
  await setModes(k, false, false);
  writeFileSync(join(ARTIFACTS, `kiosk-axe-${name}.json`), `${JSON.stringify({ screen: name, lines: await screenText(k), ...report }, null, 2)}\n`);
}

// --- the tests --------------------------------------------------------------------------------------

describe('kiosk page at 800x480 with touch, English', () => {
  let k: Kiosk;
  beforeAll(async () => {
    k = await startKiosk('en');
  }, 60_000);
  afterAll(() => stopKiosk(k));

  it('idle: the display lines live in a status region; lang "en"; every control labelled, reached by Tab, focus visible; nothing animated', async () => {
    await waitFor('idle', () => mode(k) === 'idle');
    await screenFollows(k);
    expect(await k.page.getAttribute('html', 'lang')).toBe('en');
    expect(await k.page.getAttribute('#screen', 'role')).toBe('status');
    expect(await k.page.getAttribute('#screen', 'aria-live')).toBe('polite');
    await checkScreen(k, 'idle');
    // Tab reaches every visible control, in reading order, each with a focus ring.
    const visible = await k.page.$$eval('button', (bs: El[]) => bs.filter((b) => b.offsetParent !== null).map((b) => b.id || b.dataset['key']));
    const reached: string[] = [];
    // From the top of the page: the screen (not a control) as the starting point.
    await k.page.evaluate(() => document.activeElement?.blur());
    await k.page.click('#screen');
    for (let i = 0; i < visible.length; i++) {
      await k.page.keyboard.press('Tab');
      const f = await k.page.evaluate(() => {
        const el = document.activeElement as El;
        const s = getComputedStyle(el);
        return { id: el.id || el.dataset['key'] || el.tagName, outline: s.outlineStyle, width: parseFloat(s.outlineWidth) };
      });
      reached.push(f.id);
      expect(f.outline, f.id).not.toBe('none');
      expect(f.width, f.id).toBeGreaterThanOrEqual(3);
    }
    expect(reached).toEqual(visible);
    const names = await k.page.$$eval('button:not([hidden])', (bs: El[]) => bs.map((b) => (b.getAttribute('aria-label') ?? b.textContent ?? '').trim()));
    expect(names.filter((n) => n === '')).toEqual([]);
    const moving = await k.page.$$eval('*', (els: El[]) =>
      els.filter((e) => getComputedStyle(e).animationName !== 'none' || parseFloat(getComputedStyle(e).transitionDuration) > 0).map((e) => e.tagName),
    );
    expect(moving).toEqual([]);
  }, 60_000);

  it('high contrast and large text stay through a pickup by touch, and go when the station says the patron has gone', async () => {
    await setModes(k, true, true);
    const normal = 36;
    expect(parseFloat(await k.page.$eval('#lines', (e: El) => getComputedStyle(e).fontSize))).toBeGreaterThan(normal * 1.3);
    await tap(k, '9');
    await expect.poll(() => screenText(k), POLL).toContain('PIN: *');
    await tap(k, 'clear');
    await expect.poll(() => screenText(k), POLL).not.toContain('PIN: *');
    const n = SEED_PIN_SINGLE.length;
    for (const d of SEED_PIN_SINGLE.slice(0, -1)) await tap(k, d);
    await tap(k, '7');
    await expect.poll(() => screenText(k), POLL).toContain(`PIN: ${'*'.repeat(n)}`);
    await tap(k, 'backspace');
    await expect.poll(() => screenText(k), POLL).toContain(`PIN: ${'*'.repeat(n - 1)}`);
    await tap(k, SEED_PIN_SINGLE.slice(-1));
    await expect.poll(() => screenText(k), POLL).toContain(`PIN: ${'*'.repeat(n)}`);
    expect((await screenText(k)).join(' ')).not.toMatch(/[0-9]{3}/);
    await setModes(k, false, false);
    await checkScreen(k, 'pin-entry');
    await setModes(k, true, true);
    await tap(k, 'enter');
    await waitFor('box 4 open', () => k.station.runtime.snapshot().boxes[box(4)] === 'OPEN');
    await waitFor('closing', () => mode(k) === 'closing');
    await screenFollows(k);
    expect((await screenText(k)).join(' ')).toMatch(/4/);
    expect(await k.page.isHidden('#cancel')).toBe(true);
    expect(await k.page.getAttribute('#contrast', 'aria-pressed')).toBe('true');
    await setModes(k, false, false);
    await checkScreen(k, 'box-open');
    await setModes(k, true, true);
    k.sim.closeDoor(4);
    await waitFor('idle after pickup', () => mode(k) === 'idle');
    await screenFollows(k);
    expect(await k.page.getAttribute('#contrast', 'aria-pressed')).toBe('true');
    expect(await k.page.getAttribute('#large', 'aria-pressed')).toBe('true');
    // The patron has gone: the session-end timer's input, as the runtime's timer delivers it.
    k.station.runtime.dispatch({ type: 'timer', timer: 'session-end' });
    await expect.poll(() => k.page.getAttribute('#contrast', 'aria-pressed'), POLL).toBe('false');
    expect(await k.page.getAttribute('#large', 'aria-pressed')).toBe('false');
    expect(await k.page.evaluate(() => document.body.className)).toBe('');
  }, 60_000);

  // The PIN limit's two timers are delivered here as the runtime's timers deliver them when they fire
  // (their timing is test/unit/core-time-to-act.test.ts's and runtime-speech.test.ts's): the page is
  // checked with the warning on screen for as long as that takes.
  it('a PIN left half-typed: "more time" shows before the idle clear, its button gives the time again; untouched, the PIN is cleared', async () => {
    await tap(k, '4');
    await tap(k, '2');
    await expect.poll(() => screenText(k), POLL).toContain('PIN: **');
    expect(await k.page.isHidden('#more-time')).toBe(true);
    k.station.runtime.dispatch({ type: 'timer', timer: 'warn:pin-idle' });
    await expect.poll(() => k.page.isVisible('#more-time'), POLL).toBe(true);
    expect(await screenText(k)).toEqual([...k.station.config.messages.moreTime, 'PIN: **']);
    await checkScreen(k, 'more-time');
    await k.page.tap('#more-time');
    await expect.poll(() => k.page.isHidden('#more-time'), POLL).toBe(true);
    expect(k.station.runtime.snapshot()).toMatchObject({ pin: '42', assist: { extensions: 1 } });
    await expect.poll(() => screenText(k), POLL).toContain('PIN: **');
    k.station.runtime.dispatch({ type: 'timer', timer: 'pin-idle' });
    await expect.poll(() => screenText(k), POLL).not.toContain('PIN: **');
    expect(k.station.runtime.snapshot().pin).toBe('');
  }, 60_000);

  it('the cancel button appears only while a deposit can be cancelled; a tap cancels it', async () => {
    expect(await k.page.isHidden('#cancel')).toBe(true);
    k.sim.scanBarcode(SEED_BARCODES[0]);
    await waitFor('closing', () => mode(k) === 'closing');
    await expect.poll(() => k.page.isVisible('#cancel'), POLL).toBe(true);
    expect(await k.page.textContent('#cancel')).toBe('Cancel');
    await screenFollows(k);
    await checkScreen(k, 'deposit-cancel-offered');
    await k.page.tap('#cancel');
    await server.waitForRequest((r) => r.endpoint === 'cancel');
    await expect.poll(() => k.page.isHidden('#cancel'), POLL).toBe(true);
    await screenFollows(k);
    k.sim.closeDoor(1);
    await waitFor('idle after the deposit', () => mode(k) === 'idle');
  }, 60_000);

  it('an error: the server refuses an unknown item; its text shown, checked', async () => {
    const seq = server.lastSeq;
    k.sim.scanBarcode(SEED_UNKNOWN_BARCODE);
    await server.waitForRequest((r) => r.endpoint === 'item-identify', 5_000, { afterSeq: seq });
    await waitFor('answer', () => k.station.runtime.snapshot().overlay !== null);
    await screenFollows(k);
    await checkScreen(k, 'error');
    await waitFor('prompt again', () => k.station.runtime.snapshot().overlay === null);
  }, 60_000);

  it('the speech, volume buttons and a key held reach the core; speech is heard from the station', async () => {
    await k.page.tap('#speech');
    await waitFor('speech on', () => k.station.runtime.snapshot().assist.requested);
    await waitFor('the prompt spoken', () => k.sim.speech.heard.some((u) => u.kind === 'say' && u.text.startsWith('Scan an item')));
    await k.page.tap('#louder');
    await waitFor('louder', () => k.station.runtime.snapshot().assist.volume === 80);
    await k.page.tap('#softer');
    await waitFor('softer', () => k.station.runtime.snapshot().assist.volume === 70);
    k.station.runtime.dispatch({ type: 'timer', timer: 'session-end' });
    await waitFor('speech off', () => !k.station.runtime.snapshot().assist.requested);
    const before = k.sim.speech.heard.length;
    // Held on the page like a finger: down, the hold time, up.
    await k.page.dispatchEvent('[data-key="5"]', 'pointerdown');
    await waitFor('held', () => k.station.runtime.snapshot().assist.requested, 5_000);
    await k.page.dispatchEvent('[data-key="5"]', 'pointerup');
    expect(k.sim.speech.heard.length).toBeGreaterThan(before);
    k.station.runtime.dispatch({ type: 'timer', timer: 'session-end' });
  });

  it('wrong PINs by touch reach the PIN throttle: wrong PIN, then the lock-out; no console errors', async () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      for (const d of '000000') await tap(k, d);
      await expect.poll(() => screenText(k), POLL).toContain('PIN: ******');
      const seq = server.lastSeq;
      await tap(k, 'enter');
      // The tap's POST reaches the station asynchronously: wait for the server to see the PIN, then for its answer.
      await server.waitForRequest((r) => r.endpoint === 'pin-enter', 5_000, { afterSeq: seq });
      await waitFor('answer', () => k.station.runtime.snapshot().inFlight === null && mode(k) === 'idle');
      if (attempt === 0) {
        await waitFor('wrong PIN shown', () => k.station.runtime.snapshot().overlay !== null);
        await checkScreen(k, 'wrong-pin');
      }
    }
    await expect.poll(() => screenText(k).then((t) => t.join(' ')), POLL).toMatch(/Too many wrong PINs/);
    await checkScreen(k, 'lockout');
    await tap(k, '1');
    await expect.poll(() => screenText(k), POLL).not.toContain('PIN: *');
    expect(k.problems).toEqual([]);
  }, 60_000);

  it('keys, holds, cancels, help requests and the stream without the kiosk secret get 401 and reach nothing', async () => {
    const statuses = await k.page.evaluate(async () => {
      const post = (path: string, body: unknown, auth?: string) =>
        fetch(path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
          body: JSON.stringify(body),
        }).then((r) => r.status);
      const wrong = `Bearer ${'0'.repeat(64)}`;
      return [
        await post('/key', { key: '1' }),
        await post('/key', { key: '1' }, wrong),
        await post('/hold', { key: '1' }),
        await post('/cancel', {}),
        await post('/assist', { request: 'speech' }, wrong),
        await fetch('/events').then((r) => r.status),
        await fetch('/events', { headers: { authorization: wrong } }).then((r) => r.status),
      ];
    });
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 401]);
    expect(k.station.runtime.snapshot().pin).toBe('');
    expect(k.station.runtime.snapshot().assist.requested).toBe(false);
  });

  it("a keyboard's shortcuts end in the page: every Ctrl, Alt or function key has its default prevented; Tab, arrows and characters do not", async () => {
    // A listener on the window's bubble phase runs after the page's own (capture) one.
    await k.page.evaluate(() => {
      const w = globalThis as unknown as {
        keysSeen: string[];
        addEventListener(type: string, f: (e: { key: string; defaultPrevented: boolean }) => void): void;
      };
      w.keysSeen = [];
      w.addEventListener('keydown', (e) => w.keysSeen.push(`${e.key} ${e.defaultPrevented ? 'kept' : 'passed'}`));
    });
    const lastSeen = async (press: string): Promise<string> => {
      await k.page.evaluate(() => ((globalThis as unknown as { keysSeen: string[] }).keysSeen.length = 0));
      await k.page.keyboard.press(press);
      return k.page.evaluate(() => (globalThis as unknown as { keysSeen: string[] }).keysSeen.at(-1) ?? 'nothing');
    };
    const kept: [press: string, key: string][] = [
      ['F12', 'F12'],
      ['Control+Shift+KeyI', 'I'],
      ['Control+KeyO', 'o'],
      ['Control+KeyP', 'p'],
      ['Control+KeyS', 's'],
      ['Control+KeyN', 'n'],
      ['Control+KeyL', 'l'],
      ['Control+KeyW', 'w'],
      ['Alt+F4', 'F4'],
      ['Alt+ArrowLeft', 'ArrowLeft'],
      ['F5', 'F5'],
      ['F7', 'F7'],
      ['F11', 'F11'],
      ['ContextMenu', 'ContextMenu'],
    ];
    for (const [press, key] of kept) expect(await lastSeen(press), press).toBe(`${key} kept`);
    const passed: [press: string, key: string][] = [
      ['Tab', 'Tab'],
      ['Shift+Tab', 'Tab'],
      ['ArrowDown', 'ArrowDown'],
      ['Digit5', '5'],
    ];
    for (const [press, key] of passed) expect(await lastSeen(press), press).toBe(`${key} passed`);
    await k.page.evaluate(() => document.activeElement?.blur());
    expect(k.station.runtime.snapshot().pin).toBe('');
  });
});

describe('kiosk page in Czech', () => {
  let k: Kiosk;
  beforeAll(async () => {
    k = await startKiosk('cs');
  }, 60_000);
  afterAll(() => stopKiosk(k));

  it('lang "cs", the Czech texts and words, checked', async () => {
    await waitFor('idle', () => mode(k) === 'idle');
    await screenFollows(k);
    expect(await k.page.getAttribute('html', 'lang')).toBe('cs');
    expect(await screenText(k)).toEqual(['Naskenujte položku', 'nebo zadejte PIN']);
    expect(await k.page.textContent('#contrast')).toBe('Vysoký kontrast');
    expect(await k.page.getAttribute('[data-key="clear"]', 'aria-label')).toBe('C Smazat PIN');
    await checkScreen(k, 'czech');
    expect(k.problems).toEqual([]);
  }, 60_000);
});

describe('kiosk server', () => {
  let k: Kiosk;
  beforeAll(async () => {
    k = await startKiosk('en');
  }, 60_000);
  afterAll(() => stopKiosk(k));

  const get = (path: string, host?: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: k.panel.port, path, headers: host ? { host } : {} }, (res) => {
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

  it('a key posted as anything but JSON is refused, even with the secret (a cross-site form cannot send one)', async () => {
    const status = await k.page.evaluate(async (secret) => {
      const r = await fetch('/key', { method: 'POST', headers: { 'content-type': 'text/plain', authorization: `Bearer ${secret}` }, body: '{"key":"1"}' });
      return r.status;
    }, SECRET);
    expect(status).toBe(415);
  });
});
