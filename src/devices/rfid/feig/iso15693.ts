/**
 * The request data and answer data of FEIG's ISO 15693 host commands, pure (no I/O).
 *
 * | command              | request data                                   | answer data (status 0x00)                    |
 * |----------------------|------------------------------------------------|----------------------------------------------|
 * | 0xB0 0x01 inventory  | 0x01 MODE [AFI]                                | DATA-SETS, then per tag: TR-TYPE DSFID UID(8) |
 * | 0xB0 0x23 read blocks| 0x23 MODE UID(8) DB-ADR DB-N                   | DB-N DB-SIZE, then per block: SEC-STATUS DB   |
 * | 0xB0 0x27 write AFI  | 0x27 MODE UID(8) AFI                           | —                                            |
 * | 0xB0 0x2B system info| 0x2B MODE UID(8)                               | DSFID UID(8) AFI MEM-SIZE(2) IC-REF           |
 * | 0xB1 NXP custom      | MFR(0x04) CMD MODE UID(8)                      | CMD 0xA5 (EAS alarm): the EAS sequence        |
 * | 0x65 software version| —                                              | the reader's firmware and type               |
 *
 * MODE 0x01 addresses one tag by UID (every tag command here is addressed); in an inventory MODE
 * bit 0x80 asks for the rest of a list the reader cut short (status 0x94, "more data") and 0x10
 * adds an AFI filter byte. UIDs are sent most significant byte first (E0 04 …), as FEIG's host
 * protocol has them. DB is the block as the reader hands it over: FEIG readers send each block's
 * bytes reversed (the last byte of the block first), the driver puts them back in memory order.
 * MEM-SIZE: the first byte is the block size (5 bits), the second the number of blocks — minus one
 * each as ISO/IEC 15693 encodes them, literally as FEIG's manual describes them, and 0x0000 when
 * the tag does not support the command. The count is therefore two candidates (n + 1 and n) that
 * the read of the last block decides, and 0x0000 means "unknown: read until a block is missing";
 * the block size comes from the read answers (DB-SIZE) instead. The software-version answer is
 * SW-REV (2 bytes), D-REV, HW-TYPE (the hardware options), SW-TYPE (the reader type), then the
 * transponder types and buffer sizes. The NXP custom commands (ICODE SLIX family) set, reset and test the EAS bit;
 * a tag whose EAS bit is not set does not answer the EAS alarm, which the reader reports as
 * status 0x01.
 */

export const CMD = { iso: 0xb0, custom: 0xb1, softwareVersion: 0x65 } as const;
export const ISO = { inventory: 0x01, readMultipleBlocks: 0x23, writeAfi: 0x27, systemInformation: 0x2b } as const;
export const NXP = { manufacturer: 0x04, setEas: 0xa2, resetEas: 0xa3, easAlarm: 0xa5 } as const;
export const MODE = { addressed: 0x01, more: 0x80, afi: 0x10 } as const;
/** FEIG's transponder type of an ISO 15693 tag in an inventory record. */
export const TR_TYPE_ISO15693 = 0x03;
export const UID_BYTES = 8;

export function uidBytes(uid: string): Uint8Array {
  if (!/^[0-9A-Fa-f]{16}$/.test(uid)) throw new RangeError(`a UID is 16 hex digits, got "${uid}"`);
  return Uint8Array.from(uid.match(/../g) ?? [], (h) => parseInt(h, 16));
}

export function uidString(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase();
}

const join = (...parts: (number | Uint8Array)[]): Uint8Array => {
  const out: number[] = [];
  for (const p of parts) {
    if (typeof p === 'number') out.push(p);
    else out.push(...p);
  }
  return Uint8Array.from(out);
};

