/**
 * What a librarian, a reader or a technician does at the station: scans, keypad keys, the cancel
 * button, a technician's box opening. Never queued: input that cannot start an event now is refused
 * with a message (an identifier or PIN must never open a box later).
 *
 * Transitions here:
 * | mode    | input                                  | effect                                         |
 * |---------|----------------------------------------|------------------------------------------------|
 * | idle    | scan (printable, not a double read)    | send /item-identify                            |
 * | idle    | digit / backspace / clear              | PIN buffer edited (pin-idle timer restarted)   |
 * | idle    | enter with 6 digits                    | send /pin-enter                                |
 * | idle    | enter with another length              | overlay pinLength                              |
 * | idle    | enter while an event is in flight      | refused (busy); the typed PIN is dropped       |
 * | idle    | cancel with a PIN typed                | PIN cleared                                    |
 * | closing | cancel, cancellable, nothing in flight | send /cancel                                   |
 * | idle    | technician-open                        | opening (doors.ts)                             |
 * | other   | any of these                           | refused: logged, overlay with the reason       |
 * | any     | any of these while draining            | refused: the screen says "restarting"          |
 * | any     | pin-idle timer                         | PIN cleared                                    |
 */
import type { KeypadKey } from '../../devices/types.js';
import { PIN_LENGTH } from '../../protocol/types.js';
import type { Ctx } from './context.js';
import { anyBoxOpen, boxNumber, clearPin, isKnownBox } from './context.js';
import { showOverlay } from './display.js';
import { startOpening } from './doors.js';
import { send } from './outbound.js';

/** Longest identifier accepted from a scanner; drivers drop longer frames already. */
export const MAX_IDENTIFIER_LENGTH = 128;
// eslint-disable-next-line no-control-regex
const PRINTABLE = /^[^\u0000-\u001f\u007f-\u009f]+$/;

interface Refusal {
  readonly reason: string;
  /** What to show; null: the screen already says it. */
  readonly lines: readonly string[] | null;
}

/** Why a reader's or librarian's input cannot start an event now, or null when it is allowed. */
function refusal(ctx: Ctx, opts: { allowInFlight?: boolean } = {}): Refusal | null {
  const { s, config } = ctx;
  if (s.drain !== 'off') return { reason: 'station restarting', lines: null };
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

function refuse(ctx: Ctx, what: string, r: Refusal): void {
  ctx.log('info', `${what} refused: ${r.reason}`);
  if (r.lines) showOverlay(ctx, r.lines);
}

export function onScan(ctx: Ctx, identifierType: 'BAR_CODE' | 'RFID', raw: string, at: number): void {
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

export function onKey(ctx: Ctx, key: KeypadKey): void {
  const { s, config, fx, log } = ctx;
  // Typing only fills the local buffer, so it may go on while an event (a heartbeat) is in flight;
  // Enter starts an event and is refused then. A refused Enter drops the typed PIN: the reader who
  // pressed it may walk away, and the next reader's Enter must never send it (their own digits
  // would be ignored past six, and the first reader's box would open for them).
  const r = refusal(ctx, { allowInFlight: key.kind !== 'enter' });
  if (r) {
    if (key.kind === 'enter' && s.pin !== '') clearPin(ctx);
    return refuse(ctx, 'key', r);
  }
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

export function onPinIdleTimer(ctx: Ctx): void {
  if (ctx.s.pin !== '') ctx.log('info', 'PIN entry cleared after idle timeout');
  ctx.s.pin = '';
}

export function onCancelPressed(ctx: Ctx): void {
  const { s, config, log } = ctx;
  if (s.mode.kind === 'idle' && s.pin !== '' && s.inFlight === null) {
    clearPin(ctx);
    return;
  }
  if (s.drain !== 'off') return refuse(ctx, 'cancel', { reason: 'station restarting', lines: null });
  if (s.inFlight !== null) return refuse(ctx, 'cancel', { reason: `/${s.inFlight} in flight`, lines: config.messages.busy });
  if (s.mode.kind === 'closing' && s.mode.cancellable) {
    log('info', 'cancel pressed', { boxes: s.mode.boxes });
    send(ctx, { endpoint: 'cancel' });
    return;
  }
  refuse(ctx, 'cancel', { reason: `not cancellable in mode ${s.mode.kind}`, lines: config.messages.cannotCancel });
}

export function onTechnicianOpen(ctx: Ctx, boxId: string): void {
  const { config, log } = ctx;
  const r = refusal(ctx);
  if (r) return refuse(ctx, 'technician open', r);
  if (!isKnownBox(config, boxId)) {
    log('warn', 'technician open of an unknown box refused', { boxId });
    return;
  }
  log('warn', `technician opens box ${boxNumber(config, boxId)}`, { boxId });
  startOpening(ctx, 'technician', [boxId], [`Service: box ${boxNumber(config, boxId)}`]);
}
