/**
 * What a librarian, a reader or a technician does at the station: scans, keypad keys, the cancel
 * button, a technician's box opening. Never queued: input that cannot start an event now is refused
 * with a message (an identifier or PIN must never open a box later).
 *
 * Transitions here:
 * | mode    | input                                  | effect                                         |
 * |---------|----------------------------------------|------------------------------------------------|
 * | idle    | scan (printable; a barcode also not a  | send /item-identify                            |
 * |         | double read: the same value within     |                                                |
 * |         | duplicateScanWindowMs; RFID: rfid.ts)  |                                                |
 * | idle    | digit / backspace / clear              | PIN buffer edited, the last six digits kept    |
 * |         |                                        | (pin-idle timer restarted)                     |
 * | idle    | enter with 6 digits                    | send /pin-enter                                |
 * | idle    | enter with another length              | overlay pinLength                              |
 * | idle    | enter while an event is in flight      | refused (busy); the typed PIN is dropped       |
 * | idle    | cancel with a PIN typed                | PIN cleared                                    |
 * | closing | cancel, cancellable, nothing in flight | send /cancel                                   |
 * | idle    | technician-open, station free          | opening (doors.ts)                             |
 * | rescue* | technician-open, no reader here        | opening; warn log naming the technician; the   |
 * |         |                                        | next answered /state names it                  |
 * | any     | technician-open otherwise              | refused (activity.ts technicianOpenCheck: the  |
 * |         |                                        | one rule the technician port also asks)        |
 * | any     | scan, key, cancel while a tamper or an | refused (the screen says out of service)       |
 * |         | unknown-usb alarm                      |                                                |
 * | any     | key while the keypad is locked         | refused, nothing sent (pin-throttle.ts)        |
 * | other   | any of these                           | refused: logged, overlay with the reason       |
 * | any     | any of these while draining            | refused: the screen says "restarting"          |
 * | any     | pin-idle timer                         | PIN cleared                                    |
 * | any     | key while a door-ajar warning shows    | more time (time-to-act.ts), nothing else       |
 *
 * *rescue: starting, deactivated or disabled with service mode on (the server cannot be asked).
 *
 * Sounds: an accepted scan or key plays `accepted`; every refusal plays `refused`. While the station
 * speaks (assist.ts), a PIN's keys also sound a tone on the audio output — `key` for a digit,
 * `erase` for backspace, `clear`, `enter` — and are never spoken.
 */
import type { KeypadKey } from '../../devices/types.js';
import { PIN_LENGTH } from '../../protocol/types.js';
import type { Ctx } from './context.js';
import { modeBlocker, technicianOpenCheck } from './activity.js';
import { hasAlarm, outOfService } from './alarms.js';
import { anyBoxOpen, boxNumber, clearPin, isKnownBox, sound, tone } from './context.js';
import { showOverlay } from './display.js';
import { startOpening } from './doors.js';
import { send } from './outbound.js';
import { isKeypadLocked } from './pin-throttle.js';
import { doorWarning, extend, startLimit } from './time-to-act.js';
import { maskIdentifier } from '../../mask.js';

/** Longest identifier accepted from a scanner; drivers drop longer frames already. */
export const MAX_IDENTIFIER_LENGTH = 128;
// eslint-disable-next-line no-control-regex
const PRINTABLE = /^[^\u0000-\u001f\u007f-\u009f]+$/;

interface Refusal {
  readonly reason: string;
  /** What to show; null: the screen already says it. */
  readonly lines: readonly string[] | null;
}

/**
 * Why a reader's or librarian's input cannot start an event now, or null when it is allowed. (A
 * technician's opening is decided by activity.ts technicianOpenCheck.)
 */
