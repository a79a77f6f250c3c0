/**
 * Refused server commands without storms. A refused answer (unknown type, a foreign box, box-open
 * to /state, a body that is no command) opens nothing and is reported by a /state DOWN with an
 * errorMessage. That /state usually gets the same answer from the same server: reported at once
 * every time, a station sent /state as fast as the server answered (~2,000 in 6 s with
 * two log lines each), and a server release with a new command type would make a fleet hammer it.
 *
 * So refusals are counted per refusal window — one heartbeat interval, the `refusal` timer:
 *
 * | window | input                              | effect                                                  |
 * |--------|------------------------------------|---------------------------------------------------------|
 * | none   | a refused command                  | error log; errorMessage pending; /state owed at once;   |
 * |        |                                    | window opens                                            |
 * | open   | a refused command                  | counted; its errorMessage pending once (no duplicates); |
 * |        |                                    | no /state owed (the heartbeat carries it)               |
 * | open   | refusal timer, repeats counted     | one error log with the count and reasons; window goes on|
 * | open   | refusal timer, no repeats          | window closes                                           |
 *
 * Refusals therefore add at most one /state per heartbeat interval and one log line per interval.
 * Door changes, faults and alarms mark a /state owed on their own and still go out at once.
 */
import type { Endpoint } from '../../protocol/types.js';
import type { Ctx } from './context.js';

/** Distinct reasons kept per window for its log line (a hostile server could vary them endlessly). */
const MAX_REASONS = 5;

/** Record a refused command: report it, and rate-limit what it costs (see the table above). */
export function noteRefusal(ctx: Ctx, endpoint: Endpoint, reason: string): void {
  const { s, config, fx, log } = ctx;
  const error = `rejected command to /${endpoint}: ${reason}`;
  // Once each, and only a few different ones per report: a server varying its reason (a new foreign
  // box id every time) must not grow the errorMessage without bound.
  const pending = s.pendingErrors.filter((e) => e.startsWith('rejected command to /')).length;
  if (!s.pendingErrors.includes(error) && pending < MAX_REASONS) s.pendingErrors = [...s.pendingErrors, error];
  const window = s.refusals;
  if (window === null) {
    log('error', 'server command rejected; no box opened', { endpoint, reason });
    s.stateOwed = true;
    s.refusals = { repeats: 0, reasons: [] };
    fx.push({ type: 'start-timer', timer: 'refusal', ms: config.timing.heartbeatIntervalMs });
    return;
  }
  const reasons = window.reasons.includes(error) || window.reasons.length >= MAX_REASONS ? window.reasons : [...window.reasons, error];
  s.refusals = { repeats: window.repeats + 1, reasons };
}

export function onRefusalTimer(ctx: Ctx): void {
  const { s, config, fx, log } = ctx;
  const window = s.refusals;
  if (window === null) return;
  if (window.repeats === 0) {
    s.refusals = null;
    return;
  }
  log('error', `server command rejected ${window.repeats} more times in the last ${config.timing.heartbeatIntervalMs} ms; no box opened`, {
    count: window.repeats,
    reasons: window.reasons,
  });
  s.refusals = { repeats: 0, reasons: [] };
  fx.push({ type: 'start-timer', timer: 'refusal', ms: config.timing.heartbeatIntervalMs });
}
