/** The profile sections scanners/keypad/display: defaults, hex USB ids, pass-through, problems with paths. */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { hidKeypadSchema, inputProfileObject, inputProfileSchema, refineInputProfile, type InputProfile } from '../../src/devices/input/index.js';

describe('inputProfileSchema', () => {
  it('empty profile: no scanners, no keypad, a 20×4 terminal display', () => {
    expect(inputProfileSchema.parse({})).toEqual({
      scanners: [],
      readers: [],
      keypad: null,
      display: { kind: 'terminal', columns: 20, rows: 4, overflow: 'wrap', charset: 'utf8', frame: 'unicode' },
    });
  });

  it('fills every default of serial and HID devices; USB ids in hex', () => {
    const p = inputProfileSchema.parse({
      scanners: [
        { kind: 'serial', identifierType: 'BAR_CODE', path: '/dev/pickup-barcode' },
        { kind: 'hid', identifierType: 'RFID', vendorId: '0x0c2e', productId: '0b61', layout: 'cz-qwertz' },
      ],
      keypad: { kind: 'hid', vendorId: 1241, productId: 0x1203 },
      display: { kind: 'serial', path: '/dev/pickup-display' },
    });
    expect(p.scanners[0]).toEqual({
      kind: 'serial',
      identifierType: 'BAR_CODE',
      path: '/dev/pickup-barcode',
      baudRate: 9600,
      dataBits: 8,
      parity: 'none',
      stopBits: 1,
      reconnect: { initialMs: 500, maxMs: 30_000, factor: 2 },
      openTimeoutMs: 5000,
      framing: { terminator: 'any', prefix: '', suffix: '', maxLength: 128, idleGapMs: 200 },
    });
    expect(p.scanners[1]).toMatchObject({
      vendorId: 0x0c2e,
      productId: 0x0b61,
      layout: 'cz-qwertz',
      serialNumber: null,
      path: null,
      reportId: null,
      presenceCheckMs: 2000,
      frameTimeoutMs: 500,
      maxLength: 128,
    });
    expect(p.keypad).toMatchObject({ kind: 'hid', vendorId: 1241, productId: 0x1203, clearKeys: ['escape', 'numlock', 'delete', 'kp-asterisk', 'kp-slash'] });
    expect(p.display).toMatchObject({
      kind: 'serial',
      columns: 20,
      rows: 4,
      charset: 'ascii',
      overflow: 'wrap',
      writeTimeoutMs: 2000,
      protocol: { clear: '\f', lineEnd: '\r\n', rowStart: null, padLines: false },
    });
  });

  it('passes a gpio-matrix keypad section through untouched', () => {
    const keypad = { kind: 'gpio-matrix', rows: [{ chip: 'pinctrl-bcm2711', line: 5 }], columns: [], keys: '123456789*0#' };
    expect(inputProfileSchema.parse({ keypad }).keypad).toEqual(keypad);
  });

  it('reports problems with their paths', () => {
    const r = inputProfileSchema.safeParse({
      scanners: [
        { kind: 'serial', identifierType: 'BAR_CODE', path: 'ttyUSB0', framing: { terminator: 'TAB', maxLength: 500 } },
        { kind: 'hid', identifierType: 'QR', vendorId: 'zz', productId: 1, layout: 'de' },
      ],
      display: { kind: 'serial', path: '/dev/x', columns: 200, protocol: { rowStart: ['a'] } },
    });
    expect(r.success).toBe(false);
    const paths = r.error!.issues.map((i) => i.path.join('.')).sort();
    expect(paths).toEqual([
      'display.columns',
      'scanners.0.framing.maxLength',
      'scanners.0.framing.terminator',
      'scanners.0.path',
      'scanners.1.identifierType',
      'scanners.1.layout',
      'scanners.1.vendorId',
    ]);
  });

  it('rejects two devices on one serial path, identical HID matches, and short rowStart lists', () => {
    const r = inputProfileSchema.safeParse({
      scanners: [
        { kind: 'serial', identifierType: 'BAR_CODE', path: '/dev/ttyUSB0' },
        { kind: 'hid', identifierType: 'BAR_CODE', vendorId: 1, productId: 2 },
        { kind: 'hid', identifierType: 'RFID', vendorId: 1, productId: 2 },
      ],
      keypad: { kind: 'hid', vendorId: 1, productId: 2 },
      display: { kind: 'serial', path: '/dev/ttyUSB0', protocol: { rowStart: ['\u00feG\u0001\u0001'] } },
    });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      'scanners.2: names the HID device 0001:0002 of scanners.1 a second time: both would read it (give each a serialNumber or path)',
      'display.path: /dev/ttyUSB0 is already used by scanners.0.path',
      'display.protocol.rowStart: needs one entry per row (4)',
      'keypad: names the HID device 0001:0002 of scanners.1 a second time: both would read it (give each a serialNumber or path)',
    ]);
  });

  it('a HID device named twice where one naming leaves the serial number or path open; told apart by both, accepted', () => {
    const hid = { kind: 'hid', identifierType: 'BAR_CODE', vendorId: '0x0c2e', productId: '0x0b61' };
    const problems = (scanners: unknown[], keypad: unknown = null) => {
      const r = inputProfileSchema.safeParse({ scanners, keypad });
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };
    // Without a serial number the second scanner takes whichever unit comes first: maybe SN1's.
    expect(problems([{ ...hid, serialNumber: 'SN1' }, hid])).toEqual([
      'scanners.1: names the HID device 0c2e:0b61 of scanners.0 a second time: both would read it (give each a serialNumber or path)',
    ]);
    expect(problems([hid], { kind: 'hid', vendorId: '0x0c2e', productId: '0x0b61', path: '/dev/hidraw3' })).toEqual([
      'keypad: names the HID device 0c2e:0b61 of scanners.0 a second time: both would read it (give each a serialNumber or path)',
    ]);
    expect(
      problems([
        { ...hid, serialNumber: 'SN1' },
        { ...hid, serialNumber: 'SN2' },
      ]),
    ).toEqual([]);
    expect(
      problems([
        { ...hid, path: '/dev/hidraw1' },
        { ...hid, path: '/dev/hidraw2' },
      ]),
    ).toEqual([]);
    expect(problems([hid], { kind: 'hid', vendorId: '0x04d9', productId: '0x1203' })).toEqual([]);
  });
});