export const requests = {
  inventory: (more: boolean): Uint8Array => join(ISO.inventory, more ? MODE.more : 0x00),
  readBlocks: (uid: string, first: number, count: number): Uint8Array => join(ISO.readMultipleBlocks, MODE.addressed, uidBytes(uid), first, count),
  writeAfi: (uid: string, afi: number): Uint8Array => join(ISO.writeAfi, MODE.addressed, uidBytes(uid), afi),
  systemInformation: (uid: string): Uint8Array => join(ISO.systemInformation, MODE.addressed, uidBytes(uid)),
  nxp: (cmd: number, uid: string): Uint8Array => join(NXP.manufacturer, cmd, MODE.addressed, uidBytes(uid)),
};

/** A parse of answer data: the value, or why the data cannot be that answer. */
export type Answer<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly why: string };
const yes = <T>(value: T): Answer<T> => ({ ok: true, value });
const no = <T>(why: string): Answer<T> => ({ ok: false, why });

export interface InventoryRecord {
  readonly uid: string;
  readonly dsfid: number;
  readonly trType: number;
}

export function parseInventory(data: Uint8Array): Answer<InventoryRecord[]> {
  if (data.length < 1) return no('inventory answer without a record count');
  const count = data[0] ?? 0;
  const need = 1 + count * 10;
  if (data.length !== need) return no(`inventory answer says ${count} tags (${need} bytes) but has ${data.length} bytes`);
  const out: InventoryRecord[] = [];
  for (let i = 0; i < count; i++) {
    const at = 1 + i * 10;
    out.push({ trType: data[at] ?? 0, dsfid: data[at + 1] ?? 0, uid: uidString(data.subarray(at + 2, at + 10)) });
  }
  return yes(out);
}

export interface SystemInformation {
  readonly uid: string;
  readonly dsfid: number;
  readonly afi: number;
  /** Block counts to try, most likely first (ISO's n − 1 encoding, then FEIG's literal one); null: 0x0000, unknown. */
  readonly blockCounts: readonly number[] | null;
  readonly icReference: number;
}

export function parseSystemInformation(data: Uint8Array): Answer<SystemInformation> {
  if (data.length !== 13) return no(`system information answer of ${data.length} bytes, 13 expected`);
  const sizeByte = (data[10] ?? 0) & 0x1f;
  const countByte = data[11] ?? 0;
  return yes({
    dsfid: data[0] ?? 0,
    uid: uidString(data.subarray(1, 9)),
    afi: data[9] ?? 0,
    blockCounts: sizeByte === 0 && countByte === 0 ? null : countByte === 0 ? [1] : [countByte + 1, countByte],
    icReference: data[12] ?? 0,
  });
}

export interface SoftwareVersion {
  readonly firmware: string;
  readonly hardwareOptions: number;
  readonly readerType: number;
}

export function parseSoftwareVersion(data: Uint8Array): Answer<SoftwareVersion> {
  if (data.length < 5) return no(`software version answer of ${data.length} bytes, at least 5 expected`);
  return yes({ firmware: `${data[0] ?? 0}.${data[1] ?? 0}.${data[2] ?? 0}`, hardwareOptions: data[3] ?? 0, readerType: data[4] ?? 0 });
}

export interface BlocksRead {
  readonly blockSize: number;
  /** The blocks' bytes as the reader sent them (FEIG: each block reversed). */
  readonly blocks: readonly Uint8Array[];
  /** The blocks' security (lock) status bytes. */
  readonly security: readonly number[];
}

export function parseReadBlocks(data: Uint8Array, expectedCount: number): Answer<BlocksRead> {
  if (data.length < 2) return no('read answer without block count and size');
  const count = data[0] ?? 0;
  const size = data[1] ?? 0;
  if (count !== expectedCount) return no(`read answer has ${count} blocks, ${expectedCount} were asked for`);
  if (size < 1 || size > 32) return no(`read answer with block size ${size}`);
  if (data.length !== 2 + count * (size + 1)) return no(`read answer of ${data.length} bytes for ${count} blocks of ${size}`);
  const blocks: Uint8Array[] = [];
  const security: number[] = [];
  for (let i = 0; i < count; i++) {
    const at = 2 + i * (size + 1);
    security.push(data[at] ?? 0);
    blocks.push(data.slice(at + 1, at + 1 + size));
  }
  return yes({ blockSize: size, blocks, security });
}
