/**
 * The technician page in real headless Chromium (Debian's `chromium`, driven by playwright-core):
 * token entry, the live box map following a deposit made through the reference server, the display
 * mirror, the event timeline with the trace id the server saw, a service action behind its
 * confirmation, and no console errors (the CSP allows the page's own inline code only).
 * Leaves a screenshot at test-artifacts/technician-page.png.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_BARCODES } from '../../src/reference-server/index.js';
import { launchChromium } from '../support/chromium.js';
import { box, waitFor } from '../support/shared.js';
import { idle, startDebugHarness, type DebugHarness } from '../support/technician-harness.js';

const POLL = { timeout: 5_000, interval: 25 };
const ARTIFACTS = join(import.meta.dirname, '../../test-artifacts');

let browser: Browser;
let d: DebugHarness;

beforeAll(async () => {
  browser = await launchChromium();
  d = await startDebugHarness({ timing: { heartbeatIntervalMs: 1_000 } });
  await idle(d);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await d?.stop();
});

async function signIn(page: Page, token: string): Promise<void> {
  await page.goto(`${d.url}/`);
  await page.fill('#token', token);
  await page.click('#connect');
  await page.waitForSelector('#app:not(.hidden)');
  await expect.poll(() => page.textContent('#conn'), POLL).toBe('live');
}

describe('technician page in headless Chromium', () => {
  it('follows a deposit live, shows trace ids, runs a confirmed service action; no console errors', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));

    // A wrong token is refused and nothing is shown.
    await page.goto(`${d.url}/`);
    await page.fill('#token', 'pst_' + 'x'.repeat(43));
    await page.click('#connect');
    await expect.poll(() => page.textContent('#login-error'), POLL).toBe('Token refused.');
    expect(await page.isHidden('#app')).toBe(true);
    expect(problems).toEqual(['Failed to load resource: the server responded with a status of 401 (Unauthorized)']);
    problems.length = 0;

    await signIn(page, d.tokens.service);
    expect(await page.evaluate("sessionStorage.getItem('technicianToken')")).toBe(d.tokens.service);
    expect(await page.locator('#boxes .box').count()).toBe(8);
    expect(await page.textContent('#box-1 .st')).toBe('CLOSED');
    expect(await page.textContent('#who')).toBe('alice (service)');
    // About this release: a checkout is a development build, said as such, with no contact made up
    // (a release's own, from its vendor.json, is in bundle-vendor.test.ts).
    expect(await page.textContent('#about-support')).toBe('development build: no support period (not a release)');
    expect(await page.textContent('#about-contact')).toBe('none (development build)');
    // What a technician compares with an advisory's affected versions: the release's and the board's.
    expect(await page.textContent('#about-sbom')).toBe('stationctl sbom (the release), stationctl sbom --system (the whole board)');

    // A deposit through the reference server: the box map, the display mirror and the timeline follow.
    d.h.sim.scanBarcode(SEED_BARCODES[0]);
    await expect.poll(() => page.textContent('#box-1 .st'), POLL).toBe('OPEN');
    const identify = await d.h.server.waitForRequest((r) => r.endpoint === 'item-identify');
    await waitFor('closing', () => d.wp.supervisor.station.runtime.snapshot().mode.kind === 'closing');
    const shown = d.h.sim.display.lastShown().join('\n');
    await expect.poll(() => page.textContent('#lcd'), POLL).toBe(shown);
    await expect.poll(() => page.locator('#timeline .trace-id').allTextContents(), POLL).toContain(`trace ${identify.traceId}`);
    await expect.poll(() => page.textContent('#box-1 .last'), POLL).toMatch(/^opened \(deposit\)/);
    expect(await page.getAttribute('#box-1', 'class')).toContain('open');

    d.h.sim.closeDoor(1);
    await expect.poll(() => page.textContent('#box-1 .st'), POLL).toBe('CLOSED');
    await idle(d);

    // A service action behind its confirmation: cancel does nothing, confirm does it.
    await page.click('#svc-on');
    await page.waitForSelector('#confirm[open]');
    expect(await page.textContent('#confirm-text')).toContain('service mode on');
    await page.click('#confirm-cancel');
    expect(d.wp.supervisor.station.runtime.snapshot().faults).toEqual({});
    await page.click('#svc-on');
    await page.click('#confirm-ok');
    await page.waitForSelector('#service-badge:not(.hidden)');
    const down = await d.h.server.waitForRequest((r) => r.endpoint === 'state' && (r.body as { st: string }).st === 'DOWN');
    expect((down.body as { errorMessage: string }).errorMessage).toBe('service');

    // Open a box from its tile (confirmed): the map shows it, with who opened it.
    await idle(d);
    await page.click('#box-3 button');
    await page.click('#confirm-ok');
    await expect.poll(() => page.textContent('#box-3 .st'), POLL).toBe('OPEN');
    await expect.poll(() => page.textContent('#box-3 .last'), POLL).toMatch(/^opened \(technician alice\)/);
    expect(d.h.sim.locks.pulses.map((p) => p.box)).toEqual([1, 3]);
    await expect.poll(() => page.textContent('#result'), POLL).toContain('"opened": true');
    expect(await page.textContent('#station-id')).toBe(d.h.config.station.id);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'technician-page.png'), fullPage: true });
    expect(problems).toEqual([]);
    // The token never went into a URL.
    expect(d.h.logs.join('')).not.toContain(d.tokens.service);
    await page.close();
  }, 60_000);

  it('a read token sees everything with the actions disabled', async () => {
    const page = await browser.newPage();
    await signIn(page, d.tokens.read);
    expect(await page.textContent('#who')).toBe('reader-tech (read)');
    expect(await page.isDisabled('#svc-on')).toBe(true);
    expect(await page.isDisabled(`#box-2 button`)).toBe(true);
    expect(await page.getAttribute('#box-2', 'data-id')).toBe(box(2));
    await page.close();
  }, 30_000);

  it('shows which config version runs, and a key that waits for a process restart until the restart', async () => {
    const page = await browser.newPage();
    await signIn(page, d.tokens.read);
    await expect.poll(() => page.textContent('#config-file'), POLL).toMatch(/^version [0-9a-f]{16}$/);
    writeFileSync(d.configFile, JSON.stringify({ ...d.configInput, technician: { ...d.configInput.technician, logLines: 50 } }));
    expect((await d.call('POST', '/api/reload')).status).toBe(200);
    await page.close();
    const after = await browser.newPage();
    await signIn(after, d.tokens.read);
    await expect.poll(() => after.textContent('#config-file'), POLL).toMatch(/^version [0-9a-f]{16} · RESTART NEEDED for technician\.logLines$/);
    writeFileSync(d.configFile, JSON.stringify(d.configInput));
    expect((await d.call('POST', '/api/reload')).status).toBe(200);
    await after.close();
  }, 30_000);
});
