/**
 * The supervisor's station swap on a real station (startStation on simulated hardware, a scripted
 * server), under fake timers:
 * - one core config per station: the runtime derives it once (with whether the hardware has an
 *   audio output) and the supervisor reads that one, across a reload that restarts the station
 *   too; a station without an audio output never speaks, whatever `speech.mode` says;
 * - every step bounded: an old station whose stop never ends costs `timing.stationSwapLimitMs`,
 *   then the swap is fatal (the process restarts) rather than hanging the reload;
 * - the stop aborts a reload that waits for a reader: the wait ends at once, no station starts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { startStation, type RunningStation } from '../../src/app.js';
import { loadConfigFile, type LoadedConfig } from '../../src/config/load.js';
import { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import type { StationHardware } from '../../src/devices/types.js';
import { Supervisor } from '../../src/supervisor/supervisor.js';
import { ScriptedSender } from '../support/scripted-sender.js';
import { STATION } from '../support/shared.js';

const BOX = (n: number) => `bbbbbbbb-bbbb-4bbb-8bbb-${String(n).padStart(12, '0')}`;
const log = pino({ level: 'silent' });
let supervisor: Supervisor | undefined;
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  const stopping = supervisor?.stop();
  await vi.advanceTimersByTimeAsync(60_000);
  await stopping;
  supervisor = undefined;
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
const start = (loaded: LoadedConfig): Promise<RunningStation> => {
  started++;
  return startStation({
    config: loaded.config,
    password: loaded.password,
    log,
    hardware: silentHardware(hangOnClose),
    client: new ScriptedSender(() => ({ kind: 'command', command: { type: 'wait-for-input', displayMessages: [] } })),
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
  hangOnClose = true;
  const fatal: unknown[] = [];
  const { supervisor: s, write } = await supervised((e) => fatal.push(e));
  hangOnClose = false;
  started = 0;
  write(600);
  let answer: unknown;
  s.reload().then(
    (r) => (answer = r),
    (e: unknown) => (answer = e),
  );
  await vi.advanceTimersByTimeAsync(4_999);
  expect(answer).toBeUndefined();
  expect(fatal).toEqual([]);
  await vi.advanceTimersByTimeAsync(1);
  expect(fatal).toHaveLength(1);
  expect(answer).toMatchObject({ code: 'start_failed', message: 'the old station did not stop within 5000 ms' });
  // Nothing started on hardware the old station may still hold.
  expect(started).toBe(0);
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
