/**
 * Config of a host-mode RFID reader: the board profile's `scanners[]` entry of kind
 * `rfid-reader`, and (without the line settings) `hardware.rfidReader` of simulated hardware.
 * Defaults are a FEIG reader as shipped (38400 baud, 8E1) and polling a librarian does not notice.
 */
import * as z from '../../schema.js';
import { intIn } from '../../schema.js';
import { devicePath, reconnectSchema, serialLine } from '../vocabulary/line-schema.js';

const ms = (dflt: number, min: number, max: number) => z._default(intIn(min, max), dflt);

/** What a reader does, whatever line it is on. */
export const readerBehaviour = {
  /**
   * What the station sends for a tag: `item-id`, the Primary Item Identifier from the tag's
   * library data (what the library system knows the item by), or `uid`, the tag's UID (no memory read).
   */
  send: z._default(z.enum(['item-id', 'uid']), 'item-id'),
  /** The reader's bus address; 255 (broadcast) when it is the only reader on its line. */
  busAddress: z._default(intIn(0, 255), 255),
  /**
   * FEIG frame type of requests: `auto` (ask the advanced way when the line opens, fall back to
   * standard when only that is answered, until the line reopens), `advanced` (any length) or
   * `standard` (answers up to 255 bytes, older firmware).
   */
  frame: z._default(z.enum(['auto', 'advanced', 'standard']), 'auto'),
  /** An inventory of the field this often. */
  inventoryIntervalMs: ms(200, 20, 10_000),
  /** A tag missing from this many inventories in a row has left the field. */
  absentRounds: z._default(intIn(1, 20), 3),
  /** A request without a usable answer within this fails. */
  answerTimeoutMs: ms(500, 20, 10_000),
  /** Failed requests in a row (no answer, garbage, wrong CRC) before the line is closed and reopened. */
  failuresBeforeReconnect: z._default(intIn(1, 100), 3),
  /** Reads of a new tag's memory before it counts as unreadable. */
  readAttempts: z._default(intIn(1, 20), 3),
  /** How the reader hands over a block: `reversed` (FEIG's host protocol) or `memory` order. */
  blockOrder: z._default(z.enum(['reversed', 'memory']), 'reversed'),
  /** Blocks asked for per read command. */
  blocksPerRead: z._default(intIn(1, 64), 16),
  /** Blocks of user memory read at first per tag; a tag whose data runs on past them is read to its end. */
  maxBlocks: z._default(intIn(1, 256), 64),
};

/** `scanners[]` of a board profile: `{ "kind": "rfid-reader", "path": "/dev/pickup-rfid" }`. */
export const rfidReaderSchema = z.strictObject({
  kind: z.literal('rfid-reader'),
  /** The reader's host protocol; `feig-iso-host` (FEIG ID ISC/ID CPR readers in host mode). */
  family: z._default(z.enum(['feig-iso-host']), 'feig-iso-host'),
  ...serialLine,
  baudRate: z._default(intIn(50, 4_000_000), 38_400),
  parity: z._default(z.enum(['none', 'even', 'odd', 'mark', 'space']), 'even'),
  ...readerBehaviour,
});

export type RfidReaderConfig = z.output<typeof rfidReaderSchema>;

/**
 * `hardware.rfidReader` of simulated hardware: null (no host-mode reader), or a reader whose
 * `path` is null (the model reader in the same process, src/devices/simulated/feig-reader-model.ts) or a
 * serial device (a real reader, or a model on a pseudo-terminal) on FEIG's line settings.
 */
export const simulatedRfidReaderSchema = z.strictObject({
  path: z._default(z.nullable(devicePath), null),
  ...readerBehaviour,
  reconnect: z.prefault(reconnectSchema, {}),
  openTimeoutMs: ms(5_000, 10, 600_000),
});

export type SimulatedRfidReaderConfig = z.output<typeof simulatedRfidReaderSchema>;
