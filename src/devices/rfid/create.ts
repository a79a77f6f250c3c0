/** A host-mode reader from its config section: the one place that turns config into options. */
import type { Logger } from 'pino';
import { openSerialPort, type SerialPortOptions } from '../serial/link.js';
import { READER_FAMILIES } from './families.js';
import { HostModeReader } from './reader.js';
import { behaviour } from './options.js';
import type { RfidReaderConfig } from './schema.js';

/** A reader of a board profile's `scanners` (kind `rfid-reader`); `port` defaults to the section's line settings. */
export function createRfidReader(c: RfidReaderConfig, log: Logger, port?: SerialPortOptions): HostModeReader {
  return new HostModeReader({
    family: READER_FAMILIES[c.family],
    port: port ?? { path: c.path, baudRate: c.baudRate, dataBits: c.dataBits, parity: c.parity, stopBits: c.stopBits },
    ...behaviour(c),
    log,
    opener: openSerialPort,
  });
}
