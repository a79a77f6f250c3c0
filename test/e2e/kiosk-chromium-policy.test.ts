/**
 * The kiosk's Chromium managed policy (systemd/chromium-policy.json) as Debian's Chromium reads it:
 * every policy name known to it, every value of the right type (chrome://policy shows no error or
 * warning for any), each one applied at the managed ("mandatory", machine) level; and the URLs it
 * must block blocked, the kiosk's page and start page not.
 *
 * Chromium reads managed policies from /etc/chromium/policies/managed only. This machine's /etc is
 * not touched: Chromium runs in a mount namespace of its own (`unshare -m`) where a tmpfs covers
 * /etc/chromium and holds the policy; nothing outside that process tree sees it. The read-back needs
 * chrome://policy, which the policy blocks like every URL: that run's copy allows chrome:// pages and DevTools on pages (the policy as shipped makes every page "not inspectable": shown last). The keys themselves are
 * pressed against the kiosk on the virtual board (scripts/board/parts/kiosk-lockdown.mjs).
 */
import { spawn, spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM } from '../support/chromium.js';

const POLICY = join(import.meta.dirname, '../../systemd/chromium-policy.json');
const IS_ROOT = process.getuid?.() === 0;
const CAN_UNSHARE = IS_ROOT && spawnSync('unshare', ['-m', 'true']).status === 0;

let work: string;

/** DIR/chromium: Debian's Chromium with `policy` as its only managed policy, in a mount namespace of its own. */
function writeWrapper(dir: string, policy: unknown): string {
  writeFileSync(join(dir, 'pickup-station.json'), JSON.stringify(policy));
  const prefs = '/etc/chromium/master_preferences';
  if (existsSync(prefs)) copyFileSync(prefs, join(dir, 'master_preferences'));
  const wrapper = join(dir, 'chromium');
  writeFileSync(
    wrapper,
    [
      '#!/bin/sh',
      `exec unshare -m --propagation private sh -c '`,
      `mount -t tmpfs -o mode=0755 tmpfs /etc/chromium || exit 1`,
      `mkdir -p /etc/chromium/policies/managed`,
      `cp "$0/pickup-station.json" /etc/chromium/policies/managed/`,
      `[ -f "$0/master_preferences" ] && cp "$0/master_preferences" /etc/chromium/`,
      `shift; exec ${CHROMIUM} "$@"' "${dir}" -- "$@"`,
      '',
    ].join('\n'),
  );
  chmodSync(wrapper, 0o755);
  return wrapper;
}

async function chromiumWith(policy: unknown): Promise<{ context: BrowserContext; page: Page }> {
  const dir = mkdtempSync(join(work, 'run-'));
  const wrapper = writeWrapper(dir, policy);
  // The browser's own first window: the policy forces every window to be incognito and leaves no
  // other profile or context to open one in (a new context's tab is refused).
  const context = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: wrapper,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-component-update'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return { context, page };
}

/**
 * The shipped policy with what reading it back needs: DevTools on pages (the protocol this test
 * drives Chromium with is DevTools: `DeveloperToolsAvailability` 2 makes every page "not
 * inspectable", which the last test shows) and chrome:// pages allowed (an allow entry for
 * chrome://policy alone does not let it load: it is built from other chrome:// pages). Everything
 * else as shipped.
 */
function readBack(shipped: Record<string, unknown>): Record<string, unknown> {
  return { ...shipped, DeveloperToolsAvailability: 1, URLAllowlist: [...(shipped['URLAllowlist'] as string[]), 'chrome://*'] };
}

