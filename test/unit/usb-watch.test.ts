/**
 * The USB watch against a sysfs tree in a temporary folder (the last hardware boundary) and a
 * monitor process standing in for `udevadm monitor`: `tail -f` of an events file the test appends
 * uevent lines to, as the kernel would print them. A device plugged in unauthorised is reported
 * (warning line without its serial number, the list, the count); one authorised is not; a device
 * leaving is gone from the list; the monitor ending is a health problem and the link comes back.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanProduct, unauthorisedUsbDevices } from '../../src/devices/usb/sysfs.js';
import { UsbWatch, type UnknownUsbDevice } from '../../src/devices/usb/watch.js';
import { captureLog } from '../support/capture-log.js';

interface Fake {
  readonly devices: string;
  readonly events: string;
  plug(port: string, attrs: Record<string, string>): void;
  unplug(port: string): void;
  uevent(action: string, port: string): void;
}

function fakeSysfs(): Fake {
  const root = mkdtempSync(join(tmpdir(), 'usb-sysfs-'));
  const devices = join(root, 'devices');
  mkdirSync(devices);
  const events = join(root, 'events');
  writeFileSync(events, '');
  return {
    devices,
    events,
    plug(port, attrs) {
      mkdirSync(join(devices, port), { recursive: true });
      for (const [k, v] of Object.entries(attrs)) writeFileSync(join(devices, port, k), `${v}\n`);
    },
    unplug(port) {
      rmSync(join(devices, port), { recursive: true });
    },
    uevent(action, port) {
      appendFileSync(events, `KERNEL[4711.000001] ${action}      /devices/pci0000:00/0000:00:04.0/usb1/${port} (usb)\n`);
    },
  };
}

const keyboard = { authorized: '0', idVendor: '0627', idProduct: '0001', bDeviceClass: '00', product: 'QEMU USB Keyboard', serial: '68284-0000:00:04.0-1' };
const stick = { authorized: '0', idVendor: '46f4', idProduct: '0001', bDeviceClass: '00', product: 'QEMU USB HARDDRIVE', serial: '1-0000:00:04.0-2' };

const watches: UsbWatch[] = [];
afterEach(async () => {
  await Promise.all(watches.splice(0).map((w) => w.close()));
});

function watch(fake: Fake, monitor = ['tail', '-n', '+1', '-f', fake.events]) {
  const captured = captureLog();
  const w = new UsbWatch({ devicesDir: fake.devices, monitor, reconnect: { initialMs: 10, maxMs: 10, factor: 1 }, openTimeoutMs: 5_000, log: captured.log });
  watches.push(w);
  return { w, captured };
}

function nextChange(w: UsbWatch): Promise<readonly UnknownUsbDevice[]> {
  return new Promise((resolve) => {
    const off = w.onUnknownChange((d) => {
      off();
      resolve(d);
    });
  });
}

describe('unauthorised USB devices in sysfs', () => {
  it('lists devices whose authorized is 0, not root hubs, interfaces or authorised devices', async () => {
    const fake = fakeSysfs();
    fake.plug('usb1', { authorized: '1', idVendor: '1d6b', idProduct: '0003' });
    fake.plug('1-1', { ...keyboard, authorized: '1' });
    fake.plug('1-1:1.0', { bInterfaceClass: '03' });
    fake.plug('1-2', stick);
    fake.plug('1-3.4', { authorized: '0', idVendor: 'ABCD', idProduct: '12EF', bDeviceClass: '09' });
    expect(await unauthorisedUsbDevices(fake.devices)).toEqual([
      { port: '1-2', vendorId: '46f4', productId: '0001', deviceClass: '00', product: 'QEMU USB HARDDRIVE' },
      { port: '1-3.4', vendorId: 'abcd', productId: '12ef', deviceClass: '09', product: null },
    ]);
    expect(await unauthorisedUsbDevices(join(fake.devices, 'none'))).toEqual([]);
  });

  it("keeps a device's own string printable and short", () => {
    expect(cleanProduct('Evil\u001b[2J\nDevice')).toBe('Evil?[2J?Device');
    expect(cleanProduct('x'.repeat(100))).toBe(`${'x'.repeat(31)}…`);
    expect(cleanProduct('  ')).toBeNull();
  });
});

describe('the USB watch', () => {
  it('reports a device plugged in unauthorised, counts it once, and forgets it when it is gone', async () => {
    const fake = fakeSysfs();
    const { w, captured } = watch(fake);
    await w.start();
    expect(w.health().ok).toBe(true);

    let change = nextChange(w);
    fake.plug('1-1', keyboard);
    fake.uevent('add', '1-1');
    expect(await change).toEqual([{ port: '1-1', vendorId: '0627', productId: '0001', deviceClass: '00', product: 'QEMU USB Keyboard' }]);
    expect(w.seenTotal()).toBe(1);

    change = nextChange(w);
    fake.plug('1-2', stick);
    fake.uevent('add', '1-2');
    expect((await change).map((d) => d.port)).toEqual(['1-1', '1-2']);
    expect(w.seenTotal()).toBe(2);

    change = nextChange(w);
    fake.unplug('1-1');
    fake.uevent('remove', '1-1');
    expect((await change).map((d) => d.port)).toEqual(['1-2']);
    expect(w.seenTotal()).toBe(2);

    const warned = captured.lines().filter((l) => l.level === 40);
    expect(warned.map((l) => l.msg)).toEqual([
      'unknown USB device kept out: 0627:0001 on port 1-1 (QEMU USB Keyboard, class 00)',
      'unknown USB device kept out: 46f4:0001 on port 1-2 (QEMU USB HARDDRIVE, class 00)',
    ]);
    expect(captured.count(30, 'unknown USB device gone: 0627:0001 on port 1-1')).toBe(1);
    // A patron's device's serial number is not in any line.
    const all = JSON.stringify(captured.lines());
    expect(all).not.toContain(keyboard.serial);
    expect(all).not.toContain(stick.serial);
  });

  it('reports what was plugged in before it started, and not a device the policy authorised', async () => {
    const fake = fakeSysfs();
    fake.plug('1-1', { ...keyboard, authorized: '1' });
    fake.plug('1-2', stick);
    const { w } = watch(fake);
    const first = nextChange(w);
    await w.start();
    expect((await first).map((d) => d.port)).toEqual(['1-2']);

    // Authorised later (a profile naming it): its interfaces' uevents, and it is no longer unknown.
    const change = nextChange(w);
    writeFileSync(join(fake.devices, '1-2', 'authorized'), '1\n');
    fake.uevent('add', '1-2/1-2:1.0');
    expect(await change).toEqual([]);
  });

  it('is unhealthy while its monitor ends or cannot be started, and says why', async () => {
    const fake = fakeSysfs();
    // A monitor that ends at once: the health says so (the reconnect keeps starting it).
    const { w } = watch(fake, ['sh', '-c', 'exit 3']);
    const down = new Promise<string | null>((resolve) => w.onHealthChange((h) => !h.ok && resolve(h.detail)));
    await w.start();
    expect(await down).toMatch(/^USB watch \(.*\) not watching \(sh ended \(exit 3\)\): unknown USB devices are not reported$/);
    const { w: missing } = watch(fake, ['/nonexistent/udevadm', 'monitor']);
    await missing.start();
    expect(missing.health()).toMatchObject({ ok: false, detail: expect.stringContaining('/nonexistent/udevadm') });
  });
});
