/**
 * The supervisor's station swap on a real station (startStation on simulated hardware, a scripted
 * server), under fake timers:
 * - one core config per station: the runtime derives it once (with whether the hardware has an
 *   audio output) and the supervisor reads that one, across a reload that restarts the station
 *   too; a station without an audio output never speaks, whatever `speech.mode` says;
 * - every step bounded: an old station whose stop never ends costs `timing.stationSwapLimitMs`,
 *   then the swap is fatal (the process restarts) rather than hanging the reload;
 * - a new station whose start runs past that limit still holds its hardware (GPIO lines are
 *   exclusive): it is waited for and stopped before the previous config starts again, and a start
 *   that never ends is fatal once the limit has passed twice;
 * - the stop aborts a reload that waits for a reader: the wait ends at once, no station starts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { StartAborted, startStation, type RunningStation } from '../../src/app.js';
import { loadConfigFile, type LoadedConfig } from '../../src/config/load.js';
import { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import type { StationHardware } from '../../src/devices/types.js';
import { Supervisor } from '../../src/supervisor/supervisor.js';
import { sleep } from '../../src/time.js';
import { ioSettle, ioUntil } from '../support/fake-clock-io.js';
import { ScriptedSender } from '../support/scripted-sender.js';
import { STATION } from '../support/shared.js';

const BOX = (n: number) => `bbbbbbbb-bbbb-4bbb-8bbb-${String(n).padStart(12, '0')}`;
const log = pino({ level: 'silent' });
let supervisor: Supervisor | undefined;
beforeEach(() => {
  vi.useFakeTimers();
  holding = 0;
  nextStartDelayMs = 0;
});
afterEach(async () => {
  const stopping = supervisor?.stop();
  await vi.advanceTimersByTimeAsync(60_000);
  await stopping;
  vi.useRealTimers();
});

/** Simulated hardware without an audio output; `hangOnClose`: releasing it never ends (a device gone bad). */
function silentHardware(hangOnClose = false): StationHardware {
  const sim = new SimulatedHardware({ boxNumbers: [1, 2], doorSpringMs: 100, inputVoltage: 12, internetSignalStrength: 100 });
  const hw = sim.withDisplay(sim.display);
  const close = hangOnClose ? () => new Promise<void>(() => undefined) : hw.close;
  return { ...hw, speech: null, devices: () => hw.devices().filter((d) => d !== sim.speech), close };
}

let hangOnClose = false;
let started = 0;
/** How long the next start takes before it opens the hardware (a slow board), ms. */
let nextStartDelayMs = 0;
/** Stations holding the hardware now: like GPIO lines, it is exclusive (a second start is refused "busy"). */
let holding = 0;
const start = async (loaded: LoadedConfig, signal?: AbortSignal): Promise<RunningStation> => {
  started++;
  const delay = nextStartDelayMs;
  nextStartDelayMs = 0;
  if (delay > 0) await sleep(delay);
  if (holding > 0) throw new Error('Device or resource busy');
  holding++;
  const hardware = silentHardware(hangOnClose);
  let released = false;
  const close = hardware.close.bind(hardware);
  return startStation({
    config: loaded.config,
    password: loaded.password,
    log,
    hardware: {
      ...hardware,
      close: async () => {
        await close();
        if (!released) holding--;
        released = true;
      },
    },
    client: new ScriptedSender(() => ({ kind: 'command', command: { type: 'wait-for-input', displayMessages: [] } })),
    ...(signal ? { signal } : {}),
  });
};

function configFile(): { file: string; write: (pulseMs: number) => void } {
  const dir = mkdtempSync(join(tmpdir(), 'supervisor-swap-'));
  writeFileSync(join(dir, 'password'), 'A'.repeat(20));
  const file = join(dir, 'config.json');
  const write = (pulseMs: number): void =>
    writeFileSync(
      file,
      JSON.stringify({
        station: { id: STATION.id, passwordFile: join(dir, 'password'), boxes: [1, 2].map((n) => ({ number: n, id: BOX(n) })) },
        server: { baseUrl: 'http://127.0.0.1:1' },
        hardware: { kind: 'simulated', doorSpringMs: 100 },
        speech: { mode: 'always' },
        locks: { pulseMs },
        log: { level: 'silent' },
        timing: { stationSwapLimitMs: 5_000, reloadWaitLimitMs: 60_000 },
      }),
    );
  write(500);
  return { file, write };
}

async function supervised(
  onFatal: (e: unknown) => void = (e) => expect.fail(String(e)),
): Promise<{ supervisor: Supervisor; write: (pulseMs: number) => void }> {
  const { file, write } = configFile();
  const loaded = loadConfigFile(file, {});
  const station = start(loaded);
  await vi.advanceTimersByTimeAsync(0);
  supervisor = new Supervisor(await station, loaded, { configFile: file, env: {}, log, start, onFatal });
  return { supervisor, write };
}

/**
 * A supervised station whose fatal end is recorded, its config changed (a station key) and reloaded;
 * the reload's answer kept when it comes. `hangOnClose`: the running station's stop never ends;
 * `startDelayMs`: how long the new config's start takes.
 */
async function reloadingStationKey(opts: { hangOnClose?: boolean; startDelayMs?: number } = {}) {
  hangOnClose = opts.hangOnClose ?? false;
  const fatal: unknown[] = [];
  const { supervisor: s, write } = await supervised((e) => fatal.push(e));
  hangOnClose = false;
  started = 0;
  nextStartDelayMs = opts.startDelayMs ?? 0;
  write(600);
  const reload = { supervisor: s, fatal, answer: undefined as unknown };
  s.reload().then(
    (r) => (reload.answer = r),
    (e: unknown) => (reload.answer = e),
  );
  return reload;
}

