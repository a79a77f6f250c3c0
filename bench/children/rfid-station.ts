/**
 * The station under test for tag placed → /item-identify: the real runtime, protocol client,
 * logger and host-mode RFID reader driver (FEIG ISO host protocol through serialport) on a real pty,
 * the model reader on the other end in the bench process; the rest of the hardware is simulated.
 *
 *   node rfid-station.js '{"serverUrl": …, "station": SimulatedStation, "tty": PATH, "stateDir": DIR, "inventoryIntervalMs": 200}'
 *
 * Sends {ready: true} on IPC once the reader answers and the first /state is answered.
 */
import { startStation } from '../../src/app.js';
import { simulatedHardwareFor } from '../../src/devices/simulated/hardware.js';
import { createLogger } from '../../src/log.js';
import type { SimulatedStation } from '../../src/reference-server/index.js';
import { stationConfig } from '../lib/station.js';

interface Args {
  readonly serverUrl: string;
  readonly station: SimulatedStation;
  readonly tty: string;
  readonly stateDir: string;
  readonly inventoryIntervalMs: number;
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;
// Heartbeat at its maximum so no /state is in flight when a tag arrives (it would be refused as busy).
// A tag counts as gone after one missed inventory, so the bench can lay the next one sooner.
const config = stationConfig(args.station, args.serverUrl, {
  timing: { heartbeatIntervalMs: 119_000, duplicateScanWindowMs: 0 },
  storage: { directory: args.stateDir },
  hardware: { kind: 'simulated', rfidReader: { path: args.tty, inventoryIntervalMs: args.inventoryIntervalMs, absentRounds: 1 } },
});
const log = createLogger(config.log.level);
const hardware = simulatedHardwareFor(config, log);
const station = await startStation({ config, password: args.station.password, log, hardware });
let answered = false;
let told = false;
const maybeReady = (): void => {
  if (told || !answered || !hardware.rfidReaders.every((r) => r.health().ok)) return;
  told = true;
  process.send?.({ ready: true });
};
const off = station.runtime.onEvent((e) => {
  if (e.type === 'event-done' && e.record.endpoint === 'state') {
    off();
    answered = true;
    maybeReady();
  }
});
for (const r of hardware.rfidReaders) r.onHealthChange(maybeReady);
process.on('disconnect', () => {
  void station.stop().finally(() => process.exit(0));
});
