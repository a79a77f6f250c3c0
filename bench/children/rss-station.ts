/**
 * The station under test for memory: the real runtime, protocol client and pino (info, to stdout,
 * as the daemon logs) with simulated hardware, driven through every endpoint in a loop:
 *
 *   scan of an unknown item (/item-identify 404), a wrong PIN (/pin-enter 404), a forced door
 *   opened and closed (two /state), a deposit that is cancelled (/item-identify box-open, lock
 *   pulse, /state OPEN, /cancel, /state CLOSED; the deposit stays pending, so it repeats).
 *
 *   node --expose-gc rss-station.js '{"serverUrl": …, "station": SimulatedStation, "deposit": VALUE}'
 *
 * IPC: {run: N} → runs until N more protocol events finished, forces GC (and lets it settle), answers with
 * process.memoryUsage() and the event count. {snapshot: FILE} → writes a heap snapshot there.
 */
import { writeHeapSnapshot } from 'node:v8';
import { startStation, type RunningStation } from '../../src/app.js';
import { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import { createLogger } from '../../src/log.js';
import type { SimulatedStation } from '../../src/reference-server/index.js';
import type { ModeKind } from '../../src/station/core-types.js';
import { stationConfig } from '../lib/station.js';

interface Args {
  readonly serverUrl: string;
  readonly station: SimulatedStation;
  readonly deposit: string;
  readonly stateDir: string;
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;
const config = stationConfig(args.station, args.serverUrl, {
  locks: { pulseMs: 10 },
  hardware: { kind: 'simulated', doorSpringMs: 1, inputVoltage: 12.1, internetSignalStrength: 100 },
  // No heartbeat collisions (a scan during a /state is refused), and the deposit barcode repeats.
  timing: { heartbeatIntervalMs: 119_000, duplicateScanWindowMs: 0 },
  // On disk, as the unit's StateDirectory: what the station keeps across restarts is written as in the field.
  storage: { directory: args.stateDir },
});
const sim = new SimulatedHardware({ boxNumbers: config.station.boxes.map((b) => b.number), doorSpringMs: 1, inputVoltage: 12.1, internetSignalStrength: 100 });
const station: RunningStation = await startStation({ config, password: args.station.password, log: createLogger(config.log.level), hardware: sim });
let events = 0;
station.runtime.onEvent((e) => {
  if (e.type === 'event-done') events++;
});

/**
 * Until the station has nothing in flight or owed and is in `mode`. Checked after every runtime
 * event (deferred: an answer is applied right after its event-done is emitted), with a slow poll
 * as a safety net for transitions that emit nothing. Bounded.
 */
function settled(mode: ModeKind): Promise<void> {
  const ok = (): boolean => {
    const s = station.runtime.snapshot();
    return s.inFlight === null && !s.stateOwed && s.mode.kind === mode;
  };
  if (ok()) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const check = (): void => {
      if (!ok()) return;
      done();
      resolve();
    };
    const off = station.runtime.onEvent(() => setImmediate(check));
    const poll = setInterval(check, 20);
    const timer = setTimeout(() => {
      done();
      const s = station.runtime.snapshot();
      reject(new Error(`rss-station: not settled in ${mode} (mode ${s.mode.kind}, inFlight ${s.inFlight})`));
    }, 10_000);
    function done(): void {
      off();
      clearInterval(poll);
      clearTimeout(timer);
    }
  });
}

let unknown = 0;
async function cycle(): Promise<void> {
  sim.scanBarcode(`5${String(unknown++).padStart(13, '0')}`);
  await settled('idle');
  sim.typePin('000000');
  await settled('idle');
  sim.forceOpen(8);
  await settled('idle');
  sim.closeDoor(8);
  await settled('idle');
  sim.scanBarcode(args.deposit);
  await settled('closing');
  sim.pressCancel();
  await settled('closing');
  sim.closeDoor(1);
  await settled('idle');
}

process.on('message', (m: { run?: number; snapshot?: string }) => {
  if (m.snapshot !== undefined) {
    process.send?.({ snapshot: writeHeapSnapshot(m.snapshot) });
    return;
  }
  const target = events + (m.run ?? 0);
  void (async () => {
    while (events < target) await cycle();
    // V8 hands freed heap pages back to the OS from a background thread after a GC: settle before
    // reading RSS, or the sample catches pages that are already on their way out.
    for (let i = 0; i < 3; i++) {
      globalThis.gc?.();
      await new Promise((r) => setTimeout(r, 200));
    }
    process.send?.({ events, memory: process.memoryUsage() });
  })().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
});
await settled('idle');
process.send?.({ ready: true });
process.on('disconnect', () => {
  void station.stop().finally(() => process.exit(0));
});
