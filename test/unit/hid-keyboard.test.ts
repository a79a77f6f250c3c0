/** Pure HID decoding: boot reports → key presses → characters (US, Czech QWERTZ) → identifiers. */
import { describe, expect, it } from 'vitest';
import { BootReportDecoder, MOD, type KeyPress } from '../../src/devices/hid/keyboard.js';
import { LAYOUTS, type LayoutName } from '../../src/devices/hid/layouts.js';
import { decodeKey, WedgeAssembler } from '../../src/devices/hid/wedge.js';
import type { FrameResult } from '../../src/devices/vocabulary/frames.js';
import { report, typeReports, UP } from '../support/hid-reports.js';

const SHIFT = MOD.leftShift;
const ALTGR = MOD.rightAlt;

/** Run reports through the whole pure pipeline. */
function decode(layout: LayoutName, reports: readonly number[][], maxLength = 64): FrameResult[] {
  const d = new BootReportDecoder();
  const a = new WedgeAssembler(maxLength);
  const out: FrameResult[] = [];
  for (const r of reports) {
    const res = d.push(Uint8Array.from(r));
    if (res.kind === 'error') {
      if (res.reason === 'rollover') a.rollover();
      continue;
    }
    for (const p of res.pressed) {
      const f = a.key(decodeKey(LAYOUTS[layout], p));
      if (f) out.push(f);
    }
  }
  return out;
}
const values = (rs: FrameResult[]) => rs.map((r) => (r.kind === 'frame' ? r.value : `!${r.reason}`));
const key = (layout: LayoutName, usage: number, modifiers = 0) => decodeKey(LAYOUTS[layout], { usage, modifiers });
const ch = (layout: LayoutName, usage: number, modifiers = 0) => {
  const k = key(layout, usage, modifiers);
  return k.kind === 'char' ? k.char : `<${k.kind}>`;
};

describe('BootReportDecoder', () => {
  it('a key counts once while held, again after release', () => {
    const d = new BootReportDecoder();
    expect(d.push(Uint8Array.from(report(0, 0x04)))).toEqual({ kind: 'keys', pressed: [{ usage: 0x04, modifiers: 0 }], down: [0x04] });
    expect(d.push(Uint8Array.from(report(0, 0x04)))).toEqual({ kind: 'keys', pressed: [], down: [0x04] });
    expect(d.push(Uint8Array.from(UP))).toEqual({ kind: 'keys', pressed: [], down: [] });
    expect(d.push(Uint8Array.from(report(0, 0x04)))).toMatchObject({ pressed: [{ usage: 0x04 }] });
  });
  it('rollover: only newly pressed keys, in report order, with the modifiers of their report', () => {
    const d = new BootReportDecoder();
    d.push(Uint8Array.from(report(0, 0x04)));
    const r = d.push(Uint8Array.from(report(SHIFT, 0x04, 0x05, 0x06)));
    expect(r).toEqual({
      kind: 'keys',
      pressed: [{ usage: 0x05, modifiers: SHIFT } satisfies KeyPress, { usage: 0x06, modifiers: SHIFT }],
      down: [0x04, 0x05, 0x06],
    });
    // Releasing one of three and pressing a new one in the same report.
    expect(d.push(Uint8Array.from(report(0, 0x06, 0x07, 0x05)))).toMatchObject({ pressed: [{ usage: 0x07 }] });
  });
  it('ErrorRollOver (0x01 in every slot) is an error and leaves the held set alone', () => {
    const d = new BootReportDecoder();
    d.push(Uint8Array.from(report(0, 0x04)));
    expect(d.push(Uint8Array.from(report(0, 1, 1, 1, 1, 1, 1)))).toEqual({ kind: 'error', reason: 'rollover' });
    // 0x04 still held: not a new press.
    expect(d.push(Uint8Array.from(report(0, 0x04, 0x05)))).toMatchObject({ pressed: [{ usage: 0x05 }] });
  });
  it('POSTFail and ErrorUndefined are errors too; short reports are errors', () => {
    const d = new BootReportDecoder();
    expect(d.push(Uint8Array.from(report(0, 2)))).toEqual({ kind: 'error', reason: 'rollover' });
    expect(d.push(Uint8Array.from(report(0, 3)))).toEqual({ kind: 'error', reason: 'rollover' });
    expect(d.push(Uint8Array.from([0, 0, 4]))).toEqual({ kind: 'error', reason: 'short' });
  });
  it('strips a configured report id', () => {
    const d = new BootReportDecoder({ reportId: 1 });
    expect(d.push(Uint8Array.from([1, ...report(0, 0x1e)]))).toMatchObject({ pressed: [{ usage: 0x1e }] });
  });
  it('reset() forgets held keys', () => {
    const d = new BootReportDecoder();
    d.push(Uint8Array.from(report(0, 0x04)));
    d.reset();
    expect(d.push(Uint8Array.from(report(0, 0x04)))).toMatchObject({ pressed: [{ usage: 0x04 }] });
  });
});

