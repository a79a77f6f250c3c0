/** The part of i2c-bus (npm, no bundled types) the I2C displays use. */
declare module 'i2c-bus' {
  export interface PromisifiedBus {
    sendByte(addr: number, byte: number): Promise<void>;
    writeI2cBlock(addr: number, cmd: number, length: number, buffer: Buffer): Promise<{ bytesWritten: number; buffer: Buffer }>;
    close(): Promise<void>;
  }
  export function openPromisified(busNumber: number): Promise<PromisifiedBus>;
}
