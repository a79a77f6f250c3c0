/**
 * The one way tests drive the pure core (src/station/core.ts), without the runtime:
 *
 * - step by step (`runCore`, `stepper`, `idleStepper`): feed inputs, take the effects; timer expiry
 *   is an input like any other. For unit tests of one transition table.
 * - on a virtual clock (`CoreDriver`): `start-timer` / `stop-timer` effects become due times that
 *   `advance()` fires in order, pulsed doors may spring open a little later (as the simulated and
 *   the real hardware do), a `send` may be answered at once by a scripted server (the worst case for
 *   request storms), and every transition is recorded with its virtual time and handed to a check.
 *   For timing rules (heartbeats, refusals, door reports) and the fast-check properties.
 */
import { messagesSchema, pinSchema, speechSchema, timingSchema } from '../../src/config/schema.js';
import type { DoorState } from '../../src/devices/types.js';
import { initialState, transition } from '../../src/station/core.js';
import type { CoreConfig, CoreState, Effect, Input, OutboundRequest, SoundName, TimerName } from '../../src/station/core-types.js';
import type { ServerAnswer, ServerCommand } from '../../src/protocol/types.js';
import { OWN_BOXES } from './fuzz-answers.js';

export const B1 = '11111111-1111-4111-8111-111111111111';
export const B2 = '22222222-2222-4222-8222-222222222222';

export function coreConfig(
  overrides: {
    boxes?: CoreConfig['boxes'];
    timing?: Partial<CoreConfig['timing']>;
    pin?: Partial<CoreConfig['pin']>;
    locale?: 'cs' | 'en';
    speech?: Partial<CoreConfig['speech']>;
  } = {},
): CoreConfig {
  return {
    boxes: overrides.boxes ?? [
      { id: B1, number: 1 },
      { id: B2, number: 2 },
    ],
    timing: {
      heartbeatIntervalMs: 30_000,
      pinIdleMs: 20_000,
      messageMs: 5_000,
      duplicateScanWindowMs: 1_500,
      doorOpenTimeoutMs: 4_000,
      doorAjarMs: 120_000,
      doorAjarReminderMs: 30_000,
      warnBeforeMs: 20_000,
      maxExtensions: 10,
      sessionEndMs: 120_000,
      ...overrides.timing,
    },
    pin: { maxFailures: 5, lockoutMs: 30_000, maxLockoutMs: 900_000, countdownTickMs: 1_000, ...overrides.pin },
    messages: messagesSchema.parse({ locale: overrides.locale ?? 'en' }),
    speech: { ...SPEECH_DEFAULTS, ...overrides.speech },
  };
}

/** The core's speech config at the schema's defaults (a station with an audio output). */
export const SPEECH_DEFAULTS: CoreConfig['speech'] = (() => {
  const { mode, required, holdKey, volume } = speechSchema.parse({});
  return { mode, required, holdKey, volume };
})();

/** Feed `inputs` to the core from `state`: the state after the last one and every effect, in order. */
export function runCore(config: CoreConfig, state: CoreState, ...inputs: Input[]): { state: CoreState; fx: Effect[] } {
  const fx: Effect[] = [];
  for (const i of inputs) {
    const t = transition(config, state, i);
    state = t.state;
    fx.push(...t.effects);
  }
  return { state, fx };
}

export interface Stepper {
  readonly config: CoreConfig;
  state: CoreState;
  /** Effects of the inputs fed since the last call. */
  take(): Effect[];
  feed(...inputs: Input[]): Effect[];
}

export function stepper(config: CoreConfig, state: CoreState): Stepper {
  let pending: Effect[] = [];
  const st: Stepper = {
    config,
    state,
    take() {
      const out = pending;
      pending = [];
      return out;
    },
    feed(...inputs) {
      const { state: after, fx } = runCore(config, st.state, ...inputs);
      st.state = after;
      pending.push(...fx);
      return fx;
    },
  };
  return st;
}

