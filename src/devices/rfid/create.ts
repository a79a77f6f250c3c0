/** A host-mode reader from its config section: the one place that turns config into options. */
import type { Logger } from 'pino';
import type { SerialOpener, SerialPortOptions } from '../serial/link.js';
import { READER_FAMILIES } from './families.js';
import { HostModeReader } from './reader.js';
import type { RfidReaderConfig, SimulatedRfidReaderConfig } from './schema.js';

type Behaviour = Omit<SimulatedRfidReaderConfig, 'path'>;

function behaviour(c: Behaviour) {
  return {
    send: c.send,
    busAddress: c.busAddress,
    frame: c.frame,
    inventoryIntervalMs: c.inventoryIntervalMs,
    absentRounds: c.absentRounds,
    answerTimeoutMs: c.answerTimeoutMs,
    failuresBeforeReconnect: c.failuresBeforeReconnect,
    readAttempts: c.readAttempts,
    blockOrder: c.blockOrder,
    blocksPerRead: c.blocksPerRead,
    maxBlocks: c.maxBlocks,
    reconnect: c.reconnect,
    openTimeoutMs: c.openTimeoutMs,
  };
}

/** A reader of a board profile's `scanners` (kind `rfid-reader`); `port` defaults to the section's line settings. */
export function createRfidReader(c: RfidReaderConfig, log: Logger, port?: SerialPortOptions): HostModeReader {
  return new HostModeReader({
    family: READER_FAMILIES[c.family],
    port: port ?? { path: c.path, baudRate: c.baudRate, dataBits: c.dataBits, parity: c.parity, stopBits: c.stopBits },
    ...behaviour(c),
    log,
  });
}

/**
 * The reader of simulated hardware: on `path` with FEIG's line settings, or — path null — on
 * `modelLine`, the in-process line to the model reader.
 */
export function createSimulatedRfidReader(c: SimulatedRfidReaderConfig, log: Logger, modelLine?: SerialOpener): HostModeReader {
  const family = READER_FAMILIES['feig-iso-host'];
  if (c.path === null && modelLine === undefined) throw new Error('a simulated RFID reader without a path needs the model line');
  return new HostModeReader({
    family,
    ...(c.path === null ? { name: 'simulated RFID reader (FEIG model)', opener: modelLine } : {}),
    port: { path: c.path ?? 'model', ...family.line },
    ...behaviour(c),
    log,
  });
}
