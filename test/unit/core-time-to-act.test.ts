/**
 * Time to act (core/time-to-act.ts) on the core's virtual clock: each time limit a patron faces —
 * the half-typed PIN's idle clear, a box left open before its door-ajar alarm — is warned of
 * warnBeforeMs before it runs out (at half time when shorter), with text, the warning sound and,
 * when speech is on, its tone and the screen spoken; one key gives the whole limit again, up to
 * maxExtensions times in a row; a PIN key during a warning is typed, never swallowed.
 */
import { describe, expect, it } from 'vitest';
import { TEXTS } from '../../src/config/messages.js';
import { warnLeadMs } from '../../src/station/core.js';
import type { Effect, Input } from '../../src/station/core-types.js';
import { answered, B1, closedDoors, cmd, coreConfig, CoreDriver, pinKeys, waitForInput } from '../support/core-driver.js';

const en = TEXTS.en;
const digit = (d: string): Input => ({ type: 'key', key: { kind: 'digit', digit: d } });
const at = (d: CoreDriver, t: number): Effect[] => d.effects.filter((e) => e.at === t).map((e) => e.effect);

function idle(timing: Parameters<typeof coreConfig>[0] = {}): CoreDriver {
  const d = new CoreDriver(coreConfig(timing), closedDoors);
  d.input({ type: 'start' });
  d.input(answered('state', waitForInput));
  return d;
}

describe('the warning lead', () => {
  it('warnBeforeMs before the end, at half time for a limit shorter than twice it, never with 0', () => {
    expect(warnLeadMs(20_000, 40_000)).toBe(20_000);
    expect(warnLeadMs(20_000, 120_000)).toBe(20_000);
    expect(warnLeadMs(20_000, 10_000)).toBe(5_000);
    expect(warnLeadMs(0, 40_000)).toBe(0);
  });
});

describe('PIN entry idle', () => {
  it('a pause of pinIdleMs − warnBeforeMs brings the warning (text, sound), the PIN is cleared at pinIdleMs', () => {
    const d = idle({ timing: { pinIdleMs: 40_000, warnBeforeMs: 20_000 } });
    d.input(digit('1'));
    d.input(digit('2'));
    d.advance(19_999);
    expect(d.state.assist.warnings).toEqual([]);
    d.advance(20_000);
    expect(d.state.assist.warnings).toEqual(['pin-idle']);
    expect(d.state.shown).toEqual([...en.moreTime, 'PIN: **']);
    expect(at(d, 20_000)).toEqual(
      expect.arrayContaining([
        { type: 'sound', sound: 'warning' },
        { type: 'more-time-offered', offered: true },
      ]),
    );
    // Speech is off: no tone, nothing said.
    expect(at(d, 20_000).some((e) => e.type === 'tone' || e.type === 'speak')).toBe(false);
    d.advance(40_000);
    expect(d.state.pin).toBe('');
    expect(d.state.assist.warnings).toEqual([]);
    expect(d.state.shown).toEqual(en.prompt);
    expect(at(d, 40_000)).toContainEqual({ type: 'more-time-offered', offered: false });
  });

  it('with speech on the warning also sounds its tone and is spoken', () => {
    const d = idle({ timing: { pinIdleMs: 40_000 } });
    d.input({ type: 'assist', request: 'speech' });
    d.input(digit('1'));
    d.advance(20_000);
    const fx = at(d, 20_000);
    expect(fx).toContainEqual({ type: 'tone', tone: 'warning', volume: 70 });
    expect(fx).toContainEqual({ type: 'speak', lines: [...en.moreTime, 'PIN: 1 of 6 digits typed'], volume: 70 });
  });

  it('the more-time key gives the whole limit again and withdraws the warning; a digit is typed, never swallowed', () => {
    const d = idle({ timing: { pinIdleMs: 40_000 } });
    d.input(digit('1'));
    d.advance(20_000);
    d.input({ type: 'assist', request: 'more-time' });
    expect(d.state.assist).toMatchObject({ warnings: [], extensions: 1 });
    expect(d.state.shown).toEqual([en.prompt[0], 'PIN: *']);
    // The whole 40 s again from the extension: the next warning at 20 + 20 s, the clear at 20 + 40 s.
    d.advance(39_999);
    expect(d.state.assist.warnings).toEqual([]);
    d.advance(40_000);
    expect(d.state.assist.warnings).toEqual(['pin-idle']);
    d.input(digit('2'));
    expect(d.state.pin).toBe('12');
    expect(d.state.assist).toMatchObject({ warnings: [], extensions: 0 });
  });

  it('more time up to maxExtensions in a row, then the limit runs out unannounced', () => {
    const d = idle({ timing: { pinIdleMs: 4_000, warnBeforeMs: 2_000, maxExtensions: 2 } });
    d.input(digit('1'));
    for (let i = 0; i < 2; i++) {
      d.advance(d.now + 2_000);
      expect(d.state.assist.warnings).toEqual(['pin-idle']);
      d.input({ type: 'assist', request: 'more-time' });
    }
    d.advance(d.now + 3_999);
    expect(d.state.assist.warnings).toEqual([]);
    expect(d.state.pin).toBe('1');
    d.advance(d.now + 1);
    expect(d.state.pin).toBe('');
  });

  it('warnBeforeMs 0: no warning at all, the limit as before', () => {
    const d = idle({ timing: { pinIdleMs: 40_000, warnBeforeMs: 0 } });
    d.input(digit('1'));
    d.advance(39_999);
    expect(d.effects.some((e) => e.effect.type === 'more-time-offered')).toBe(false);
    d.advance(40_000);
    expect(d.state.pin).toBe('');
  });

  it('a stale warning timer (the PIN sent meanwhile) does nothing', () => {
    const d = idle({ timing: { pinIdleMs: 40_000 } });
    for (const i of pinKeys('123456')) d.input(i);
    d.input({ type: 'timer', timer: 'warn:pin-idle' });
    expect(d.state.assist.warnings).toEqual([]);
  });
});

