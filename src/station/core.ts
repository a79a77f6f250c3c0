/**
 * The station core: a pure function (state, input) -> (state, effects). No I/O, no timers, no
 * clock. The runtime (runtime.ts) feeds it inputs and carries out its effects.
 *
 * `transition()` is the one entry point. It dispatches each input to the part of the core that
 * owns it — every part lists its allowed transitions in its own doc comment:
 *
 * | part               | owns                                                                   |
 * |--------------------|------------------------------------------------------------------------|
 * | core/input.ts      | scans, keypad, cancel button, technician open; refusals                |
 * | core/answers.ts    | answers and unanswered events: the mode table                          |
 * | core/doors.ts      | pulses, door changes, the door-open window, the three door outcomes    |
 * | core/alarms.ts     | forced open, door ajar, tamper, unknown USB: raised, held, cleared     |
 * | core/pin-throttle.ts | wrong PINs in a row, the keypad lock-out and its countdown           |
 * | core/faults.ts     | lasting faults and failed pulses (st DOWN + errorMessage)              |
 * | core/refusals.ts   | refused commands: one extra /state and one log line per window         |
 * | core/restart.ts    | restart truth: what an earlier run left unfinished, told at start      |
 * | core/drain.ts      | graceful stop: input refused, in-flight work finished, then drained    |
 * | core/rfid.ts       | library tags on host-mode readers: reports, sets, the security bit     |
 * | core/outbound.ts   | the outbound queue: one event in flight, the owed /state, heartbeat    |
| core/door-reports.ts | door changes the server has not heard of, reported in order          |
 * | core/display.ts    | the derived screen and its temporary overlay                           |
 * | core/assist.ts     | the patron's visit, speech, volume; an assisted visit's messages       |
 * | core/time-to-act.ts | a patron's time limits: warned before they run out, extended by a key |
 *
 * Before a patron's input the visit goes on (assist.beforeInput). After every input the owed /state
 * goes out if the queue is free (outbound.flushState), a restart notice is shown once the first
 * answer came (restart.showNotice), a drain ends once nothing is left to finish
 * (drain.checkDrained), the display is re-derived (display.render) and a new screen is spoken when
 * speech is on (assist.announce).
 */
import type { DoorState } from '../devices/types.js';
import { onAjarReminderTimer, onDoorAjarTimer, onTamper, onUnknownUsb, watchOpenDoorsAtStart } from './core/alarms.js';
import { announce, beforeInput, INITIAL_ASSIST, onAssist, onHeadphones, onKeyHeld, onSessionEndTimer, onSpeechOutput } from './core/assist.js';
import { onAnswered, onUnanswered } from './core/answers.js';
import type { Ctx } from './core/context.js';
import { boxOfAjarTimer } from './core/context.js';
import { render, onMessageTimer } from './core/display.js';
import { onDoor, onDoorOpenTimer } from './core/doors.js';
import { checkDrained, onDrain } from './core/drain.js';
import { onDegraded, onFault, onProblem, onPulseFailed, onUsbWatch } from './core/faults.js';
import { onCancelPressed, onKey, onPinIdleTimer, onScan, onTechnicianOpen } from './core/input.js';
import { flushState, onHeartbeatTimer } from './core/outbound.js';
import { onPinLockoutTimer, restorePinThrottle } from './core/pin-throttle.js';
import { onRefusalTimer } from './core/refusals.js';
import { onStart, showNotice } from './core/restart.js';
import {
  INITIAL_RFID,
  onIdentifyAnswered,
  onIdentifyUnanswered,
  onRfidField,
  reportWaiting,
  onSecurityResult,
  onSecurityRetryTimer,
  onSecurityWindowTimer,
} from './core/rfid.js';
import { limitOfWarnTimer, onLimitRanOut, onWarnTimer } from './core/time-to-act.js';
import type { CoreConfig, CoreState, Effect, Input, LogLevel, TimerName, Transition } from './core-types.js';

export { isRescue, modeBlocker, notFreeReason, readerActivity, readerEventInFlight, selfTestBlocker, technicianOpenCheck } from './core/activity.js';
export type { TechnicianOpenCheck } from './core/activity.js';
export { commandProblem } from './core/answers.js';
export { boxNumber, inServiceMode, SERVICE_FAULT } from './core/context.js';
export { formatCountdown, screen, spokenScreen } from './core/display.js';
export { warnLeadMs } from './core/time-to-act.js';
export { lockoutMsFor } from './core/pin-throttle.js';
export { MAX_IDENTIFIER_LENGTH } from './core/input.js';

