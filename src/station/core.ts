/**
 * The station core: a pure function (state, input) -> (state, effects). No I/O, no timers, no
 * clock. The runtime (runtime.ts) feeds it inputs and carries out its effects.
 *
 * Allowed mode transitions (anything not listed leaves the mode as it is):
 *
 * | from                         | input                                         | to          |
 * |------------------------------|-----------------------------------------------|-------------|
 * | any                          | answered wait-for-input                       | idle        |
 * | any                          | answered station-disable                      | disabled    |
 * | idle (after /item-identify,  | answered box-open (boxes of this station)     | opening     |
 * |   /pin-enter)                |                                               |             |
 * | idle                         | technician-open                               | opening     |
 * | any                          | answered wait-for-closing                     | closing     |
 * | starting, deactivated        | answered exception                            | idle        |
 * | any but deactivated          | unanswered (every attempt used)               | deactivated |
 *
 * Inside a mode: `opening` sends /state once every pulsed door reported OPEN or the door-open
 * timer ended (boxes that did not open are named in errorMessage); `closing` sends /state when a
 * door closes; `closing` with cancellable sends /cancel on the cancel button.
 *
 * The outbound queue lives here as state: `inFlight` (at most one event) and `stateOwed` (a /state
 * to send as soon as nothing is in flight; the snapshot is taken when it goes out, so a newer
 * one replaces an unsent older one). Scans, PINs and cancels are never queued: while an event is
 * in flight or a box is open they are refused with a message.
 */
import type { DoorState, KeypadKey } from '../devices/types.js';
import { PIN_LENGTH, type Endpoint, type ServerAnswer, type ServerCommand } from '../protocol/types.js';
import type { CoreConfig, CoreState, Effect, Input, LogLevel, Mode, OutboundRequest, Transition } from './core-types.js';

type Draft = { -readonly [K in keyof CoreState]: CoreState[K] };

/** Longest identifier accepted from a scanner; drivers drop longer frames already. */
export const MAX_IDENTIFIER_LENGTH = 128;
// eslint-disable-next-line no-control-regex
const PRINTABLE = /^[^\u0000-\u001f\u007f-\u009f]+$/;

export function initialState(doors: Readonly<Record<string, DoorState>>): CoreState {
  return {
    mode: { kind: 'starting' },
    boxes: { ...doors },
    inFlight: null,
    stateOwed: false,
    pin: '',
    lastScan: null,
    faults: {},
    pendingErrors: [],
    reportingErrors: [],
    overlay: null,
    shown: [],
  };
}

export function transition(config: CoreConfig, state: CoreState, input: Input): Transition {
  const s: Draft = { ...state };
  const fx: Effect[] = [];
  const log = (level: LogLevel, msg: string, data?: Record<string, unknown>): void => {
    fx.push(data === undefined ? { type: 'log', level, msg } : { type: 'log', level, msg, data });
  };
  const ctx: Ctx = { config, s, fx, log };

  switch (input.type) {
    case 'start':
      s.stateOwed = true;
      break;
    case 'scan':
      onScan(ctx, input.identifierType, input.value, input.at);
      break;
    case 'key':
      onKey(ctx, input.key);
      break;
    case 'cancel-pressed':
      onCancelPressed(ctx);
      break;
    case 'door':
      onDoor(ctx, input.boxId, input.state);
      break;
    case 'answered':
      onAnswered(ctx, input.endpoint, input.answer);
      break;
    case 'unanswered':
      onUnanswered(ctx, input.endpoint, input.reason);
      break;
    case 'timer':
      onTimer(ctx, input.timer);
      break;
    case 'fault':
      onFault(ctx, input.key, input.message);
      break;
    case 'pulse-failed':
      log('error', 'lock pulse failed', { boxId: input.boxId, box: boxNumber(config, input.boxId), error: input.message });
      s.pendingErrors = [...s.pendingErrors, `box ${boxNumber(config, input.boxId)} lock failed: ${input.message}`];
      s.stateOwed = true;
      break;
    case 'technician-open':
      onTechnicianOpen(ctx, input.boxId);
      break;
  }

  flushState(ctx);
  render(ctx);
  return { state: s, effects: fx };
}

interface Ctx {
  readonly config: CoreConfig;
  readonly s: Draft;
  readonly fx: Effect[];
  readonly log: (level: LogLevel, msg: string, data?: Record<string, unknown>) => void;
}

export function boxNumber(config: CoreConfig, boxId: string): number | undefined {
  return config.boxes.find((b) => b.id === boxId)?.number;
}

function isKnownBox(config: CoreConfig, boxId: string): boolean {
  return config.boxes.some((b) => b.id === boxId);
}

function anyBoxOpen(s: CoreState): boolean {
  return Object.values(s.boxes).some((st) => st === 'OPEN');
}

