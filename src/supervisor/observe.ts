/**
 * Watches the running station for the technician port: fans its RuntimeEvents out to live streams
 * (with a wall-clock `at`), and remembers what /api/status needs beyond the runtime's own snapshot:
 * the last server contact, the event in flight and each box's last action.
 *
 * It survives a config reload: `attach()` moves it to the new runtime.
 */
import type { Unsubscribe } from '../devices/types.js';
import type { Endpoint } from '../protocol/types.js';
import type { FailureKind, RuntimeEvent, StationRuntime } from '../station/runtime.js';

/** What a technician action adds to the live stream (`by` is the token's name). */
export type TechnicianEvent =
  | { readonly type: 'technician'; readonly action: string; readonly by: string; readonly detail?: Readonly<Record<string, unknown>> }
  | { readonly type: 'service'; readonly on: boolean; readonly by: string };

export type StreamEvent = (RuntimeEvent | TechnicianEvent) & { readonly at: string };

/** The newest protocol event that did not end in a command carried out, as the status shows it. */
export interface FailureView {
  readonly endpoint: Endpoint;
  readonly eventId: string;
  /** Why it was not carried out (the record's typed kind; `reason` is its text). */
  readonly kind: FailureKind;
  /** The event's outcome: "unanswered: <cause>", "exception <status> <type>", "invalid: …", "refused: …". */
  readonly reason: string;
  readonly attempts: number;
  readonly ageMs: number;
}

export interface BoxAction {
  readonly what: string;
  readonly at: string;
}

export class StationObserver {
  private readonly listeners = new Set<(e: StreamEvent) => void>();
  /** In-process followers (the metrics): not live streams, so not counted by `subscribers`. */
  private readonly followers = new Set<(e: RuntimeEvent | TechnicianEvent) => void>();
  private detach: Unsubscribe = () => undefined;
  private lastContact: number | null = null;
  private sent: { readonly endpoint: Endpoint; readonly eventId: string; readonly since: number } | null = null;
  private lastAnswered: Endpoint | null = null;
  private failure: (Omit<FailureView, 'ageMs'> & { readonly since: number }) | null = null;
  /** Why the next pulse of a box happens (set by a technician action just before it dispatches). */
  private readonly openers = new Map<string, string>();
  private readonly actions = new Map<string, BoxAction & { readonly pulsed: string | null }>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Follow `runtime` (and stop following the previous one). */
  attach(runtime: StationRuntime): void {
    this.detach();
    this.sent = null;
    this.detach = runtime.onEvent((e) => this.publish(e));
  }

  /** Stop following; live streams stay open (a reload attaches the next runtime). */
  close(): void {
    this.detach();
    this.detach = () => undefined;
  }

  subscribe(listener: (e: StreamEvent) => void): Unsubscribe {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Live streams subscribed now. */
  get subscribers(): number {
    return this.listeners.size;
  }

  /** Every event, without the stream's wall-clock `at`, for the station's whole life (metrics). */
  follow(listener: (e: RuntimeEvent | TechnicianEvent) => void): Unsubscribe {
    this.followers.add(listener);
    return () => this.followers.delete(listener);
  }

  /** Record why the next pulse of `boxId` happens ("technician alice", "self-test"). */
  expectPulse(boxId: string, why: string): void {
    this.openers.set(boxId, why);
  }

  /**
   * Note and fan out one event: the runtime's own, or one a technician action adds (the self-test
   * pulses locks itself and publishes their `lock` events here).
   */
  publish(e: RuntimeEvent | TechnicianEvent): void {
    for (const f of this.followers) f(e);
    const at = new Date().toISOString();
    this.note(e, at);
    const event: StreamEvent = { ...e, at };
    for (const l of this.listeners) l(event);
  }

  /** Monotonic age of the last answered protocol event (any answer, even an exception); null before one. */
  lastContactAgeMs(): number | null {
    return this.lastContact === null ? null : Math.round(this.now() - this.lastContact);
  }

  /** The event sent and not yet finished, as last reported by the runtime. */
  inFlight(): { endpoint: Endpoint; eventId: string; ageMs: number } | null {
    return this.sent === null ? null : { endpoint: this.sent.endpoint, eventId: this.sent.eventId, ageMs: Math.round(this.now() - this.sent.since) };
  }

  /** The last failed event (kept after later successes: the status shows how long ago it was). */
  lastFailure(): FailureView | null {
    if (this.failure === null) return null;
    const { since, ...rest } = this.failure;
    return { ...rest, ageMs: Math.round(this.now() - since) };
  }

  boxAction(boxId: string): BoxAction | null {
    const a = this.actions.get(boxId);
    return a === undefined ? null : { what: a.what, at: a.at };
  }

  private note(e: RuntimeEvent | TechnicianEvent, at: string): void {
    switch (e.type) {
      case 'event-sent':
        this.sent = { endpoint: e.endpoint, eventId: e.eventId, since: this.now() };
        break;
      case 'event-done':
        this.sent = null;
        if (e.record.failure !== null) {
          const { endpoint, eventId, outcome, attempts, failure } = e.record;
          this.failure = { endpoint, eventId, kind: failure, reason: outcome, attempts, since: this.now() };
        }
        if (e.record.failure !== 'unanswered') {
          this.lastContact = this.now();
          this.lastAnswered = e.record.endpoint;
        }
        break;
      case 'lock':
        if (e.energized) {
          const why = this.openers.get(e.boxId) ?? this.serverReason();
          this.openers.delete(e.boxId);
          this.actions.set(e.boxId, { what: `pulsed (${why})`, at, pulsed: why });
        }
        break;
      case 'box': {
        const pulsed = this.actions.get(e.boxId)?.pulsed ?? null;
        // The core's door outcome decides: an opening without a command is forced, whatever pulsed last.
        const what =
          e.state === 'CLOSED'
            ? 'closed'
            : e.outcome === 'opened-without-command'
              ? 'FORCED OPEN (opened without a command)'
              : `opened (${pulsed ?? 'commanded'})`;
        this.actions.set(e.boxId, { what, at, pulsed: null });
        break;
      }
      case 'display':
      case 'mode':
      case 'alarm':
      case 'technician':
      case 'service':
      case 'rfid-security-failed':
        break;
    }
  }

  /** A pulse nobody announced comes from a server command answering the last event. */
  private serverReason(): string {
    switch (this.lastAnswered) {
      case 'item-identify':
        return 'deposit';
      case 'pin-enter':
        return 'pickup';
      case 'state':
      case 'cancel':
      case null:
        return 'server command';
    }
  }
}
