/**
 * Debounce by re-reading: an edge (re)starts a timer; when the line has been quiet for `ms` the
 * value is read again and reported only if it differs from the last reported one. A glitch
 * shorter than `ms` therefore never reaches the station, and bounces of a reed switch collapse
 * into one change. onoff's own debounceTimeout is not used: it reports whatever it reads, even
 * an unchanged value.
 */
import { errorMessage } from '../../errors.js';
import type { InputLine } from './types.js';

export interface DebounceOptions {
  readonly ms: number;
  /** The level already known to the owner (read at open). */
  readonly initial: boolean;
  readonly onChange: (active: boolean) => void;
  readonly onError: (message: string) => void;
}

export class Debouncer {
  private timer: NodeJS.Timeout | undefined;
  private last: boolean;
  private stopped = false;

  constructor(
    private readonly line: InputLine,
    private readonly opts: DebounceOptions,
  ) {
    this.last = opts.initial;
    line.onEdge(() => this.edge());
  }

  /** The last reported (debounced) level. */
  get value(): boolean {
    return this.last;
  }

  private edge(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.settle();
    }, this.opts.ms);
  }

  private async settle(): Promise<void> {
    let now: boolean;
    try {
      now = await this.line.read();
    } catch (e) {
      this.opts.onError(errorMessage(e));
      return;
    }
    if (this.stopped || now === this.last) return;
    this.last = now;
    this.opts.onChange(now);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