export const closedDoors = { [B1]: 'CLOSED', [B2]: 'CLOSED' } as const;
export const cmd = (command: ServerCommand): ServerAnswer => ({ kind: 'command', command });
export const answered = (endpoint: 'state' | 'item-identify' | 'pin-enter' | 'cancel', answer: ServerAnswer): Input => ({ type: 'answered', endpoint, answer });
export const waitForInput = cmd({ type: 'wait-for-input', displayMessages: [] });
export const wrongPin: ServerAnswer = { kind: 'exception', status: 404, exceptionType: 'InvalidPinException', displayMessages: ['Wrong PIN'] };
export const timer = (t: TimerName): Input => ({ type: 'timer', timer: t });

/** A started station told wait-for-input (the server's prompt empty: the configured one shows). */
export function idleStepper(
  config = coreConfig(),
  extra: Partial<Extract<Input, { type: 'start' }>> = {},
  doors: Record<string, 'OPEN' | 'CLOSED'> = closedDoors,
): Stepper {
  const st = stepper(config, initialState(doors));
  st.feed({ type: 'start', ...extra }, answered('state', waitForInput));
  st.take();
  return st;
}

export const sends = (fx: readonly Effect[]): OutboundRequest[] => fx.flatMap((e) => (e.type === 'send' ? [e.request] : []));
export const states = (fx: readonly Effect[]) => fx.flatMap((e) => (e.type === 'send' && e.request.endpoint === 'state' ? [e.request] : []));
export const sounds = (fx: readonly Effect[]): SoundName[] => fx.flatMap((e) => (e.type === 'sound' ? [e.sound] : []));
export const logs = (fx: readonly Effect[]) => fx.flatMap((e) => (e.type === 'log' ? [{ level: e.level, msg: e.msg }] : []));
export const timersStarted = (fx: readonly Effect[]) => fx.flatMap((e) => (e.type === 'start-timer' ? [{ timer: e.timer, ms: e.ms }] : []));
export const displays = (fx: readonly Effect[]) => fx.flatMap((e) => (e.type === 'display' ? [e.lines] : []));
/** What the station said (each announcement's lines joined) and the tones it played, in order. */
export const spoken = (fx: readonly Effect[]): string[] => fx.flatMap((e) => (e.type === 'speak' ? [e.lines.join(' / ')] : []));
export const tones = (fx: readonly Effect[]): string[] => fx.flatMap((e) => (e.type === 'tone' ? [e.tone] : []));

/** Type a PIN and press Enter. */
export function pinKeys(pin: string): Input[] {
  return [...[...pin].map((digit): Input => ({ type: 'key', key: { kind: 'digit', digit } })), { type: 'key', key: { kind: 'enter' } }];
}

// --- the core on a virtual clock --------------------------------------------------------------

/** The properties' core: four boxes, a 1 s heartbeat, short message and door times. */
export const HEARTBEAT_MS = 1_000;
export const DOOR_SPRING_MS = 20;
export const PROPERTY_CORE: CoreConfig = {
  boxes: OWN_BOXES.map((id, i) => ({ id, number: i + 1 })),
  timing: timingSchema.parse({ heartbeatIntervalMs: HEARTBEAT_MS, pinIdleMs: 20_000, messageMs: 500, duplicateScanWindowMs: 0, doorOpenTimeoutMs: 400 }),
  pin: pinSchema.parse({}),
  messages: messagesSchema.parse({}),
  speech: SPEECH_DEFAULTS,
};

/** One transition: the input, the state before and after, its effects, when. */
export interface Step {
  readonly input: Input;
  readonly before: CoreState;
  readonly after: CoreState;
  readonly effects: readonly Effect[];
  readonly at: number;
}

export interface TimedEffect {
  readonly at: number;
  readonly effect: Effect;
}

export interface Sent {
  readonly request: OutboundRequest;
  readonly at: number;
}

/** What a scripted server does with one request: an input for the core (answered or unanswered). */
export type Server = (request: OutboundRequest) => Input;

export interface CoreDriverOptions {
  /** Called after every transition (a property's invariants). */
  readonly check?: (step: Step) => void;
  /** A pulsed door springs OPEN this long after the pulse; without it doors move only by input. */
  readonly doorSpringMs?: number;
}

