/**
 * FEIG's host protocol frames (the "ISO host protocol" of the ID ISC/ID CPR readers), pure.
 *
 * Standard frame (LENGTH is one byte, so at most 255 bytes):
 *     request:  LENGTH  COM-ADR  COMMAND  DATA…          CRC16-LSB  CRC16-MSB
 *     response: LENGTH  COM-ADR  COMMAND  STATUS  DATA…  CRC16-LSB  CRC16-MSB
 * Advanced frame (the readers of the last fifteen years; needed for answers over 255 bytes):
 *     request:  STX(0x02)  LEN-MSB  LEN-LSB  COM-ADR  COMMAND  DATA…          CRC16-LSB  CRC16-MSB
 *     response: STX(0x02)  LEN-MSB  LEN-LSB  COM-ADR  COMMAND  STATUS  DATA…  CRC16-LSB  CRC16-MSB
 *
 * LENGTH counts the whole frame, itself and the CRC included. The CRC is CRC-16 with polynomial
 * 0x8408 (0x1021 reflected), preset 0xFFFF, no final XOR, over every byte before it, sent least
 * significant byte first. A reader answers in the frame type it was asked in, with its own bus
 * address (COM-ADR; 0xFF in a request is the broadcast every reader answers). A standard frame
 * never starts with 0x02 (its shortest is 5 bytes), so one parser reads both.
 *
 * The parser is what stands between the station and a reader that answers garbage, floods, or
 * sends a length that lies: it never buffers past `maxFrameBytes`, skips bytes that cannot start a
 * frame, drops a frame whose CRC is wrong, and reports each of these as an event, not an error.
 */

export const STX = 0x02;
/** Bus address every reader answers. */
export const BROADCAST = 0xff;
/** The longest advanced frame the station accepts (an inventory of 64 tags is under 700 bytes). */
export const MAX_FRAME_BYTES = 4096;

export type FrameType = 'standard' | 'advanced';

/** CRC-16, polynomial 0x8408 (reflected), preset 0xFFFF, no final XOR. */
export function feigCrc(bytes: Uint8Array, end = bytes.length): number {
  let crc = 0xffff;
  for (let i = 0; i < end; i++) {
    crc ^= bytes[i] ?? 0;
    for (let j = 0; j < 8; j++) crc = crc & 1 ? (crc >>> 1) ^ 0x8408 : crc >>> 1;
  }
  return crc;
}

/** A request (no status byte) or a response (with one). */
export interface Frame {
  readonly type: FrameType;
  readonly address: number;
  readonly command: number;
  /** Responses only; null in a request. */
  readonly status: number | null;
  readonly data: Uint8Array;
}

function withCrc(head: number[], data: Uint8Array): Uint8Array {
  const out = new Uint8Array(head.length + data.length + 2);
  out.set(head, 0);
  out.set(data, head.length);
  const crc = feigCrc(out, out.length - 2);
  out[out.length - 2] = crc & 0xff;
  out[out.length - 1] = crc >>> 8;
  return out;
}

/** A frame's bytes: a request when `status` is null, else a response (the model reader sends those). */
export function encodeFrame(f: Frame): Uint8Array {
  const body = f.status === null ? [f.command] : [f.command, f.status];
  if (f.type === 'standard') {
    const length = 4 + body.length + f.data.length;
    if (length > 255) throw new RangeError(`a standard frame holds at most 255 bytes, this one needs ${length}`);
    return withCrc([length, f.address, ...body], f.data);
  }
  const length = 6 + body.length + f.data.length;
  if (length > 0xffff) throw new RangeError(`frame of ${length} bytes`);
  return withCrc([STX, length >>> 8, length & 0xff, f.address, ...body], f.data);
}

export type ParseEvent =
  | { readonly kind: 'frame'; readonly frame: Frame }
  /** A frame whose CRC does not match: dropped. */
  | { readonly kind: 'bad-crc'; readonly length: number }
  /** Bytes that cannot start a frame (or a length out of range): skipped. */
  | { readonly kind: 'garbage'; readonly bytes: number };

