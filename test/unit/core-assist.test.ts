/**
 * Speech and the patron's visit in the pure core (core/assist.ts): what is said and when, decided
 * as effects. Speech starts only when the patron asks (speech key, a key held, headphones) or in
 * "always" mode; every new screen is then spoken from the same texts the display shows; a PIN's
 * keys sound tones and are never spoken; the speech key says the screen again; volume steps within
 * its range; the visit ends at the prompt after sessionEndMs and takes the patron's settings with
 * it; a failing audio output is DOWN only when speech is required.
 */
import { describe, expect, it } from 'vitest';
import { TEXTS } from '../../src/config/messages.js';
import { initialState } from '../../src/station/core.js';
import type { Effect, Input } from '../../src/station/core-types.js';
import {
  answered,
  B1,
  closedDoors,
  cmd,
  coreConfig,
  CoreDriver,
  displays,
  idleStepper,
  pinKeys,
  spoken,
  states,
  timer,
  tones,
  waitForInput,
  wrongPin,
} from '../support/core-driver.js';

const en = TEXTS.en;
const speechKey: Input = { type: 'assist', request: 'speech' };
const digit = (d: string): Input => ({ type: 'key', key: { kind: 'digit', digit: d } });
const kinds = (fx: readonly Effect[]) => fx.map((e) => e.type);

describe('speech starts only when asked', () => {
  it('patron mode: silent until the speech key; then the screen and the instructions, and the visit is untimed', () => {
    const st = idleStepper();
    expect(spoken(st.feed(digit('1'), { type: 'key', key: { kind: 'clear' } }))).toEqual([]);
    const fx = st.feed(speechKey);
    expect(spoken(fx)).toEqual([`${en.prompt.join(' / ')} / ${st.config.messages.assist.instructions}`]);
    expect(fx.find((e) => e.type === 'speak')).toMatchObject({ volume: 70 });
    expect(st.state.assist).toMatchObject({ requested: true, untimed: true, session: true });
  });

  it('a held key starts it as the speech key does (holdKey "any"); holdKey "none" never', () => {
    const st = idleStepper();
    expect(spoken(st.feed({ type: 'key-held', key: { kind: 'digit', digit: '5' } }))).toHaveLength(1);
    const none = idleStepper(coreConfig({ speech: { holdKey: 'none' } }));
    expect(spoken(none.feed({ type: 'key-held', key: { kind: 'clear' } }))).toEqual([]);
    const clearOnly = idleStepper(coreConfig({ speech: { holdKey: 'clear' } }));
    expect(spoken(clearOnly.feed({ type: 'key-held', key: { kind: 'enter' } }))).toEqual([]);
    expect(spoken(clearOnly.feed({ type: 'key-held', key: { kind: 'clear' } }))).toHaveLength(1);
  });

  it('headphones plugged in: speech on (screen and instructions); out: hushed', () => {
    const st = idleStepper();
    expect(spoken(st.feed({ type: 'headphones', plugged: true }))).toHaveLength(1);
    expect(kinds(st.feed({ type: 'headphones', plugged: false }))).toContain('hush');
    expect(spoken(st.feed(answered('state', cmd({ type: 'wait-for-input', displayMessages: ['Welcome'] }))))).toEqual([]);
  });

  it('headphones in at start: the first screen is spoken, then each new one', () => {
    const d = new CoreDriver(coreConfig(), closedDoors);
    expect(spoken(d.input({ type: 'start', headphones: true }))).toEqual([`${en.starting.join(' / ')} / ${d.config.messages.assist.instructions}`]);
    expect(spoken(d.input(answered('state', cmd({ type: 'wait-for-input', displayMessages: ['Welcome'] }))))).toEqual(['Welcome']);
  });

  it('mode always: every screen from the first; mode off: never, not even when asked', () => {
    const always = new CoreDriver(coreConfig({ speech: { mode: 'always' } }), closedDoors);
    expect(spoken(always.input({ type: 'start' }))).toEqual([en.starting.join(' / ')]);
    const off = idleStepper(coreConfig({ speech: { mode: 'off' } }));
    expect(spoken(off.feed(speechKey, { type: 'key-held', key: { kind: 'clear' } }, { type: 'headphones', plugged: true }))).toEqual([]);
    expect(tones(off.feed(digit('1')))).toEqual([]);
  });
});

