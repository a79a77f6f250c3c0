/**
 * The reader of simulated hardware (`hardware.rfidReader`): the real driver on `path` with FEIG's
 * line settings (a pseudo-terminal whose far end serves the model), or — path null — on the
 * in-process line to the model reader. serialport's addon is loaded only in the first case, so
 * simulated hardware without a path loads no native addon.
 */
import type { Logger } from 'pino';
import type { SerialOpener } from '../serial/link.js';
import { READER_FAMILIES } from './families.js';
import { behaviour } from './options.js';
import { HostModeReader } from './reader.js';
import type { SimulatedRfidReaderConfig } from './schema.js';

const serialPortWhenOpened: SerialOpener = async (o, ev) => (await import('../serial/link.js')).openSerialPort(o, ev);

export function createSimulatedRfidReader(c: SimulatedRfidReaderConfig, log: Logger, modelLine?: SerialOpener): HostModeReader {
  const family = READER_FAMILIES['feig-iso-host'];
  if (c.path === null && modelLine === undefined) throw new Error('a simulated RFID reader without a path needs the model line');
  return new HostModeReader({
    family,
    ...(c.path === null ? { name: 'simulated RFID reader (FEIG model)' } : {}),
    opener: c.path === null && modelLine !== undefined ? modelLine : serialPortWhenOpened,
    port: { path: c.path ?? 'model', ...family.line },
    ...behaviour(c),
    log,
  });
}
