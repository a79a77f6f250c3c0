/**
 * One core config per station: the runtime derives it once (with whether the hardware has an audio
 * output) and the supervisor, the port and metrics read that one — across a reload that restarts
 * the station too. A station without an audio output never speaks, whatever `speech.mode` says, and
 * the supervisor's rules (is the station free, may a technician open a box) see the same.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, expect, it } from 'vitest';
import { startStation, type Station } from '../../src/app.js';
import { loadConfigFile, type LoadedConfig } from '../../src/config/load.js';
import { SimulatedStation } from '../../src/devices/sim/station.js';
import type { StationHardware } from '../../src/devices/types.js';
import { Supervisor } from '../../src/supervisor/supervisor.js';
import { ScriptedSender } from '../support/scripted-sender.js';
import { STATION } from '../support/shared.js';

const BOX = (n: number) => `bbbbbbbb-bbbb-4bbb-8bbb-${String(n).padStart(12, '0')}`;
const log = pino({ level: 'silent' });
let supervisor: Supervisor | undefined;
afterEach(async () => {
  await supervisor?.stop();
  supervisor = undefined;
});

/** Simulated hardware without an audio output. */
function silentHardware(): StationHardware {
  const sim = new SimulatedStation({ boxNumbers: [1, 2], doorSpringMs: 100, inputVoltage: 12, internetSignalStrength: 100 });
  const hw = sim.withDisplay(sim.display);
  return { ...hw, speech: null, devices: () => hw.devices().filter((d) => d !== sim.speech) };
}

const start = (loaded: LoadedConfig): Promise<Station> =>
  startStation({
    config: loaded.config,
    password: loaded.password,
    log,
    hardware: silentHardware(),
    client: new ScriptedSender(() => ({ kind: 'command', command: { type: 'wait-for-input', displayMessages: [] } })),
  });

it('the supervisor reads the runtime’s core config: no audio output, no speech — before and after a station restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'core-config-'));
  writeFileSync(join(dir, 'password'), 'A'.repeat(20));
  const file = join(dir, 'config.json');
  const config = (pulseMs: number) => ({
    station: { id: STATION.id, passwordFile: join(dir, 'password'), boxes: [1, 2].map((n) => ({ number: n, id: BOX(n) })) },
    server: { baseUrl: 'http://127.0.0.1:1' },
    hardware: { kind: 'simulated', doorSpringMs: 100 },
    speech: { mode: 'always' },
    locks: { pulseMs },
    log: { level: 'silent' },
  });
  writeFileSync(file, JSON.stringify(config(500)));
  const loaded = loadConfigFile(file, {});
  expect(loaded.config.speech.mode).toBe('always');
  supervisor = new Supervisor(await start(loaded), loaded, { configFile: file, env: {}, log, start, onFatal: (e) => expect.fail(String(e)) });
  expect(supervisor.core).toBe(supervisor.station.runtime.core);
  expect(supervisor.core.speech.mode).toBe('off');
  expect(supervisor.now()?.core).toBe(supervisor.station.runtime.core);

  writeFileSync(file, JSON.stringify(config(600)));
  expect(await supervisor.reload()).toMatchObject({ ok: true, applied: 'restart-station' });
  expect(supervisor.config.locks.pulseMs).toBe(600);
  expect(supervisor.core).toBe(supervisor.station.runtime.core);
  expect(supervisor.core.speech.mode).toBe('off');
});