function send(ctx: Ctx, request: OutboundRequest): void {
  ctx.s.inFlight = request.endpoint;
  ctx.fx.push({ type: 'send', request });
}

function showOverlay(ctx: Ctx, lines: readonly string[]): void {
  ctx.s.overlay = lines;
  ctx.fx.push({ type: 'start-timer', timer: 'message', ms: ctx.config.timing.messageMs });
}

function setMode(ctx: Ctx, mode: Mode): void {
  const { s, fx } = ctx;
  if (s.mode.kind !== mode.kind) {
    s.overlay = null;
    fx.push({ type: 'stop-timer', timer: 'message' });
    if (mode.kind !== 'idle' && s.pin !== '') clearPin(ctx);
  }
  if (s.mode.kind === 'opening' && mode.kind !== 'opening') fx.push({ type: 'stop-timer', timer: 'door-open' });
  s.mode = mode;
}

function clearPin(ctx: Ctx): void {
  ctx.s.pin = '';
  ctx.fx.push({ type: 'stop-timer', timer: 'pin-idle' });
}

/**
 * Why a reader's or librarian's input cannot start an event now, with what to show (null lines:
 * the screen already says it). Null when the input is allowed.
 */
function refusal(ctx: Ctx, opts: { allowInFlight?: boolean } = {}): { reason: string; lines: readonly string[] | null } | null {
  const { s, config } = ctx;
  switch (s.mode.kind) {
    case 'starting':
      return { reason: 'station starting', lines: config.messages.busy };
    case 'deactivated':
      return { reason: 'station deactivated (server unanswered)', lines: null };
    case 'disabled':
      return { reason: 'station disabled by the server', lines: null };
    case 'opening':
    case 'closing':
      return { reason: 'a box action is in progress', lines: config.messages.boxOpen };
    case 'idle':
      break;
  }
  if (s.inFlight !== null && !opts.allowInFlight) return { reason: `/${s.inFlight} in flight`, lines: config.messages.busy };
  if (anyBoxOpen(s)) return { reason: 'a box is open', lines: config.messages.boxOpen };
  return null;
}

function refuse(ctx: Ctx, what: string, r: { reason: string; lines: readonly string[] | null }): void {
  ctx.log('info', `${what} refused: ${r.reason}`);
  if (r.lines) showOverlay(ctx, r.lines);
}

function onScan(ctx: Ctx, identifierType: 'BAR_CODE' | 'RFID', raw: string, at: number): void {
  const { s, config, log } = ctx;
  const value = raw.trim();
  if (value.length === 0 || value.length > MAX_IDENTIFIER_LENGTH || !PRINTABLE.test(value)) {
    log('warn', 'unreadable identifier dropped', { identifierType, length: raw.length });
    showOverlay(ctx, config.messages.unreadable);
    return;
  }
  const last = s.lastScan;
  if (last && last.value === value && at - last.at < config.timing.duplicateScanWindowMs) {
    log('debug', 'repeated identical scan dropped (double read)', { identifierType });
    return;
  }
  s.lastScan = { value, at };
  const r = refusal(ctx);
  if (r) return refuse(ctx, 'scan', r);
  if (s.pin !== '') clearPin(ctx);
  log('info', 'identifier scanned', { identifierType, identifierValue: value });
  send(ctx, { endpoint: 'item-identify', identifierType, identifierValue: value });
}

function onKey(ctx: Ctx, key: KeypadKey): void {
  const { s, config, fx, log } = ctx;
  // Typing only fills the local buffer, so it may go on while an event (a heartbeat) is in flight;
  // Enter starts an event and is refused then — the typed PIN stays for another Enter.
  const r = refusal(ctx, { allowInFlight: key.kind !== 'enter' });
  if (r) return refuse(ctx, 'key', r);
  const restartIdle = (): void => {
    fx.push({ type: 'start-timer', timer: 'pin-idle', ms: config.timing.pinIdleMs });
  };
  switch (key.kind) {
    case 'digit':
      if (!/^[0-9]$/.test(key.digit)) {
        log('warn', 'keypad sent a non-digit; dropped');
        return;
      }
      if (s.pin.length >= PIN_LENGTH) return restartIdle();
      s.pin += key.digit;
      s.overlay = null;
      return restartIdle();
    case 'backspace':
      s.pin = s.pin.slice(0, -1);
      return s.pin === '' ? clearPin(ctx) : restartIdle();
    case 'clear':
      return clearPin(ctx);
    case 'enter': {
      const pin = s.pin;
      clearPin(ctx);
      if (pin.length !== PIN_LENGTH) {
        log('info', 'PIN of wrong length not sent', { length: pin.length });
        showOverlay(ctx, config.messages.pinLength);
        return;
      }
      log('info', 'PIN entered', { length: pin.length });
      send(ctx, { endpoint: 'pin-enter', pin });
      return;
    }
  }
}