/**
 * Reads frames from a byte stream. `withStatus`: responses (the station reading a reader) or
 * requests (the model reader reading the station).
 */
export class FrameParser {
  private buf = new Uint8Array(0);
  private readonly minLength: { standard: number; advanced: number };

  constructor(
    private readonly withStatus: boolean,
    private readonly maxFrameBytes = MAX_FRAME_BYTES,
  ) {
    this.minLength = withStatus ? { standard: 6, advanced: 8 } : { standard: 5, advanced: 7 };
  }

  /** Bytes waiting for the rest of their frame. */
  pending(): number {
    return this.buf.length;
  }

  reset(): void {
    this.buf = new Uint8Array(0);
  }

  push(chunk: Uint8Array): ParseEvent[] {
    const joined = new Uint8Array(this.buf.length + chunk.length);
    joined.set(this.buf, 0);
    joined.set(chunk, this.buf.length);
    const events: ParseEvent[] = [];
    let pos = 0;
    let garbage = 0;
    const flushGarbage = (): void => {
      if (garbage > 0) events.push({ kind: 'garbage', bytes: garbage });
      garbage = 0;
    };
    while (pos < joined.length) {
      const first = joined[pos] ?? 0;
      const type: FrameType = first === STX ? 'advanced' : 'standard';
      const headerBytes = type === 'advanced' ? 3 : 1;
      if (joined.length - pos < headerBytes) break;
      const length = type === 'advanced' ? ((joined[pos + 1] ?? 0) << 8) | (joined[pos + 2] ?? 0) : first;
      if (length < this.minLength[type] || length > (type === 'standard' ? 255 : this.maxFrameBytes)) {
        garbage++;
        pos++;
        continue;
      }
      if (joined.length - pos < length) {
        // Waiting for more can only be right if no whole frame follows: a lying length must not
        // hold back the real answer behind it.
        const next = this.nextWholeFrame(joined, pos + 1);
        if (next < 0) break;
        garbage += next - pos;
        pos = next;
        continue;
      }
      const frameBytes = joined.subarray(pos, pos + length);
      const crc = (frameBytes[length - 2] ?? 0) | ((frameBytes[length - 1] ?? 0) << 8);
      if (feigCrc(frameBytes, length - 2) !== crc) {
        flushGarbage();
        events.push({ kind: 'bad-crc', length });
        // Resynchronise one byte on: a lying length must not swallow the real frame after it.
        pos++;
        continue;
      }
      flushGarbage();
      const at = headerBytes;
      events.push({
        kind: 'frame',
        frame: {
          type,
          address: frameBytes[at] ?? 0,
          command: frameBytes[at + 1] ?? 0,
          status: this.withStatus ? (frameBytes[at + 2] ?? 0) : null,
          data: frameBytes.slice(at + (this.withStatus ? 3 : 2), length - 2),
        },
      });
      pos += length;
    }
    flushGarbage();
    let rest = joined.subarray(pos);
    // A partial frame never grows past the largest frame: a stream of garbage is dropped as it comes.
    if (rest.length > this.maxFrameBytes) {
      events.push({ kind: 'garbage', bytes: rest.length - this.maxFrameBytes });
      rest = rest.subarray(rest.length - this.maxFrameBytes);
    }
    this.buf = rest.slice();
    return events;
  }

  /** The first position at or after `from` where a whole frame with a valid CRC starts, or -1. */
  private nextWholeFrame(b: Uint8Array, from: number): number {
    for (let q = from; q < b.length; q++) {
      const advanced = b[q] === STX;
      if (advanced && b.length - q < 3) continue;
      const length = advanced ? ((b[q + 1] ?? 0) << 8) | (b[q + 2] ?? 0) : (b[q] ?? 0);
      const type: FrameType = advanced ? 'advanced' : 'standard';
      if (length < this.minLength[type] || length > (advanced ? this.maxFrameBytes : 255) || b.length - q < length) continue;
      const crc = (b[q + length - 2] ?? 0) | ((b[q + length - 1] ?? 0) << 8);
      if (feigCrc(b.subarray(q, q + length), length - 2) === crc) return q;
    }
    return -1;
  }
}
