/**
 * The server's answers and their absence: what a command does to the mode, what is refused.
 *
 * Transitions here (anything not listed leaves the mode as it is):
 * | from                         | input                                         | to          |
 * |------------------------------|-----------------------------------------------|-------------|
 * | any                          | answered wait-for-input                       | idle        |
 * | any                          | answered station-disable                      | disabled    |
 * | idle (after /item-identify,  | answered box-open (boxes of this station)     | opening     |
 * |   /pin-enter)                |                                               |             |
 * | any                          | answered wait-for-closing                     | closing     |
 * | starting, deactivated        | answered exception                            | idle        |
 * | deactivated                  | answered, command refused                     | idle        |
 * | any but deactivated          | unanswered (every attempt used)               | deactivated |
 *
 * A refused command (unknown type, foreign box, box-open to /state or /cancel) opens nothing; a
 * /state reports it as DOWN with an errorMessage — at once for the first refusal, with the next
 * heartbeat for repeats (refusals.ts: no storms). An exception or a refused command plays the
 * `refused` sound. Every answer to /pin-enter also goes to the PIN throttle (pin-throttle.ts).
 */
import type { Endpoint, ServerAnswer, ServerCommand } from '../../protocol/types.js';
import type { CoreConfig } from '../core-types.js';
import type { Ctx } from './context.js';
import { isKnownBox, setMode, sound } from './context.js';
import { hasText, showOverlay } from './display.js';
import { onStateDelivered, onStateLost } from './door-reports.js';
import { startOpening } from './doors.js';
import { onPinAnswer } from './pin-throttle.js';
import { noteRefusal } from './refusals.js';

/** Why a syntactically valid command cannot be carried out here, or null (pure; the runtime names refusals with it). */
export function commandProblem(config: CoreConfig, endpoint: Endpoint, command: ServerCommand): string | null {
  if (command.type === 'box-open' && endpoint !== 'item-identify' && endpoint !== 'pin-enter') {
    return `box-open is not an answer to /${endpoint}`;
  }
  if (command.type === 'box-open' || command.type === 'wait-for-closing') {
    const foreign = command.boxes.find((b) => !isKnownBox(config, b));
    if (foreign !== undefined) return `${command.type}: box ${foreign} is not this station's`;
  }
  return null;
}

export function onAnswered(ctx: Ctx, endpoint: Endpoint, answer: ServerAnswer): void {
  const { s, log } = ctx;
  if (s.inFlight !== endpoint) {
    log('warn', 'answer for an event not in flight ignored', { endpoint, inFlight: s.inFlight });
    return;
  }
  s.inFlight = null;
  if (endpoint === 'state') {
    s.reportingErrors = [];
    onStateDelivered(ctx);
  }
  if (s.mode.kind === 'deactivated') log('info', 'server answers again: back in service');
  applyAnswer(ctx, endpoint, answer);
  // After the answer's own effects: a lock-out replaces the "wrong PIN" overlay at once.
  if (endpoint === 'pin-enter') onPinAnswer(ctx, answer);
}

function applyAnswer(ctx: Ctx, endpoint: Endpoint, answer: ServerAnswer): void {
  const { s, config, log } = ctx;
  switch (answer.kind) {
    case 'exception':
      log('warn', 'server answered with an exception', { endpoint, status: answer.status, exceptionType: answer.exceptionType });
      if (s.mode.kind === 'starting' || s.mode.kind === 'deactivated') setMode(ctx, { kind: 'idle', lines: [] });
      sound(ctx, 'refused');
      showOverlay(ctx, hasText(answer.displayMessages) ? answer.displayMessages : config.messages.serverError);
      return;
    case 'invalid':
      return rejectCommand(ctx, endpoint, answer.reason);
    case 'command': {
      const problem = commandProblem(config, endpoint, answer.command);
      if (problem !== null) return rejectCommand(ctx, endpoint, problem);
      return applyCommand(ctx, endpoint, answer.command);
    }
  }
}

function rejectCommand(ctx: Ctx, endpoint: Endpoint, reason: string): void {
  const { s, config } = ctx;
  noteRefusal(ctx, endpoint, reason);
  sound(ctx, 'refused');
  if (s.mode.kind === 'deactivated') setMode(ctx, { kind: 'idle', lines: [] });
  showOverlay(ctx, config.messages.serverError);
}

function applyCommand(ctx: Ctx, endpoint: Endpoint, command: ServerCommand): void {
  const { log, s } = ctx;
  // The same wait-for-input the station already shows (every idle heartbeat's answer) changes
  // nothing: debug. Anything that changes what the station does or shows stays at info.
  const unchanged = command.type === 'wait-for-input' && s.mode.kind === 'idle' && sameLines(s.mode.lines, command.displayMessages);
  log(unchanged ? 'debug' : 'info', `server command ${command.type}`, { endpoint, ...('boxes' in command ? { boxes: command.boxes } : {}) });
  switch (command.type) {
    case 'wait-for-input':
      setMode(ctx, { kind: 'idle', lines: command.displayMessages });
      return;
    case 'station-disable':
      setMode(ctx, { kind: 'disabled', lines: command.displayMessages });
      return;
    case 'box-open':
      // commandProblem() admits box-open only as the answer to /item-identify or /pin-enter.
      if (endpoint === 'item-identify' || endpoint === 'pin-enter') startOpening(ctx, endpoint, command.boxes, command.displayMessages);
      return;
    case 'wait-for-closing':
      setMode(ctx, { kind: 'closing', boxes: command.boxes, cancellable: command.cancellable, lines: command.displayMessages });
      return;
  }
}

export function onUnanswered(ctx: Ctx, endpoint: Endpoint, reason: string): void {
  const { s, log } = ctx;
  if (s.inFlight !== endpoint) {
    log('warn', 'failure for an event not in flight ignored', { endpoint, inFlight: s.inFlight });
    return;
  }
  s.inFlight = null;
  if (endpoint === 'state') {
    // Not delivered: report these again with the next /state.
    s.pendingErrors = [...s.reportingErrors, ...s.pendingErrors];
    s.reportingErrors = [];
    onStateLost(ctx);
  }
  if (s.mode.kind !== 'deactivated') {
    log('error', 'server did not answer after every attempt: deactivated mode (heartbeat only)', { endpoint, reason });
    setMode(ctx, { kind: 'deactivated' });
  } else {
    log('warn', 'server still unanswered', { endpoint, reason });
  }
}

function sameLines(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}
