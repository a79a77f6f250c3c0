/**
 * A FEIG ISO host-protocol reader, modelled at the byte level from the protocol's description: it
 * reads request frames (standard and advanced) from its serial line, checks their CRC and bus
 * address, and answers from the tags lying in its field — memory images with UID, DSFID, AFI and
 * EAS bit. It is the simulated reader of `hardware.kind: "simulated"` and the demo (in process),
 * and the far end of a pseudo-terminal in the tests, the VM rig and the bench.
 *
 * It has its own frame codec and CRC (not the driver's), so a mistake in either shows.
 *
 * What it answers:
 * | command                 | answer                                                                  |
 * |-------------------------|-------------------------------------------------------------------------|
 * | 0x65 software version   | status 0x00 and seven bytes of version information                      |
 * | 0x52 baud detection     | status 0x00                                                             |
 * | 0xB0 0x01 inventory     | every tag (DATA-SETS, TR-TYPE 0x03, DSFID, UID), `maxTagsPerAnswer` per |
 * |                         | answer with 0x94 "more data" until MODE 0x80 has fetched the rest;      |
 * |                         | 0x01 with no tag in the field; MODE 0x10 filters by AFI                  |
 * | 0xB0 0x23 read blocks   | DB-N, DB-SIZE, per block a security byte and the block, bytes reversed  |
 * | 0xB0 0x27 write AFI     | 0x00 (or 0x95 0x12 when the AFI is locked)                              |
 * | 0xB0 0x2B system info   | DSFID, UID, AFI, MEM-SIZE (block size − 1, blocks − 1), IC reference    |
 * | 0xB1 NXP A2/A3/A5       | EAS set, reset, alarm (the alarm answers only while EAS is set: 0x01)   |
 * | addressed, tag absent   | 0x01 no transponder                                                     |
 * | unknown command         | 0x80; unknown ISO command 0x82; short request data 0x81                 |
 * | wrong CRC, other address| nothing (a real reader stays silent)                                     |
 *
 * Timing: each answer leaves after the command's processing time (`timing`) plus, when `baudRate`
 * is set, the time the answer's bytes take on the line (11 bits a byte: 8E1), so that figures taken
 * against the model at 115200 baud are what the wire would allow. One request is processed at a time.
 *
 * Faults (`faults`, counters that the next answers use up): answers lost, late, with a wrong CRC,
 * with a length that lies, after garbage; tag commands failing with RF errors; writes that fail,
 * that fail but apply (half-succeed), or that answer OK without applying; the reader's own error
 * 0xF1 (firmware that does not fit the hardware); silence; a flood of unsolicited frames
 * (`startFlood`), of another command or of the ISO command with data that answers nothing.
 *
 * Readers as they are in the field (options): one that answers only standard requests
 * (`requestFrames`), one that answers in advanced frames whatever it was asked (`answerFrame`, as
 * FEIG's ID CPR manual shows), MEM-SIZE in system information as ISO/IEC 15693 has it (n − 1),
 * literally, or 0x0000 (`memSize`); and per tag, no system information at all (`placeWithout`).
 */

export interface ModelTag {
  readonly uid: string;
  dsfid: number;
  afi: number;
  eas: boolean;
  readonly blockSize: number;
  readonly memory: Uint8Array;
  afiLocked: boolean;
  readonly icReference: number;
}

export interface ModelTiming {
  /** Processing time of an inventory with no tag, ms ... */
  readonly inventoryMs: number;
  /** ... and per tag found (anticollision slots). */
  readonly perTagMs: number;
  readonly readMs: number;
  readonly perBlockMs: number;
  readonly writeMs: number;
  /** Any other command. */
  readonly otherMs: number;
}

export interface ModelFaults {
  /** Answer nothing at all. */
  silent: boolean;
  /** Extra delay before every answer, ms (a slow reader). */
  delayMs: number;
  /** The next N answers are lost. */
  dropAnswers: number;
  /** The next N answers carry a wrong CRC. */
  corruptCrc: number;
  /** The next N answers claim a length 3 bytes longer than they are. */
  lyingLength: number;
  /** The next N answers come after a burst of bytes that are no frame. */
  garbageBefore: number;
  /** The next N tag commands (read, system information, writes) fail with an RF communication error. */
  rfErrors: number;
  /** The next N security writes answer a write error and change nothing. */
  failWrites: number;
  /** The next N security writes answer a write error although they applied. */
  writeErrorButApplied: number;
  /** The next N security writes answer OK but change nothing. */
  writeOkNotApplied: number;
  /** The next N answers carry status 0xF1 (the reader's firmware does not fit its hardware). */
  readerError: number;
}

