/**
 * Pure framing of a serial scanner's byte stream into identifiers.
 *
 * Scanners end each read with a terminator (CR, LF or CRLF, set in the scanner's own config) or
 * with nothing at all (many RFID readers: STX … ETX and a pause). Prefix and suffix (e.g. an
 * AIM symbology id "]C1", or STX/ETX) are stripped when present. What remains must be 1..maxLength
 * printable ASCII characters; anything else is reported as dropped (the driver logs it).
 *
 * Memory is bounded: an overlong frame is not buffered past its limit; its bytes are counted and
 * discarded until the frame ends.
 */

import { dropped, type FrameResult } from '../vocabulary/frames.js';

/**
 * - `CR`, `LF`, `CRLF`: exactly that sequence ends a frame.
 * - `any`: CR or LF ends a frame, and an LF right after a CR belongs to the same terminator, so
 *   scanners sending CR, LF or CRLF all work.
 * - `none`: only a pause of `idleGapMs` ends a frame (the driver calls flush()).
 */
export type Terminator = 'CR' | 'LF' | 'CRLF' | 'any' | 'none';

export interface FramingOptions {
  readonly terminator: Terminator;
  /** Stripped from the start of a frame when present (latin1: one char per byte, "\u0002" = STX). */
  readonly prefix: string;
  /** Stripped from the end of a frame when present. */
  readonly suffix: string;
  /** Longest identifier accepted (after stripping). */
  readonly maxLength: number;
}

const CR = 0x0d;
const LF = 0x0a;

export class FrameDecoder {
  private readonly buf: number[] = [];
  /** Bytes of the current frame, including those discarded past the limit. */
  private count = 0;
  private afterCr = false;
  private readonly limit: number;
  private readonly prefix: Buffer;
  private readonly suffix: Buffer;

  constructor(private readonly o: FramingOptions) {
    this.prefix = Buffer.from(o.prefix, 'latin1');
    this.suffix = Buffer.from(o.suffix, 'latin1');
    // +1: in CRLF mode the CR sits in the buffer until the LF arrives.
    this.limit = o.maxLength + this.prefix.length + this.suffix.length + 1;
  }

  /** Feed received bytes; returns every frame they complete. */
  push(chunk: Uint8Array): FrameResult[] {
    const out: FrameResult[] = [];
    for (const b of chunk) {
      const swallowLf = this.afterCr && b === LF;
      this.afterCr = false;
      switch (this.o.terminator) {
        case 'CR':
          if (b === CR) {
            out.push(this.end());
            continue;
          }
          break;
        case 'LF':
          if (b === LF) {
            out.push(this.end());
            continue;
          }
          break;
        case 'CRLF':
          if (b === LF && this.buf.length > 0 && this.buf[this.buf.length - 1] === CR && this.count === this.buf.length) {
            this.buf.pop();
            this.count--;
            out.push(this.end());
            continue;
          }
          if (b === LF && this.count > this.buf.length) {
            // Overlong frame: we cannot see whether its (discarded) last byte was CR; an LF ends it.
            out.push(this.end());
            continue;
          }
          break;
        case 'any':
          if (swallowLf) continue;
          if (b === CR || b === LF) {
            this.afterCr = b === CR;
            out.push(this.end());
            continue;
          }
          break;
        case 'none':
          break;
      }
      this.count++;
      if (this.buf.length < this.limit) this.buf.push(b);
    }
    return out;
  }

  /** Bytes of an unfinished frame are waiting. */
  hasPartial(): boolean {
    return this.count > 0;
  }

  /**
   * The line has been idle for the idle gap: with terminator `none` this ends the frame; with a
   * terminator the partial frame is stale (a scanner unplugged mid-frame, noise) and is dropped.
   */
  flush(): FrameResult | null {
    if (this.count === 0) return null;
    if (this.o.terminator === 'none') return this.end();
    return this.discard();
  }

  /** Drop an unfinished frame (device lost, stale bytes); null when there is none. */
  discard(): FrameResult | null {
    if (this.count === 0) return null;
    const r = drop('incomplete', this.count, Buffer.from(this.buf));
    this.reset();
    return r;
  }

  private end(): FrameResult {
    const count = this.count;
    const bytes = Buffer.from(this.buf);
    this.reset();
    if (count > bytes.length || count > this.limit - 1) return drop('overlong', count, bytes);
    let body = bytes;
    if (this.prefix.length > 0 && startsWith(body, this.prefix)) body = body.subarray(this.prefix.length);
    if (this.suffix.length > 0 && endsWith(body, this.suffix)) body = body.subarray(0, body.length - this.suffix.length);
    if (body.length === 0) return drop('empty', count, bytes);
    if (body.length > this.o.maxLength) return drop('overlong', count, bytes);
    if (!body.every((c) => c >= 0x20 && c <= 0x7e)) return drop('non-printable', count, bytes);
    return { kind: 'frame', value: body.toString('latin1') };
  }

  private reset(): void {
    this.buf.length = 0;
    this.count = 0;
  }
}

function startsWith(b: Buffer, p: Buffer): boolean {
  return b.length >= p.length && b.subarray(0, p.length).equals(p);
}
function endsWith(b: Buffer, s: Buffer): boolean {
  return b.length >= s.length && b.subarray(b.length - s.length).equals(s);
}

function drop(reason: Parameters<typeof dropped>[0], length: number, bytes: Buffer): FrameResult {
  return dropped(reason, length, bytes.toString('latin1'));
}
