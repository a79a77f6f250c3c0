/**
 * The `rfid` section of the station config: what the station core does with library tags on a
 * host-mode reader — how sets are reported and whether (and how) it clears the tag's security bit
 * after a deposit's box opened. The reader itself (port, polling) is hardware: the board profile's
 * `scanners[]` of kind `rfid-reader`, or `hardware.rfidReader` of simulated hardware.
 *
 * The security bit's values differ between libraries and RFID vendors (ISO 28560-1 recommends AFI
 * 0x07 on the shelf and 0xC2 when checked out; 3M systems use 0xD7/0xDA; many gates read the EAS
 * bit instead): they are the library's, written here, never assumed. Off by default.
 */
import * as z from '../schema.js';
import { intIn } from '../schema.js';

/** A byte: a number (194) or a hex string ("0xC2"). */
const byte = z.union([
  intIn(0, 255),
  z.pipe(
    z.string().check(z.regex(/^0x[0-9a-fA-F]{1,2}$/, 'must be a byte: a number or hex like "0xC2"')),
    z.transform((s: string) => parseInt(s.slice(2), 16)),
  ),
]);

export const securitySchema = z.discriminatedUnion('kind', [
  /** The station leaves the security bit alone. */
  z.strictObject({ kind: z.literal('off') }),
  /** The library's gates read the AFI byte: `secured` on the shelf, `unsecured` once checked out. */
  z
    .strictObject({ kind: z.literal('afi'), secured: byte, unsecured: byte })
    .check(z.refine((s) => s.secured !== s.unsecured, { message: 'secured and unsecured must differ', path: ['unsecured'] })),
  /** The library's gates read the NXP EAS bit (ICODE SLIX labels): reset once checked out. */
  z.strictObject({ kind: z.literal('eas') }),
]);

export type SecurityConfig = z.output<typeof securitySchema>;

export const rfidConfigSchema = z.strictObject({
  /**
   * An item in N parts (a CD and its booklet): `require-all` reports it once all N parts lie on the
   * reader (the display counts the missing ones); `report-first` reports it with the first part.
   */
  sets: z._default(z.enum(['require-all', 'report-first']), 'require-all'),
  /** The security bit written after the server's box-open for a deposit (off, AFI or EAS). */
  security: z.prefault(securitySchema, { kind: 'off' }),
  /** A write that did not verify is retried (with "put the item back on the reader") for this long. */
  securityWindowMs: z._default(intIn(1_000, 600_000), 30_000),
  /** While it has not verified, the write is tried again this often when the item is on the reader. */
  securityRetryMs: z._default(intIn(100, 60_000), 1_000),
});

export type RfidConfig = z.output<typeof rfidConfigSchema>;
