/**
 * The USB devices the kernel has not authorised, as sysfs lists them (/sys/bus/usb/devices): the
 * one place that tells, whichever mechanism keeps them out (USBGuard, or the kernel's authorized
 * attribute written by anything else). Root hubs (usbN) and interfaces (1-1:1.0) are not devices
 * a person plugs in; an unauthorised device has no interfaces anyway.
 *
 * What is kept of a device is what a technician needs to find it and no more: its port, ids, class
 * and product name (cut short, control characters removed). Never its serial number: the device
 * may be a patron's phone or stick.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { UnknownUsbDevice } from '../types.js';

const DEVICE_NAME = /^\d+-\d+(\.\d+)*$/;
const PRODUCT_MAX = 32;

async function attribute(dir: string, name: string): Promise<string | null> {
  try {
    return (await readFile(join(dir, name), 'latin1')).trim();
  } catch {
    return null;
  }
}

/** A device's own string, safe for a log line and a page: printable, cut short. */
export function cleanProduct(raw: string | null): string | null {
  if (raw === null) return null;
  const printable = raw.replace(/[^\x20-\x7e]/g, '?').trim();
  if (printable === '') return null;
  return printable.length > PRODUCT_MAX ? `${printable.slice(0, PRODUCT_MAX - 1)}…` : printable;
}

/** The unauthorised devices under `devicesDir` (/sys/bus/usb/devices), by port. A device gone mid-read is left out. */
export async function unauthorisedUsbDevices(devicesDir: string): Promise<UnknownUsbDevice[]> {
  let names: string[];
  try {
    names = await readdir(devicesDir);
  } catch (e) {
    // No USB at all (no controller, no usbcore): nothing can be plugged in.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const found: UnknownUsbDevice[] = [];
  for (const port of names.filter((n) => DEVICE_NAME.test(n)).sort()) {
    const dir = join(devicesDir, port);
    if ((await attribute(dir, 'authorized')) !== '0') continue;
    const vendorId = await attribute(dir, 'idVendor');
    const productId = await attribute(dir, 'idProduct');
    if (vendorId === null || productId === null) continue;
    found.push({
      port,
      vendorId: vendorId.toLowerCase(),
      productId: productId.toLowerCase(),
      deviceClass: (await attribute(dir, 'bDeviceClass')) ?? '??',
      product: cleanProduct(await attribute(dir, 'product')),
    });
  }
  return found;
}

/** One line for logs and the technician: "0627:0001 on port 1-1.3 (QEMU USB Keyboard, class 00)". */
export function describeUnknown(d: UnknownUsbDevice): string {
  return `${d.vendorId}:${d.productId} on port ${d.port} (${d.product === null ? '' : `${d.product}, `}class ${d.deviceClass})`;
}
