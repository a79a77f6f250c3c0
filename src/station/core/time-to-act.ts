/**
 * Time to act: every time limit the station sets a patron (a half-typed PIN is cleared after
 * `timing.pinIdleMs`; a box left open raises the door-ajar alarm after `timing.doorAjarMs`) is
 * announced before it runs out — the "more time?" screen, the buzzer's `warning`, the `warning` tone
 * and the screen spoken when speech is on — and the patron gets the whole limit again with one key.
 * This is WCAG 2.2.1's "extend": the warning comes `timing.warnBeforeMs` (20 s) before the end, or at
 * half time for a limit shorter than twice that, and more time is given up to `timing.maxExtensions`
 * times in a row (then the limit runs out unannounced, as it did before).
 *
 * A limit's own timer has the limit's name ('pin-idle', 'door-ajar:<boxId>'); its warning timer is
 * `warn:<limit>`. What happens when the limit runs out stays where it was (input.ts clears the
 * PIN, alarms.ts raises door-ajar); this file only warns and extends.
 *
 * Transitions here:
 * | state                          | input                                   | effect                                          |
 * |--------------------------------|-----------------------------------------|-------------------------------------------------|
 * | a limit starts (a PIN key, a   | —                                       | its timer, and its warning timer at             |
 * | door opening)                  |                                         | limit − min(warnBeforeMs, limit / 2); more time |
 * |                                |                                         | given so far back to 0                          |
 * | more time given maxExtensions  | a limit starts                          | its timer only: no warning                      |
 * | times in a row                 |                                         |                                                 |
 * | the limit still runs           | warn:<limit>                            | warned: "more time?" screen, warning sound and  |
 * |                                |                                         | tone, more time offered (a kiosk button)        |
 * | the limit no longer runs       | warn:<limit>                            | nothing (a stale timer)                         |
 * | a warning shows                | more-time (a help control), or any key  | every warned limit restarted whole, warnings    |
 * |                                | during a door-ajar warning              | withdrawn, more time given + 1                  |
 * | a warning shows                | the limit's own timer                   | warning withdrawn; the limit runs out           |
 * | a warning shows                | the PIN cleared, the door closed        | warning withdrawn (context.withdrawLimit)       |
 *
 * A key during a PIN warning is not taken for more time: it does what it does (a digit is typed,
 * which restarts the limit anyway), so no digit is ever swallowed.
 */
import type { TimeLimit, TimerName } from '../core-types.js';
import type { Ctx } from './context.js';
import { dropWarning, sound, tone } from './context.js';

const WARN_PREFIX = 'warn:';

/** The limit a warning timer belongs to, or null for another timer. */
export function limitOfWarnTimer(timer: TimerName): TimeLimit | null {
  return timer.startsWith(WARN_PREFIX) ? (timer.slice(WARN_PREFIX.length) as TimeLimit) : null;
}

function limitMs(ctx: Ctx, limit: TimeLimit): number {
  return limit === 'pin-idle' ? ctx.config.timing.pinIdleMs : ctx.config.timing.doorAjarMs;
}

/** How long before the end a limit of `ms` is warned of (0: not at all). */
export function warnLeadMs(warnBeforeMs: number, ms: number): number {
  return Math.min(warnBeforeMs, Math.floor(ms / 2));
}

/**
 * Start (or restart) `limit` with its whole time, and its warning. `extension`: the patron asked for
 * more time (counted); anything else that starts a limit is the patron acting, which resets the count.
 */
export function startLimit(ctx: Ctx, limit: TimeLimit, extension = false): void {
  const { s, config, fx } = ctx;
  const ms = limitMs(ctx, limit);
  fx.push({ type: 'start-timer', timer: limit, ms });
  if (!extension && s.assist.extensions !== 0) s.assist = { ...s.assist, extensions: 0 };
  dropWarning(ctx, limit);
  const lead = warnLeadMs(config.timing.warnBeforeMs, ms);
  if (lead <= 0) return;
  if (s.assist.extensions >= config.timing.maxExtensions) {
    fx.push({ type: 'stop-timer', timer: `warn:${limit}` });
    return;
  }
  fx.push({ type: 'start-timer', timer: `warn:${limit}`, ms: ms - lead });
}

function stillRuns(ctx: Ctx, limit: TimeLimit): boolean {
  const { s } = ctx;
  if (limit === 'pin-idle') return s.pin !== '';
  const boxId = limit.slice('door-ajar:'.length);
  // Once the door-ajar alarm is raised the limit has run out: the reminder takes over.
  return s.boxes[boxId] === 'OPEN' && !s.alarms.some((a) => a.kind === 'door-ajar' && a.boxId === boxId);
}

export function onWarnTimer(ctx: Ctx, limit: TimeLimit): void {
  const { s, config, fx, log } = ctx;
  if (!stillRuns(ctx, limit) || s.assist.warnings.includes(limit)) return;
  const first = s.assist.warnings.length === 0;
  s.assist = { ...s.assist, warnings: [...s.assist.warnings, limit] };
  log('info', 'time limit about to run out: more time offered', { limit, leftMs: warnLeadMs(config.timing.warnBeforeMs, limitMs(ctx, limit)) });
  sound(ctx, 'warning');
  tone(ctx, 'warning');
  if (first) fx.push({ type: 'more-time-offered', offered: true });
}

/** The limit's own timer ran out: its warning goes (what running out does is the limit owner's). */
export function onLimitRanOut(ctx: Ctx, limit: TimeLimit): void {
  dropWarning(ctx, limit);
}

/** Whether a warning is showing now. */
export function warning(ctx: Ctx): boolean {
  return ctx.s.assist.warnings.length > 0;
}

/** Whether a door-ajar warning is showing (any key then means "more time"). */
export function doorWarning(ctx: Ctx): boolean {
  return ctx.s.assist.warnings.some((l) => l !== 'pin-idle');
}

/** The patron asked for more time: every warned limit gets its whole time again. False: nothing was warned of. */
export function extend(ctx: Ctx): boolean {
  const { s, log } = ctx;
  const warned = s.assist.warnings;
  if (warned.length === 0) return false;
  s.assist = { ...s.assist, extensions: s.assist.extensions + 1 };
  log('info', 'more time given', { limits: [...warned], extensions: s.assist.extensions });
  for (const limit of warned) startLimit(ctx, limit, true);
  return true;
}
