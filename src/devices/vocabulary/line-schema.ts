/**
 * The line settings every serial device's profile section shares (scanners, displays, the
 * host-mode RFID reader), and the reconnect backoff of every device that can be unplugged.
 */
import * as z from '../../schema.js';
import { intIn } from '../../schema.js';

const ms = (dflt: number, min = 1, max = 600_000) => z._default(intIn(min, max), dflt);

export const devicePath = z.string().check(z.regex(/^\/\S+$/, 'must be an absolute device path (e.g. /dev/serial/by-id/… or /dev/pickup-barcode)'));

/** Reopen delays after a device is lost: initialMs, then ×factor, at most maxMs. */
export const reconnectSchema = z.strictObject({
  initialMs: ms(500, 10),
  maxMs: ms(30_000, 10),
  factor: z._default(z.number().check(z.minimum(1), z.maximum(10)), 2),
});

/** Line settings of a serial device. */
export const serialLine = {
  /** Stable path: /dev/serial/by-id/… or a udev symlink such as /dev/pickup-barcode. */
  path: devicePath,
  baudRate: z._default(intIn(50, 4_000_000), 9600),
  dataBits: z._default(z.union([z.literal(5), z.literal(6), z.literal(7), z.literal(8)]), 8),
  parity: z._default(z.enum(['none', 'even', 'odd', 'mark', 'space']), 'none'),
  stopBits: z._default(z.union([z.literal(1), z.literal(2)]), 1),
  /** Capped exponential backoff for reopening after an unplug. */
  reconnect: z.prefault(reconnectSchema, {}),
  /** An open (or the final close) that takes longer counts as failed. */
  openTimeoutMs: ms(5_000, 10),
};