describe('US layout', () => {
  it('letters, Shift, digit row and its shifted symbols', () => {
    expect([...Array(26).keys()].map((i) => ch('us', 0x04 + i)).join('')).toBe('abcdefghijklmnopqrstuvwxyz');
    expect([...Array(26).keys()].map((i) => ch('us', 0x04 + i, MOD.rightShift)).join('')).toBe('ABCDEFGHIJKLMNOPQRSTUVWXYZ');
    expect([...Array(10).keys()].map((i) => ch('us', 0x1e + i)).join('')).toBe('1234567890');
    expect([...Array(10).keys()].map((i) => ch('us', 0x1e + i, SHIFT)).join('')).toBe('!@#$%^&*()');
  });
  it('punctuation, plain and shifted', () => {
    const us = [0x2c, 0x2d, 0x2e, 0x2f, 0x30, 0x31, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38];
    expect(us.map((u) => ch('us', u)).join('')).toBe(" -=[]\\;'`,./");
    expect(us.map((u) => ch('us', u, SHIFT)).join('')).toBe(' _+{}|:"~<>?');
  });
  it('keypad digits and operators, independent of Shift', () => {
    expect([...Array(10).keys()].map((i) => ch('us', 0x59 + i)).join('')).toBe('1234567890');
    expect([0x54, 0x55, 0x56, 0x57, 0x63].map((u) => ch('us', u, SHIFT)).join('')).toBe('/*-+.');
  });
  it('Enter and KP Enter terminate; modifiers and locks are ignored; AltGr and chords are unknown', () => {
    expect(key('us', 0x28)).toEqual({ kind: 'enter' });
    expect(key('us', 0x58)).toEqual({ kind: 'enter' });
    for (const u of [0xe0, 0xe1, 0xe5, 0xe6, 0x39, 0x53]) expect(key('us', u)).toEqual({ kind: 'ignore' });
    expect(key('us', 0x1e, ALTGR)).toEqual({ kind: 'unknown', usage: 0x1e });
    expect(key('us', 0x04, MOD.leftCtrl)).toEqual({ kind: 'unknown', usage: 0x04 });
    expect(key('us', 0x04, MOD.leftAlt)).toEqual({ kind: 'unknown', usage: 0x04 });
    expect(key('us', 0x04, MOD.leftGui)).toEqual({ kind: 'unknown', usage: 0x04 });
    expect(key('us', 0x2b)).toEqual({ kind: 'unknown', usage: 0x2b }); // Tab
    expect(key('us', 0x3a)).toEqual({ kind: 'unknown', usage: 0x3a }); // F1
  });
});

describe('Czech QWERTZ layout', () => {
  it('unshifted digit row gives +ěščřžýáíé, shifted gives the digits', () => {
    expect([...Array(10).keys()].map((i) => ch('cz-qwertz', 0x1e + i)).join('')).toBe('+ěščřžýáíé');
    expect([...Array(10).keys()].map((i) => ch('cz-qwertz', 0x1e + i, SHIFT)).join('')).toBe('1234567890');
    expect([...Array(10).keys()].map((i) => ch('cz-qwertz', 0x1e + i, ALTGR)).join('')).toBe('!@#$%^&*{}');
  });
  it('Y and Z are swapped', () => {
    expect(ch('cz-qwertz', 0x1c)).toBe('z');
    expect(ch('cz-qwertz', 0x1d)).toBe('y');
    expect(ch('cz-qwertz', 0x1c, SHIFT)).toBe('Z');
    expect(ch('cz-qwertz', 0x1d, SHIFT)).toBe('Y');
    expect([...Array(26).keys()].map((i) => ch('cz-qwertz', 0x04 + i)).join('')).toBe('abcdefghijklmnopqrstuvwxzy');
  });
  it('punctuation of the main block, plain / Shift / AltGr', () => {
    const u = [0x2d, 0x2f, 0x30, 0x33, 0x34, 0x36, 0x37, 0x38, 0x64];
    expect(u.map((x) => ch('cz-qwertz', x)).join('')).toBe('=ú)ů§,.-\\');
    expect(u.map((x) => ch('cz-qwertz', x, SHIFT)).join('')).toBe('%/("!?:_|');
    expect([0x2f, 0x30, 0x33, 0x34, 0x36, 0x37, 0x38, 0x64].map((x) => ch('cz-qwertz', x, ALTGR)).join('')).toBe("[]$'<>*/");
  });
  it('AltGr letters give the ASCII symbols a Czech-mode scanner types with them', () => {
    const pairs: Array<[string, string]> = [
      ['q', '\\'],
      ['w', '|'],
      ['v', '@'],
      ['x', '#'],
      ['c', '&'],
      ['b', '{'],
      ['n', '}'],
      ['f', '['],
      ['g', ']'],
      ['m', '^'],
      ['a', '~'],
    ];
    for (const [l, sym] of pairs) expect(ch('cz-qwertz', 0x04 + l.charCodeAt(0) - 0x61, ALTGR)).toBe(sym);
  });
  it('dead keys have no character', () => {
    expect(key('cz-qwertz', 0x2e)).toEqual({ kind: 'unknown', usage: 0x2e });
    expect(key('cz-qwertz', 0x2e, SHIFT)).toEqual({ kind: 'unknown', usage: 0x2e });
    expect(key('cz-qwertz', 0x31)).toEqual({ kind: 'unknown', usage: 0x31 });
    expect(key('cz-qwertz', 0x35, SHIFT)).toEqual({ kind: 'unknown', usage: 0x35 });
  });
});

