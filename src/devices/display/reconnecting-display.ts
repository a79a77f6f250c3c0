/**
 * What the displays on a link (serial, I2C) share: show() records the lines (lastShown() returns
 * them as given, before fitting: the technician port mirrors them) and asks for a write; writes are
 * one at a time with the latest lines winning (LatestWrite); while the display is missing show()
 * resolves at once with the lines kept, and they are written once it is back (`refresh()` from
 * `linkUp`).
 */
import type { Display } from '../types.js';
import type { Link } from '../reconnect.js';
import { ReconnectingDevice } from '../reconnecting-device.js';
import { LatestWrite } from './latest-write.js';

export abstract class ReconnectingDisplay<L extends Link> extends ReconnectingDevice<L> implements Display {
  private last: readonly string[] = [];
  private readonly writes = new LatestWrite(() => this.writeLatest());

  /**
   * Write the latest lines to the open link; false when there is nothing to write now (which ends
   * the run of writes until the next request).
   */
  protected abstract write(link: L, lines: readonly string[]): Promise<boolean>;

  /** Resolves once the lines reached the display, or at once while it is missing. */
  show(lines: readonly string[]): Promise<void> {
    this.last = [...lines];
    return this.flush();
  }

  lastShown(): readonly string[] {
    return this.last;
  }

  /** Write the latest lines; calls meanwhile coalesce into one more write. */
  protected flush(): Promise<void> {
    return this.writes.request();
  }

  /** Write the latest lines again after a reconnect; a failure is a log line (health says the rest). */
  protected refresh(): void {
    this.flush().catch((e: unknown) => this.log.warn({ device: this.name, error: String(e) }, 'display refresh after reconnect failed'));
  }

  /** The write under way, if any, settled. */
  protected writesSettled(): Promise<void> {
    return this.writes.settled();
  }

  private writeLatest(): Promise<boolean> {
    const link = this.link();
    if (this.closed || !link) return Promise.resolve(false);
    return this.write(link, this.last);
  }
}
