/**
 * The watchdog across a config reload, wired as the daemon wires it (the supervisor, the
 * systemd integration following it), under fake timers with the real runtime on simulated
 * hardware. The server hangs: every event ends unanswered after attempts × answerTimeout, as the
 * HTTP client's would. A reload that makes that wait longer must make the watchdog wait longer
 * too, or systemd kills a healthy station.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startStation, type RunningStation } from '../../src/app.js';
import { loadConfigFile, type LoadedConfig } from '../../src/config/load.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { Supervisor } from '../../src/supervisor/supervisor.js';
import { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import { DeadServer } from '../support/scripted-sender.js';
import { stateStalenessLimitMs, systemdFor, type SdNotifier } from '../../src/service/index.js';
import { box, STATION } from '../support/shared.js';

const PASSWORD = 'abcdefghij0123456789';
const silent = pino({ level: 'silent' });

class RecordingNotifier implements SdNotifier {
  readonly enabled = true;
  readonly sent: string[] = [];
  notify(...assignments: string[]): Promise<boolean> {
    this.sent.push(assignments.join('\n'));
    return Promise.resolve(true);
  }
  pending = () => 0;
  flush = () => Promise.resolve();
  pings = () => this.sent.filter((m) => m === 'WATCHDOG=1').length;
}

const start = (l: LoadedConfig): Promise<RunningStation> =>
  startStation({
    config: l.config,
    password: l.password,
    log: silent,
    client: new DeadServer(l.config.server.attempts * l.config.server.answerTimeoutMs),
    hardware: new SimulatedHardware({ boxNumbers: [1, 2], doorSpringMs: 50, inputVoltage: 12, internetSignalStrength: 100 }),
  });

function configFile(): { file: string; write(extra: Partial<ConfigInput>): void } {
  const dir = mkdtempSync(join(tmpdir(), 'watchdog-reload-'));
  const passwordFile = join(dir, 'station-password');
  writeFileSync(passwordFile, PASSWORD);
  const file = join(dir, 'config.json');
  const write = (extra: Partial<ConfigInput>): void =>
    writeFileSync(
      file,
      JSON.stringify({
        station: { id: STATION.id, passwordFile, boxes: [1, 2].map((n) => ({ number: n, id: box(n) })) },
        server: { baseUrl: 'http://127.0.0.1:1' },
        storage: { directory: null },
        technician: { enabled: false },
        log: { level: 'silent' },
        ...extra,
      }),
    );
  write({});
  return { file, write };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

async function daemonLike() {
  const cfg = configFile();
  const loaded = loadConfigFile(cfg.file, {});
  const supervisor = new Supervisor(await start(loaded), loaded, {
    configFile: cfg.file,
    env: {},
    log: silent,
    start,
    onFatal: (e) => {
      throw e;
    },
  });
  const notifier = new RecordingNotifier();
  const systemd = systemdFor(supervisor, { env: { WATCHDOG_USEC: '30000000' }, log: silent, notifier, pid: 1 });
  await systemd.ready();
  return { cfg, supervisor, notifier, systemd };
}

describe('the watchdog follows a reload', () => {
  it('a reload that raises answerTimeoutMs, attempts and the heartbeat interval raises the staleness limit: a hanging server does not get the station killed', async () => {
    const { cfg, supervisor, notifier, systemd } = await daemonLike();
    const before = stateStalenessLimitMs(supervisor.config);
    cfg.write({ server: { baseUrl: 'http://127.0.0.1:1', answerTimeoutMs: 120_000, attempts: 5 }, timing: { heartbeatIntervalMs: 90_000 } });
    const reloading = supervisor.reload();
    await vi.advanceTimersByTimeAsync(0);
    const result = await reloading;
    expect(result).toMatchObject({ ok: true, applied: 'restart-station', restartNeeded: [] });
    // Each event now waits 10 minutes for its answer: far beyond the start-up config's limit.
    expect(stateStalenessLimitMs(supervisor.config)).toBeGreaterThan(before + 2 * 9 * 60_000);
    const pingsBefore = notifier.pings();
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    expect(supervisor.station.runtime.lastStateOutcome()).not.toBeNull();
    expect(notifier.sent.filter((m) => m.startsWith('STATUS=unhealthy'))).toEqual([]);
    expect(systemd.watchdog()?.healthy()).toBe(true);
    expect(notifier.pings() - pingsBefore).toBe(60 * 4);
    systemd.stopping();
    await supervisor.stop();
  });

  it('while the station stops (drain, locks OFF, the steps after), the watchdog keeps being fed on the event loop alone', async () => {
    const { supervisor, notifier, systemd } = await daemonLike();
    await vi.advanceTimersByTimeAsync(60_000);
    systemd.stopping();
    await supervisor.stop();
    // The stopped station finishes no /state any more: while running, that is unhealthy within the
    // staleness limit; while stopping, the stop bounds itself and the pings go on until the exit.
    const pingsBefore = notifier.pings();
    await vi.advanceTimersByTimeAsync(stateStalenessLimitMs(supervisor.startConfig) + 60_000);
    expect(notifier.sent.filter((m) => m.startsWith('STATUS=unhealthy'))).toEqual([]);
    expect(notifier.pings() - pingsBefore).toBeGreaterThan(0);
    expect(notifier.sent.some((m) => m.includes('STOPPING=1'))).toBe(true);
  });

  it('right after a reload the new station is judged from its own start, not from the process start', async () => {
    const { cfg, supervisor, notifier, systemd } = await daemonLike();
    // An hour of a healthy station (its /state events finish, unanswered, every 90 s or so).
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    expect(systemd.watchdog()?.healthy()).toBe(true);
    cfg.write({ messages: { prompt: ['Reloaded'] } });
    const reloading = supervisor.reload();
    await vi.advanceTimersByTimeAsync(0);
    expect(await reloading).toMatchObject({ ok: true, applied: 'restart-station', restartNeeded: [] });
    // The new station's first /state takes attempts × answerTimeout (60 s) to end unanswered;
    // meanwhile the station is as healthy as it was.
    await vi.advanceTimersByTimeAsync(15_000);
    expect(supervisor.station.runtime.lastStateOutcome()).toBeNull();
    expect(notifier.sent.filter((m) => m.startsWith('STATUS=unhealthy'))).toEqual([]);
    expect(systemd.watchdog()?.healthy()).toBe(true);
    systemd.stopping();
    await supervisor.stop();
  });
});
