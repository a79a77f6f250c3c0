/**
 * Doors and the locks that open them: pulsing boxes (`opening` mode), door changes from the
 * sensors, and the door-open window in which a pulsed door must report OPEN.
 *
 * Door truth is one of three outcomes (Open-Locker's decision), distinct in logs, in
 * `CoreState.doorOutcomes` (technician status) and in /state:
 * - commanded and opened: the door opened within its door-open window (info log);
 * - commanded but not opened: the window ended with the door still CLOSED (error log, errorMessage
 *   "box N did not open");
 * - opened without a command: no pulse within the window (error log, forced-open alarm, alarms.ts).
 *
 * Transitions here:
 * | from    | input                                   | to / effect                                      |
 * |---------|-----------------------------------------|--------------------------------------------------|
 * | any     | startOpening (box-open, technician)     | opening; journal-action; pulse; door-open window |
 * |         |                                         | + timer                                          |
 * |         |                                         | (/state owed at once if every door was open)     |
 * | any     | door OPEN inside its window             | commanded-opened; door-ajar timer (alarms.ts)    |
 * | opening | door OPEN of the last pending box       | /state owed (the doors opened)                   |
 * | any     | door OPEN outside every window          | opened-without-command: forced-open (alarms.ts)  |
 * | any     | door CLOSED                             | /state owed; its alarms cleared (alarms.ts)      |
 * | any     | door-open timer with doors pending      | commanded-not-opened; errorMessage "box N did    |
 * |         |                                         | not open"; /state owed; window closed            |
 * | any     | door-open timer, nothing pending        | window closed                                    |
 * | start   | earlier run pulsed, door CLOSED now     | window `carried` + timer (restart.ts): a late    |
 * |         |                                         | opening is commanded, not forced                 |
 */
import type { DoorState } from '../../devices/types.js';
import type { ActionSource } from '../../journal/types.js';
import type { Ctx } from './context.js';
import { boxNumber, isKnownBox, setMode } from './context.js';
import { onDoorClosed, onDoorOpened, onForcedOpen } from './alarms.js';
import { beforeDoorChange } from './door-reports.js';

export function startOpening(ctx: Ctx, by: ActionSource, boxIds: readonly string[], lines: readonly string[]): void {
  const { s, config, fx } = ctx;
  // A door that already reads OPEN (or a broken cable) never stops the pulse; it only counts as opened.
  const pending = boxIds.filter((b) => s.boxes[b] !== 'OPEN');
  setMode(ctx, { kind: 'opening', boxes: boxIds, pending, lines });
  const window = { ...s.doorWindow };
  for (const b of boxIds) window[b] = pending.includes(b) ? 'pending' : 'opened';
  s.doorWindow = window;
  // Journal first (write, then pulse): a restart must know this action began.
  fx.push({ type: 'journal-action', by, boxIds });
  fx.push({ type: 'pulse', boxIds });
  // The window lasts doorOpenTimeoutMs whether or not the doors open at once (a bounce within it is
  // still the commanded opening).
  fx.push({ type: 'start-timer', timer: 'door-open', ms: config.timing.doorOpenTimeoutMs });
  if (pending.length === 0) s.stateOwed = true;
}

export function onDoor(ctx: Ctx, boxId: string, state: DoorState): void {
  const { s, config, log } = ctx;
  if (!isKnownBox(config, boxId)) {
    log('warn', 'door change of an unknown box ignored', { boxId });
    return;
  }
  if (s.boxes[boxId] === state) return;
  beforeDoorChange(ctx, boxId);
  s.boxes = { ...s.boxes, [boxId]: state };
  const n = boxNumber(config, boxId);
  if (state === 'OPEN') {
    if (s.doorWindow[boxId] !== undefined) {
      s.doorWindow = { ...s.doorWindow, [boxId]: 'opened' };
      s.doorOutcomes = { ...s.doorOutcomes, [boxId]: 'commanded-opened' };
      log('info', `box ${n} opened (commanded)`, { boxId, box: n, outcome: 'commanded-opened' });
    } else {
      s.doorOutcomes = { ...s.doorOutcomes, [boxId]: 'opened-without-command' };
      onForcedOpen(ctx, boxId);
    }
    onDoorOpened(ctx, boxId);
  } else {
    log('info', `box ${n} closed`, { boxId, box: n });
    onDoorClosed(ctx, boxId);
  }
  if (s.mode.kind === 'opening' && s.mode.pending.length > 0) {
    // Report once every pulsed door has opened, not door by door.
    const pending = state === 'OPEN' ? s.mode.pending.filter((b) => b !== boxId) : s.mode.pending;
    s.mode = { ...s.mode, pending };
    if (pending.length > 0) return;
  }
  s.stateOwed = true;
}

/**
 * At start: boxes whose lock the cut-short earlier run had pulsed and whose door reads CLOSED now
 * get a door-open window, as if just pulsed. A door that springs open right after the restart is
 * the earlier pulse's opening, not a forced one. Nothing is pulsed.
 */
export function carryDoorWindows(ctx: Ctx, pulsed: readonly string[]): void {
  const { s, config, fx } = ctx;
  const carried = pulsed.filter((b) => isKnownBox(config, b) && s.boxes[b] !== 'OPEN');
  if (carried.length === 0) return;
  const window = { ...s.doorWindow };
  for (const b of carried) window[b] = 'carried';
  s.doorWindow = window;
  fx.push({ type: 'start-timer', timer: 'door-open', ms: config.timing.doorOpenTimeoutMs });
}

export function onDoorOpenTimer(ctx: Ctx): void {
  const { s, config, log } = ctx;
  const notOpened = Object.entries(s.doorWindow)
    .filter(([, w]) => w === 'pending')
    .map(([id]) => id);
  s.doorWindow = {};
  if (notOpened.length === 0) return;
  const outcomes = { ...s.doorOutcomes };
  for (const id of notOpened) {
    outcomes[id] = 'commanded-not-opened';
    const n = boxNumber(config, id);
    log('error', `box ${n} did not open: no OPEN within ${config.timing.doorOpenTimeoutMs} ms of the pulse`, {
      boxId: id,
      box: n,
      outcome: 'commanded-not-opened',
    });
  }
  s.doorOutcomes = outcomes;
  s.pendingErrors = [...s.pendingErrors, ...notOpened.map((id) => `box ${boxNumber(config, id)} did not open`)];
  if (s.mode.kind === 'opening') s.mode = { ...s.mode, pending: s.mode.pending.filter((b) => !notOpened.includes(b)) };
  s.stateOwed = true;
}