describe('what speech says', () => {
  it('every new screen once: the busy screen after Enter, the server text, the box instructions', () => {
    const st = idleStepper();
    st.feed(speechKey);
    const fx = st.feed(...pinKeys('123456'));
    expect(tones(fx)).toEqual(['key', 'key', 'key', 'key', 'key', 'key', 'enter']);
    expect(spoken(fx)).toEqual([en.busy.join(' / ')]);
    expect(spoken(st.feed(answered('pin-enter', wrongPin)))).toEqual(['Wrong PIN']);
    const open = st.feed(answered('state', waitForInput), timer('message'));
    expect(spoken(open)).toEqual([en.prompt.join(' / ')]);
  });

  it('a PIN is never spoken: digits and backspace sound tones only; the speech key says how many digits, never which', () => {
    const st = idleStepper();
    st.feed(speechKey);
    const fx = st.feed(digit('9'), digit('8'), { type: 'key', key: { kind: 'backspace' } }, digit('7'));
    expect(tones(fx)).toEqual(['key', 'key', 'erase', 'key']);
    expect(spoken(fx)).toEqual([]);
    const again = spoken(st.feed(speechKey));
    expect(again).toEqual([`${en.prompt[0]} / PIN: 2 of 6 digits typed`]);
    for (const said of again) expect(said).not.toMatch(/[789]/);
    expect(displays(st.take()).flat().join(' ')).not.toMatch(/[789]/);
  });

  it('clear sounds its own tone and the prompt is said again', () => {
    const st = idleStepper();
    st.feed(speechKey, digit('1'));
    const fx = st.feed({ type: 'key', key: { kind: 'clear' } });
    expect(tones(fx)).toEqual(['clear']);
    expect(spoken(fx)).toEqual([en.prompt.join(' / ')]);
  });

  it('the speech key repeats the screen; at the prompt with the instructions', () => {
    const st = idleStepper();
    st.feed(speechKey);
    expect(spoken(st.feed(speechKey))).toEqual([`${en.prompt.join(' / ')} / ${st.config.messages.assist.instructions}`]);
    st.feed(...pinKeys('123456'), answered('pin-enter', cmd({ type: 'box-open', boxes: [B1], displayMessages: ['Box 1 is open'] })));
    expect(spoken(st.feed(speechKey))).toEqual(['Box 1 is open']);
  });

  it("a countdown's tick is not a new screen: the lock-out is said once, its time in words", () => {
    const config = coreConfig({ pin: { maxFailures: 1, lockoutMs: 90_000 } });
    const st = idleStepper(config);
    st.feed(speechKey, ...pinKeys('000000'));
    const fx = st.feed(answered('pin-enter', wrongPin));
    expect(spoken(fx)).toEqual(['Too many wrong PINs / try again in 2 minutes']);
    expect(spoken(st.feed(timer('pin-lockout'), timer('pin-lockout')))).toEqual([]);
    expect(displays(st.take()).length).toBeGreaterThan(0);
  });

  it('Czech: the same texts in Czech, the countdown in Czech words with its plural', () => {
    const config = coreConfig({ locale: 'cs', pin: { maxFailures: 1, lockoutMs: 3_000 } });
    const st = idleStepper(config);
    st.feed(speechKey, ...pinKeys('000000'));
    expect(spoken(st.feed(answered('pin-enter', wrongPin)))).toEqual(['Příliš mnoho / chybných PINů, / zkuste to za 3 sekundy']);
  });

  it('volume steps within its range and sounds the volume tone at the new volume; speech then speaks at it', () => {
    const st = idleStepper(coreConfig({ speech: { volume: { initial: 70, step: 10, min: 20, max: 90 } } }));
    expect(tones(st.feed({ type: 'assist', request: 'volume-up' }))).toEqual([]); // speech off: nothing
    st.feed(speechKey);
    const up = st.feed({ type: 'assist', request: 'volume-up' }, { type: 'assist', request: 'volume-up' }, { type: 'assist', request: 'volume-up' });
    expect(up.filter((e) => e.type === 'tone').map((e) => (e.type === 'tone' ? e.volume : 0))).toEqual([80, 90, 90]);
    for (let i = 0; i < 10; i++) st.feed({ type: 'assist', request: 'volume-down' });
    expect(st.state.assist.volume).toBe(20);
    expect(st.feed(speechKey).find((e) => e.type === 'speak')).toMatchObject({ volume: 20 });
  });
});

