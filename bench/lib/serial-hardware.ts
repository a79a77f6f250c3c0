/**
 * The bench stations' hardware for the scan path: simulated, except the barcode scanner, which is
 * the real serial driver on a pty (socat) with the serial board-profile defaults
 * (src/devices/input/schema.ts). Used by the scan and the metrics station children.
 */
import type { Logger } from 'pino';
import { SerialScanner } from '../../src/devices/serial/scanner.js';
import type { SimulatedHardware } from '../../src/devices/simulated/hardware.js';
import type { StationHardware } from '../../src/devices/types.js';

/** `sim` with its scanner replaced by a started SerialScanner reading `tty`. */
export async function withSerialScanner(sim: SimulatedHardware, tty: string, log: Logger): Promise<StationHardware> {
  const scanner = new SerialScanner({
    identifierType: 'BAR_CODE',
    port: { path: tty, baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 },
    framing: { terminator: 'any', prefix: '', suffix: '', maxLength: 128 },
    idleGapMs: 200,
    reconnect: { initialMs: 500, maxMs: 30_000, factor: 2 },
    openTimeoutMs: 5_000,
    log,
  });
  await scanner.start();
  return {
    locks: sim.locks,
    doors: sim.doors,
    scanners: [scanner],
    keypad: sim.keypad,
    cancelButton: sim.cancelButton,
    display: sim.display,
    power: sim.power,
    devices: () => [sim.locks, sim.doors, scanner, sim.keypad, sim.cancelButton, sim.display],
    close: async () => {
      await scanner.close();
      await sim.close();
    },
  };
}
