/**
 * Failed console logins as the daemon shows them: one reader made at start (startSupervised) that
 * the technician status and /metrics both read, so both give the same count, counted once, from
 * the start on. The failed-login record is made by util-linux's `utmpdump -r`, appended as `login`
 * appends it.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDebugHarness, type DebugHarness } from '../support/technician-harness.js';
import { requireTool, runs } from '../support/tools.js';

const HAVE_UTMPDUMP = requireTool('utmpdump', runs('utmpdump', ['--version']), 'util-linux');

let d: DebugHarness | undefined;
let dir: string | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Failed logins (type 6, as login writes them to btmp) on `lines`, binary. */
function failures(at: string, ...lines: string[]): Buffer {
  const text = lines.map((line, i) => `[6] [${String(2000 + i).padStart(5, '0')}] [${line.slice(-4)}] [root] [${line}] [] [0.0.0.0] [${at}]\n`).join('');
  const out = join(dir ?? '', `records-${Math.random().toString(36).slice(2)}`);
  const r = spawnSync('utmpdump', ['-r', '-o', out], { input: text, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(out);
}

async function statusCount(dh: DebugHarness): Promise<unknown> {
  const r = await dh.call('GET', '/api/status', { token: dh.tokens.read });
  expect(r.status).toBe(200);
  return (r.body.consoleLogins as { failed: number } | null)?.failed;
}

async function metricCount(dh: DebugHarness): Promise<number | undefined> {
  const r = await dh.call('GET', '/metrics', { token: dh.tokens.metrics });
  expect(r.status).toBe(200);
  const m = /^pickup_station_console_login_failures_total\{[^}]*\} (\d+)$/m.exec(r.text);
  return m === null ? undefined : Number(m[1]);
}

describe.skipIf(!HAVE_UTMPDUMP)('failed console logins on the status and /metrics', () => {
  it('one count from the start on, the same on both, whichever reads first', async () => {
    dir = mkdtempSync(join(tmpdir(), 'btmp-port-'));
    const btmp = join(dir, 'btmp');
    // Attempts before the daemon started are not counted.
    writeFileSync(btmp, failures('2026-11-27T22:00:00,000000+00:00', 'tty1'));
    d = await startDebugHarness({ metrics: { consoleLoginFile: btmp } });
    expect(await statusCount(d)).toBe(0);
    expect(await metricCount(d)).toBe(0);

    appendFileSync(btmp, failures('2026-11-28T05:00:00,000000+00:00', 'tty2', 'ttyAMA0'));
    expect(await statusCount(d)).toBe(2);
    expect(await metricCount(d)).toBe(2);

    appendFileSync(btmp, failures('2026-11-28T05:01:00,000000+00:00', 'ttyUSB0'));
    expect(await metricCount(d)).toBe(3);
    expect(await statusCount(d)).toBe(3);
  });

  it('not watched (consoleLoginFile null): null on the status, no series', async () => {
    d = await startDebugHarness({ metrics: { consoleLoginFile: null } });
    const r = await d.call('GET', '/api/status', { token: d.tokens.read });
    expect(r.body.consoleLogins).toBeNull();
    expect(await metricCount(d)).toBeUndefined();
  });
});
