/**
 * The technician page's alarms in real headless Chromium (Debian's `chromium` via playwright-core):
 * forced open, door ajar, tamper, the PIN lock-out and journal trouble shown prominently as they happen (live
 * stream), each box's lock and door lines, at a desktop and at a phone viewport (390×844) with no
 * horizontal scrolling. Screenshots: test-artifacts/technician-alarms-{desktop,phone}.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryJournal } from '../../src/journal/memory.js';
import { SEED_UNKNOWN_PIN } from '../../src/reference-server/index.js';
import { launchChromium } from '../support/chromium.js';
import { waitFor } from '../support/shared.js';
import { idle, startDebugHarness, type DebugHarness } from '../support/technician-harness.js';

const POLL = { timeout: 8_000, interval: 25 };
const ARTIFACTS = join(import.meta.dirname, '../../test-artifacts');
const JOURNAL_PROBLEM = '/var/lib/pickup-station/journal.log damaged: record 3 of 9: checksum mismatch; set aside';

let browser: Browser;
let d: DebugHarness;

beforeAll(async () => {
  browser = await launchChromium();
  // One wrong PIN locks the keypad for 10 minutes; a door is ajar after 1 s; the journal was found damaged at start.
  d = await startDebugHarness({
    timing: { heartbeatIntervalMs: 1_000, doorAjarMs: 1_000 },
    pin: { maxFailures: 1, lockoutMs: 600_000 },
    journal: new MemoryJournal([], JOURNAL_PROBLEM),
  });
  await idle(d);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await d?.stop();
});

async function signIn(page: Page): Promise<void> {
  await page.goto(`${d.url}/`);
  await page.fill('#token', d.tokens.read);
  await page.click('#connect');
  await page.waitForSelector('#app:not(.hidden)');
  await expect.poll(() => page.textContent('#conn'), POLL).toBe('live');
}

const alarmTexts = (page: Page) => page.locator('#alarm-list li').allTextContents();

/** No horizontal scrolling: the page is no wider than the viewport. */
const overflowX = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');

describe('technician page: alarms', () => {
  it('shows every alarm as it is raised (live), with the lock and door lines of each box; desktop and phone', async () => {
    const desktop = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    const problems: string[] = [];
    for (const p of [desktop, phone]) {
      p.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      p.on('pageerror', (e) => problems.push(e.message));
      await signIn(p);
      // Journal trouble from the start.
      await expect.poll(() => alarmTexts(p), POLL).toEqual([`journal trouble${JOURNAL_PROBLEM}`]);
      expect(await p.textContent('#box-3 .lock-line')).toBe('lock simulated lock 3');
      expect(await p.textContent('#box-3 .door-line')).toBe('door simulated door switch 3');
    }

    // A wrong PIN: the keypad locks (PIN lock-out).
    d.h.sim.typePin(SEED_UNKNOWN_PIN);
    await waitFor('lock-out', () => d.wp.supervisor.station.runtime.snapshot().pinThrottle.lockout !== null);
    await idle(d);
    // A door forced open; after 1 s it is also ajar.
    d.h.sim.forceOpen(3);
    // The cabinet opened.
    d.h.sim.openTamper();
    for (const p of [desktop, phone]) {
      await p.waitForSelector('#alarms:not(.hidden)');
      await expect
        .poll(() => alarmTexts(p), POLL)
        .toEqual([
          expect.stringMatching(/^PIN lock-outkeypad locked for 600 s after 1 wrong PINsince /),
          expect.stringMatching(/^forced openbox 3 forced opensince /),
          expect.stringMatching(/^tampertampersince /),
          expect.stringMatching(/^door ajarbox 3 open for 1 ssince /),
          `journal trouble${JOURNAL_PROBLEM}`,
        ]);
      expect(await p.textContent('#alarm-badge')).toBe('5 ALARMS');
      expect(await p.getAttribute('#box-3', 'class')).toContain('forced');
      expect(await p.textContent('#box-3 .flag')).toBe('FORCED OPEN');
      expect(await p.textContent('#box-3 .last')).toMatch(/^FORCED OPEN \(opened without a command\)/);
      expect(await p.textContent('#tamper')).toBe('OPEN · simulated tamper switch');
      await expect.poll(() => p.textContent('#pin-throttle'), POLL).toMatch(/^LOCKED for (10:00|9:[0-5]\d) \(1 wrong in a row\)$/);
      // The wrong PIN's exception is the last failure, named as the status names it (never the PIN).
      await expect.poll(() => p.textContent('#last-failure'), POLL).toMatch(/^\/pin-enter exception \d{3} \S+ · 1 attempt · \d+ s ago$/);
      // Prominent: the alarm list is the first thing on the page, visible without scrolling.
      const box = await p.locator('#alarms').boundingBox();
      expect(box && box.y < p.viewportSize()!.height / 2).toBe(true);
      expect(await overflowX(p)).toBeLessThanOrEqual(0);
    }
    mkdirSync(ARTIFACTS, { recursive: true });
    await desktop.screenshot({ path: join(ARTIFACTS, 'technician-alarms-desktop.png'), fullPage: true });
    await phone.screenshot({ path: join(ARTIFACTS, 'technician-alarms-phone.png'), fullPage: true });

    // Cleared live as the conditions end.
    d.h.sim.closeDoor(3);
    d.h.sim.closeTamper();
    for (const p of [desktop, phone]) {
      await expect.poll(() => alarmTexts(p), POLL).toEqual([expect.stringMatching(/^PIN lock-out/), `journal trouble${JOURNAL_PROBLEM}`]);
      expect(await p.getAttribute('#box-3', 'class')).not.toContain('forced');
    }
    expect(problems).toEqual([]);
    await desktop.close();
    await phone.close();
  }, 60_000);
});