describe('the visit', () => {
  it('ends at the prompt after sessionEndMs without input: speech asked for off, volume back, session-end', () => {
    const d = new CoreDriver(coreConfig({ timing: { sessionEndMs: 60_000 } }), closedDoors);
    d.input({ type: 'start' });
    d.input(answered('state', waitForInput));
    d.input(speechKey);
    d.input({ type: 'assist', request: 'volume-down' });
    d.advance(59_999);
    expect(d.state.assist.session).toBe(true);
    d.advance(60_000);
    expect(d.state.assist).toMatchObject({ session: false, requested: false, untimed: false, volume: null });
    const last = d.effects.filter((e) => e.at === 60_000).map((e) => e.effect.type);
    expect(last).toEqual(expect.arrayContaining(['hush', 'session-end']));
  });

  it('does not end while the station is in use (a PIN typed, a box open): the timer starts again', () => {
    const d = new CoreDriver(coreConfig({ timing: { sessionEndMs: 10_000, pinIdleMs: 60_000 } }), closedDoors);
    d.input({ type: 'start' });
    d.input(answered('state', waitForInput));
    d.input(digit('4'));
    d.advance(10_000);
    expect(d.state.assist.session).toBe(true);
    expect(d.nextDue()).not.toBeNull();
  });

  it('an untimed visit: a message waits for the next input instead of its timer', () => {
    const st = idleStepper();
    st.feed(speechKey);
    const fx = st.feed({ type: 'key', key: { kind: 'enter' } });
    expect(st.state.overlay).toEqual(en.pinLength);
    expect(fx).not.toContainEqual(expect.objectContaining({ type: 'start-timer', timer: 'message' }));
    st.feed(digit('1'));
    expect(st.state.overlay).toBeNull();
    const timed = idleStepper();
    expect(timed.feed({ type: 'key', key: { kind: 'enter' } })).toContainEqual({ type: 'start-timer', timer: 'message', ms: 5_000 });
  });

  it('the kiosk page switched to high contrast or large text: untimed too, nothing spoken', () => {
    const st = idleStepper();
    expect(spoken(st.feed({ type: 'assist', request: 'visual' }))).toEqual([]);
    expect(st.state.assist.untimed).toBe(true);
  });
});

describe('the audio output', () => {
  it('not required: a problem is named in /state with st UP, and cleared', () => {
    const st = idleStepper();
    const fx = st.feed({ type: 'speech-output', problem: 'audio output default: no card' }, answered('state', waitForInput), timer('heartbeat'));
    expect(states(fx).at(-1)).toMatchObject({ st: 'UP', errorMessage: 'speech: audio output default: no card' });
    const ok = st.feed({ type: 'speech-output', problem: null }, answered('state', waitForInput), timer('heartbeat'));
    expect(states(ok).at(-1)).toMatchObject({ st: 'UP', errorMessage: null });
  });

  it('required: a problem is a fault, st DOWN', () => {
    const st = idleStepper(coreConfig({ speech: { required: true } }));
    const fx = st.feed({ type: 'speech-output', problem: 'no card' }, answered('state', waitForInput), timer('heartbeat'));
    expect(states(fx).at(-1)).toMatchObject({ st: 'DOWN', errorMessage: 'speech: no card' });
  });

  it('a station without an audio output (mode off) never speaks', () => {
    const st = new CoreDriver(coreConfig({ speech: { mode: 'off' } }), closedDoors);
    st.input({ type: 'start', headphones: true });
    expect(st.effects.some((e) => e.effect.type === 'speak')).toBe(false);
    expect(initialState(closedDoors).assist.session).toBe(false);
  });
});
