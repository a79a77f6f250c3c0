/**
 * The patron at the station and the help they ask for: their visit (session), speech, volume, and
 * what an assisted visit changes. What is said is decided here, as effects (`speak`, `tone`,
 * `hush`); the runtime hands them to the audio output (src/station/speech-player.ts). Every screen
 * is spoken from the same texts the display shows (display.ts's spoken form: the PIN as a count of
 * digits typed, never the digits; a countdown in words), and a PIN's keys sound tones instead
 * (input.ts).
 *
 * Speech is on (context.speechOn) with `speech.mode` "always", or in "patron" mode once the patron
 * asks (the speech button or key, a keypad key held, the kiosk's speech button) — until they have
 * gone — or while headphones are plugged in. A visit ends once the station has waited at its prompt
 * for `timing.sessionEndMs` since the patron's last input.
 *
 * Transitions here:
 * | state                       | input                                   | effect                                          |
 * |-----------------------------|-----------------------------------------|-------------------------------------------------|
 * | any                         | a patron's input (key, key held, scan,  | visit on, session-end timer restarted; on an    |
 * |                             | cancel, door, help control, headphones) | untimed visit the message showing is cleared    |
 * | visit on, station free      | session-end timer                       | visit over: speech the patron asked for off     |
 * |                             |                                         | (hush), volume, untimed, more time given back   |
 * |                             |                                         | to the defaults; `session-end`                  |
 * | visit on, station in use    | session-end timer                       | timer restarted                                 |
 * | speech off, mode not off    | speech, or the hold key held            | speech on, visit untimed: the screen and the    |
 * |                             |                                         | instructions spoken                             |
 * | speech on                   | speech, or the hold key held            | the screen spoken again (at the prompt with     |
 * |                             |                                         | the instructions)                               |
 * | speech on                   | volume-up / volume-down                 | volume one step within its range; volume tone   |
 * | any                         | more-time                               | time-to-act.extend                              |
 * | any                         | visual (kiosk contrast or text size)    | visit untimed                                   |
 * | mode not off                | headphones plugged in                   | speech on: screen and instructions spoken       |
 * | headphones in               | headphones out                          | hush (unless asked for or always)               |
 * | any                         | speech-output problem, speech required  | fault `speech` (st DOWN)                        |
 * | any                         | speech-output problem, not required     | named in /state's errorMessage, st stays UP     |
 * | speech on                   | after any input, the screen's key       | the screen spoken (not while a PIN's digits are |
 * |                             | changed                                 | typed: their tones are enough)                  |
 */
import type { AssistState, CoreConfig, CoreState, Input } from '../core-types.js';
import type { KeypadKey } from '../../devices/types.js';
import { readerActivity } from './activity.js';
import type { Ctx } from './context.js';
import { speechOn, tone, volumeOf } from './context.js';
import { screenKey, spokenScreen } from './display.js';
import { onFault } from './faults.js';
import { extend } from './time-to-act.js';

/** The fault key of a failing audio output when speech is required. */
export const SPEECH_FAULT = 'speech';

export const INITIAL_ASSIST: AssistState = {
  session: false,
  requested: false,
  headphones: false,
  volume: null,
  untimed: false,
  announced: null,
  warnings: [],
  extensions: 0,
  outputProblem: null,
};

/** Inputs that mean a person is at the station. */
function isPatronInput(input: Input): boolean {
  switch (input.type) {
    case 'key':
    case 'key-held':
    case 'scan':
    case 'cancel-pressed':
    case 'door':
    case 'assist':
    case 'headphones':
    case 'rfid-field':
      return true;
    case 'start':
    case 'answered':
    case 'unanswered':
    case 'timer':
    case 'fault':
    case 'degraded':
    case 'pulse-failed':
    case 'tamper':
    case 'unknown-usb':
    case 'usb-watch':
    case 'technician-open':
    case 'problem':
    case 'drain':
    case 'speech-output':
    case 'security-result':
      return false;
  }
}

/** Before a patron's input is handled: the visit goes on; an untimed visit's message has been read. */
export function beforeInput(ctx: Ctx, input: Input): void {
  if (!isPatronInput(input)) return;
  const { s, config, fx } = ctx;
  if (!s.assist.session) s.assist = { ...s.assist, session: true };
  fx.push({ type: 'start-timer', timer: 'session-end', ms: config.timing.sessionEndMs });
  if (s.assist.untimed && s.overlay !== null) s.overlay = null;
}

