/**
 * sd_notify through the real systemd-notify tool into a real unix datagram socket ($NOTIFY_SOCKET
 * bound by a python3 child): what arrives, in what order, and that every failure is soft.
 * Then the health-gated watchdog end to end over the same socket with real timers.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { anyExists, requireTool } from '../support/tools.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSdNotifier } from '../../src/service/notify.js';
import { startWatchdog } from '../../src/service/watchdog.js';
import type { HealthResult } from '../../src/service/health.js';
import { captureLog } from '../support/capture-log.js';
import { startNotifyReceiver, type NotifyReceiver } from '../support/notify-receiver.js';
import { sleep } from '../support/shared.js';

const HAVE_TOOL = requireTool('systemd-notify', anyExists('/usr/bin/systemd-notify', '/bin/systemd-notify'), 'systemd');

/** systemd-notify as `nobody` when we are root (as the station's own user runs it); else itself. */
function unprivileged(): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'notify-as-'));
  const wrapper = join(dir, 'systemd-notify');
  writeFileSync(wrapper, '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups systemd-notify "$@"\n', { mode: 0o755 });
  return wrapper;
}

let receiver: NotifyReceiver;
beforeEach(async () => {
  receiver = await startNotifyReceiver();
});
afterEach(async () => {
  await receiver.close();
});

describe.skipIf(!HAVE_TOOL)('sd_notify via systemd-notify', () => {
  it('delivers READY=1 with MAINPID and STATUS as one datagram, then later messages in order', async () => {
    const { log } = captureLog();
    const n = createSdNotifier({ env: { ...process.env, NOTIFY_SOCKET: receiver.path }, log, pid: 4242 });
    expect(n.enabled).toBe(true);
    const sent = [n.notify('READY=1', 'STATUS=running'), n.notify('WATCHDOG=1'), n.notify('STOPPING=1')];
    expect(n.pending()).toBe(3);
    expect(await Promise.all(sent)).toEqual([true, true, true]);
    expect(n.pending()).toBe(0);
    const msgs = receiver.messages();
    expect(msgs).toHaveLength(3);
    expect(msgs[0]!.split('\n').sort()).toEqual(['MAINPID=4242', 'READY=1', 'STATUS=running']);
    expect(msgs.slice(1)).toEqual(['WATCHDOG=1', 'STOPPING=1']);
  });

  it('is a silent no-op without $NOTIFY_SOCKET (nothing spawned, nothing logged)', async () => {
    const captured = captureLog();
    const env = { ...process.env };
    delete env['NOTIFY_SOCKET'];
    const n = createSdNotifier({ env, log: captured.log, command: '/nonexistent/systemd-notify' });
    expect(n.enabled).toBe(false);
    expect(await n.notify('READY=1')).toBe(false);
    await n.flush(100);
    expect(captured.lines()).toEqual([]);
    expect(receiver.messages()).toEqual([]);
  });

  it('a socket nobody listens on: resolves false, one warning, then debug only, never throws', async () => {
    const captured = captureLog();
    const n = createSdNotifier({ env: { ...process.env, NOTIFY_SOCKET: `${receiver.path}.gone` }, log: captured.log });
    expect(await n.notify('READY=1')).toBe(false);
    expect(await n.notify('WATCHDOG=1')).toBe(false);
    expect(await n.notify('WATCHDOG=1')).toBe(false);
    expect(captured.count(40, 'sd_notify failed')).toBe(1);
    expect(captured.count(20, 'sd_notify failed again')).toBe(2);
  });

  it('a missing tool: resolves false with one warning naming it', async () => {
    const captured = captureLog();
    const n = createSdNotifier({ env: { ...process.env, NOTIFY_SOCKET: receiver.path }, log: captured.log, command: '/nonexistent/systemd-notify' });
    expect(await n.notify('READY=1')).toBe(false);
    const warn = captured.lines().find((l) => l.level === 40);
    expect(String(warn?.['detail'])).toContain('/nonexistent/systemd-notify');
  });

  it('refuses a malformed line instead of sending it (a newline would inject a second assignment)', async () => {
    const captured = captureLog();
    const n = createSdNotifier({ env: { ...process.env, NOTIFY_SOCKET: receiver.path }, log: captured.log });
    expect(await n.notify('STATUS=a\nREADY=1')).toBe(false);
    expect(await n.notify('ready')).toBe(false);
    await sleep(50);
    expect(receiver.messages()).toEqual([]);
    expect(captured.count(40, 'sd_notify failed')).toBe(1);
  });
});

describe.skipIf(!HAVE_TOOL)('health-gated watchdog over a real socket', () => {
  it('pings while healthy, stops while the runtime is stuck, resumes when it recovers', async () => {
    const { log } = captureLog();
    const n = createSdNotifier({ env: { ...process.env, NOTIFY_SOCKET: receiver.path }, log });
    let health: HealthResult = { ok: true };
    const dog = startWatchdog({ notifier: n, intervalMs: 100, log, checks: [{ name: 'runtime', check: () => health }] });
    try {
      const pings = () => receiver.messages().filter((m) => m === 'WATCHDOG=1').length;
      // Pings go on while healthy: three more, each after the one before (however slow the machine).
      for (let i = 0; i < 3; i++) await receiver.waitFor((m) => m === 'WATCHDOG=1', 5_000, receiver.messages().length);

      health = { ok: false, reason: 'runtime stuck: injected' };
      await receiver.waitFor((m) => m.startsWith('STATUS=unhealthy: runtime stuck: injected'));
      await n.flush(2_000);
      const frozen = pings();
      await sleep(600);
      expect(pings()).toBe(frozen);
      expect(dog.healthy()).toBe(false);

      const mark = receiver.messages().length;
      health = { ok: true };
      await receiver.waitFor((m) => m === 'STATUS=running', 5_000, mark);
      await receiver.waitFor((m) => m === 'WATCHDOG=1', 5_000, mark);
      expect(dog.healthy()).toBe(true);
    } finally {
      dog.stop();
      await n.flush(2_000);
    }
  });

  it('a ping PID 1 reads only after systemd-notify gave up is dropped; the one sent again arrives', async () => {
    const { log } = captureLog();
    // Run by root, systemd-notify sends in its parent's name (ours, alive), which the station's
    // unprivileged user cannot: the kernel refuses the credentials and the message is the tool's own.
    const command = unprivileged();
    const n = createSdNotifier({ env: { ...process.env, NOTIFY_SOCKET: receiver.path }, log, command });
    // Busy past systemd-notify's 5 s barrier wait, as PID 1 in a long daemon-reload.
    await receiver.busy(7_000);
    const dog = startWatchdog({ notifier: n, intervalMs: 60_000, retryMs: 1_000, log, checks: [{ name: 'runtime', check: () => ({ ok: true }) }] });
    try {
      await receiver.waitFor((m) => m === 'WATCHDOG=1', 20_000);
      expect(receiver.dropped()).toContain('WATCHDOG=1');
      expect(dog.pings()).toBeGreaterThanOrEqual(2);
    } finally {
      dog.stop();
      await n.flush(6_000);
      if (command !== undefined) rmSync(dirname(command), { recursive: true, force: true });
    }
  }, 30_000);
});
