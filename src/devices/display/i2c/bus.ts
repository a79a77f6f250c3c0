/**
 * The I2C transport of the I2C displays: the two SMBus transfers they need, behind an interface
 * so that unit tests put a fake bus (with a controller model behind it) where the kernel would be.
 *
 * SMBus transfers, not raw I2C messages, because every I2C adapter speaks them (the Pi's, USB
 * adapters, the kernel's i2c-stub the rig tests against), and they are what the chips want:
 * - a PCF8574 latches each byte of a "send byte" onto its 8 pins;
 * - an SSD1306/SH1106 takes a control byte (0x00 commands, 0x40 data) and up to 32 more bytes
 *   as an "I2C block write" whose command byte is that control byte.
 *
 * The real bus is i2c-bus (npm, a small addon over Linux's i2c-dev ioctls), loaded only when a
 * profile has an I2C display.
 */
import type * as I2cBusPackage from 'i2c-bus';
import { DeviceError } from '../../../errors.js';

/** Longest data part of one I2C block write (SMBus limit). */
export const I2C_BLOCK_MAX = 32;

export interface I2cBus {
  /** /dev/i2c-N, for messages. */
  readonly path: string;
  /** One "send byte" transfer to `address`. */
  sendByte(address: number, byte: number): Promise<void>;
  /** One "I2C block write": `command`, then `data` (at most I2C_BLOCK_MAX bytes). */
  writeI2cBlock(address: number, command: number, data: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

export type I2cBusOpener = (bus: number) => Promise<I2cBus>;

type I2cBusModule = typeof I2cBusPackage;

/** Errno codes an I2C transfer fails with, in words a technician can act on. */
export function describeI2cError(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOENT':
      return 'bus not found (ENOENT: is I2C enabled? dtparam=i2c_arm=on and the i2c-dev module)';
    case 'EACCES':
    case 'EPERM':
      return `no access to the bus (${code}: the i2c group and the unit's DeviceAllow=char-i2c)`;
    case 'EREMOTEIO':
    case 'ENXIO':
    case 'ENODEV':
      return `no answer at this address (${code}: not connected, no power, or a different address)`;
    case 'ETIMEDOUT':
    case 'EIO':
    case 'EAGAIN':
      return `bus error (${code}: wiring, pull-ups or a device holding the bus)`;
    default:
      return e instanceof Error ? e.message : String(e);
  }
}

let loaded: Promise<I2cBusModule> | null = null;

function loadI2cBus(): Promise<I2cBusModule> {
  // A CommonJS package: its exports arrive as the default export.
  loaded ??= import('i2c-bus').then((m: I2cBusModule & { default?: I2cBusModule }) => m.default ?? m);
  return loaded;
}

/** Open /dev/i2c-`bus` through i2c-bus. */
export const openI2cBus: I2cBusOpener = async (bus) => {
  const path = `/dev/i2c-${bus}`;
  const mod = await loadI2cBus().catch((e: unknown) => {
    throw new DeviceError(path, `cannot load the i2c-bus addon: ${describeI2cError(e)}`);
  });
  const b = await mod.openPromisified(bus);
  return {
    path,
    sendByte: (address, byte) => b.sendByte(address, byte),
    writeI2cBlock: async (address, command, data) => {
      await b.writeI2cBlock(address, command, data.length, Buffer.from(data.buffer, data.byteOffset, data.length));
    },
    close: () => b.close(),
  };
};
