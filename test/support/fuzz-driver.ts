/**
 * The pure core with its world around it, on a virtual clock, for the properties: timers become
 * due times, a `pulse` lets the pulsed doors spring open a little later (as the simulated and the
 * real hardware do), and a `send` is answered by whatever the property's server says — at once, the
 * worst case for request storms. Every transition is handed to the property's checks with the
 * state before and after.
 */
import { messagesSchema, pinSchema, timingSchema } from '../../src/config/schema.js';
import type { DoorState } from '../../src/devices/types.js';
import { initialState, transition } from '../../src/station/core.js';
import type { CoreConfig, CoreState, Effect, Input, OutboundRequest, TimerName } from '../../src/station/core-types.js';
import { OWN_BOXES } from './fuzz-answers.js';

export const HEARTBEAT_MS = 1_000;
export const DOOR_SPRING_MS = 20;

export const CORE: CoreConfig = {
  boxes: OWN_BOXES.map((id, i) => ({ id, number: i + 1 })),
  timing: timingSchema.parse({ heartbeatIntervalMs: HEARTBEAT_MS, pinIdleMs: 20_000, messageMs: 500, duplicateScanWindowMs: 0, doorOpenTimeoutMs: 400 }),
  pin: pinSchema.parse({}),
  messages: messagesSchema.parse({}),
};

export interface Step {
  readonly input: Input;
  readonly before: CoreState;
  readonly after: CoreState;
  readonly effects: readonly Effect[];
  readonly at: number;
}

export interface Sent {
  readonly request: OutboundRequest;
  readonly at: number;
}

/** What the server does with one request: an input for the core (answered or unanswered). */
export type Server = (request: OutboundRequest) => Input;

export class CoreWorld {
  state: CoreState;
  now = 0;
  readonly sent: Sent[] = [];
  readonly steps: Step[] = [];
  private readonly due = new Map<TimerName | `spring:${string}`, number>();
  private outstanding: OutboundRequest | null = null;

  constructor(
    private readonly check: (step: Step) => void,
    doors: Readonly<Record<string, DoorState>> = Object.fromEntries(OWN_BOXES.map((b) => [b, 'CLOSED'])),
    readonly config: CoreConfig = CORE,
  ) {
    this.state = initialState(doors);
  }

  /** Feed one input; answer what it sends with `server` until nothing is in flight (or `maxSends`). */
  input(input: Input, server?: Server, maxSends = 50): number {
    let sends = this.apply(input);
    while (this.outstanding !== null && server !== undefined && sends <= maxSends) {
      const request = this.outstanding;
      sends += this.apply(server(request));
    }
    return sends;
  }

  /** The request in flight (sent, not yet answered), if any. */
  inFlight(): OutboundRequest | null {
    return this.outstanding;
  }

  private apply(input: Input): number {
    if ((input.type === 'answered' || input.type === 'unanswered') && this.outstanding?.endpoint === input.endpoint) this.outstanding = null;
    const before = this.state;
    const { state, effects } = transition(this.config, before, input);
    this.state = state;
    let sends = 0;
    for (const e of effects) {
      switch (e.type) {
        case 'send':
          sends++;
          this.outstanding = e.request;
          this.sent.push({ request: e.request, at: this.now });
          break;
        case 'start-timer':
          this.due.set(e.timer, this.now + e.ms);
          break;
        case 'stop-timer':
          this.due.delete(e.timer);
          break;
        case 'pulse':
          for (const b of e.boxIds) this.due.set(`spring:${b}`, this.now + DOOR_SPRING_MS);
          break;
        case 'display':
        case 'log':
        case 'journal-action':
        case 'drained':
        case 'save-pin-throttle':
        case 'sound':
          break;
      }
    }
    const step = { input, before, after: state, effects, at: this.now };
    this.steps.push(step);
    this.check(step);
    return sends;
  }

  /** Let `ms` pass: timers fire and pulsed doors spring open, in order; sends are answered by `server`. */
  advance(ms: number, server: Server): number {
    const to = this.now + ms;
    let sends = 0;
    for (;;) {
      const next = [...this.due].sort((a, b) => a[1] - b[1])[0];
      if (next === undefined || next[1] > to) break;
      this.due.delete(next[0]);
      this.now = next[1];
      const [what, id] = next[0].split(':') as [string, string | undefined];
      sends += this.input(what === 'spring' && id !== undefined ? { type: 'door', boxId: id, state: 'OPEN' } : { type: 'timer', timer: next[0] as TimerName }, server);
    }
    this.now = to;
    return sends;
  }
}
