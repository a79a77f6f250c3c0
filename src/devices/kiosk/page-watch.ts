/**
 * Whether the kiosk page is on the screen, as the page itself tells it (docs/decisions/0137): it
 * holds its event stream open and sends a heartbeat from an animation frame (a page whose renderer
 * died, hung, or is not drawn sends none). A heartbeat counts while one of the page's event streams
 * is open: a page that cannot follow the station shows "Connecting…", not the station's screen.
 *
 * No counted heartbeat for `pageTimeoutMs` — from the start, or from the last one — is the
 * problem (`onChange` with why, once); the next counted heartbeat ends it (`onChange(null)`). The
 * time is the timers' own (monotonic); nothing here reads a clock.
 *
 * Heartbeats refused for want of the kiosk secret are named in the problem (once: a flood of them
 * changes nothing more), never counted.
 */

export interface PageWatchOptions {
  readonly pageTimeoutMs: number;
  /** The page's event streams open now. */
  readonly streams: () => number;
  /** The page missing (why) or back (null), on every change. */
  readonly onChange: (problem: string | null) => void;
}

/** How often the page sends its heartbeat: four in each `pageTimeoutMs`, so one lost or late one is no fault. */
export function heartbeatInterval(pageTimeoutMs: number): number {
  return Math.max(250, Math.floor(pageTimeoutMs / 4));
}

export class PageWatch {
  private timer: NodeJS.Timeout | null = null;
  private current: string | null = null;
  private everShown = false;
  private refused = false;
  private running = false;

  constructor(private readonly o: PageWatchOptions) {}

  /** Why no page is on the screen, or null (also before the first `pageTimeoutMs` has passed). */
  get problem(): string | null {
    return this.current;
  }

  /** The page's heartbeats since start are still awaited: the first `pageTimeoutMs` starts now. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.arm();
  }

  /** A heartbeat with the kiosk secret. True when it counted (an event stream of the page is open). */
  heartbeat(): boolean {
    if (!this.running || this.o.streams() === 0) return false;
    this.everShown = true;
    this.refused = false;
    this.arm();
    this.set(null);
    return true;
  }

  /** A heartbeat without the kiosk secret (answered 401 by the server). */
  refusedHeartbeat(): void {
    if (!this.running || this.refused) return;
    this.refused = true;
    if (this.current !== null) this.set(this.why());
  }

  close(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.set(this.why());
    }, this.o.pageTimeoutMs);
  }

  private why(): string {
    const seconds = `${Math.round(this.o.pageTimeoutMs / 100) / 10} s`;
    const what =
      this.o.streams() > 0
        ? "its event stream is open, but the page sends no heartbeat (not this station's page, or its script stopped)"
        : this.everShown
          ? 'its event stream has closed (the browser or its page ended)'
          : 'the kiosk browser has not connected';
    const refused = this.refused ? '; heartbeats without the kiosk secret were refused' : '';
    return `no page on the screen for ${seconds}: ${what}${refused}`;
  }

  private set(problem: string | null): void {
    if (problem === this.current) return;
    this.current = problem;
    this.o.onChange(problem);
  }
}
