/**
 * FEIG's ISO host protocol, pure parts: frames and their CRC against public vectors, the frame
 * parser against a hostile line (garbage, a wrong CRC, a length that lies, a flood, bytes one at a
 * time), the ISO 15693 answer parsers and the status codes, and the one-exchange-at-a-time
 * exchanger on fake timers.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RfidReaderError } from '../../src/devices/rfid/errors.js';
import { Exchanger } from '../../src/devices/rfid/exchange.js';
import { encodeFrame, feigCrc, FrameParser, type Frame, type ParseEvent } from '../../src/devices/rfid/feig/frame.js';
import { parseInventory, parseReadBlocks, parseSystemInformation, requests, uidBytes, uidString } from '../../src/devices/rfid/feig/iso15693.js';
import { describeStatus, statusKind } from '../../src/devices/rfid/feig/status.js';
import { hexBytes } from '../support/library-tags.js';

const frames = (events: ParseEvent[]): Frame[] => events.flatMap((e) => (e.kind === 'frame' ? [e.frame] : []));

describe('frames (vectors: Amarok79/InlayTester.Drivers.FeigReader, Test_FeigRequest.cs and Test_FeigResponse.cs)', () => {
  it('requests, standard and advanced', () => {
    const read = { address: 0x12, command: 0x80, status: null, data: Uint8Array.of(0x07) };
    expect([...encodeFrame({ type: 'standard', ...read })]).toEqual([0x06, 0x12, 0x80, 0x07, 0xe5, 0x80]);
    expect([...encodeFrame({ type: 'advanced', ...read })]).toEqual([0x02, 0x00, 0x08, 0x12, 0x80, 0x07, 0xa0, 0x2d]);
    const version = { address: 0xff, command: 0x65, status: null, data: new Uint8Array(0) };
    expect([...encodeFrame({ type: 'standard', ...version })]).toEqual([0x05, 0xff, 0x65, 0xe5, 0xcb]);
    expect([...encodeFrame({ type: 'advanced', ...version })]).toEqual([0x02, 0x00, 0x07, 0xff, 0x65, 0x6e, 0x61]);
  });

  const STANDARD = hexBytes('0D 00 65 00 03 03 00 44 53 0D 30 33 09');
  const ADVANCED = hexBytes('02 00 0F 00 65 00 03 03 00 44 53 0D 30 74 69');

  it('responses, standard and advanced, with their CRC', () => {
    expect(feigCrc(STANDARD, STANDARD.length - 2)).toBe(0x0933);
    expect(feigCrc(ADVANCED, ADVANCED.length - 2)).toBe(0x6974);
    for (const bytes of [STANDARD, ADVANCED]) {
      const [f] = frames(new FrameParser(true).push(bytes));
      expect(f).toMatchObject({ address: 0x00, command: 0x65, status: 0x00 });
      expect([...(f?.data ?? [])]).toEqual([0x03, 0x03, 0x00, 0x44, 0x53, 0x0d, 0x30]);
    }
  });

  it('byte by byte: nothing until the last byte, then the frame', () => {
    const p = new FrameParser(true);
    for (let i = 0; i < ADVANCED.length - 1; i++) expect(p.push(ADVANCED.subarray(i, i + 1))).toEqual([]);
    expect(frames(p.push(ADVANCED.subarray(ADVANCED.length - 1)))).toHaveLength(1);
  });

  it('a wrong CRC is reported and dropped (Test_FeigResponse ChecksumError: 0x09 -> 0x08)', () => {
    const bad = Uint8Array.from(STANDARD);
    bad[bad.length - 1] = 0x08;
    const events = new FrameParser(true).push(bad);
    expect(events.some((e) => e.kind === 'bad-crc')).toBe(true);
    expect(frames(events)).toEqual([]);
  });

  it('garbage before a frame is skipped and counted; a frame after a wrong-CRC frame is still found', () => {
    const p = new FrameParser(true);
    const bad = Uint8Array.from(ADVANCED);
    bad[bad.length - 1] = (bad[bad.length - 1] ?? 0) ^ 0xff;
    const events = p.push(Uint8Array.from([0x00, 0x01, 0x03, ...bad, ...ADVANCED]));
    expect(events.filter((e) => e.kind === 'garbage').length).toBeGreaterThan(0);
    expect(events.some((e) => e.kind === 'bad-crc')).toBe(true);
    expect(frames(events)).toHaveLength(1);
  });

  it('a length that lies keeps the parser waiting, never past its cap; a flood of noise is dropped as it comes', () => {
    const p = new FrameParser(true, 64);
    const lying = Uint8Array.from(ADVANCED);
    lying[2] = 0x30; // claims 48 bytes
    expect(frames(p.push(lying))).toEqual([]);
    expect(p.pending()).toBe(lying.length);
    for (let i = 0; i < 100; i++) p.push(new Uint8Array(50).fill(0xa5));
    expect(p.pending()).toBeLessThanOrEqual(64);
  });
});

describe('ISO 15693 commands', () => {
  it('UIDs go most significant byte first', () => {
    expect(uidString(uidBytes('E004010012345678'))).toBe('E004010012345678');
    expect([...requests.readBlocks('E004010012345678', 0, 8)]).toEqual([0x23, 0x01, 0xe0, 0x04, 0x01, 0x00, 0x12, 0x34, 0x56, 0x78, 0x00, 0x08]);
    expect([...requests.writeAfi('E004010012345678', 0xc2)]).toEqual([0x27, 0x01, 0xe0, 0x04, 0x01, 0x00, 0x12, 0x34, 0x56, 0x78, 0xc2]);
    expect(() => uidBytes('E0040100')).toThrow(RangeError);
  });

  it('inventory records: TR-TYPE, DSFID, UID (the 10-byte records digibib/go-feig reads); a count that lies is refused', () => {
    const data = hexBytes('02 03 00 E004010012345678 03 06 E004010087654321');
    expect(parseInventory(data)).toEqual({
      ok: true,
      value: [
        { trType: 3, dsfid: 0, uid: 'E004010012345678' },
        { trType: 3, dsfid: 6, uid: 'E004010087654321' },
      ],
    });
    expect(parseInventory(hexBytes('03 03 00 E004010012345678')).ok).toBe(false);
  });

  it('system information and read blocks', () => {
    const info = parseSystemInformation(hexBytes('06 E004010012345678 07 03 1B 01'));
    expect(info).toEqual({ ok: true, value: { dsfid: 6, uid: 'E004010012345678', afi: 7, blockSize: 4, blockCount: 28, icReference: 1 } });
    const blocks = parseReadBlocks(hexBytes('02 04 00 44332211 01 88776655'), 2);
    expect(blocks.ok && blocks.value.security).toEqual([0, 1]);
    expect(blocks.ok && blocks.value.blocks.map((b) => [...b])).toEqual([
      [0x44, 0x33, 0x22, 0x11],
      [0x88, 0x77, 0x66, 0x55],
    ]);
    expect(parseReadBlocks(hexBytes('02 04 00 44332211'), 2).ok).toBe(false);
  });

  it('status codes are typed and named', () => {
    expect(statusKind(0x00)).toBeNull();
    expect(statusKind(0x94)).toBeNull();
    expect(statusKind(0x01)).toBe('no-transponder');
    expect(statusKind(0x83)).toBe('rf');
    expect(statusKind(0x03)).toBe('tag');
    expect(statusKind(0x80)).toBe('reader');
    expect(statusKind(0x42)).toBe('reader');
    expect(describeStatus(0x95, Uint8Array.of(0x12))).toBe('ISO 15693 error: block locked, cannot be changed');
  });
});

describe('the exchanger (fake timers)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function setup() {
    const written: Uint8Array[] = [];
    const link = { write: (b: Uint8Array) => (written.push(b), Promise.resolve()) };
    const ex = new Exchanger<Frame>('RFID reader /dev/test', link, new FrameParser(true), 200);
    return { ex, written };
  }
  const answer = (command: number, status = 0): Uint8Array => encodeFrame({ type: 'advanced', address: 0, command, status, data: Uint8Array.of(1) });

  it('one exchange at a time; an answer to another command is not taken', async () => {
    const { ex, written } = setup();
    const a = ex.exchange(Uint8Array.of(1), (f) => f.command === 0x65);
    const b = ex.exchange(Uint8Array.of(2), (f) => f.command === 0xb0);
    await vi.advanceTimersByTimeAsync(0);
    expect(written).toHaveLength(1);
    ex.receive(answer(0xb0));
    ex.receive(answer(0x65));
    await expect(a).resolves.toMatchObject({ command: 0x65 });
    await vi.advanceTimersByTimeAsync(0);
    expect(written).toHaveLength(2);
    ex.receive(answer(0xb0));
    await expect(b).resolves.toMatchObject({ command: 0xb0 });
  });

  it('no answer: a typed no-answer error saying what came instead', async () => {
    const cases: [string, (ex: Exchanger<Frame>) => void][] = [
      ['no answer within 200 ms', () => undefined],
      ['answers garbage', (ex) => ex.receive(Uint8Array.of(0, 1, 3, 4))],
      [
        'answers with a wrong CRC',
        (ex) => {
          const bad = answer(0x65);
          bad[bad.length - 1] = (bad[bad.length - 1] ?? 0) ^ 1;
          ex.receive(bad);
        },
      ],
    ];
    for (const [detail, line] of cases) {
      const { ex } = setup();
      const p = ex.exchange(Uint8Array.of(1), () => true);
      const check = expect(p).rejects.toMatchObject({ kind: 'no-answer', detail: expect.stringContaining(detail) as string });
      await vi.advanceTimersByTimeAsync(0);
      line(ex);
      await vi.advanceTimersByTimeAsync(250);
      await check;
    }
  });

  it('an answer that comes after its time-out is waited out and dropped, never taken for the next request', async () => {
    const { ex, written } = setup();
    const first = ex.exchange(Uint8Array.of(1), () => true);
    const firstCheck = expect(first).rejects.toBeInstanceOf(RfidReaderError);
    await vi.advanceTimersByTimeAsync(250);
    await firstCheck;
    const second = ex.exchange(Uint8Array.of(2), () => true);
    await vi.advanceTimersByTimeAsync(100);
    ex.receive(answer(0x65)); // the first request's answer, late
    expect(written).toHaveLength(1);
    const secondCheck = expect(second).rejects.toMatchObject({ detail: 'answers too late (after more than 200 ms)' });
    await vi.advanceTimersByTimeAsync(600);
    expect(written).toHaveLength(2);
    await secondCheck;
  });

  it('bytes while nothing is asked are dropped: a stale answer is never taken for the next one', async () => {
    const { ex } = setup();
    ex.receive(answer(0x65));
    expect(ex.unsolicitedBytes).toBeGreaterThan(0);
    const p = ex.exchange(Uint8Array.of(1), (f) => f.command === 0x65);
    const check = expect(p).rejects.toBeInstanceOf(RfidReaderError);
    await vi.advanceTimersByTimeAsync(250);
    await check;
  });
});