export class CoreDriver {
  state: CoreState;
  now = 0;
  readonly effects: TimedEffect[] = [];
  readonly sent: Sent[] = [];
  readonly steps: Step[] = [];
  private readonly due = new Map<TimerName | `spring:${string}`, number>();
  private outstanding: OutboundRequest | null = null;

  constructor(
    readonly config: CoreConfig,
    doors: Readonly<Record<string, DoorState>>,
    private readonly options: CoreDriverOptions = {},
  ) {
    this.state = initialState(doors);
  }

  /** Feed one input; its effects. */
  input(input: Input): readonly Effect[] {
    if ((input.type === 'answered' || input.type === 'unanswered') && this.outstanding?.endpoint === input.endpoint) this.outstanding = null;
    const before = this.state;
    const { state, effects } = transition(this.config, before, input);
    this.state = state;
    for (const effect of effects) {
      this.effects.push({ at: this.now, effect });
      switch (effect.type) {
        case 'send':
          this.outstanding = effect.request;
          this.sent.push({ request: effect.request, at: this.now });
          break;
        case 'start-timer':
          this.due.set(effect.timer, this.now + effect.ms);
          break;
        case 'stop-timer':
          this.due.delete(effect.timer);
          break;
        case 'pulse':
          if (this.options.doorSpringMs !== undefined) for (const b of effect.boxIds) this.due.set(`spring:${b}`, this.now + this.options.doorSpringMs);
          break;
        case 'display':
        case 'log':
        case 'journal-action':
        case 'drained':
        case 'save-pin-throttle':
        case 'sound':
        case 'write-security':
        case 'journal-security-failure':
        case 'speak':
        case 'tone':
        case 'hush':
        case 'more-time-offered':
        case 'session-end':
          break;
      }
    }
    const step = { input, before, after: state, effects, at: this.now };
    this.steps.push(step);
    this.options.check?.(step);
    return effects;
  }

  /** Feed one input and answer what it sends with `server` until nothing is in flight (or `maxSends`); the number of sends. */
  run(input: Input, server: Server, maxSends = 50): number {
    let sends = this.sendsIn(this.input(input));
    while (this.outstanding !== null && sends <= maxSends) sends += this.sendsIn(this.input(server(this.outstanding)));
    return sends;
  }

  /** Move the clock to `to`, firing every timer (and door spring) due until then in order; sends answered by `server` if given. */
  advance(to: number, server?: Server): number {
    let sends = 0;
    for (;;) {
      const next = [...this.due].sort((a, b) => a[1] - b[1])[0];
      if (next === undefined || next[1] > to) break;
      this.due.delete(next[0]);
      this.now = next[1];
      const [what, id] = next[0].split(':') as [string, string | undefined];
      const input: Input = what === 'spring' && id !== undefined ? { type: 'door', boxId: id, state: 'OPEN' } : { type: 'timer', timer: next[0] as TimerName };
      sends += server === undefined ? this.sendsIn(this.input(input)) : this.run(input, server);
    }
    this.now = to;
    return sends;
  }

  /** When the next timer (or door spring) is due, or null. */
  nextDue(): number | null {
    const times = [...this.due.values()];
    return times.length === 0 ? null : Math.min(...times);
  }

  /** The request in flight (sent, not yet answered), if any. */
  inFlight(): OutboundRequest | null {
    return this.outstanding;
  }

  sendsOf(endpoint: string): TimedEffect[] {
    return this.effects.filter((e) => e.effect.type === 'send' && e.effect.request.endpoint === endpoint);
  }

  logs(level?: string): TimedEffect[] {
    return this.effects.filter((e) => e.effect.type === 'log' && (level === undefined || e.effect.level === level));
  }

  private sendsIn(effects: readonly Effect[]): number {
    return effects.filter((e) => e.type === 'send').length;
  }
}

/** The most items of `times` inside any half-open window [t, t + width). */
export function maxInWindow(times: readonly number[], width: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while ((sorted[hi] ?? 0) - (sorted[lo] ?? 0) >= width) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}