describe('composing into a board profile (what src/devices/board.ts does)', () => {
  // A stand-in for the GPIO engineer's own matrix keypad schema.
  const matrix = z.strictObject({ kind: z.literal('gpio-matrix'), rows: z.array(z.number()), columns: z.array(z.number()) });
  const board = z
    .strictObject({
      name: z.string(),
      ...inputProfileObject.shape,
      keypad: z.discriminatedUnion('kind', [hidKeypadSchema, matrix]).nullable().default(null),
    })
    .superRefine(refineInputProfile);

  it('spreads the sections, validates the matrix keypad strictly, keeps the cross-device checks', () => {
    const ok = board.parse({ name: 'pi4', keypad: { kind: 'gpio-matrix', rows: [1, 2], columns: [3] } });
    // The result is what createInputDevices takes.
    const sections: InputProfile = ok;
    expect(sections.keypad).toEqual({ kind: 'gpio-matrix', rows: [1, 2], columns: [3] });
    expect(board.safeParse({ name: 'x', keypad: { kind: 'gpio-matrix', rows: [] } }).error?.issues[0]?.path).toEqual(['keypad', 'columns']);
    const dup = board.safeParse({
      name: 'x',
      scanners: [{ kind: 'serial', identifierType: 'RFID', path: '/dev/a' }],
      display: { kind: 'serial', path: '/dev/a' },
    });
    expect(dup.error?.issues.map((i) => i.path.join('.'))).toEqual(['display.path']);
  });
});