it('the supervisor reads the runtime’s core config: no audio output, no speech — before and after a station restart', async () => {
  const { supervisor: s, write } = await supervised();
  expect(s.config.speech.mode).toBe('always');
  expect(s.core).toBe(s.station.runtime.core);
  expect(s.core.speech.mode).toBe('off');
  expect(s.now()?.core).toBe(s.station.runtime.core);

  write(600);
  const reloaded = s.reload();
  await vi.advanceTimersByTimeAsync(0);
  expect(await reloaded).toMatchObject({ ok: true, applied: 'restart-station' });
  expect(s.config.locks.pulseMs).toBe(600);
  expect(s.core).toBe(s.station.runtime.core);
  expect(s.core.speech.mode).toBe('off');
});

it('an old station whose stop never ends costs timing.stationSwapLimitMs, then the swap is fatal: refused, the process told to restart', async () => {
  const r = await reloadingStationKey({ hangOnClose: true });
  await vi.advanceTimersByTimeAsync(4_999);
  expect(r.answer).toBeUndefined();
  expect(r.fatal).toEqual([]);
  await vi.advanceTimersByTimeAsync(1);
  expect(r.fatal).toHaveLength(1);
  expect(r.answer).toMatchObject({ code: 'start_failed', message: 'the old station did not stop within 5000 ms' });
  // Nothing started on hardware the old station may still hold.
  expect(started).toBe(0);
});

it('a new config whose start runs past the limit: waited for and stopped before the previous config starts again (its hardware is exclusive)', async () => {
  const r = await reloadingStationKey({ startDelayMs: 8_000 });
  // The old station stops (its journal is real I/O), then the new start begins: 8 s of it.
  await ioUntil(() => started === 1 && holding === 0);
  // The limit (5 s) passes: the late start still runs, so the previous config does not start yet.
  await vi.advanceTimersByTimeAsync(5_000);
  await ioSettle();
  expect(started).toBe(1);
  expect(r.answer).toBeUndefined();
  // The late start ends at 8 s and is stopped; then the previous config starts on free hardware.
  await vi.advanceTimersByTimeAsync(3_000);
  await ioUntil(() => r.answer !== undefined);
  expect(r.fatal).toEqual([]);
  expect(started).toBe(2);
  expect(r.answer).toMatchObject({ code: 'start_failed', message: 'the new config did not start: not started within 5000 ms; the previous config runs again' });
  expect(r.supervisor.config.locks.pulseMs).toBe(500);
  expect(holding).toBe(1);
});

it('a late start that never ends: the swap is fatal once the limit has passed twice, nothing started beside it', async () => {
  const r = await reloadingStationKey({ startDelayMs: 3_600_000 });
  await ioUntil(() => started === 1 && holding === 0);
  await vi.advanceTimersByTimeAsync(9_999);
  await ioSettle();
  expect(r.fatal).toEqual([]);
  await vi.advanceTimersByTimeAsync(1);
  await ioUntil(() => r.answer !== undefined);
  expect(r.fatal).toHaveLength(1);
  expect(r.answer).toMatchObject({ code: 'start_failed', message: 'the new config neither started nor let its hardware go within 5000 ms more' });
  expect(started).toBe(1);
});

it('the stop aborts a reload waiting for a reader: the wait ends at once, refused, no station started', async () => {
  const { supervisor: s, write } = await supervised();
  await vi.advanceTimersByTimeAsync(100);
  expect(s.station.runtime.snapshot().mode.kind).toBe('idle');
  // A reader typing a PIN uses the station.
  s.station.runtime.dispatch({ type: 'key', key: { kind: 'digit', digit: '4' } });
  expect(s.readerActivity()).not.toBeNull();
  started = 0;
  write(600);
  const reloaded = s.reload();
  await vi.advanceTimersByTimeAsync(1_000);
  expect(s.reloading).toBe(true);
  const stopping = s.stop();
  await expect(reloaded).rejects.toMatchObject({ code: 'busy', message: 'the station is stopping' });
  await stopping;
  expect(started).toBe(0);
  expect(s.reloading).toBe(false);
});

it('a start handed an aborted signal ends at its next step: rejected, its hardware released, its locks never energised', async () => {
  const { file } = configFile();
  const loaded = loadConfigFile(file, {});
  // The rejection is taken at once: it may come before the hardware count settles.
  const outcome = start(loaded, AbortSignal.abort()).catch((e: unknown) => e);
  await ioUntil(() => holding === 0 && started === 1);
  expect(await outcome).toBeInstanceOf(StartAborted);
  expect(holding).toBe(0);
});

it('the stop aborts a station start under way: it ends at its next step and releases its hardware; the previous config is not started again', async () => {
  const r = await reloadingStationKey({ startDelayMs: 8_000 });
  await ioUntil(() => started === 1 && holding === 0);
  const stopping = r.supervisor.stop();
  // The swap limit (5 s): the reload is answered 'stopping', and nothing else starts.
  await vi.advanceTimersByTimeAsync(5_000);
  await ioUntil(() => r.answer !== undefined);
  expect(r.answer).toMatchObject({ code: 'busy', message: 'the station is stopping' });
  // The start reaches its next step at 8 s, sees its signal, and stops what it opened.
  await vi.advanceTimersByTimeAsync(3_000);
  await ioUntil(() => holding === 0);
  let stopped = false;
  void stopping.then(() => (stopped = true));
  await ioUntil(() => stopped);
  expect(r.fatal).toEqual([]);
  expect(started).toBe(1);
});
