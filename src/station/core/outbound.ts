/**
 * The outbound queue, as state: `inFlight` (at most one protocol event) and `stateOwed` (a /state
 * to send as soon as nothing is in flight; its snapshot is taken when it goes out, so a newer one
 * replaces an unsent older one). Scans, PINs and cancels are never queued here: input.ts refuses
 * them while an event is in flight.
 *
 * Transitions here: free -> in flight (send: any event; flushState: the owed /state) ->
 * free (answers.ts on `answered` / `unanswered`). A heartbeat timer marks a /state owed.
 *
 * What /state says about health (docs/decisions/0028): errorMessage names every
 * lasting fault, every alarm in force and every one-shot error, joined by "; ", or is null; st is
 * DOWN while a fault, a one-shot error or an alarm that stops service (tamper) is there, and UP
 * otherwise — a forced-open, ajar or PIN lock-out alarm leaves the other boxes serving, so it goes
 * out as UP with the errorMessage naming it, as does a degraded problem (faults.ts).
 */
import type { OutboundRequest } from '../core-types.js';
import type { Ctx } from './context.js';
import { BLOCKING_ALARMS } from './alarms.js';
import { takeReport } from './door-reports.js';

export function send(ctx: Ctx, request: OutboundRequest): void {
  ctx.s.inFlight = request.endpoint;
  // A new deposit or pickup: the last RFID item's handling note no longer applies (rfid.ts sets its own).
  if ((request.endpoint === 'item-identify' || request.endpoint === 'pin-enter') && ctx.s.rfid.handling !== null)
    ctx.s.rfid = { ...ctx.s.rfid, handling: null };
  ctx.fx.push({ type: 'send', request });
}

export function onHeartbeatTimer(ctx: Ctx): void {
  // Draining starts no new event; the server sees the restart's first /state soon enough.
  if (ctx.s.drain !== 'off') return;
  ctx.s.stateOwed = true;
}

/**
 * Send the owed /state if the queue is free. While pulsed doors are still opening it waits (at most
 * doorOpenTimeoutMs): a /state then would report the box CLOSED, which a server reads as "closed
 * again, action done".
 */
export function flushState(ctx: Ctx): void {
  const { s, config, fx } = ctx;
  if (!s.stateOwed || s.inFlight !== null) return;
  // Pulsed doors still in their door-open window (whatever the mode: a rescue open's mode may change).
  if (Object.values(s.doorWindow).includes('pending')) return;
  const faults = Object.values(s.faults);
  const down = faults.length > 0 || s.pendingErrors.length > 0 || s.alarms.some((a) => BLOCKING_ALARMS.has(a.kind));
  // A failing audio output that speech does not require is named, but leaves the station UP (assist.ts).
  const errors = [
    ...faults,
    ...Object.values(s.degraded),
    ...s.alarms.map((a) => a.detail),
    ...s.pendingErrors,
    ...(s.assist.outputProblem !== null ? [`speech: ${s.assist.outputProblem}`] : []),
  ];
  s.reportingErrors = s.pendingErrors;
  s.pendingErrors = [];
  s.stateOwed = false;
  const doors = takeReport(ctx);
  send(ctx, {
    endpoint: 'state',
    st: down ? 'DOWN' : 'UP',
    errorMessage: errors.length > 0 ? errors.join('; ') : null,
    boxes: config.boxes.map((b) => ({ id: b.id, st: doors[b.id] ?? 'CLOSED' })),
  });
  fx.push({ type: 'start-timer', timer: 'heartbeat', ms: config.timing.heartbeatIntervalMs });
}