function refusal(ctx: Ctx, opts: { allowInFlight?: boolean } = {}): Refusal | null {
  const { s, config } = ctx;
  if (s.drain !== 'off') return { reason: 'station restarting', lines: null };
  if (outOfService(s)) return { reason: outOfServiceReason(ctx), lines: null };
  const mode = modeBlocker(s);
  if (mode !== null) return { reason: mode, lines: modeLines(config, s.mode.kind) };
  if (s.inFlight !== null && !opts.allowInFlight) return { reason: `/${s.inFlight} in flight`, lines: config.messages.busy };
  if (anyBoxOpen(s)) return { reason: 'a box is open', lines: config.messages.boxOpen };
  return null;
}

function outOfServiceReason(ctx: Ctx): string {
  return hasAlarm(ctx, 'tamper') ? 'tamper alarm' : 'unknown USB device plugged in';
}

/** What the screen shows for an input refused by the mode; null: the screen already says it. */
function modeLines(config: Ctx['config'], mode: Ctx['s']['mode']['kind']): readonly string[] | null {
  switch (mode) {
    case 'starting':
      return config.messages.busy;
    case 'opening':
    case 'closing':
      return config.messages.boxOpen;
    case 'deactivated':
    case 'disabled':
    case 'idle':
      return null;
  }
}

/** Whether a scan would be taken now (nothing in flight, no box open, idle, no alarm, not draining). */
export function stationFree(ctx: Ctx): boolean {
  return refusal(ctx) === null;
}

function refuse(ctx: Ctx, what: string, r: Refusal): void {
  ctx.log('info', `${what} refused: ${r.reason}`);
  sound(ctx, 'refused');
  if (r.lines) showOverlay(ctx, r.lines);
}

/** What became of a scan (the RFID rules, core/rfid.ts, remember what they sent). */
export type ScanOutcome = 'sent' | 'unreadable' | 'double-read' | 'refused';

export function onScan(ctx: Ctx, identifierType: 'BAR_CODE' | 'RFID', raw: string, at: number): ScanOutcome {
  const { s, config, log } = ctx;
  const value = raw.trim();
  if (value.length === 0 || value.length > MAX_IDENTIFIER_LENGTH || !PRINTABLE.test(value)) {
    log('warn', 'unreadable identifier dropped', { identifierType, length: raw.length });
    sound(ctx, 'refused');
    showOverlay(ctx, config.messages.unreadable);
    return 'unreadable';
  }
  // A line scanner reads one label twice in a row; an RFID reader knows presence instead, and the
  // RFID rules (rfid.ts) report an item once per arrival — a second arrival is a second report.
  if (identifierType === 'BAR_CODE') {
    const last = s.lastScan;
    if (last && last.value === value && at - last.at < config.timing.duplicateScanWindowMs) {
      log('debug', 'repeated identical scan dropped (double read)', { identifierType });
      return 'double-read';
    }
    s.lastScan = { value, at };
  }
  const r = refusal(ctx);
  if (r) {
    refuse(ctx, 'scan', r);
    return 'refused';
  }
  if (s.pin !== '') clearPin(ctx);
  log('info', 'identifier scanned', { identifierType, identifierValue: maskIdentifier(value) });
  sound(ctx, 'accepted');
  send(ctx, { endpoint: 'item-identify', identifierType, identifierValue: value });
  return 'sent';
}