export interface FeigModelOptions {
  /** The reader's bus address (it answers this and 0xFF). */
  readonly address?: number;
  /** Emulate the line's time at this baud rate; null: answers are not held back for it. */
  readonly baudRate?: number | null;
  readonly timing?: Partial<ModelTiming>;
  /** Inventory records per answer before "more data" (a standard frame holds 24). */
  readonly maxTagsPerAnswer?: number;
  /** How blocks go out: reversed, as FEIG readers send them, or in memory order. */
  readonly blockOrder?: 'reversed' | 'memory';
  /** Which requests it answers: either frame type, or standard ones only (advanced ones it ignores). */
  readonly requestFrames?: 'any' | 'standard';
  /** How it answers: in the request's frame type, or always advanced. */
  readonly answerFrame?: 'as-asked' | 'advanced';
  /** MEM-SIZE in system information: ISO's n − 1, FEIG's literal values, or 0x0000 (unsupported). */
  readonly memSize?: 'iso' | 'literal' | 'none';
}

const STX = 0x02;
const BITS_PER_BYTE = 11;
const NO_FAULTS: ModelFaults = {
  silent: false,
  delayMs: 0,
  dropAnswers: 0,
  corruptCrc: 0,
  lyingLength: 0,
  garbageBefore: 0,
  rfErrors: 0,
  failWrites: 0,
  writeErrorButApplied: 0,
  writeOkNotApplied: 0,
  readerError: 0,
};
const ZERO_TIMING: ModelTiming = { inventoryMs: 0, perTagMs: 0, readMs: 0, perBlockMs: 0, writeMs: 0, otherMs: 0 };
/** The request's bytes this model keeps at most while waiting for the rest (garbage is dropped). */
const MAX_REQUEST = 1024;

function crc(bytes: readonly number[]): number {
  let c = 0xffff;
  for (const b of bytes) {
    c ^= b;
    for (let i = 0; i < 8; i++) c = c & 1 ? (c >>> 1) ^ 0x8408 : c >>> 1;
  }
  return c;
}

interface Request {
  readonly advanced: boolean;
  readonly address: number;
  readonly command: number;
  readonly data: readonly number[];
}

interface Reply {
  readonly status: number;
  readonly data: readonly number[];
  readonly workMs: number;
}