export function onSessionEndTimer(ctx: Ctx): void {
  const { s, config, fx, log } = ctx;
  if (!s.assist.session) return;
  if (readerActivity(config, s) !== null || s.mode.kind === 'opening' || s.mode.kind === 'closing') {
    fx.push({ type: 'start-timer', timer: 'session-end', ms: config.timing.sessionEndMs });
    return;
  }
  const wasOn = speechOn(config, s);
  s.assist = { ...INITIAL_ASSIST, headphones: s.assist.headphones, announced: s.assist.announced, outputProblem: s.assist.outputProblem };
  if (s.overlay !== null) s.overlay = null;
  if (wasOn && !speechOn(config, s)) fx.push({ type: 'hush' });
  fx.push({ type: 'session-end' });
  log('debug', 'patron gone: help settings back to the defaults');
}

/** At the prompt with nothing else to say: the instructions follow the screen. */
function atPrompt(s: CoreState): boolean {
  return (
    s.mode.kind === 'idle' &&
    s.pin === '' &&
    s.overlay === null &&
    s.assist.warnings.length === 0 &&
    s.pinThrottle.lockout === null &&
    (s.inFlight === null || s.inFlight === 'state')
  );
}

function speak(ctx: Ctx, withInstructions: boolean): void {
  const { s, config, fx } = ctx;
  const lines = [...spokenScreen(config, s)];
  if (withInstructions) lines.push(config.messages.assist.instructions);
  s.assist = { ...s.assist, announced: screenKey(config, s) };
  fx.push({ type: 'speak', lines, volume: volumeOf(config, s) });
}

/** The patron asked for speech: on, or the screen again. */
function speechRequested(ctx: Ctx): void {
  const { s, config, log } = ctx;
  if (config.speech.mode === 'off') return;
  if (speechOn(config, s)) return speak(ctx, atPrompt(s));
  s.assist = { ...s.assist, requested: true, untimed: true };
  log('info', "speech on at the patron's request");
  speak(ctx, true);
}

function holdKeyMatches(config: CoreConfig, key: KeypadKey): boolean {
  const hold = config.speech.holdKey;
  return hold === 'any' || hold === key.kind;
}

export function onKeyHeld(ctx: Ctx, key: KeypadKey): void {
  if (holdKeyMatches(ctx.config, key)) speechRequested(ctx);
}

export function onAssist(ctx: Ctx, request: Extract<Input, { type: 'assist' }>['request']): void {
  const { s, config } = ctx;
  switch (request) {
    case 'speech':
      return speechRequested(ctx);
    case 'volume-up':
    case 'volume-down': {
      if (!speechOn(config, s)) return;
      const { step, min, max } = config.speech.volume;
      const volume = Math.min(max, Math.max(min, volumeOf(config, s) + (request === 'volume-up' ? step : -step)));
      s.assist = { ...s.assist, volume };
      return tone(ctx, 'volume');
    }
    case 'more-time':
      s.assist = { ...s.assist, untimed: true };
      extend(ctx);
      return;
    case 'visual':
      if (!s.assist.untimed) s.assist = { ...s.assist, untimed: true };
      return;
  }
}

export function onHeadphones(ctx: Ctx, plugged: boolean): void {
  const { s, config, fx, log } = ctx;
  if (s.assist.headphones === plugged) return;
  const wasOn = speechOn(config, s);
  s.assist = { ...s.assist, headphones: plugged, untimed: s.assist.untimed || (plugged && config.speech.mode !== 'off') };
  log('info', plugged ? 'headphones plugged in' : 'headphones unplugged');
  const on = speechOn(config, s);
  if (on && !wasOn) speak(ctx, true);
  if (wasOn && !on) fx.push({ type: 'hush' });
}

export function onSpeechOutput(ctx: Ctx, problem: string | null): void {
  const { s, config, log } = ctx;
  if (config.speech.required) return onFault(ctx, SPEECH_FAULT, problem === null ? null : `speech: ${problem}`);
  if (s.assist.outputProblem === problem) return;
  s.assist = { ...s.assist, outputProblem: problem };
  if (problem === null) log('info', 'speech output works again');
  else log('warn', 'speech output not working (speech is not required: the station stays up)', { problem });
  s.stateOwed = true;
}

/** Whether `input` was a PIN key that only typed or deleted a digit: heard as its tone, not spoken. */
function typedDigit(s: CoreState, input: Input): boolean {
  return input.type === 'key' && (input.key.kind === 'digit' || input.key.kind === 'backspace') && s.pin !== '';
}

/**
 * After every input: a new screen is spoken when speech is on. Nothing is worked out while speech
 * is off (most inputs of most visits): whatever turns it on speaks the screen there and then.
 */
export function announce(ctx: Ctx, input: Input): void {
  const { s, config } = ctx;
  if (!speechOn(config, s)) return;
  const key = screenKey(config, s);
  if (key === s.assist.announced) return;
  if (typedDigit(s, input)) {
    s.assist = { ...s.assist, announced: key };
    return;
  }
  speak(ctx, false);
}