function onCancelPressed(ctx: Ctx): void {
  const { s, config, log } = ctx;
  if (s.mode.kind === 'idle' && s.pin !== '' && s.inFlight === null) {
    clearPin(ctx);
    return;
  }
  if (s.inFlight !== null) return refuse(ctx, 'cancel', { reason: `/${s.inFlight} in flight`, lines: config.messages.busy });
  if (s.mode.kind === 'closing' && s.mode.cancellable) {
    log('info', 'cancel pressed', { boxes: s.mode.boxes });
    send(ctx, { endpoint: 'cancel' });
    return;
  }
  refuse(ctx, 'cancel', { reason: `not cancellable in mode ${s.mode.kind}`, lines: config.messages.cannotCancel });
}

function onDoor(ctx: Ctx, boxId: string, state: DoorState): void {
  const { s, config, fx, log } = ctx;
  if (!isKnownBox(config, boxId)) {
    log('warn', 'door change of an unknown box ignored', { boxId });
    return;
  }
  if (s.boxes[boxId] === state) return;
  s.boxes = { ...s.boxes, [boxId]: state };
  log('info', `box ${boxNumber(config, boxId)} ${state}`, { boxId });
  if (s.mode.kind === 'opening' && s.mode.pending.length > 0) {
    // Report once every pulsed door has opened, not door by door.
    const pending = state === 'OPEN' ? s.mode.pending.filter((b) => b !== boxId) : s.mode.pending;
    s.mode = { ...s.mode, pending };
    if (pending.length > 0) return;
    fx.push({ type: 'stop-timer', timer: 'door-open' });
  }
  s.stateOwed = true;
}

function onTimer(ctx: Ctx, timer: 'heartbeat' | 'pin-idle' | 'message' | 'door-open'): void {
  const { s, config, log } = ctx;
  switch (timer) {
    case 'heartbeat':
      s.stateOwed = true;
      return;
    case 'pin-idle':
      if (s.pin !== '') log('info', 'PIN entry cleared after idle timeout');
      s.pin = '';
      return;
    case 'message':
      s.overlay = null;
      return;
    case 'door-open': {
      if (s.mode.kind !== 'opening' || s.mode.pending.length === 0) return;
      const notOpened = s.mode.pending.map((id) => `box ${boxNumber(config, id)} did not open`);
      log('error', 'doors did not report OPEN after the pulse', { boxes: s.mode.pending, timeoutMs: config.timing.doorOpenTimeoutMs });
      s.pendingErrors = [...s.pendingErrors, ...notOpened];
      s.mode = { ...s.mode, pending: [] };
      s.stateOwed = true;
      return;
    }
  }
}

function onFault(ctx: Ctx, key: string, message: string | null): void {
  const { s, log } = ctx;
  const current = s.faults[key];
  if (message === null) {
    if (current === undefined) return;
    const { [key]: _gone, ...rest } = s.faults;
    s.faults = rest;
    log('info', 'fault cleared', { fault: key });
  } else {
    if (current === message) return;
    s.faults = { ...s.faults, [key]: message };
    log('warn', 'fault', { fault: key, message });
  }
  s.stateOwed = true;
}

function onTechnicianOpen(ctx: Ctx, boxId: string): void {
  const { config, log } = ctx;
  const r = refusal(ctx);
  if (r) return refuse(ctx, 'technician open', r);
  if (!isKnownBox(config, boxId)) {
    log('warn', 'technician open of an unknown box refused', { boxId });
    return;
  }
  log('warn', `technician opens box ${boxNumber(config, boxId)}`, { boxId });
  startOpening(ctx, [boxId], [`Service: box ${boxNumber(config, boxId)}`]);
}

function startOpening(ctx: Ctx, boxIds: readonly string[], lines: readonly string[]): void {
  const { s, config, fx } = ctx;
  // A door that already reads OPEN (or a broken cable) never stops the pulse; it only counts as opened.
  const pending = boxIds.filter((b) => s.boxes[b] !== 'OPEN');
  setMode(ctx, { kind: 'opening', boxes: boxIds, pending, lines });
  fx.push({ type: 'pulse', boxIds });
  if (pending.length > 0) fx.push({ type: 'start-timer', timer: 'door-open', ms: config.timing.doorOpenTimeoutMs });
  else s.stateOwed = true;
}

/** Why a syntactically valid command cannot be carried out here, or null. */
function commandProblem(config: CoreConfig, endpoint: Endpoint, command: ServerCommand): string | null {
  if (command.type === 'box-open' && endpoint !== 'item-identify' && endpoint !== 'pin-enter') {
    return `box-open is not an answer to /${endpoint}`;
  }
  if (command.type === 'box-open' || command.type === 'wait-for-closing') {
    const foreign = command.boxes.find((b) => !isKnownBox(config, b));
    if (foreign !== undefined) return `${command.type}: box ${foreign} is not this station's`;
  }
  return null;
}