const hexToBytes = (uid: string): number[] => (uid.match(/../g) ?? []).map((h) => parseInt(h, 16));
const bytesToHex = (b: readonly number[]): string =>
  b
    .map((x) => x.toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase();

export class FeigReaderModel {
  readonly address: number;
  faults: ModelFaults = { ...NO_FAULTS };
  /** Requests seen (whole frames, CRC checked), by command byte, for tests. */
  readonly seen: { command: number; sub: number | null }[] = [];
  /** The time its answers took by the model's own account (processing and line time): the floor for the bench. */
  emulatedMs = 0;
  private readonly field = new Map<string, ModelTag>();
  private readonly timing: ModelTiming;
  private readonly baudRate: number | null;
  private readonly maxTags: number;
  private readonly reversed: boolean;
  private readonly requestFrames: 'any' | 'standard';
  private readonly answerFrame: 'as-asked' | 'advanced';
  private readonly memSize: 'iso' | 'literal' | 'none';
  private readonly noSystemInformation = new Set<string>();
  private buf: number[] = [];
  private sink: ((bytes: Uint8Array) => void) | null = null;
  private busy: Promise<void> = Promise.resolve();
  private inventoryRest: string[] = [];
  private flood: NodeJS.Timeout | null = null;
  private readonly pending = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(o: FeigModelOptions = {}) {
    this.address = o.address ?? 0x00;
    this.baudRate = o.baudRate ?? null;
    this.timing = { ...ZERO_TIMING, ...o.timing };
    this.maxTags = o.maxTagsPerAnswer ?? 24;
    this.reversed = (o.blockOrder ?? 'reversed') === 'reversed';
    this.requestFrames = o.requestFrames ?? 'any';
    this.answerFrame = o.answerFrame ?? 'as-asked';
    this.memSize = o.memSize ?? 'iso';
  }

  // --- the person in front of the reader ------------------------------------------------------------

  place(tag: { uid: string; dsfid: number; afi: number; eas: boolean; blockSize: number; memory: Uint8Array }): ModelTag {
    const t: ModelTag = { ...tag, memory: Uint8Array.from(tag.memory), afiLocked: false, icReference: 0x01 };
    this.field.set(tag.uid.toUpperCase(), t);
    return t;
  }

  /** A tag that does not answer Get System Information (the reader reports the tag's ISO error). */
  placeWithout(tag: { uid: string; dsfid: number; afi: number; eas: boolean; blockSize: number; memory: Uint8Array }): ModelTag {
    this.noSystemInformation.add(tag.uid.toUpperCase());
    return this.place(tag);
  }

  remove(uid: string): void {
    this.field.delete(uid.toUpperCase());
  }

  clear(): void {
    this.field.clear();
  }

  tag(uid: string): ModelTag | undefined {
    return this.field.get(uid.toUpperCase());
  }

  tags(): ModelTag[] {
    return [...this.field.values()];
  }

  // --- the serial line ------------------------------------------------------------------------------

  /** Where answers go (the line towards the station). */
  attach(sink: (bytes: Uint8Array) => void): void {
    this.sink = sink;
  }

  detach(): void {
    this.sink = null;
    this.buf = [];
  }

  /** Bytes from the station. */
  receive(chunk: Uint8Array): void {
    for (const b of chunk) this.buf.push(b);
    for (;;) {
      const r = this.takeRequest();
      if (r === 'wait') break;
      if (r === 'skip') continue;
      this.busy = this.busy.then(() => this.answer(r));
    }
    if (this.buf.length > MAX_REQUEST) this.buf = this.buf.slice(-MAX_REQUEST);
  }

  /**
   * Unsolicited frames every `intervalMs` (a reader in a scan mode nobody asked for, or a loop on the
   * line): of another command, or of the ISO command 0xB0 with status OK and data that is no answer
   * to any request (well-formed, valid CRC, junk inside).
   */
  startFlood(intervalMs: number, kind: 'other-command' | 'iso-junk' = 'other-command'): void {
    this.stopFlood();
    const payload = kind === 'other-command' ? [this.address, 0x22, 0x00, 1, 2, 3, 4] : [this.address, 0xb0, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00];
    this.flood = setInterval(() => {
      this.sink?.(Uint8Array.from(this.withCrc(true, payload, 0)));
    }, intervalMs);
  }

  stopFlood(): void {
    if (this.flood !== null) clearInterval(this.flood);
    this.flood = null;
  }

  close(): void {
    this.closed = true;
    this.stopFlood();
    for (const t of this.pending) clearTimeout(t);
    this.pending.clear();
    this.sink = null;
  }

  /** A whole request from the buffer; 'skip' after dropping a byte that starts none; 'wait' for more. */
  private takeRequest(): Request | 'wait' | 'skip' {
    const b = this.buf;
    if (b.length === 0) return 'wait';
    const advanced = b[0] === STX;
    if (advanced && b.length < 3) return 'wait';
    const length = advanced ? ((b[1] ?? 0) << 8) | (b[2] ?? 0) : (b[0] ?? 0);
    const min = advanced ? 7 : 5;
    if (length < min || length > MAX_REQUEST) {
      b.shift();
      return 'skip';
    }
    if (b.length < length) return 'wait';
    const frame = b.slice(0, length);
    const sum = (frame[length - 2] ?? 0) | ((frame[length - 1] ?? 0) << 8);
    if (crc(frame.slice(0, length - 2)) !== sum) {
      b.shift();
      return 'skip';
    }
    this.buf = b.slice(length);
    const at = advanced ? 3 : 1;
    return { advanced, address: frame[at] ?? 0, command: frame[at + 1] ?? 0, data: frame.slice(at + 2, length - 2) };
  }

  private withCrc(advanced: boolean, payload: number[], lie: number): number[] {
    const head = advanced ? [STX, 0, 0] : [0];
    const length = head.length + payload.length + 2;
    const claimed = length + lie;
    if (advanced) {
      head[1] = claimed >> 8;
      head[2] = claimed & 0xff;
    } else head[0] = claimed & 0xff;
    const bytes = [...head, ...payload];
    const c = crc(bytes);
    return [...bytes, c & 0xff, c >> 8];
  }

  private answer(req: Request): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.seen.push({ command: req.command, sub: req.command === 0xb0 || req.command === 0xb1 ? (req.data[req.command === 0xb0 ? 0 : 1] ?? null) : null });
    if (req.address !== this.address && req.address !== 0xff) return Promise.resolve();
    if (req.advanced && this.requestFrames === 'standard') return Promise.resolve();
    const f = this.faults;
    const reply = f.readerError > 0 ? (f.readerError--, { status: 0xf1, data: [], workMs: this.timing.otherMs }) : this.execute(req);
    if (f.silent) return Promise.resolve();
    if (f.dropAnswers > 0) {
      f.dropAnswers--;
      return this.wait(reply.workMs + f.delayMs);
    }
    const lie = f.lyingLength > 0 ? (f.lyingLength--, 3) : 0;
    const payload = [this.address, req.command, reply.status, ...reply.data];
    let bytes = this.withCrc(req.advanced || this.answerFrame === 'advanced', payload, lie);
    if (f.corruptCrc > 0) {
      f.corruptCrc--;
      bytes = [...bytes.slice(0, -1), (bytes[bytes.length - 1] ?? 0) ^ 0x5a];
    }
    if (f.garbageBefore > 0) {
      f.garbageBefore--;
      bytes = [0x00, 0x03, 0x01, 0x00, 0x04, 0xff, 0x7f, ...bytes];
    }
    const lineMs = this.baudRate === null ? 0 : (bytes.length * BITS_PER_BYTE * 1000) / this.baudRate;
    this.emulatedMs += reply.workMs + f.delayMs + lineMs;
    const out = Uint8Array.from(bytes);
    return this.wait(reply.workMs + f.delayMs + lineMs).then(() => {
      if (!this.closed) this.sink?.(out);
    });
  }

  private wait(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.pending.delete(t);
        resolve();
      }, ms);
      this.pending.add(t);
    });
  }

  private execute(req: Request): Reply {
    const t = this.timing;
    switch (req.command) {
      case 0x65:
        return { status: 0x00, data: [0x03, 0x03, 0x00, 0x44, 0x53, 0x0d, 0x30], workMs: t.otherMs };
      case 0x52:
        return { status: 0x00, data: [], workMs: t.otherMs };
      case 0xb0:
        return this.iso(req.data);
      case 0xb1:
        return this.nxp(req.data);
      default:
        return { status: 0x80, data: [], workMs: t.otherMs };
    }
  }

  /** The addressed tag of a tag command, or the reply that it cannot be reached. */
  private addressed(data: readonly number[], modeAt: number, minLength: number): ModelTag | Reply {
    const t = this.timing;
    if (data.length < minLength) return { status: 0x81, data: [], workMs: t.otherMs };
    if (((data[modeAt] ?? 0) & 0x01) === 0) return { status: 0x11, data: [], workMs: t.otherMs };
    const uid = bytesToHex(data.slice(modeAt + 1, modeAt + 9));
    const tag = this.field.get(uid);
    if (tag === undefined) return { status: 0x01, data: [], workMs: t.readMs };
    if (this.faults.rfErrors > 0) {
      this.faults.rfErrors--;
      return { status: 0x83, data: [], workMs: t.readMs };
    }
    return tag;
  }

  private iso(data: readonly number[]): Reply {
    const t = this.timing;
    switch (data[0] ?? -1) {
      case 0x01:
        return this.inventory(data);
      case 0x23: {
        const tag = this.addressed(data, 1, 12);
        if (!('uid' in tag)) return tag;
        const first = data[10] ?? 0;
        const count = data[11] ?? 0;
        const blocks = tag.memory.length / tag.blockSize;
        if (count === 0 || first + count > blocks) return { status: 0x95, data: [0x10], workMs: t.readMs };
        const out = [count, tag.blockSize];
        for (let i = first; i < first + count; i++) {
          const block = Array.from(tag.memory.subarray(i * tag.blockSize, (i + 1) * tag.blockSize));
          out.push(0x00, ...(this.reversed ? block.reverse() : block));
        }
        return { status: 0x00, data: out, workMs: t.readMs + count * t.perBlockMs };
      }
      case 0x27: {
        const tag = this.addressed(data, 1, 11);
        if (!('uid' in tag)) return tag;
        if (tag.afiLocked) return { status: 0x95, data: [0x12], workMs: t.writeMs };
        return this.write(() => (tag.afi = data[10] ?? 0));
      }
      case 0x2b: {
        const tag = this.addressed(data, 1, 10);
        if (!('uid' in tag)) return tag;
        if (this.noSystemInformation.has(tag.uid)) return { status: 0x95, data: [0x01], workMs: t.otherMs };
        const blocks = tag.memory.length / tag.blockSize;
        const memSize =
          this.memSize === 'none'
            ? [0, 0]
            : this.memSize === 'literal'
              ? [tag.blockSize & 0x1f, blocks & 0xff]
              : [(tag.blockSize - 1) & 0x1f, (blocks - 1) & 0xff];
        return { status: 0x00, data: [tag.dsfid, ...hexToBytes(tag.uid), tag.afi, ...memSize, tag.icReference], workMs: t.otherMs };
      }
      default:
        return { status: 0x82, data: [], workMs: t.otherMs };
    }
  }

  private inventory(data: readonly number[]): Reply {
    const t = this.timing;
    const mode = data[1] ?? 0;
    if ((mode & 0x80) === 0) {
      const afi = (mode & 0x10) !== 0 ? (data[2] ?? null) : null;
      this.inventoryRest = [...this.field.values()].filter((tag) => afi === null || afi === 0 || tag.afi === afi).map((tag) => tag.uid);
    }
    const now = this.inventoryRest.splice(0, this.maxTags).flatMap((uid) => {
      const tag = this.field.get(uid);
      return tag === undefined ? [] : [tag];
    });
    const workMs = t.inventoryMs + now.length * t.perTagMs;
    if (now.length === 0) return { status: 0x01, data: [], workMs };
    const records = now.flatMap((tag) => [0x03, tag.dsfid, ...hexToBytes(tag.uid)]);
    return { status: this.inventoryRest.length > 0 ? 0x94 : 0x00, data: [now.length, ...records], workMs };
  }

  private nxp(data: readonly number[]): Reply {
    const t = this.timing;
    if (data.length < 11) return { status: 0x81, data: [], workMs: t.otherMs };
    if (data[0] !== 0x04) return { status: 0x82, data: [], workMs: t.otherMs };
    const tag = this.addressed(data, 2, 11);
    if (!('uid' in tag)) return tag;
    switch (data[1] ?? -1) {
      case 0xa2:
        return this.write(() => (tag.eas = true));
      case 0xa3:
        return this.write(() => (tag.eas = false));
      case 0xa5:
        // A tag whose EAS bit is not set stays silent: the reader finds no transponder.
        return tag.eas ? { status: 0x00, data: new Array<number>(32).fill(0x5a), workMs: t.otherMs } : { status: 0x01, data: [], workMs: t.readMs };
      default:
        return { status: 0x82, data: [], workMs: t.otherMs };
    }
  }

  private write(apply: () => void): Reply {
    const f = this.faults;
    const workMs = this.timing.writeMs;
    if (f.failWrites > 0) {
      f.failWrites--;
      return { status: 0x03, data: [], workMs };
    }
    if (f.writeErrorButApplied > 0) {
      f.writeErrorButApplied--;
      apply();
      return { status: 0x03, data: [], workMs };
    }
    if (f.writeOkNotApplied > 0) {
      f.writeOkNotApplied--;
      return { status: 0x00, data: [], workMs };
    }
    apply();
    return { status: 0x00, data: [], workMs };
  }
}