export function initialState(doors: Readonly<Record<string, DoorState>>): CoreState {
  return {
    mode: { kind: 'starting' },
    boxes: { ...doors },
    inFlight: null,
    stateOwed: false,
    pin: '',
    lastScan: null,
    faults: {},
    degraded: {},
    pendingErrors: [],
    reportingErrors: [],
    alarms: [],
    doorWindow: {},
    doorOutcomes: {},
    tamperOpen: false,
    pinThrottle: { failures: 0, lockout: null },
    refusals: null,
    doorReports: { queued: [], sending: null, delivered: { ...doors } },
    notice: null,
    drain: 'off',
    overlay: null,
    shown: [],
    rfid: INITIAL_RFID,
    assist: INITIAL_ASSIST,
  };
}

export function transition(config: CoreConfig, state: CoreState, input: Input): Transition {
  const fx: Effect[] = [];
  const ctx: Ctx = {
    config,
    s: { ...state },
    fx,
    log: (level: LogLevel, msg: string, data?: Record<string, unknown>): void => {
      fx.push(data === undefined ? { type: 'log', level, msg } : { type: 'log', level, msg, data });
    },
  };

  beforeInput(ctx, input);
  switch (input.type) {
    case 'start':
      onStart(ctx, input.previous ?? null);
      restorePinThrottle(ctx, input.pinThrottle);
      watchOpenDoorsAtStart(ctx);
      if (input.tamperOpen) onTamper(ctx, true);
      if (input.headphones) onHeadphones(ctx, true);
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
    case 'answered': {
      const awaited = ctx.s.inFlight === input.endpoint;
      onAnswered(ctx, input.endpoint, input.answer);
      if (awaited && input.endpoint === 'item-identify') onIdentifyAnswered(ctx, input.answer);
      break;
    }
    case 'unanswered': {
      const awaited = ctx.s.inFlight === input.endpoint;
      onUnanswered(ctx, input.endpoint, input.reason);
      if (awaited && input.endpoint === 'item-identify') onIdentifyUnanswered(ctx);
      break;
    }
    case 'timer':
      onTimer(ctx, input.timer);
      break;
    case 'fault':
      onFault(ctx, input.key, input.message);
      break;
    case 'degraded':
      onDegraded(ctx, input.key, input.message);
      break;
    case 'pulse-failed':
      onPulseFailed(ctx, input.boxId, input.message);
      break;
    case 'tamper':
      onTamper(ctx, input.open);
      break;
    case 'unknown-usb':
      onUnknownUsb(ctx, input.present);
      break;
    case 'usb-watch':
      onUsbWatch(ctx, input.problem);
      break;
    case 'technician-open':
      onTechnicianOpen(ctx, input.boxId, input.by);
      break;
    case 'problem':
      onProblem(ctx, input.message);
      break;
    case 'drain':
      onDrain(ctx);
      break;
    case 'rfid-field':
      onRfidField(ctx, input.reader, input.send, input.tags, input.at);
      break;
    case 'security-result':
      onSecurityResult(ctx, input.reader, input.results);
      break;
    case 'key-held':
      onKeyHeld(ctx, input.key);
      break;
    case 'assist':
      onAssist(ctx, input.request);
      break;
    case 'headphones':
      onHeadphones(ctx, input.plugged);
      break;
    case 'speech-output':
      onSpeechOutput(ctx, input.problem);
      break;
  }

  flushState(ctx);
  reportWaiting(ctx);
  showNotice(ctx);
  checkDrained(ctx);
  render(ctx);
  announce(ctx, input);
  return { state: ctx.s, effects: fx };
}

function onTimer(ctx: Ctx, timer: TimerName): void {
  const warned = limitOfWarnTimer(timer);
  if (warned !== null) return onWarnTimer(ctx, warned);
  const ajarBox = boxOfAjarTimer(timer);
  if (ajarBox !== null) {
    onLimitRanOut(ctx, `door-ajar:${ajarBox}`);
    return onDoorAjarTimer(ctx, ajarBox);
  }
  switch (timer) {
    case 'heartbeat':
      return onHeartbeatTimer(ctx);
    case 'pin-idle':
      onLimitRanOut(ctx, 'pin-idle');
      return onPinIdleTimer(ctx);
    case 'session-end':
      return onSessionEndTimer(ctx);
    case 'message':
      return onMessageTimer(ctx);
    case 'door-open':
      return onDoorOpenTimer(ctx);
    case 'pin-lockout':
      return onPinLockoutTimer(ctx);
    case 'ajar-reminder':
      return onAjarReminderTimer(ctx);
    case 'refusal':
      return onRefusalTimer(ctx);
    case 'security-window':
      return onSecurityWindowTimer(ctx);
    case 'security-retry':
      return onSecurityRetryTimer(ctx);
    case 'warn:pin-idle':
    default:
      return; // door-ajar:<boxId> and warn:<limit>, handled above
  }
}
