/**
 * The fake-HID child used by test/hw/hid.test.ts, checked here where /dev/uhid does not exist: it
 * writes its events into a plain file, and the bytes must follow the kernel's struct uhid_event
 * layout (4380 bytes; CREATE2 = 11, INPUT2 = 12, DESTROY = 1).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UhidChild } from '../support/uhid-child.js';

const EVENT = 4380;

describe('uhid-keyboard.mjs event encoding', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pickup-uhid-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('CREATE2, INPUT2 and DESTROY events byte by byte', async () => {
    const file = join(dir, 'uhid-events');
    writeFileSync(file, '');
    const child = new UhidChild(file);
    await child.send({ cmd: 'create', vendor: 0x1234, product: 0x5678, name: 'Fake Scanner', uniq: 'SN-42' });
    await child.send({ cmd: 'input', reports: [[2, 0, 0x1e, 0, 0, 0, 0, 0]], gapMs: 0 });
    await child.send({ cmd: 'destroy' });
    await child.exit();

    const b = readFileSync(file);
    expect(b.length).toBe(3 * EVENT);
    const create = b.subarray(0, EVENT);
    expect(create.readUInt32LE(0)).toBe(11);
    expect(create.subarray(4, 4 + 12).toString()).toBe('Fake Scanner');
    expect(create[4 + 12]).toBe(0);
    expect(create.subarray(196, 196 + 5).toString()).toBe('SN-42'); // uniq at 4+128+64
    expect(create.readUInt16LE(260)).toBe(63); // rd_size
    expect(create.readUInt16LE(262)).toBe(3); // bus = BUS_USB
    expect(create.readUInt32LE(264)).toBe(0x1234);
    expect(create.readUInt32LE(268)).toBe(0x5678);
    expect([...create.subarray(280, 284)]).toEqual([0x05, 0x01, 0x09, 0x06]); // Generic Desktop / Keyboard
    expect(create[280 + 62]).toBe(0xc0); // End Collection
    const input = b.subarray(EVENT, 2 * EVENT);
    expect(input.readUInt32LE(0)).toBe(12);
    expect(input.readUInt16LE(4)).toBe(8);
    expect([...input.subarray(6, 14)]).toEqual([2, 0, 0x1e, 0, 0, 0, 0, 0]);
    const destroy = b.subarray(2 * EVENT);
    expect(destroy.readUInt32LE(0)).toBe(1);
  });
});
