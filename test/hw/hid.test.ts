/**
 * HID drivers on the kernel's own hidraw: a fake boot keyboard made through /dev/uhid (in a child
 * process, test/hw/uhid-keyboard.mjs), found by node-hid (hidraw build) by vendor/product/serial.
 * Proves: a US-layout and a Czech-layout scan decode to the same digits, the PIN keypad's keys,
 * UHID_DESTROY (unplug) → health not ok, UHID_CREATE2 again (replug) → reconnect and read.
 *
 * Runs only where /dev/uhid exists (the QEMU VM rig); self-skips on the host. JS runs ~15× slower
 * under TCG emulation, hence the generous bounds.
 */
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { HidKeypad } from '../../src/devices/hid/keypad.js';
import { HidScanner } from '../../src/devices/hid/scanner.js';
import type { LayoutName } from '../../src/devices/hid/layouts.js';
import type { KeypadKey } from '../../src/devices/types.js';
import { report, typeReports, UP } from '../support/hid-reports.js';
import { waitFor } from '../support/shared.js';
import { openHidraw, UhidChild } from '../support/uhid-child.js';

const VID = 0x1234;
const PID = 0x5678;
const log = pino({ level: process.env['HW_LOG'] === '1' ? 'debug' : 'silent' });
const timing = { presenceCheckMs: 250, reconnect: { initialMs: 100, maxMs: 1000, factor: 2 }, openTimeoutMs: 10_000 };

describe.skipIf(!existsSync('/dev/uhid'))('HID on real hidraw (uhid)', () => {
  // Run in reverse: the driver (registered after its fake device) closes first and must have
  // released its hidraw handle before the device is destroyed. Every step runs; the first failure
  // is reported.
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    const errors: unknown[] = [];
    for (const c of cleanup.splice(0).reverse()) await c().catch((e: unknown) => errors.push(e));
    if (errors.length > 0) throw errors[0];
  });

  /** Wait until this process (the drivers') has exactly `n` /dev/hidraw* files open. */
  async function hidrawHandles(n: number, timeoutMs: number, what: string): Promise<void> {
    await waitFor(what, () => openHidraw().length === n, timeoutMs).catch((e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : String(e)}; open now: ${openHidraw().join(', ') || 'none'}`);
    });
  }

  /** Close a driver; its hidraw handle (node-hid closes it after the pending read) must go. */
  async function closeDriver(d: { close(): Promise<void> }): Promise<void> {
    await d.close();
    await hidrawHandles(0, 10_000, "the driver's hidraw handle closed");
  }

  async function fakeDevice(uniq: string): Promise<UhidChild> {
    const child = new UhidChild();
    cleanup.push(() => child.exit());
    await child.send({ cmd: 'create', vendor: VID, product: PID, name: 'Pickup Fake Scanner', uniq });
    return child;
  }

  function scanner(layout: LayoutName, serialNumber: string | null) {
    const s = new HidScanner({
      ...timing,
      identifierType: 'BAR_CODE',
      match: { vendorId: VID, productId: PID, serialNumber },
      reportId: null,
      layout,
      maxLength: 64,
      frameTimeoutMs: 5000,
      log,
    });
    cleanup.push(() => closeDriver(s));
    const scans: string[] = [];
    s.onScan((v) => scans.push(v));
    return { s, scans };
  }

  it('US layout scan; unplug → not ok; replug → reconnects and reads again', async () => {
    const dev = await fakeDevice('SCANNER-US');
    const { s, scans } = scanner('us', 'SCANNER-US');
    await s.start();
    await waitFor('scanner open', () => s.health().ok, 15_000);

    await dev.send({ cmd: 'input', reports: typeReports('us', '8594000123456') });
    await waitFor('the US scan', () => scans.length >= 1, 15_000);
    expect(scans).toEqual(['8594000123456']);

    const t0 = performance.now();
    await dev.send({ cmd: 'destroy' });
    await waitFor('health not ok after UHID_DESTROY', () => !s.health().ok, 10_000);
    expect(s.health().detail).toMatch(/^HID barcode scanner 1234:5678 serial SCANNER-US missing/);
    console.error(`hid: not ok ${(performance.now() - t0).toFixed(0)} ms after UHID_DESTROY (${s.health().detail})`);

    const t1 = performance.now();
    await dev.send({ cmd: 'create', vendor: VID, product: PID, name: 'Pickup Fake Scanner', uniq: 'SCANNER-US' });
    await waitFor('reconnect after replug', () => s.health().ok, 15_000);
    console.error(`hid: ok again ${(performance.now() - t1).toFixed(0)} ms after UHID_CREATE2`);
    // The unplugged device's handle is released (node-hid closes it once its read ends): one left.
    await hidrawHandles(1, 5_000, 'the unplugged handle released, one open');
    await dev.send({ cmd: 'input', reports: typeReports('us', 'AFTER-42') });
    await waitFor('a scan after replug', () => scans.length >= 2, 15_000);
    expect(scans).toEqual(['8594000123456', 'AFTER-42']);
  });

  it('a scanner left on the Czech layout yields the same digits (Shift + digit row)', async () => {
    const dev = await fakeDevice('SCANNER-CZ');
    const { s, scans } = scanner('cz-qwertz', null);
    await s.start();
    await waitFor('scanner open', () => s.health().ok, 15_000);
    const reports = typeReports('cz-qwertz', '8594000123456');
    // What the scanner sends really is Shift + digit row (the unshifted keys would be +ěščřžýáíé).
    expect(reports[0]).toEqual(report(0x02, 0x25));
    await dev.send({ cmd: 'input', reports });
    await waitFor('the Czech scan', () => scans.length >= 1, 15_000);
    expect(scans).toEqual(['8594000123456']);
  });

  it('PIN keypad: keypad digits, backspace, clear and enter', async () => {
    const dev = await fakeDevice('KEYPAD-1');
    const k = new HidKeypad({ ...timing, match: { vendorId: VID, productId: PID, serialNumber: 'KEYPAD-1' }, reportId: null, clearKeys: ['escape'], log });
    cleanup.push(() => closeDriver(k));
    const keys: KeypadKey[] = [];
    k.onKey((key) => keys.push(key));
    await k.start();
    await waitFor('keypad open', () => k.health().ok, 15_000);
    await dev.send({
      cmd: 'input',
      reports: [report(0, 0x59), UP, report(0, 0x62), UP, report(0, 0x2a), UP, report(0, 0x29), UP, report(0, 0x5e), UP, report(0, 0x58), UP],
    });
    await waitFor('six keys', () => keys.length >= 6, 15_000);
    expect(keys).toEqual([
      { kind: 'digit', digit: '1' },
      { kind: 'digit', digit: '0' },
      { kind: 'backspace' },
      { kind: 'clear' },
      { kind: 'digit', digit: '6' },
      { kind: 'enter' },
    ]);
  });
});
