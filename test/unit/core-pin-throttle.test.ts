/**
 * The PIN throttle of the pure core (core/pin-throttle.ts): counting exception answers, the
 * lock-out and its doubling, the countdown on the display, the reset on success, and the restore
 * at start. The countdown timer is an input.
 */
import { describe, expect, it } from 'vitest';
import { lockoutMsFor, screen } from '../../src/station/core.js';
import type { Effect } from '../../src/station/core-types.js';
import {
  answered,
  B1,
  cmd,
  coreConfig,
  idleStepper,
  pinKeys,
  sends,
  sounds,
  states,
  timer,
  timersStarted,
  wrongPin,
  type Stepper,
} from '../support/core-driver.js';

const saves = (fx: readonly Effect[]) => fx.flatMap((e) => (e.type === 'save-pin-throttle' ? [e.record] : []));

/** Enter a PIN and have the server answer it with an exception. */
function failOnce(st: Stepper): Effect[] {
  return st.feed(...pinKeys('123456'), answered('pin-enter', wrongPin));
}

/** Answer every /state the station sends until nothing is in flight. */
function settle(st: Stepper): void {
  while (st.state.inFlight === 'state') st.feed(answered('state', cmd({ type: 'wait-for-input', displayMessages: [] })));
}

/** Let a lock-out run out, one countdown step at a time; returns how many steps it took. */
function runOut(st: Stepper): number {
  let steps = 0;
  while (st.state.pinThrottle.lockout !== null) {
    st.feed(timer('pin-lockout'));
    steps += 1;
  }
  return steps;
}

describe('PIN throttle', () => {
  it('the lock-out: 30 s from the 5th failure in a row, doubling to at most 15 min', () => {
    const pin = coreConfig().pin;
    expect([1, 4, 5, 6, 7, 8, 9, 10, 11, 50].map((f) => lockoutMsFor(pin, f))).toEqual([
      null,
      null,
      30_000,
      60_000,
      120_000,
      240_000,
      480_000,
      900_000,
      900_000,
      900_000,
    ]);
  });

  it('counts exception answers and saves each; the 5th locks the keypad: alarm, countdown, nothing sent', () => {
    const st = idleStepper();
    for (let i = 1; i <= 4; i++) {
      const fx = failOnce(st);
      expect(saves(fx)).toEqual([{ failures: i, lockoutMs: null }]);
      expect(st.state.pinThrottle.lockout).toBeNull();
    }
    st.take();
    const fx = failOnce(st);
    expect(saves(fx)).toEqual([{ failures: 5, lockoutMs: 30_000 }]);
    expect(st.state.alarms).toEqual([{ kind: 'pin-lockout', boxId: null, detail: 'keypad locked for 30 s after 5 wrong PINs' }]);
    expect(timersStarted(fx)).toContainEqual({ timer: 'pin-lockout', ms: 1_000 });
    // The lock-out screen replaces the server's "Wrong PIN" at once.
    expect(screen(st.config, st.state)).toEqual(['Too many wrong PINs', 'try again in 0:30']);
    // The lock-out is named in /state (UP: scans still work).
    expect(states(fx)[0]).toMatchObject({ st: 'UP', errorMessage: 'keypad locked for 30 s after 5 wrong PINs' });
    st.feed(answered('state', cmd({ type: 'wait-for-input', displayMessages: [] })));

    // Keys are refused: nothing typed, nothing sent, a double beep.
    const keys = st.feed(...pinKeys('654321'));
    expect(sends(keys)).toEqual([]);
    expect(st.state.pin).toBe('');
    expect(new Set(sounds(keys))).toEqual(new Set(['refused']));
    // A librarian's scan still works.
    expect(sends(st.feed({ type: 'scan', identifierType: 'BAR_CODE', value: 'X1', at: 0 }))).toMatchObject([{ endpoint: 'item-identify' }]);
  });

  it('counts down on the display and unlocks on the last step; the count stays, so the next failure locks for 60 s', () => {
    const st = idleStepper();
    for (let i = 0; i < 5; i++) failOnce(st);
    st.feed(timer('pin-lockout'));
    expect(screen(st.config, st.state)).toEqual(['Too many wrong PINs', 'try again in 0:29']);
    st.take();
    expect(runOut(st)).toBe(29);
    const fx = st.take();
    expect(saves(fx)).toEqual([{ failures: 5, lockoutMs: null }]);
    expect(st.state.alarms).toEqual([]);
    expect(screen(st.config, st.state)).toEqual(st.config.messages.prompt);

    settle(st);
    expect(saves(failOnce(st))).toEqual([{ failures: 6, lockoutMs: 60_000 }]);
    expect(screen(st.config, st.state)).toEqual(['Too many wrong PINs', 'try again in 1:00']);
    expect(runOut(st)).toBe(60);
    settle(st);
    failOnce(st);
    expect(st.state.pinThrottle.lockout?.ms).toBe(120_000);
  });

  it('a box-open answer to /pin-enter (a successful pickup) resets the count', () => {
    const st = idleStepper();
    for (let i = 0; i < 3; i++) failOnce(st);
    const fx = st.feed(...pinKeys('111111'), answered('pin-enter', cmd({ type: 'box-open', boxes: [B1], displayMessages: [] })));
    expect(saves(fx)).toEqual([{ failures: 0, lockoutMs: null }]);
    expect(st.state.pinThrottle.failures).toBe(0);
  });

  it('an unanswered /pin-enter and an exception to a scan do not count', () => {
    const st = idleStepper();
    st.feed(...pinKeys('123456'), { type: 'unanswered', endpoint: 'pin-enter', reason: 'timeout' });
    st.feed(answered('state', cmd({ type: 'wait-for-input', displayMessages: [] })));
    st.feed({ type: 'scan', identifierType: 'BAR_CODE', value: 'X1', at: 0 }, answered('item-identify', wrongPin));
    expect(st.state.pinThrottle.failures).toBe(0);
  });

  it('a restart restores the count; a lock-out in force starts again in full', () => {
    const locked = idleStepper(coreConfig(), { pinThrottle: { failures: 6, lockoutMs: 60_000 } });
    expect(locked.state.pinThrottle).toEqual({ failures: 6, lockout: { ms: 60_000, remainingMs: 60_000 } });
    expect(locked.state.alarms.map((a) => a.kind)).toEqual(['pin-lockout']);
    expect(screen(locked.config, locked.state)).toEqual(['Too many wrong PINs', 'try again in 1:00']);

    const counted = idleStepper(coreConfig(), { pinThrottle: { failures: 4, lockoutMs: null } });
    expect(counted.state.pinThrottle.lockout).toBeNull();
    failOnce(counted);
    expect(counted.state.pinThrottle.lockout?.ms).toBe(30_000);
  });

  it('Czech: the countdown in the Czech text', () => {
    const st = idleStepper(coreConfig({ locale: 'cs' }), { pinThrottle: { failures: 9, lockoutMs: 480_000 } });
    expect(screen(st.config, st.state)).toEqual(['Příliš mnoho', 'chybných PINů,', 'zkuste to za 8:00']);
  });
});

describe('PIN throttle restored from a damaged file', () => {
  it('locks the keypad as at maxFailures and saves a good record over it', () => {
    const st = idleStepper(coreConfig(), { pinThrottle: 'damaged' });
    expect(st.state.pinThrottle).toEqual({ failures: 5, lockout: { ms: 30_000, remainingMs: 30_000 } });
    expect(st.state.alarms.map((a) => a.kind)).toEqual(['pin-lockout']);
  });
});
