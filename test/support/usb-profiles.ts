/** Board profiles for the USB policy's tests: a HID scanner and keypad, an FTDI adapter, an audio adapter. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const box = { number: 1, lock: { chip: 'c', offset: 0 }, door: { chip: 'c', offset: 1 } };
export const ftdi = { name: "RFID reader's FT232R adapter", vendorId: '0x0403', productId: '0x6001', serialNumber: 'FT4RFID1', interfaces: ['ff:*:*'] };
export const audio = { name: 'USB audio adapter', vendorId: '0d8c', productId: '0014', interfaces: ['01:*:*', '03:*:*'] };

export function profile(extra: Record<string, unknown>): Record<string, unknown> {
  return {
    name: 'test board',
    boxes: [box],
    scanners: [{ kind: 'hid', identifierType: 'BAR_CODE', vendorId: '0x0627', productId: '0x0001' }],
    keypad: { kind: 'hid', vendorId: '0x04d9', productId: '0x1203' },
    ...extra,
  };
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'usb-policy-'));
}

export function profileFile(p: unknown, dir = tempDir()): string {
  const f = join(dir, 'profile.json');
  writeFileSync(f, JSON.stringify(p));
  return f;
}
