/** Pure framing of serial scanner bytes: terminators, split chunks, affixes, garbage, limits. */
import { describe, expect, it } from 'vitest';
import { FrameDecoder, type FramingOptions } from '../../src/devices/serial/framing.js';
import type { FrameResult } from '../../src/devices/vocabulary/frames.js';

const base: FramingOptions = { terminator: 'any', prefix: '', suffix: '', maxLength: 20 };
const dec = (o: Partial<FramingOptions> = {}) => new FrameDecoder({ ...base, ...o });
const b = (s: string) => Buffer.from(s, 'latin1');
const frames = (rs: FrameResult[]) => rs.map((r) => (r.kind === 'frame' ? r.value : `!${r.reason}`));

describe('terminators', () => {
  it('CR ends a frame; an LF after it starts garbage', () => {
    const d = dec({ terminator: 'CR' });
    expect(frames(d.push(b('A1\rB2\r')))).toEqual(['A1', 'B2']);
    expect(frames(d.push(b('C3\r\nD4\r')))).toEqual(['C3', '!non-printable']);
  });
  it('LF ends a frame', () => {
    expect(frames(dec({ terminator: 'LF' }).push(b('A1\nB2\n')))).toEqual(['A1', 'B2']);
  });
  it('CRLF needs both; a lone CR inside makes the frame non-printable', () => {
    const d = dec({ terminator: 'CRLF' });
    expect(frames(d.push(b('A1\r\nB2\r\n')))).toEqual(['A1', 'B2']);
    expect(frames(d.push(b('X\rY\r\n')))).toEqual(['!non-printable']);
    expect(frames(d.push(b('Z\n')))).toEqual([]); // a lone LF is data, not a terminator
    expect(frames(d.push(b('W\r\n')))).toEqual(['!non-printable']);
  });
  it('CRLF split between two chunks', () => {
    const d = dec({ terminator: 'CRLF' });
    expect(frames(d.push(b('A1\r')))).toEqual([]);
    expect(frames(d.push(b('\n')))).toEqual(['A1']);
  });
  it('any: CR, LF and CRLF all end one frame each, CRLF split too', () => {
    const d = dec({ terminator: 'any' });
    expect(frames(d.push(b('A\rB\nC\r\nD\r')))).toEqual(['A', 'B', 'C', 'D']);
    expect(frames(d.push(b('\nE\r\n')))).toEqual(['E']);
  });
  it('any: two CRs in a row are an empty frame (dropped)', () => {
    expect(frames(dec().push(b('A\r\rB\r')))).toEqual(['A', '!empty', 'B']);
  });
  it('none: only flush() (an idle gap) ends a frame', () => {
    const d = dec({ terminator: 'none' });
    expect(d.push(b('04A5'))).toEqual([]);
    expect(d.push(b('B6'))).toEqual([]);
    expect(d.hasPartial()).toBe(true);
    expect(d.flush()).toEqual({ kind: 'frame', value: '04A5B6' });
    expect(d.hasPartial()).toBe(false);
    expect(d.flush()).toBeNull();
  });
});

describe('split writes, affixes, garbage', () => {
  it('joins a line split over many chunks', () => {
    const d = dec();
    const out: FrameResult[] = [];
    for (const ch of '3181234567890\r') out.push(...d.push(b(ch)));
    expect(frames(out)).toEqual(['3181234567890']);
  });
  it('strips prefix and suffix when present, keeps frames without them', () => {
    const d = dec({ terminator: 'none', prefix: '\u0002', suffix: '\u0003' });
    d.push(b('\u00020A1B2C3D4E\u0003'));
    expect(d.flush()).toEqual({ kind: 'frame', value: '0A1B2C3D4E' });
    d.push(b('0A1B'));
    expect(d.flush()).toEqual({ kind: 'frame', value: '0A1B' });
  });
  it('strips a multi-char AIM prefix', () => {
    expect(frames(dec({ prefix: ']C1' }).push(b(']C1ABC\r')))).toEqual(['ABC']);
  });
  it('a frame that is only prefix+suffix is empty', () => {
    expect(frames(dec({ prefix: '<', suffix: '>' }).push(b('<>\r')))).toEqual(['!empty']);
  });
  it('drops control bytes, DEL and 8-bit bytes', () => {
    expect(frames(dec().push(b('AB\u0007C\rA\u007fB\rAé\r')))).toEqual(['!non-printable', '!non-printable', '!non-printable']);
  });
  it('a dropped frame does not poison the next one', () => {
    expect(frames(dec().push(b('\u0000\u0001\rGOOD\r')))).toEqual(['!non-printable', 'GOOD']);
  });
  it('preview is escaped and truncated', () => {
    const [r] = dec().push(b('\u0001ABCDEFGHIJKLMNOPQRS\r'));
    expect(r).toEqual({ kind: 'dropped', reason: 'non-printable', length: 20, preview: '\\x01***************…' });
  });
});

describe('length limit', () => {
  it('accepts exactly maxLength, drops maxLength+1', () => {
    const d = dec({ maxLength: 5 });
    expect(frames(d.push(b('12345\r123456\r')))).toEqual(['12345', '!overlong']);
  });
  it('counts an endless line without buffering it, then recovers at the terminator', () => {
    const d = dec({ maxLength: 5 });
    for (let i = 0; i < 1000; i++) expect(d.push(b('xxxxxxxxxx'))).toEqual([]);
    const [r, ok] = d.push(b('\rOK\r'));
    expect(r).toMatchObject({ kind: 'dropped', reason: 'overlong', length: 10_000 });
    expect(ok).toEqual({ kind: 'frame', value: 'OK' });
  });
  it('CRLF: an overlong frame ends at its LF', () => {
    const d = dec({ terminator: 'CRLF', maxLength: 3 });
    expect(frames(d.push(b('123456789\r\nABC\r\n')))).toEqual(['!overlong', 'ABC']);
  });
  it('the limit applies after stripping affixes', () => {
    expect(frames(dec({ maxLength: 3, prefix: 'P', suffix: 'S' }).push(b('PABCS\rPABCDS\r')))).toEqual(['ABC', '!overlong']);
  });
  it('discard() drops a partial frame as incomplete, even with terminator none', () => {
    const d = dec({ terminator: 'none' });
    d.push(b('ABC'));
    expect(d.discard()).toMatchObject({ kind: 'dropped', reason: 'incomplete', length: 3 });
    expect(d.hasPartial()).toBe(false);
  });
  it('flush() with a terminator drops a stale partial frame', () => {
    const d = dec();
    d.push(b('AB'));
    expect(d.flush()).toMatchObject({ kind: 'dropped', reason: 'incomplete' });
    expect(frames(d.push(b('CD\r')))).toEqual(['CD']);
  });
});
