/**
 * Integration harness: the real station (runtime, HTTP client, simulated hardware selected by
 * config) against the reference server over real HTTP on 127.0.0.1. Short timeouts come from
 * config, exactly as a field config would set them.
 */
import { Writable } from 'node:stream';
import { startStation, type RunningStation } from '../../src/app.js';
import { validateConfig } from '../../src/config/load.js';
import type { ConfigInput, Config } from '../../src/config/schema.js';
import { SimulatedHardware, simulatedHardwareFor } from '../../src/devices/simulated/hardware.js';
import { MemoryJournal } from '../../src/journal/memory.js';
import { createLogger, type Logger, type LogRing } from '../../src/log.js';
import { ReferenceServer, defaultSeed, type SimDeposit } from '../../src/reference-server/index.js';
import { STATION } from './shared.js';

export interface Harness {
  readonly server: ReferenceServer;
  readonly station: RunningStation;
  readonly sim: SimulatedHardware;
  readonly config: Config;
  readonly journal: MemoryJournal;
  /** Every log line the station wrote (JSON text). */
  readonly logs: string[];
  readonly log: Logger;
  stop(): Promise<void>;
}

export interface HarnessOverrides {
  readonly server?: Partial<ConfigInput['server']>;
  readonly timing?: ConfigInput['timing'];
  readonly locks?: ConfigInput['locks'];
  readonly messages?: ConfigInput['messages'];
  readonly technician?: ConfigInput['technician'];
  readonly metrics?: ConfigInput['metrics'];
  readonly pin?: ConfigInput['pin'];
  readonly buzzer?: ConfigInput['buzzer'];
  /** Default null (memory): tests that check what survives a restart give a temp directory. */
  readonly storage?: ConfigInput['storage'];
  /** Simulated hardware as the config describes it (e.g. with `rfidReader`); default: the plain simulated station. */
  readonly hardware?: ConfigInput['hardware'];
  readonly rfid?: ConfigInput['rfid'];
  /** Not config: a ring the station's log lines are copied into too (technician port tests). */
  readonly ring?: LogRing;
  /** Not config: the journal (default a fresh in-memory one; never /var/lib). */
  readonly journal?: MemoryJournal;
}

export async function startHarness(
  { ring, journal = new MemoryJournal(), ...overrides }: HarnessOverrides = {},
  { deposits = [], ...serverOpts }: { absenceMs?: number; deposits?: readonly SimDeposit[] } = {},
  password = STATION.password,
): Promise<Harness> {
  const seed = defaultSeed(STATION);
  const server = new ReferenceServer({ stations: [STATION], ...seed, deposits: [...seed.deposits, ...deposits], ...serverOpts });
  const url = await server.start();
  const { config, problems } = validateConfig({
    station: { id: STATION.id, boxes: STATION.boxes.map((id, i) => ({ number: i + 1, id })) },
    hardware: { kind: 'simulated', doorSpringMs: 20 },
    log: { level: 'debug' },
    storage: { directory: null },
    ...overrides,
    server: { baseUrl: new URL(url).origin, answerTimeoutMs: 2_000, ...overrides.server },
    timing: { heartbeatIntervalMs: 1_000, messageMs: 300, duplicateScanWindowMs: 200, doorOpenTimeoutMs: 1_000, ...overrides.timing },
    locks: { pulseMs: 50, ...overrides.locks },
  });
  if (!config) throw new Error(`harness config invalid: ${JSON.stringify(problems)}`);
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      logs.push(chunk.toString());
      cb();
    },
  });
  const log = createLogger('debug', sink, { ring });
  const sim =
    overrides.hardware === undefined
      ? new SimulatedHardware({ boxNumbers: STATION.boxes.map((_, i) => i + 1), doorSpringMs: 20, inputVoltage: 12.4, internetSignalStrength: 87 })
      : simulatedHardwareFor(config, log);
  await sim.ready;
  const station = await startStation({ config, password, log, hardware: sim, journal });
  return {
    server,
    station,
    sim,
    config,
    journal,
    logs,
    log,
    async stop() {
      await station.stop();
      await server.stop();
    },
  };
}
