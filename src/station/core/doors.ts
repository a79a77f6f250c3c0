/**
 * Doors and the locks that open them: pulsing boxes (`opening` mode), door changes from the
 * sensors, and the door-open window in which a pulsed door must report OPEN.
 *
 * Transitions here:
 * | from    | input                                   | to / effect                                     |
 * |---------|-----------------------------------------|-------------------------------------------------|
 * | any     | startOpening (box-open, technician)     | opening; journal-action; pulse; door-open timer  |
 * |         |                                         | (or /state owed)                                 |
 * | opening | door OPEN of the last pending box       | /state owed (the doors opened)                  |
 * | any     | door change (other cases)               | /state owed                                     |
 * | opening | door-open timer with boxes pending      | /state owed; errorMessage "box N did not open"  |
 */
import type { DoorState } from '../../devices/types.js';
import type { ActionSource } from '../core-types.js';
import type { Ctx } from './context.js';
import { boxNumber, isKnownBox, setMode } from './context.js';
import { beforeDoorChange } from './door-reports.js';

export function startOpening(ctx: Ctx, by: ActionSource, boxIds: readonly string[], lines: readonly string[]): void {
  const { s, config, fx } = ctx;
  // A door that already reads OPEN (or a broken cable) never stops the pulse; it only counts as opened.
  const pending = boxIds.filter((b) => s.boxes[b] !== 'OPEN');
  setMode(ctx, { kind: 'opening', boxes: boxIds, pending, lines });
  // Journal first (write, then pulse): a restart must know this action began.
  fx.push({ type: 'journal-action', by, boxIds });
  fx.push({ type: 'pulse', boxIds });
  if (pending.length > 0) fx.push({ type: 'start-timer', timer: 'door-open', ms: config.timing.doorOpenTimeoutMs });
  else s.stateOwed = true;
}

export function onDoor(ctx: Ctx, boxId: string, state: DoorState): void {
  const { s, config, fx, log } = ctx;
  if (!isKnownBox(config, boxId)) {
    log('warn', 'door change of an unknown box ignored', { boxId });
    return;
  }
  if (s.boxes[boxId] === state) return;
  beforeDoorChange(ctx, boxId);
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

export function onDoorOpenTimer(ctx: Ctx): void {
  const { s, config, log } = ctx;
  if (s.mode.kind !== 'opening' || s.mode.pending.length === 0) return;
  const notOpened = s.mode.pending.map((id) => `box ${boxNumber(config, id)} did not open`);
  log('error', 'doors did not report OPEN after the pulse', { boxes: s.mode.pending, timeoutMs: config.timing.doorOpenTimeoutMs });
  s.pendingErrors = [...s.pendingErrors, ...notOpened];
  s.mode = { ...s.mode, pending: [] };
  s.stateOwed = true;
}
