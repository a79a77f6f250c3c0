/**
 * One request, one answer, over a byte link: the half-duplex pattern of host-mode readers. At most
 * one exchange is on the line; the next waits. Bytes that arrive while nothing is asked (a reader
 * that floods, line noise after an unplug) are read and dropped, so they cannot pass for the
 * answer to the next request. An exchange ends with the first frame the caller accepts, or fails
 * after the answer timeout with what was seen instead (nothing, garbage, a wrong CRC, an
 * incomplete frame) — the words of the device's health detail when it keeps happening. A whole
 * frame the caller does not accept (another command, another bus address, data that cannot be
 * this request's answer) is dropped and counted, and the exchange keeps waiting for its own.
 */
import { sleep } from '../../time.js';
import { RfidReaderError } from './errors.js';
import type { ReaderLink } from './family.js';

/** What a family's frame parser makes of bytes: frames, and what it had to skip. */
export type ParsedEvent<F> =
  { readonly kind: 'frame'; readonly frame: F } | { readonly kind: 'bad-crc' } | { readonly kind: 'garbage'; readonly bytes: number };

export interface StreamParser<F> {
  push(chunk: Uint8Array): ParsedEvent<F>[];
  reset(): void;
  /** Bytes held waiting for the rest of a frame. */
  pending(): number;
}

interface Waiter<F> {
  readonly accept: (f: F) => boolean;
  readonly resolve: (f: F) => void;
  readonly reject: (e: Error) => void;
  garbage: number;
  badCrc: number;
  others: number;
  timer: NodeJS.Timeout | null;
}

export class Exchanger<F> {
  private waiter: Waiter<F> | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private closedWith: string | null = null;
  /** The last exchange got no answer: the next waits out a late one first. */
  private lastUnanswered = false;
  /** Bytes that came while waiting out a late answer (the reader answers, but too late). */
  private lateBytes = 0;
  private holding = false;
  /** Bytes read while nothing was asked (dropped). */
  unsolicitedBytes = 0;
  /** Whole frames that came while a request was in flight but are not its answer (dropped). */
  droppedFrames = 0;

  constructor(
    private readonly device: string,
    private readonly link: ReaderLink,
    private readonly parser: StreamParser<F>,
    private readonly answerTimeoutMs: number,
  ) {}

  receive(chunk: Uint8Array): void {
    const w = this.waiter;
    if (w === null) {
      this.unsolicitedBytes += chunk.length;
      if (this.holding) this.lateBytes += chunk.length;
      this.parser.reset();
      return;
    }
    for (const e of this.parser.push(chunk)) {
      if (e.kind === 'garbage') w.garbage += e.bytes;
      else if (e.kind === 'bad-crc') w.badCrc++;
      else if (w.accept(e.frame)) return this.settle(w, null, e.frame);
      else {
        w.others++;
        this.droppedFrames++;
      }
    }
  }

  /** Send `request` and wait for the first frame `accept` takes. */
  exchange(request: Uint8Array, accept: (f: F) => boolean): Promise<F> {
    const run = (): Promise<F> => this.once(request, accept);
    const p = this.chain.then(run, run);
    this.chain = p.catch(() => undefined);
    return p;
  }

  close(reason: string): void {
    this.closedWith = reason;
    const w = this.waiter;
    if (w !== null) this.settle(w, new RfidReaderError(this.device, 'no-answer', `link closed (${reason})`), null);
  }

  /**
   * The protocol has no sequence numbers: an answer that comes after its request timed out would
   * pass for the answer to the next request. So after an unanswered exchange the next one first
   * waits twice the answer timeout, dropping whatever comes meanwhile — a reader that is merely
   * slow then keeps failing (and is reported) instead of answering every request with the last one.
   */
  private async once(request: Uint8Array, accept: (f: F) => boolean): Promise<F> {
    let late = 0;
    if (this.lastUnanswered) {
      this.holding = true;
      this.lateBytes = 0;
      await sleep(this.answerTimeoutMs * 2);
      this.holding = false;
      late = this.lateBytes;
    }
    try {
      const f = await this.send(request, accept, late);
      this.lastUnanswered = false;
      return f;
    } catch (e) {
      if (e instanceof RfidReaderError && e.kind === 'no-answer') this.lastUnanswered = true;
      throw e;
    }
  }

  private send(request: Uint8Array, accept: (f: F) => boolean, late: number): Promise<F> {
    if (this.closedWith !== null) return Promise.reject(new RfidReaderError(this.device, 'no-answer', `link closed (${this.closedWith})`));
    return new Promise<F>((resolve, reject) => {
      // Whatever arrived before this request is stale: it cannot be this request's answer.
      this.parser.reset();
      const w: Waiter<F> = { accept, resolve, reject, garbage: 0, badCrc: 0, others: 0, timer: null };
      this.waiter = w;
      this.link.write(request, this.answerTimeoutMs).then(
        () => {
          if (this.waiter !== w) return;
          w.timer = setTimeout(() => this.settle(w, new RfidReaderError(this.device, 'no-answer', this.describeSilence(w, late)), null), this.answerTimeoutMs);
        },
        (e: unknown) => this.settle(w, new RfidReaderError(this.device, 'no-answer', `cannot send: ${e instanceof Error ? e.message : String(e)}`), null),
      );
    });
  }

  private describeSilence(w: Waiter<F>, late: number): string {
    const ms = this.answerTimeoutMs;
    if (late > 0 && w.garbage === 0 && w.badCrc === 0) return `answers too late (after more than ${ms} ms)`;
    if (w.badCrc > 0) return `answers with a wrong CRC (${w.badCrc} frame${w.badCrc === 1 ? '' : 's'} in ${ms} ms)`;
    if (w.garbage > 0) return `answers garbage (${w.garbage} bytes that are no frame in ${ms} ms)`;
    if (this.parser.pending() > 0) return `answer incomplete after ${ms} ms (${this.parser.pending()} bytes of a frame; its length may lie)`;
    if (w.others > 0) return `answers to something else (${w.others} frames, none for this request, in ${ms} ms)`;
    return `no answer within ${ms} ms`;
  }

  private settle(w: Waiter<F>, error: Error | null, frame: F | null): void {
    if (this.waiter !== w) return;
    this.waiter = null;
    if (w.timer !== null) clearTimeout(w.timer);
    this.parser.reset();
    if (error !== null) w.reject(error);
    else if (frame !== null) w.resolve(frame);
  }
}
