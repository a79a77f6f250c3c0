/**
 * The station under test for scan → /item-identify: the real runtime, protocol client and
 * logger (info level, to stdout, as the daemon runs), with the real serial scanner driver reading
 * a real pty instead of a simulated scanner; the rest of the hardware is simulated.
 *
 *   node scan-station.js '{"serverUrl": …, "station": SimulatedStation, "tty": PATH, "logLevel"?: "warn"}'
 *
 * Sends {ready: true} on IPC once the scanner is open and the first /state is answered.
 */
import { startStation } from '../../src/app.js';
import { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import { createLogger } from '../../src/log.js';
import type { SimulatedStation } from '../../src/reference-server/index.js';
import { withSerialScanner } from '../lib/serial-hardware.js';
import { stationConfig } from '../lib/station.js';

interface Args {
  readonly serverUrl: string;
  readonly station: SimulatedStation;
  readonly tty: string;
  /** Default: the config default (info), as a field station logs. */
  readonly logLevel?: 'info' | 'warn';
  readonly stateDir: string;
}

const args = JSON.parse(process.argv[2] ?? '{}') as Args;
// Heartbeat at its maximum so no /state is in flight when a scan arrives (it would be refused as busy).
const config = stationConfig(args.station, args.serverUrl, {
  timing: { heartbeatIntervalMs: 119_000 },
  storage: { directory: args.stateDir },
  ...(args.logLevel ? { log: { level: args.logLevel } } : {}),
});
const log = createLogger(config.log.level);
const sim = new SimulatedHardware({ boxNumbers: config.station.boxes.map((b) => b.number), doorSpringMs: 50, inputVoltage: 12.1, internetSignalStrength: 100 });
const hardware = await withSerialScanner(sim, args.tty, log);
const station = await startStation({ config, password: args.station.password, log, hardware });
const off = station.runtime.onEvent((e) => {
  if (e.type === 'event-done' && e.record.endpoint === 'state') {
    off();
    process.send?.({ ready: true, scannerOk: hardware.scanners.every((s) => s.health().ok) });
  }
});
process.on('disconnect', () => {
  void station.stop().finally(() => process.exit(0));
});
