/**
 * Graceful stop as a core mode (SIGTERM): new input is refused with the "restarting" text, the event
 * in flight gets its answer, an answered box-open is carried out through its pulse and the /state
 * that reports the doors; then `drained`, and the runtime drives every lock OFF and exits. Waiting
 * for a door to be closed is not part of it: the journal keeps that box, and the restarted station
 * reports it (restart.ts) and the server's wait-for-closing takes over again.
 *
 * Transitions here:
 * | drain    | input / condition                                            | to / effect            |
 * |----------|--------------------------------------------------------------|------------------------|
 * | off      | drain                                                        | draining; PIN cleared  |
 * | draining | nothing in flight, no /state owed, no pulsed door pending    | drained; `drained`     |
 * | draining | heartbeat timer                                              | ignored (no new event) |
 *
 * input.ts refuses every scan, key, cancel and technician open while drain is not off; a door change
 * still marks a /state owed, and draining waits for it.
 */
import type { Ctx } from './context.js';
import { clearPin } from './context.js';

export function onDrain(ctx: Ctx): void {
  const { s, log } = ctx;
  if (s.drain !== 'off') return;
  s.drain = 'draining';
  if (s.pin !== '') clearPin(ctx);
  log('info', 'draining: new input refused; finishing what is in flight', { inFlight: s.inFlight, mode: s.mode.kind, stateOwed: s.stateOwed });
}

/** After every input while draining: emit `drained` once nothing is left to finish. */
export function checkDrained(ctx: Ctx): void {
  const { s, fx, log } = ctx;
  if (s.drain !== 'draining') return;
  if (s.inFlight !== null || s.stateOwed) return;
  if (s.mode.kind === 'opening' && s.mode.pending.length > 0) return;
  s.drain = 'drained';
  log('info', 'drained: nothing in flight', { mode: s.mode.kind });
  fx.push({ type: 'drained' });
}