export function onKey(ctx: Ctx, key: KeypadKey): void {
  const { s, config, log } = ctx;
  // "Press any key" for more time while a box is open: the key means that and nothing else.
  if (doorWarning(ctx)) {
    extend(ctx);
    return;
  }
  // Typing only fills the local buffer, so it may go on while an event (a heartbeat) is in flight;
  // Enter starts an event and is refused then. A refused Enter drops the typed PIN: the reader who
  // pressed it may walk away, and the next reader's Enter must never send it (their own digits
  // would be ignored past six, and the first reader's box would open for them).
  const r = refusal(ctx, { allowInFlight: key.kind !== 'enter' });
  if (r) {
    if (key.kind === 'enter' && s.pin !== '') clearPin(ctx);
    return refuse(ctx, 'key', r);
  }
  // The lock-out screen already says it (with its countdown): nothing typed, nothing sent.
  if (isKeypadLocked(ctx)) return refuse(ctx, 'key', { reason: 'keypad locked after wrong PINs', lines: null });
  const restartIdle = (): void => startLimit(ctx, 'pin-idle');
  switch (key.kind) {
    case 'digit':
      if (!/^[0-9]$/.test(key.digit)) {
        log('warn', 'keypad sent a non-digit; dropped');
        return;
      }
      // The last six digits typed count: a reader who typed six and walked away without Enter
      // leaves nothing behind once the next reader has typed their own six (their Enter must
      // never send the first reader's PIN).
      s.pin = (s.pin + key.digit).slice(-PIN_LENGTH);
      s.overlay = null;
      sound(ctx, 'accepted');
      tone(ctx, 'key');
      return restartIdle();
    case 'backspace':
      s.pin = s.pin.slice(0, -1);
      sound(ctx, 'accepted');
      tone(ctx, 'erase');
      return s.pin === '' ? clearPin(ctx) : restartIdle();
    case 'clear':
      sound(ctx, 'accepted');
      tone(ctx, 'clear');
      return clearPin(ctx);
    case 'enter': {
      const pin = s.pin;
      // Its tone whatever follows: the screen then says whether the PIN went out.
      tone(ctx, 'enter');
      clearPin(ctx);
      if (pin.length !== PIN_LENGTH) {
        log('info', 'PIN of wrong length not sent', { length: pin.length });
        sound(ctx, 'refused');
        showOverlay(ctx, config.messages.pinLength);
        return;
      }
      log('info', 'PIN entered', { length: pin.length });
      sound(ctx, 'accepted');
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
  if (outOfService(s)) return refuse(ctx, 'cancel', { reason: outOfServiceReason(ctx), lines: null });
  if (s.mode.kind === 'idle' && s.pin !== '' && s.inFlight === null) {
    clearPin(ctx);
    return;
  }
  if (s.drain !== 'off') return refuse(ctx, 'cancel', { reason: 'station restarting', lines: null });
  if (s.inFlight !== null) return refuse(ctx, 'cancel', { reason: `/${s.inFlight} in flight`, lines: config.messages.busy });
  if (s.mode.kind === 'closing' && s.mode.cancellable) {
    log('info', 'cancel pressed', { boxes: s.mode.boxes });
    sound(ctx, 'accepted');
    send(ctx, { endpoint: 'cancel' });
    return;
  }
  refuse(ctx, 'cancel', { reason: `not cancellable in mode ${s.mode.kind}`, lines: config.messages.cannotCancel });
}

export function onTechnicianOpen(ctx: Ctx, boxId: string, by = 'technician'): void {
  const { s, config, log } = ctx;
  if (!isKnownBox(config, boxId)) {
    log('warn', 'technician open of an unknown box refused', { boxId, technician: by });
    return;
  }
  const n = boxNumber(config, boxId);
  const lines = [config.messages.serviceOpen.replace('{box}', String(n))];
  const check = technicianOpenCheck(config, s);
  if (check.blocker !== null) return refuse(ctx, 'technician open', { reason: check.blocker, lines: null });
  if (check.rescue) {
    const mode = s.mode.kind;
    log('warn', `rescue open: technician ${by} opens box ${n} while the station is ${mode} (the server cannot be asked)`, {
      boxId,
      box: n,
      technician: by,
      mode,
    });
    // One-shot: kept until a /state carrying it is answered (outbound.ts, answers.ts).
    s.pendingErrors = [...s.pendingErrors, `box ${n} rescue-opened by technician ${by} while ${mode}`];
  } else log('warn', `technician ${by} opens box ${n}`, { boxId, box: n, technician: by });
  startOpening(ctx, 'technician', [boxId], lines);
}