describe('a box left open', () => {
  function opened(): CoreDriver {
    const d = idle({ timing: { doorAjarMs: 120_000, warnBeforeMs: 20_000 } });
    for (const i of pinKeys('123456')) d.input(i);
    d.input(answered('pin-enter', cmd({ type: 'box-open', boxes: [B1], displayMessages: ['Take your items from box 1'] })));
    d.input({ type: 'door', boxId: B1, state: 'OPEN' });
    d.input(answered('state', cmd({ type: 'wait-for-closing', boxes: [B1], displayMessages: ['Close box 1 when done'], cancellable: false })));
    return d;
  }

  it('warned 20 s before the door-ajar alarm; any key gives the whole time again instead of "close the box first"', () => {
    const d = opened();
    const t0 = d.now;
    d.advance(t0 + 100_000);
    expect(d.state.assist.warnings).toEqual([`door-ajar:${B1}`]);
    expect(d.state.shown).toEqual([...en.moreTime, 'Please close box 1']);
    d.input(digit('5'));
    expect(d.state.assist.warnings).toEqual([]);
    expect(d.state.overlay).toBeNull();
    expect(d.state.shown).toEqual(['Close box 1 when done']);
    d.advance(t0 + 100_000 + 119_999);
    expect(d.state.alarms).toEqual([]);
    d.advance(t0 + 220_000);
    expect(d.state.alarms.map((a) => a.kind)).toEqual(['door-ajar']);
  });

  it('no key: the alarm comes at doorAjarMs as before, and the warning goes with it', () => {
    const d = opened();
    const t0 = d.now;
    d.advance(t0 + 120_000);
    expect(d.state.alarms.map((a) => a.kind)).toEqual(['door-ajar']);
    expect(d.state.assist.warnings).toEqual([]);
    expect(d.state.shown).toEqual(['Please close box 1']);
  });

  it('the door closed during the warning: the warning withdrawn, the more-time button hidden', () => {
    const d = opened();
    d.advance(d.now + 100_000);
    const fx = d.input({ type: 'door', boxId: B1, state: 'CLOSED' });
    expect(d.state.assist.warnings).toEqual([]);
    expect(fx).toContainEqual({ type: 'more-time-offered', offered: false });
    expect(fx).toContainEqual({ type: 'stop-timer', timer: `warn:door-ajar:${B1}` });
  });
});
