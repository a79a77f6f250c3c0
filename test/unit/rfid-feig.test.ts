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
import {
  parseInventory,
  parseReadBlocks,
  parseSoftwareVersion,
  parseSystemInformation,
  requests,
  uidBytes,
  uidString,
} from '../../src/devices/rfid/feig/iso15693.js';
import { describeStatus, statusKind } from '../../src/devices/rfid/feig/status.js';
import { hexBytes } from '../support/library-tags.js';
import { feigIsoHost } from '../../src/devices/rfid/feig/session.js';
import { FeigReaderModel } from '../../src/devices/simulated/feig-reader-model.js';
import { iso28560_3Tag } from '../../src/devices/simulated/tag-images.js';

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
    // MEM-SIZE 03 1B: 28 blocks as ISO/IEC 15693 encodes them (n − 1), 27 as FEIG's manual reads them.
    expect(info).toEqual({ ok: true, value: { dsfid: 6, uid: 'E004010012345678', afi: 7, blockCounts: [28, 27], icReference: 1 } });
    // 0x0000: the tag does not support the command; the count is unknown.
    expect(parseSystemInformation(hexBytes('00 E004010012345678 00 00 00 01'))).toMatchObject({ ok: true, value: { blockCounts: null } });
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
    // 0xF1: the reader's firmware does not fit its hardware — the reader's fault, not radio trouble to retry.
    expect(statusKind(0xf1)).toBe('reader');
  });

  it("software version: SW-REV, D-REV, the hardware options, then the reader type (the model's 03 03 00 44 53 0D 30)", () => {
    expect(parseSoftwareVersion(hexBytes('03 03 00 44 53 0D 30'))).toEqual({ ok: true, value: { firmware: '3.3.0', hardwareOptions: 0x44, readerType: 0x53 } });
    expect(parseSoftwareVersion(hexBytes('03 03 00 44')).ok).toBe(false);
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

describe('the FEIG session against the model reader in process (fake timers)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const UID = 'E004010000000777';
  /** `onRequest`: what else comes down the line once a request is out, before the model's answer. */
  function connect(model: FeigReaderModel, frame: 'auto' | 'standard' | 'advanced' = 'auto', onRequest?: () => void) {
    let session: ReturnType<typeof feigIsoHost.session> | null = null;
    const link = {
      write: (b: Uint8Array) => {
        onRequest?.();
        queueMicrotask(() => model.receive(b));
        return Promise.resolve();
      },
    };
    const s = feigIsoHost.session(link, {
      device: 'RFID reader /dev/test',
      busAddress: 0xff,
      frame,
      answerTimeoutMs: 200,
      blockOrder: 'reversed',
      blocksPerRead: 16,
    });
    session = s;
    model.attach((chunk) => session?.receive(chunk));
    return s;
  }
  const settle = async <T>(p: Promise<T>): Promise<T> => {
    const out = p.then(
      (v) => ({ ok: true as const, v }),
      (e: unknown) => ({ ok: false as const, e }),
    );
    await vi.advanceTimersByTimeAsync(2_000);
    const r = await out;
    if (!r.ok) throw r.e;
    return r.v;
  };

  it('an ISO answer with a valid CRC but data that is no answer to the read is dropped and counted; the real answer is taken', async () => {
    const model = new FeigReaderModel();
    model.place(iso28560_3Tag({ uid: UID, itemId: 'JUNK-PROOF', afi: 0x07 }));
    const junk = encodeFrame({ type: 'advanced', address: 0, command: 0xb0, status: 0, data: hexBytes('DE AD BE EF 00') });
    let armed = false;
    // The junk lands while the read is in flight, before the model's answer.
    const s = connect(model, 'advanced', () => armed && s.receive(junk));
    await settle(s.probe());
    armed = true;
    const r = await settle(s.readBlocks(UID, 0, 8));
    expect(r.blockSize).toBe(4);
    expect(Buffer.from(r.bytes.subarray(3, 13)).toString('latin1')).toBe('JUNK-PROOF');
    expect(s.droppedAnswers()).toBe(1);
  });

  it('frame auto: advanced at open; a reader that answers only standard requests is spoken to in standard until the line reopens', async () => {
    const both = connect(new FeigReaderModel());
    expect(await settle(both.probe())).toBe('FEIG firmware 3.3.0, hardware options 0x44, reader type 0x53, advanced frames');
    const model = new FeigReaderModel({ requestFrames: 'standard', answerFrame: 'advanced' });
    model.place(iso28560_3Tag({ uid: UID, itemId: 'OLD-CPR', afi: 0x07 }));
    const s = connect(model);
    expect(await settle(s.probe())).toContain('standard frames');
    expect(await settle(s.inventory())).toEqual([{ uid: UID, dsfid: 0 }]);
    // Fixed to advanced, the same reader does not answer.
    await expect(settle(connect(model, 'advanced').probe())).rejects.toMatchObject({ kind: 'no-answer' });
  });

  it('system information as ISO (n − 1), literal and 0x0000, and a tag without it: the reader reads every block, no more', async () => {
    for (const memSize of ['iso', 'literal', 'none'] as const) {
      const model = new FeigReaderModel({ memSize });
      const tag = iso28560_3Tag({ uid: UID, itemId: 'MEM-' + memSize, afi: 0x07 });
      model.place(tag);
      const s = connect(model);
      await settle(s.probe());
      const info = await settle(s.tagInfo(UID));
      const blocks = tag.memory.length / tag.blockSize;
      expect(info?.blockCounts ?? null).toEqual(memSize === 'iso' ? [blocks, blocks - 1] : memSize === 'literal' ? [blocks + 1, blocks] : null);
    }
    const model = new FeigReaderModel();
    model.placeWithout(iso28560_3Tag({ uid: UID, itemId: 'NO-SYSINFO', afi: 0x07 }));
    const s = connect(model);
    await settle(s.probe());
    expect(await settle(s.tagInfo(UID))).toBeNull();
    const missing = await settle(s.readBlocks(UID, 200, 1).catch((e: unknown) => e));
    expect(s.blockMissing(missing)).toBe(true);
  });
});
