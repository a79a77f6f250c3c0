/**
 * The health gate under fake timers, with the real StationRuntime on simulated hardware: a
 * working station pings every WatchdogSec/2; a station whose server is down keeps pinging (its
 * /state events still finish, unanswered); a runtime that stops finishing events stops pinging
 * once the staleness limit passes, and so does an event loop that runs seconds late.
 */
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { validateConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import type { ProtocolSender, SendOutcome } from '../../src/protocol/client.js';
import { StationRuntime } from '../../src/station/runtime.js';
import {
  createSystemdIntegration,
  runtimeHeartbeatCheck,
  startLoopLagProbe,
  startWatchdog,
  stateStalenessLimitMs,
  watchdogPeriodMs,
} from '../../src/service/index.js';
import type { SdNotifier } from '../../src/service/notify.js';
import { DeadServer, ScriptedSender, waitForInput } from '../support/scripted-sender.js';
import { STATION } from '../support/shared.js';

const BOX = (n: number) => `bbbbbbbb-bbbb-4bbb-8bbb-${String(n).padStart(12, '0')}`;
const silent = pino({ level: 'silent' });

function config(): Config {
  const { config, problems } = validateConfig({
    station: { id: STATION.id, boxes: [1, 2].map((n) => ({ number: n, id: BOX(n) })) },
    server: { baseUrl: 'http://127.0.0.1:1' },
  });
  if (!config) throw new Error(JSON.stringify(problems));
  return config;
}

/** Records what would have gone to systemd. */
class RecordingNotifier implements SdNotifier {
  readonly enabled = true;
  readonly sent: { at: number; message: string }[] = [];
  notify(...assignments: string[]): Promise<boolean> {
    this.sent.push({ at: performance.now(), message: assignments.join('\n') });
    return Promise.resolve(true);
  }
  pending = () => 0;
  flush = () => Promise.resolve();
  pingTimes(): number[] {
    return this.sent.filter((s) => s.message === 'WATCHDOG=1').map((s) => Math.round(s.at - this.sent[0]!.at));
  }
}

/**
 * A wedged client: the first /state never finishes (a promise nobody settles, abort ignored).
 * runtime.stop() would wait for it forever too; in the field systemd's TimeoutStopSec ends that.
 */
class Wedged implements ProtocolSender {
  send(): Promise<SendOutcome> {
    return new Promise(() => undefined);
  }
}

async function station(client: ProtocolSender, cfg = config()) {
  const hardware = new SimulatedHardware({ boxNumbers: [1, 2], doorSpringMs: 50, inputVoltage: 12, internetSignalStrength: 100 });
  const runtime = new StationRuntime({ config: cfg, hardware, client, log: silent });
  await runtime.start();
  const notifier = new RecordingNotifier();
  const systemd = createSystemdIntegration({ env: { WATCHDOG_USEC: '30000000' }, log: silent, config: () => cfg, runtime, notifier, pid: 1 });
  await systemd.ready();
  return { runtime, notifier, systemd };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('staleness limit and WATCHDOG_USEC', () => {
  it('allows heartbeat + 2 × attempts × answerTimeout + door/pulse time + margin (217 s with the spec defaults)', () => {
    expect(stateStalenessLimitMs(config())).toBe(30_000 + 2 * 3 * 20_000 + 4_000 + 3_000 + 60_000);
  });

  it('reads WATCHDOG_USEC like sd_watchdog_enabled: unset, malformed or for another PID means off', () => {
    expect(watchdogPeriodMs({}, 7)).toBeNull();
    expect(watchdogPeriodMs({ WATCHDOG_USEC: 'x' }, 7)).toBeNull();
    expect(watchdogPeriodMs({ WATCHDOG_USEC: '0' }, 7)).toBeNull();
    expect(watchdogPeriodMs({ WATCHDOG_USEC: '30000000', WATCHDOG_PID: '8' }, 7)).toBeNull();
    expect(watchdogPeriodMs({ WATCHDOG_USEC: '30000000', WATCHDOG_PID: '7' }, 7)).toBe(30_000);
    expect(watchdogPeriodMs({ WATCHDOG_USEC: '30000000' }, 7)).toBe(30_000);
  });
});

describe('health-gated watchdog (fake timers, real runtime)', () => {
  it('a working station: READY=1 first, then WATCHDOG=1 every 15 s (WatchdogSec=30s) for as long as it runs', async () => {
    const { notifier, systemd, runtime } = await station(new ScriptedSender(() => waitForInput));
    expect(notifier.sent[0]!.message).toMatch(/^READY=1\nSTATUS=running/);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    const pings = notifier.pingTimes();
    expect(pings).toHaveLength(1 + 40);
    pings.forEach((t, i) => expect(t).toBe(i * 15_000));
    expect(systemd.watchdog()?.healthy()).toBe(true);
    systemd.stopping();
    await runtime.stop();
  });

  it('a dead server is not a stuck station: unanswered /state events keep it pinging', async () => {
    const cfg = config();
    const { notifier, systemd, runtime } = await station(new DeadServer(cfg.server.attempts * cfg.server.answerTimeoutMs), cfg);
    await vi.advanceTimersByTimeAsync(30 * 60_000);
    expect(runtime.snapshot().mode.kind).toBe('deactivated');
    expect(runtime.lastStateOutcome()).not.toBeNull();
    expect(notifier.pingTimes()).toHaveLength(1 + 120);
    expect(systemd.watchdog()?.healthy()).toBe(true);
    systemd.stopping();
    await runtime.stop();
  });

  it('a wedged runtime: pings stop once no /state has finished for the limit, and STATUS says why', async () => {
    const { notifier, systemd, runtime } = await station(new Wedged());
    const limit = stateStalenessLimitMs(config());
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    const pings = notifier.pingTimes();
    // Ticks at 0, 15, ... s; the last one within the 217 s limit is at 210 s. systemd aborts the
    // station WatchdogSec (30 s) after it: about 4 minutes after the runtime wedged.
    expect(pings.at(-1)).toBe(Math.floor(limit / 15_000) * 15_000);
    expect(pings.at(-1)).toBe(210_000);
    expect(systemd.watchdog()?.healthy()).toBe(false);
    const status = notifier.sent.filter((s) => s.message.startsWith('STATUS=unhealthy'));
    expect(status).toHaveLength(1); // said once, not every tick
    expect(status[0]!.message).toContain('runtime stuck: no /state has finished since start');
    systemd.stopping();
    void runtime.stop(); // never finishes: the wedged event is awaited
  });

  it('stopping() sends STOPPING=1 and the pings go on, gated on the event loop alone, until the process exits', async () => {
    const { notifier, systemd, runtime } = await station(new ScriptedSender(() => waitForInput));
    await vi.advanceTimersByTimeAsync(60_000);
    systemd.stopping();
    expect(notifier.sent.at(-1)!.message).toBe('STOPPING=1\nSTATUS=stopping');
    // The station stops finishing /state events (a stop drains and stops on purpose): no reason to withhold pings.
    await runtime.stop();
    const before = notifier.pingTimes().length;
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(notifier.pingTimes().length).toBeGreaterThan(before);
    expect(notifier.sent.filter((m) => m.message.startsWith('STATUS=unhealthy'))).toEqual([]);
  });

  it('without WATCHDOG_USEC: READY=1 only, no pings', async () => {
    const cfg = config();
    const runtime = new StationRuntime({
      config: cfg,
      hardware: new SimulatedHardware({ boxNumbers: [1, 2], doorSpringMs: 50, inputVoltage: 12, internetSignalStrength: 100 }),
      client: new ScriptedSender(() => waitForInput),
      log: silent,
    });
    await runtime.start();
    const notifier = new RecordingNotifier();
    const systemd = createSystemdIntegration({ env: {}, log: silent, config: () => cfg, runtime, notifier, pid: 1 });
    await systemd.ready();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(notifier.sent.map((s) => s.message.split('\n')[0])).toEqual(['READY=1']);
    expect(systemd.watchdog()).toBeNull();
    await runtime.stop();
  });
});

describe('a ping PID 1 did not confirm', () => {
  /** systemd-notify gave up on its barrier for the first `lost` pings (PID 1 busy), then is answered. */
  class BusyPid1 extends RecordingNotifier {
    constructor(private lost: number) {
      super();
    }
    override notify(...assignments: string[]): Promise<boolean> {
      void super.notify(...assignments);
      return Promise.resolve(this.lost-- <= 0);
    }
  }

  it('is tried again a tenth of the interval later (at least 1 s), until one is delivered; then every interval again', async () => {
    const notifier = new BusyPid1(2);
    const dog = startWatchdog({ notifier, intervalMs: 30_000, log: silent, checks: [{ name: 'ok', check: () => ({ ok: true }) }] });
    await vi.advanceTimersByTimeAsync(70_000);
    dog.stop();
    expect(notifier.pingTimes()).toEqual([0, 3_000, 6_000, 30_000, 60_000]);
    expect(dog.pings()).toBe(5);
  });

  it('an unhealthy station is not pinged by a retry either', async () => {
    const notifier = new BusyPid1(1);
    let ok = true;
    const dog = startWatchdog({
      notifier,
      intervalMs: 10_000,
      retryMs: 2_000,
      log: silent,
      checks: [{ name: 'runtime', check: () => (ok ? { ok: true } : { ok: false, reason: 'stuck' }) }],
    });
    ok = false;
    await vi.advanceTimersByTimeAsync(25_000);
    dog.stop();
    expect(notifier.pingTimes()).toEqual([0]);
    expect(notifier.sent.map((s) => s.message)).toEqual(['WATCHDOG=1', 'STATUS=unhealthy: stuck']);
  });
});

describe('the checks on their own', () => {
  it('runtime check: fresh until the limit, counted from creation before the first /state', () => {
    let last: number | null = null;
    const check = runtimeHeartbeatCheck(
      { lastStateOutcome: () => last },
      () => 1_000,
      () => performance.now(),
    );
    expect(check.check().ok).toBe(true);
    vi.advanceTimersByTime(1_000);
    expect(check.check().ok).toBe(true);
    vi.advanceTimersByTime(1);
    expect(check.check()).toMatchObject({ ok: false, reason: expect.stringContaining('no /state has finished since start') });
    last = performance.now();
    expect(check.check().ok).toBe(true);
    vi.advanceTimersByTime(5_000);
    expect(check.check()).toMatchObject({ ok: false, reason: expect.stringContaining('the last /state finished 5 s ago') });
  });

  it('event-loop probe: a timer that fires late by more than the limit fails the next check, then recovers', async () => {
    let skew = 0; // what a blocked loop looks like to a timer: the clock moved on, the timer did not fire
    const now = () => performance.now() + skew;
    const probe = startLoopLagProbe({ intervalMs: 1_000, maxLagMs: 5_000, now });
    await vi.advanceTimersByTimeAsync(3_000);
    expect(probe.check().ok).toBe(true);
    skew += 7_000;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(probe.check()).toMatchObject({ ok: false, reason: expect.stringContaining('fired 7000 ms late') });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(probe.check().ok).toBe(true); // a new window
    probe.stop();
  });

  it('event-loop probe: an overdue probe counts even before it fires', () => {
    let skew = 0;
    const probe = startLoopLagProbe({ intervalMs: 1_000, maxLagMs: 5_000, now: () => performance.now() + skew });
    skew = 9_000;
    expect(probe.check().ok).toBe(false);
    probe.stop();
  });
});
