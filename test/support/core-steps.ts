/**
 * Driving the pure core in unit tests: a two-box config with the defaults, and helpers that feed
 * inputs and collect effects. Timer expiry is an input like any other.
 */
import { messagesSchema } from '../../src/config/schema.js';
import { initialState, transition } from '../../src/station/core.js';
import type { CoreConfig, CoreState, Effect, Input, OutboundRequest, SoundName, TimerName } from '../../src/station/core-types.js';
import type { ServerAnswer, ServerCommand } from '../../src/protocol/types.js';

export const B1 = '11111111-1111-4111-8111-111111111111';
export const B2 = '22222222-2222-4222-8222-222222222222';

export function coreConfig(
  overrides: { boxes?: CoreConfig['boxes']; timing?: Partial<CoreConfig['timing']>; pin?: Partial<CoreConfig['pin']>; locale?: 'cs' | 'en' } = {},
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
      ...overrides.timing,
    },
    pin: { maxFailures: 5, lockoutMs: 30_000, maxLockoutMs: 900_000, countdownTickMs: 1_000, ...overrides.pin },
    messages: messagesSchema.parse({ locale: overrides.locale ?? 'en' }),
  };
}

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
export function idleStepper(config = coreConfig(), extra: Partial<Extract<Input, { type: 'start' }>> = {}, doors: Record<string, 'OPEN' | 'CLOSED'> = closedDoors): Stepper {
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

/** Type a PIN and press Enter. */
export function pinKeys(pin: string): Input[] {
  return [...[...pin].map((digit): Input => ({ type: 'key', key: { kind: 'digit', digit } })), { type: 'key', key: { kind: 'enter' } }];
}