describe('whole scans', () => {
  it('the same barcode from a scanner in US mode and in Czech mode decodes to the same digits', () => {
    // Hand-written bytes: US sends plain digit-row keys, Czech mode sends Shift + digit-row keys.
    const us = [report(0, 0x20), UP, report(0, 0x1e), UP, report(0, 0x25), UP, report(0, 0x27), UP, report(0, 0x28), UP];
    const cz = [report(SHIFT, 0x20), UP, report(SHIFT, 0x1e), UP, report(SHIFT, 0x25), UP, report(SHIFT, 0x27), UP, report(0, 0x28), UP];
    expect(values(decode('us', us))).toEqual(['3180']);
    expect(values(decode('cz-qwertz', cz))).toEqual(['3180']);
  });
  it('a Czech-mode scanner read as US gives symbols; a US-mode scanner read as Czech is dropped (non-ASCII)', () => {
    const cz = [report(SHIFT, 0x20), UP, report(SHIFT, 0x1e), UP, report(0, 0x28)];
    expect(values(decode('us', cz))).toEqual(['#!']);
    const us = [report(0, 0x20), report(0, 0x1e), report(0, 0x28)];
    const [r] = decode('cz-qwertz', us);
    expect(r).toEqual({ kind: 'dropped', reason: 'non-printable', length: 2, preview: '\\u0161+' });
  });
  it('the fake scanner types Czech-mode digits as Shift + digit row, not keypad keys', () => {
    // What the rig's fake keyboard sends: a regression pin for the test helper itself.
    expect(typeReports('cz-qwertz', '8')[0]).toEqual(report(MOD.leftShift, 0x25));
    expect(typeReports('us', '8')[0]).toEqual(report(0, 0x25));
  });
  it('mixed-case alphanumerics with symbols in both layouts', () => {
    const code = 'LIB-2024/Zy_0042#x@7';
    expect(values(decode('us', typeReports('us', code)))).toEqual([code]);
    expect(values(decode('cz-qwertz', typeReports('cz-qwertz', code)))).toEqual([code]);
  });
  it('a fast scanner that presses the next key before releasing the previous one', () => {
    const r = [report(0, 0x1e), report(0, 0x1e, 0x1f), report(0, 0x1f), report(0, 0x1f, 0x20), UP, report(0, 0x28), UP];
    expect(values(decode('us', r))).toEqual(['123']);
  });
  it('consecutive scans, and repeated characters with releases in between', () => {
    expect(values(decode('us', [...typeReports('us', '1100'), ...typeReports('us', 'ab')]))).toEqual(['1100', 'ab']);
  });
  it('Enter with nothing typed is an empty frame (dropped)', () => {
    expect(values(decode('us', [report(0, 0x28), UP]))).toEqual(['!empty']);
  });
  it('an unknown usage spoils its frame only', () => {
    const r = [report(0, 0x1e), UP, report(0, 0x3a), UP, report(0, 0x28), UP, ...typeReports('us', '42')];
    const out = decode('us', r);
    expect(values(out)).toEqual(['!unknown-key', '42']);
    expect(out[0]).toMatchObject({ preview: '*\\xbf**' });
  });
  it('a rollover error mid-frame spoils the frame (keys may be lost)', () => {
    const r = [report(0, 0x1e), report(0, 1, 1, 1, 1, 1, 1), UP, report(0, 0x1f), UP, report(0, 0x28), UP];
    expect(values(decode('us', r))).toEqual(['!rollover']);
  });
  it('overlong frames without Enter are counted, not buffered, and dropped at Enter', () => {
    const r = typeReports('us', 'x'.repeat(500));
    expect(values(decode('us', r, 32))).toEqual(['!overlong']);
    expect(values(decode('us', typeReports('us', 'x'.repeat(32)), 32))).toEqual(['x'.repeat(32)]);
  });
  it('discard() drops a frame that never got its Enter', () => {
    const a = new WedgeAssembler(10);
    a.key({ kind: 'char', char: '1' });
    expect(a.discard()).toMatchObject({ kind: 'dropped', reason: 'incomplete', length: 1 });
    expect(a.hasPartial()).toBe(false);
  });
});