function onAnswered(ctx: Ctx, endpoint: Endpoint, answer: ServerAnswer): void {
  const { s, config, log } = ctx;
  if (s.inFlight !== endpoint) {
    log('warn', 'answer for an event not in flight ignored', { endpoint, inFlight: s.inFlight });
    return;
  }
  s.inFlight = null;
  if (endpoint === 'state') s.reportingErrors = [];
  if (s.mode.kind === 'deactivated') log('info', 'server answers again: back in service');

  switch (answer.kind) {
    case 'exception':
      log('warn', 'server answered with an exception', { endpoint, status: answer.status, exceptionType: answer.exceptionType });
      if (s.mode.kind === 'starting' || s.mode.kind === 'deactivated') setMode(ctx, { kind: 'idle', lines: [] });
      showOverlay(ctx, answer.displayMessages.length > 0 ? answer.displayMessages : config.messages.serverError);
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
  const { s, config, log } = ctx;
  log('error', 'server command rejected; no box opened', { endpoint, reason });
  s.pendingErrors = [...s.pendingErrors, `rejected command to /${endpoint}: ${reason}`];
  s.stateOwed = true;
  if (s.mode.kind === 'deactivated') setMode(ctx, { kind: 'idle', lines: [] });
  showOverlay(ctx, config.messages.serverError);
}

function applyCommand(ctx: Ctx, endpoint: Endpoint, command: ServerCommand): void {
  const { log } = ctx;
  log('info', `server command ${command.type}`, { endpoint, ...('boxes' in command ? { boxes: command.boxes } : {}) });
  switch (command.type) {
    case 'wait-for-input':
      setMode(ctx, { kind: 'idle', lines: command.displayMessages });
      return;
    case 'station-disable':
      setMode(ctx, { kind: 'disabled', lines: command.displayMessages });
      return;
    case 'box-open':
      startOpening(ctx, command.boxes, command.displayMessages);
      return;
    case 'wait-for-closing':
      setMode(ctx, { kind: 'closing', boxes: command.boxes, cancellable: command.cancellable, lines: command.displayMessages });
      return;
  }
}

function onUnanswered(ctx: Ctx, endpoint: Endpoint, reason: string): void {
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
  }
  if (s.mode.kind !== 'deactivated') {
    log('error', 'server did not answer after every attempt: deactivated mode (heartbeat only)', { endpoint, reason });
    setMode(ctx, { kind: 'deactivated' });
  } else {
    log('warn', 'server still unanswered', { endpoint, reason });
  }
}

/**
 * Send the owed /state if the queue is free. While pulsed doors are still opening it waits (at most
 * doorOpenTimeoutMs): a /state then would report the box CLOSED, which a server reads as "closed
 * again, action done".
 */
function flushState(ctx: Ctx): void {
  const { s, config, fx } = ctx;
  if (!s.stateOwed || s.inFlight !== null) return;
  if (s.mode.kind === 'opening' && s.mode.pending.length > 0) return;
  const errors = [...Object.values(s.faults), ...s.pendingErrors];
  s.reportingErrors = s.pendingErrors;
  s.pendingErrors = [];
  s.stateOwed = false;
  send(ctx, {
    endpoint: 'state',
    st: errors.length > 0 ? 'DOWN' : 'UP',
    errorMessage: errors.length > 0 ? errors.join('; ') : null,
    boxes: config.boxes.map((b) => ({ id: b.id, st: s.boxes[b.id] ?? 'CLOSED' })),
  });
  fx.push({ type: 'start-timer', timer: 'heartbeat', ms: config.timing.heartbeatIntervalMs });
}

/** The lines the display should show now (derived, never stored apart from `shown`). */
export function screen(config: CoreConfig, s: CoreState): readonly string[] {
  if (s.overlay) return s.overlay;
  const m = config.messages;
  switch (s.mode.kind) {
    case 'starting':
      return m.starting;
    case 'idle': {
      const prompt = s.mode.lines.length > 0 ? s.mode.lines : m.prompt;
      return s.pin === '' ? prompt : [prompt[0] ?? '', m.pinEntry.replace('{mask}', '*'.repeat(s.pin.length))];
    }
    case 'opening':
    case 'closing':
      return s.mode.lines;
    case 'disabled':
      return s.mode.lines.length > 0 ? s.mode.lines : m.disabled;
    case 'deactivated':
      return m.stationOff;
  }
}

function render(ctx: Ctx): void {
  const lines = screen(ctx.config, ctx.s);
  if (lines.length === ctx.s.shown.length && lines.every((l, i) => l === ctx.s.shown[i])) return;
  ctx.s.shown = lines;
  ctx.fx.push({ type: 'display', lines });
}