interface PolicyRow {
  readonly name: string;
  readonly value: string;
  readonly source: string;
  readonly scope: string;
  readonly level: string;
  readonly status: string;
}
const DEPRECATED = new Set(['AutofillAddressEnabled', 'AutofillCreditCardEnabled']);
/** The page's rows, read as the board's read-back in the guest reads them (scripts/board/guest/chrome-policy.mjs). */
const { POLICY_ROWS } = (await import(join(import.meta.dirname, '../../scripts/board/guest/policy-rows.mjs'))) as { POLICY_ROWS: string };

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'kiosk-policy-chromium-'));
});
afterAll(() => {
  // Each browser is waited for when its test ends; should a helper process of one outlive it and
  // still write into its profile, the removal meets ENOTEMPTY and goes again.
  rmSync(work, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
});

describe.skipIf(!CAN_UNSHARE)("Debian's Chromium with the kiosk's managed policy", { timeout: 120_000 }, () => {
  it('knows every policy, finds no error in any, applies each at the machine level as mandatory', async () => {
    const shipped = JSON.parse(readFileSync(POLICY, 'utf8')) as Record<string, unknown>;
    const readable = readBack(shipped);
    const { context, page } = await chromiumWith(readable);
    try {
      await page.goto('chrome://policy');
      // The page's rows as a person reads them (in its elements' shadow trees), once rendered.
      let rows: PolicyRow[] = [];
      for (let i = 0; i < 100 && rows.length < Object.keys(readable).length; i++) {
        rows = await page.evaluate<PolicyRow[]>(POLICY_ROWS);
        if (rows.length < Object.keys(readable).length) await page.waitForTimeout(200);
      }
      const byName = new Map(rows.map((r) => [r.name, r]));
      for (const [name, value] of Object.entries(readable)) {
        const got = byName.get(name);
        expect(got, `${name} applied`).toBeDefined();
        expect(JSON.parse(got!.value), name).toEqual(value);
        expect([got!.source, got!.scope, got!.level], name).toEqual(['Platform', 'Machine', 'Mandatory']);
        // Chromium 156 marks the two autofill switches deprecated (still applied); nothing else but OK.
        expect(got!.status, name).toBe(DEPRECATED.has(name) ? 'Deprecated' : 'OK');
      }
      expect(rows.map((r) => r.name).sort()).toEqual(Object.keys(readable).sort());
    } finally {
      await context.close();
    }
  });

  it('blocks every URL but the kiosk page and its start page: other sites, other ports and schemes, other files', async () => {
    const { context, page } = await chromiumWith(readBack(JSON.parse(readFileSync(POLICY, 'utf8')) as Record<string, unknown>));
    try {
      for (const url of [
        'http://example.org/',
        'http://127.0.0.1:8092/',
        'https://127.0.0.1:8091/',
        'file:///etc/hostname',
        'file:///run/pickup-kiosk/other.html',
      ]) {
        const err = await page.goto(url).then(
          () => null,
          (e: Error) => e.message,
        );
        expect(err, url).toMatch(/ERR_BLOCKED_BY_ADMINISTRATOR/);
      }
      // Allowed: nothing listens on the kiosk's port here, so the allowed page fails to connect
      // instead (not blocked); the start page's path is allowed and simply does not exist.
      expect(await page.goto('http://127.0.0.1:8091/').catch((e: Error) => e.message)).toMatch(/ERR_CONNECTION_REFUSED/);
      expect(await page.goto('file:///run/pickup-kiosk/start.html').catch((e: Error) => e.message)).toMatch(/ERR_FILE_NOT_FOUND/);
    } finally {
      await context.close();
    }
  });

  it('as shipped, no page can be inspected: DevTools refuses to attach to the page ("Target is not inspectable")', async () => {
    const dir = mkdtempSync(join(work, 'shipped-'));
    const port = 9300 + Math.floor(Math.random() * 600);
    writeWrapper(dir, JSON.parse(readFileSync(POLICY, 'utf8')));
    const chromiumRun = spawn(
      join(dir, 'chromium'),
      ['--headless', '--no-sandbox', '--disable-gpu', `--user-data-dir=${join(dir, 'profile')}`, `--remote-debugging-port=${port}`, 'about:blank'],
      { stdio: 'ignore' },
    );
    try {
      let pages: { type: string; webSocketDebuggerUrl: string }[] = [];
      for (let i = 0; i < 200 && pages.length === 0; i++) {
        pages = await fetch(`http://127.0.0.1:${port}/json/list`)
          .then(async (r) => ((await r.json()) as typeof pages).filter((t) => t.type === 'page'))
          .catch(() => []);
        if (pages.length === 0) await new Promise((r) => setTimeout(r, 100));
      }
      expect(pages.length).toBeGreaterThan(0);
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(pages[0]!.webSocketDebuggerUrl.replace('ws://', 'http://'), {
          headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' },
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('upgrade', () => resolve({ status: 101, body: '' }));
        req.on('error', reject);
        req.end();
      });
      expect(answer).toEqual({ status: 403, body: 'Target is not inspectable' });
    } finally {
      // Ended and waited for: a browser still shutting down writes into its profile while afterAll
      // removes it.
      if (chromiumRun.exitCode === null && chromiumRun.signalCode === null) {
        const exited = new Promise((resolve) => chromiumRun.once('exit', resolve));
        chromiumRun.kill('SIGTERM');
        await exited;
      }
    }
  });
});
