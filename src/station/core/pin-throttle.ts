/**
 * The PIN brute-force throttle (Matter DoorLock's WrongCodeEntryLimit). Exception answers to
 * /pin-enter in a row are counted; from `pin.maxFailures` on, the keypad is locked for
 * `pin.lockoutMs`, doubled with each further failure up to `pin.maxLockoutMs`, with a countdown on
 * the display. Nothing is sent while locked (input.ts refuses every key). A box-open answer to
 * /pin-enter (a successful pickup) resets the count. Every change is saved (`save-pin-throttle`,
 * the runtime writes it to its own state file) and restored by `start`: a restart never resets the
 * count, and a lock-out in force at the restart starts again in full (never shorter: the core has
 * no clock that survives a restart).
 *
 * Transitions here:
 * | throttle   | input                              | effect                                              |
 * |------------|------------------------------------|-----------------------------------------------------|
 * | any        | start with a saved record          | failures restored; a saved lock-out restarts in full |
 * | any        | start with a damaged record        | error log; locked as at maxFailures (a file that     |
 * |            |                                    | cannot be read must not reset the throttle)          |
 * | not locked | /pin-enter answered exception      | failures + 1, saved; from maxFailures on: locked     |
 * |            |                                    | (pin-lockout alarm, countdown timer, overlay gone)   |
 * | any        | /pin-enter answered box-open       | failures 0, saved                                    |
 * | locked     | pin-lockout timer, time left       | countdown steps (display), timer again               |
 * | locked     | pin-lockout timer, no time left    | unlocked (saved), alarm cleared; failures kept       |
 */
import type { ServerAnswer } from '../../protocol/types.js';
import type { CoreConfig } from '../core-types.js';
import type { PinThrottleRecord } from '../../storage/types.js';
import type { Ctx } from './context.js';
import { clearAlarm, raiseAlarm } from './alarms.js';
import { clearPin } from './context.js';

/** The lock-out after `failures` failures in a row, or null below maxFailures. */
export function lockoutMsFor(pin: CoreConfig['pin'], failures: number): number | null {
  if (failures < pin.maxFailures) return null;
  const doublings = Math.min(failures - pin.maxFailures, 40); // 2^40 outgrows any maxLockoutMs
  // eslint-disable-next-line no-restricted-syntax -- a lock-out that doubles per failure is a penalty the core decides, not a retry schedule (it runs no timer)
  return Math.min(pin.lockoutMs * 2 ** doublings, pin.maxLockoutMs);
}

export function isKeypadLocked(ctx: Ctx): boolean {
  return ctx.s.pinThrottle.lockout !== null;
}

function save(ctx: Ctx): void {
  const t = ctx.s.pinThrottle;
  ctx.fx.push({ type: 'save-pin-throttle', record: { failures: t.failures, lockoutMs: t.lockout?.ms ?? null } });
}

function lock(ctx: Ctx, ms: number): void {
  const { s, config, fx, log } = ctx;
  const failures = s.pinThrottle.failures;
  s.pinThrottle = { failures, lockout: { ms, remainingMs: ms } };
  const pins = failures === 1 ? '1 wrong PIN' : `${failures} wrong PINs`;
  log('warn', `keypad locked for ${Math.round(ms / 1000)} s after ${pins} in a row`, { failures, lockoutMs: ms });
  raiseAlarm(ctx, { kind: 'pin-lockout', boxId: null, detail: `keypad locked for ${Math.round(ms / 1000)} s after ${pins}` });
  // The lock-out screen (display.ts) replaces the server's "wrong PIN" message at once.
  s.overlay = null;
  if (s.pin !== '') clearPin(ctx);
  fx.push({ type: 'start-timer', timer: 'pin-lockout', ms: Math.min(config.pin.countdownTickMs, ms) });
}

/** `start`: the saved throttle comes back; a lock-out that was in force starts again in full. */
export function restorePinThrottle(ctx: Ctx, record: PinThrottleRecord | 'damaged' | null | undefined): void {
  if (!record) return;
  if (record === 'damaged') {
    const { maxFailures, lockoutMs } = ctx.config.pin;
    ctx.log('error', 'the saved PIN throttle cannot be trusted: keypad locked as if the limit was reached', { failures: maxFailures, lockoutMs });
    ctx.s.pinThrottle = { failures: maxFailures, lockout: null };
    lock(ctx, lockoutMs);
    save(ctx);
    return;
  }
  const failures = Math.max(0, Math.floor(record.failures));
  ctx.s.pinThrottle = { failures, lockout: null };
  if (record.lockoutMs !== null && record.lockoutMs > 0) {
    // The saved length, but never more than what the config allows now.
    const ms = Math.min(record.lockoutMs, ctx.config.pin.maxLockoutMs);
    ctx.log('warn', 'a PIN lock-out was in force before the restart: it starts again in full', { failures, lockoutMs: ms });
    lock(ctx, ms);
  } else if (failures > 0) {
    ctx.log('info', 'PIN failures in a row restored', { failures });
  }
}

/** The answer to /pin-enter, before answers.ts acts on it. */
export function onPinAnswer(ctx: Ctx, answer: ServerAnswer): void {
  const { s, config } = ctx;
  if (answer.kind === 'exception') {
    const failures = s.pinThrottle.failures + 1;
    s.pinThrottle = { ...s.pinThrottle, failures };
    const ms = lockoutMsFor(config.pin, failures);
    if (ms !== null && s.pinThrottle.lockout === null) lock(ctx, ms);
    save(ctx);
    return;
  }
  if (answer.kind === 'command' && answer.command.type === 'box-open' && s.pinThrottle.failures > 0) {
    ctx.log('info', 'PIN accepted: failures in a row reset', { failures: s.pinThrottle.failures });
    s.pinThrottle = { failures: 0, lockout: null };
    clearAlarm(ctx, 'pin-lockout');
    save(ctx);
  }
}

export function onPinLockoutTimer(ctx: Ctx): void {
  const { s, config, fx, log } = ctx;
  const lockout = s.pinThrottle.lockout;
  if (lockout === null) return;
  const remainingMs = lockout.remainingMs - Math.min(config.pin.countdownTickMs, lockout.remainingMs);
  if (remainingMs > 0) {
    s.pinThrottle = { ...s.pinThrottle, lockout: { ...lockout, remainingMs } };
    fx.push({ type: 'start-timer', timer: 'pin-lockout', ms: Math.min(config.pin.countdownTickMs, remainingMs) });
    return;
  }
  s.pinThrottle = { ...s.pinThrottle, lockout: null };
  log('info', 'keypad unlocked: PIN lock-out over', { failures: s.pinThrottle.failures });
  clearAlarm(ctx, 'pin-lockout');
  save(ctx);
}
