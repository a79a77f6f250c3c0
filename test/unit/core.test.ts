/**
 * Every transition of the pure core: state + input -> state + effects. No timers, no I/O:
 * timer expiry and server answers are inputs like any other.
 */
import { describe, expect, it } from 'vitest';
import { initialState, screen, transition } from '../../src/station/core.js';
import type { CoreState, Effect, Input } from '../../src/station/core-types.js';
import { answered, B1, B2, cmd, coreConfig, runCore, sends } from '../support/core-driver.js';
import type { ServerAnswer } from '../../src/protocol/types.js';

const FOREIGN = '99999999-9999-4999-8999-999999999999';

const config = coreConfig();
const step = (state: CoreState, input: Input): { state: CoreState; fx: readonly Effect[] } => {
  const t = transition(config, state, input);
  return { state: t.state, fx: t.effects };
};
const run = (state: CoreState, ...inputs: Input[]): { state: CoreState; fx: Effect[] } => runCore(config, state, ...inputs);
const pulses = (fx: readonly Effect[]) => fx.flatMap((e) => (e.type === 'pulse' ? [e.boxIds] : []));
const waitForInput = (msgs: string[] = ['Scan or PIN']) => cmd({ type: 'wait-for-input', displayMessages: msgs });

const closed = { [B1]: 'CLOSED', [B2]: 'CLOSED' } as const;

/** A station that has started and been told wait-for-input. */
function idle(): CoreState {
  return run(initialState(closed), { type: 'start' }, answered('state', waitForInput())).state;
}

describe('start', () => {
  it('sends /state UP with every box at once and shows the starting text', () => {
    const { state, fx } = step(initialState(closed), { type: 'start' });
    expect(sends(fx)).toEqual([
      {
        endpoint: 'state',
        st: 'UP',
        errorMessage: null,
        boxes: [
          { id: B1, st: 'CLOSED' },
          { id: B2, st: 'CLOSED' },
        ],
      },
    ]);
    expect(fx).toContainEqual({ type: 'start-timer', timer: 'heartbeat', ms: 30_000 });
    expect(fx).toContainEqual({ type: 'display', lines: config.messages.starting });
    expect(state.inFlight).toBe('state');
  });

  it('wait-for-input -> idle with the server prompt', () => {
    const s = idle();
    expect(s.mode).toEqual({ kind: 'idle', lines: ['Scan or PIN'] });
    expect(screen(config, s)).toEqual(['Scan or PIN']);
  });

  it('refuses a scan while starting', () => {
    const s0 = step(initialState(closed), { type: 'start' }).state;
    const { fx } = step(s0, { type: 'scan', identifierType: 'BAR_CODE', value: 'A1', at: 0 });
    expect(sends(fx)).toEqual([]);
    expect(fx).toContainEqual({ type: 'display', lines: config.messages.busy });
  });
});

describe('deposit flow', () => {
  it('scan -> box-open -> pulse -> /state OPEN -> wait-for-closing -> door closed -> /state CLOSED -> wait-for-input', () => {
    let s = idle();
    let r = step(s, { type: 'scan', identifierType: 'BAR_CODE', value: ' 3123 ', at: 10 });
    expect(sends(r.fx)).toEqual([{ endpoint: 'item-identify', identifierType: 'BAR_CODE', identifierValue: '3123' }]);
    s = r.state;

    r = step(s, answered('item-identify', cmd({ type: 'box-open', boxes: [B1], displayMessages: ['Box 1 opens'] })));
    expect(pulses(r.fx)).toEqual([[B1]]);
    expect(r.fx).toContainEqual({ type: 'start-timer', timer: 'door-open', ms: 4_000 });
    expect(r.fx).toContainEqual({ type: 'display', lines: ['Box 1 opens'] });
    expect(sends(r.fx)).toEqual([]); // waits for the door
    s = r.state;
    expect(s.mode.kind).toBe('opening');

    r = step(s, { type: 'door', boxId: B1, state: 'OPEN' });
    expect(sends(r.fx)).toEqual([
      {
        endpoint: 'state',
        st: 'UP',
        errorMessage: null,
        boxes: [
          { id: B1, st: 'OPEN' },
          { id: B2, st: 'CLOSED' },
        ],
      },
    ]);
    // The door-open window stays until its timer: a bounce within it is still the commanded opening.
    expect(r.fx).not.toContainEqual({ type: 'stop-timer', timer: 'door-open' });
    expect(r.state.doorOutcomes[B1]).toBe('commanded-opened');
    s = r.state;

    r = step(s, answered('state', cmd({ type: 'wait-for-closing', boxes: [B1], displayMessages: ['Put it in', 'close'], cancellable: true })));
    expect(r.state.mode).toEqual({ kind: 'closing', boxes: [B1], cancellable: true, lines: ['Put it in', 'close'] });
    s = r.state;

    r = step(s, { type: 'door', boxId: B1, state: 'CLOSED' });
    expect(sends(r.fx)).toEqual([
      {
        endpoint: 'state',
        st: 'UP',
        errorMessage: null,
        boxes: [
          { id: B1, st: 'CLOSED' },
          { id: B2, st: 'CLOSED' },
        ],
      },
    ]);
    s = r.state;

    r = step(s, answered('state', waitForInput(['Next'])));
    expect(r.state.mode).toEqual({ kind: 'idle', lines: ['Next'] });
    expect(r.fx).toContainEqual({ type: 'display', lines: ['Next'] });
  });

  it('a door that closes before wait-for-closing arrives is reported right after the answer', () => {
    let s = idle();
    s = run(
      s,
      { type: 'scan', identifierType: 'RFID', value: 'e004', at: 0 },
      answered('item-identify', cmd({ type: 'box-open', boxes: [B1], displayMessages: [] })),
      { type: 'door', boxId: B1, state: 'OPEN' },
    ).state;
    expect(s.inFlight).toBe('state');
    let r = step(s, { type: 'door', boxId: B1, state: 'CLOSED' });
    expect(sends(r.fx)).toEqual([]); // never two events in flight
    expect(r.state.stateOwed).toBe(true);
    r = step(r.state, answered('state', cmd({ type: 'wait-for-closing', boxes: [B1], displayMessages: [], cancellable: true })));
    expect(sends(r.fx)).toEqual([
      expect.objectContaining({
        endpoint: 'state',
        boxes: [
          { id: B1, st: 'CLOSED' },
          { id: B2, st: 'CLOSED' },
        ],
      }),
    ]);
  });

  it('several boxes in one command: all pulsed, /state once every door is open', () => {
    let s = run(idle(), { type: 'key', key: { kind: 'digit', digit: '1' } }).state;
    s = run(s, ...'23456'.split('').map((d): Input => ({ type: 'key', key: { kind: 'digit', digit: d } })), { type: 'key', key: { kind: 'enter' } }).state;
    let r = step(s, answered('pin-enter', cmd({ type: 'box-open', boxes: [B1, B2], displayMessages: ['Take'] })));
    expect(pulses(r.fx)).toEqual([[B1, B2]]);
    r = step(r.state, { type: 'door', boxId: B1, state: 'OPEN' });
    expect(sends(r.fx)).toEqual([]);
    r = step(r.state, { type: 'door', boxId: B2, state: 'OPEN' });
    expect(sends(r.fx)).toEqual([
      expect.objectContaining({
        endpoint: 'state',
        boxes: [
          { id: B1, st: 'OPEN' },
          { id: B2, st: 'OPEN' },
        ],
      }),
    ]);
  });

  it('a door that does not open within the door-open time is reported CLOSED with an errorMessage naming it', () => {
    let s = run(
      idle(),
      { type: 'scan', identifierType: 'BAR_CODE', value: 'X', at: 0 },
      answered('item-identify', cmd({ type: 'box-open', boxes: [B2], displayMessages: [] })),
    ).state;
    const r = step(s, { type: 'timer', timer: 'door-open' });
    expect(sends(r.fx)).toEqual([
      {
        endpoint: 'state',
        st: 'DOWN',
        errorMessage: 'box 2 did not open',
        boxes: [
          { id: B1, st: 'CLOSED' },
          { id: B2, st: 'CLOSED' },
        ],
      },
    ]);
    s = run(r.state, answered('state', waitForInput())).state;
    // the one-shot error was delivered: the next heartbeat is UP again
    const hb = step(s, { type: 'timer', timer: 'heartbeat' });
    expect(sends(hb.fx)).toEqual([expect.objectContaining({ st: 'UP', errorMessage: null })]);
  });

  it('a door that already reads OPEN never stops the pulse', () => {
    // The door reads OPEN (forced, or a broken cable) while /item-identify is in flight.
    const s = run(idle(), { type: 'scan', identifierType: 'BAR_CODE', value: 'A', at: 0 }, { type: 'door', boxId: B1, state: 'OPEN' }).state;
    const opened = step(s, answered('item-identify', cmd({ type: 'box-open', boxes: [B1], displayMessages: [] })));
    expect(pulses(opened.fx)).toEqual([[B1]]);
    // counted as opened at once: /state goes out without waiting for the door-open timer
    expect(sends(opened.fx)).toEqual([
      expect.objectContaining({
        endpoint: 'state',
        boxes: [
          { id: B1, st: 'OPEN' },
          { id: B2, st: 'CLOSED' },
        ],
      }),
    ]);
  });
});

describe('cancel', () => {
  function closingCancellable(cancellable: boolean): CoreState {
    return run(
      idle(),
      { type: 'scan', identifierType: 'BAR_CODE', value: 'X', at: 0 },
      answered('item-identify', cmd({ type: 'box-open', boxes: [B1], displayMessages: [] })),
      { type: 'door', boxId: B1, state: 'OPEN' },
      answered('state', cmd({ type: 'wait-for-closing', boxes: [B1], displayMessages: ['Close'], cancellable })),
    ).state;
  }

  it('sends /cancel while cancellable; the answer wait-for-closing keeps waiting for the door', () => {
    let r = step(closingCancellable(true), { type: 'cancel-pressed' });
    expect(sends(r.fx)).toEqual([{ endpoint: 'cancel' }]);
    r = step(r.state, answered('cancel', cmd({ type: 'wait-for-closing', boxes: [B1], displayMessages: ['Cancelled'], cancellable: false })));
    expect(r.state.mode).toEqual({ kind: 'closing', boxes: [B1], cancellable: false, lines: ['Cancelled'] });
    r = step(r.state, { type: 'cancel-pressed' });
    expect(sends(r.fx)).toEqual([]);
    expect(r.fx).toContainEqual({ type: 'display', lines: config.messages.cannotCancel });
  });

  it('a refused cancel shows the server messages and then the closing prompt again', () => {
    let r = step(closingCancellable(true), { type: 'cancel-pressed' });
    r = step(r.state, answered('cancel', { kind: 'exception', status: 400, exceptionType: 'CannotCancelException', displayMessages: ['Too late'] }));
    expect(r.fx).toContainEqual({ type: 'display', lines: ['Too late'] });
    expect(r.fx).toContainEqual({ type: 'start-timer', timer: 'message', ms: 5_000 });
    expect(r.state.mode.kind).toBe('closing');
    r = step(r.state, { type: 'timer', timer: 'message' });
    expect(r.fx).toContainEqual({ type: 'display', lines: ['Close'] });
  });

  it('is refused when not cancellable, and in idle it clears a typed PIN', () => {
    const r = step(closingCancellable(false), { type: 'cancel-pressed' });
    expect(sends(r.fx)).toEqual([]);
    let s = run(idle(), { type: 'key', key: { kind: 'digit', digit: '4' } }).state;
    expect(s.pin).toBe('4');
    s = step(s, { type: 'cancel-pressed' }).state;
    expect(s.pin).toBe('');
  });
});

describe('PIN entry', () => {
  const digit = (d: string): Input => ({ type: 'key', key: { kind: 'digit', digit: d } });
  it('masks digits, supports backspace and clear, keeps the last 6 digits typed', () => {
    let r = run(idle(), digit('1'), digit('2'), digit('3'));
    expect(screen(config, r.state)).toEqual(['Scan or PIN', 'PIN: ***']);
    r = run(r.state, { type: 'key', key: { kind: 'backspace' } });
    expect(r.state.pin).toBe('12');
    r = run(r.state, { type: 'key', key: { kind: 'clear' } });
    expect(r.state.pin).toBe('');
    r = run(r.state, ...'12345678'.split('').map(digit));
    expect(r.state.pin).toBe('345678');
    expect(screen(config, r.state)).toEqual(['Scan or PIN', 'PIN: ******']);
  });

  it('Enter with 6 digits sends /pin-enter and clears the PIN', () => {
    const r = run(idle(), ...'654321'.split('').map(digit), { type: 'key', key: { kind: 'enter' } });
    expect(sends(r.fx)).toEqual([{ endpoint: 'pin-enter', pin: '654321' }]);
    expect(r.state.pin).toBe('');
    // the PIN digits never appear in a log effect
    expect(JSON.stringify(r.fx.filter((e) => e.type === 'log'))).not.toContain('654321');
  });

  it('a wrong length is not sent and says why', () => {
    const r = run(idle(), ...'1234'.split('').map(digit), { type: 'key', key: { kind: 'enter' } });
    expect(sends(r.fx)).toEqual([]);
    expect(r.fx).toContainEqual({ type: 'display', lines: config.messages.pinLength });
  });

  it('typing goes on while a heartbeat is in flight; Enter then is refused and drops the PIN (never sent by a later Enter)', () => {
    let r = run(idle(), { type: 'timer', timer: 'heartbeat' }, ...'123456'.split('').map(digit));
    expect(r.state.inFlight).toBe('state');
    expect(r.state.pin).toBe('123456');
    r = run(r.state, { type: 'key', key: { kind: 'enter' } });
    expect(sends(r.fx)).toEqual([]);
    expect(r.fx).toContainEqual({ type: 'display', lines: config.messages.busy });
    expect(r.state.pin).toBe('');
    r = run(r.state, answered('state', waitForInput()), { type: 'key', key: { kind: 'enter' } });
    expect(sends(r.fx)).toEqual([]);
  });

  it('is cleared after the idle timeout', () => {
    let r = run(idle(), digit('9'));
    expect(r.fx).toContainEqual({ type: 'start-timer', timer: 'pin-idle', ms: 20_000 });
    r = run(r.state, { type: 'timer', timer: 'pin-idle' });
    expect(r.state.pin).toBe('');
    expect(r.fx).toContainEqual({ type: 'display', lines: ['Scan or PIN'] });
  });
});

describe('refusals and duplicates', () => {
  it('input while an event is in flight is refused, never queued', () => {
    const s = run(idle(), { type: 'scan', identifierType: 'BAR_CODE', value: 'A', at: 0 }).state;
    const r = run(s, { type: 'scan', identifierType: 'BAR_CODE', value: 'B', at: 5_000 }, { type: 'key', key: { kind: 'digit', digit: '1' } });
    expect(sends(r.fx)).toEqual([]);
    // The scan is refused (double beep); a digit only fills the local buffer (typing may go on).
    expect(r.fx.filter((e) => e.type === 'sound')).toEqual([
      { type: 'sound', sound: 'refused' },
      { type: 'sound', sound: 'accepted' },
    ]);
    expect(screen(config, r.state)).toEqual(config.messages.busy);
    // after the answer nothing is sent on their behalf
    const after = step(
      r.state,
      answered('item-identify', { kind: 'exception', status: 404, exceptionType: 'ItemNotFound', displayMessages: ['Unknown item'] }),
    );
    expect(sends(after.fx)).toEqual([]);
  });

  it('input while a box is open (forced door) is refused', () => {
    const s = run(idle(), { type: 'door', boxId: B2, state: 'OPEN' }, answered('state', waitForInput())).state;
    const r = step(s, { type: 'scan', identifierType: 'BAR_CODE', value: 'A', at: 0 });
    expect(sends(r.fx)).toEqual([]);
    expect(r.fx).toContainEqual({ type: 'display', lines: config.messages.boxOpen });
  });

  it('a repeated identical scan within the window is dropped; after it, accepted', () => {
    let r = run(idle(), { type: 'scan', identifierType: 'BAR_CODE', value: 'A', at: 1_000 });
    r = run(r.state, answered('item-identify', { kind: 'exception', status: 404, exceptionType: 'X', displayMessages: [] }));
    const dup = step(r.state, { type: 'scan', identifierType: 'BAR_CODE', value: 'A', at: 2_000 });
    expect(sends(dup.fx)).toEqual([]);
    const later = step(dup.state, { type: 'scan', identifierType: 'BAR_CODE', value: 'A', at: 2_600 });
    expect(sends(later.fx)).toHaveLength(1);
  });

  it('garbage from a scanner is dropped with a message, nothing sent', () => {
    for (const value of ['', '   ', 'ab\u0007cd', 'x'.repeat(129)]) {
      const r = step(idle(), { type: 'scan', identifierType: 'BAR_CODE', value, at: 0 });
      expect(sends(r.fx)).toEqual([]);
      expect(r.fx).toContainEqual({ type: 'display', lines: config.messages.unreadable });
    }
  });
});

describe('server commands that cannot be carried out', () => {
  const scanned = () => run(idle(), { type: 'scan', identifierType: 'BAR_CODE', value: 'A', at: 0 }).state;
  it.each([
    ['malformed', { kind: 'invalid', reason: 'malformed command: boxes: no boxes' } satisfies ServerAnswer, 'boxes: no boxes'],
    ['foreign box id', cmd({ type: 'box-open', boxes: [FOREIGN], displayMessages: [] }), `box ${FOREIGN} is not this station's`],
    ['one foreign among own', cmd({ type: 'box-open', boxes: [B1, FOREIGN], displayMessages: [] }), 'is not this station'],
  ])('%s -> no box opened, next /state DOWN with errorMessage', (_name, answer, why) => {
    const r = step(scanned(), answered('item-identify', answer));
    expect(pulses(r.fx)).toEqual([]);
    const [state] = sends(r.fx);
    expect(state).toMatchObject({ endpoint: 'state', st: 'DOWN' });
    expect(state && 'errorMessage' in state ? state.errorMessage : '').toContain(why);
    expect(r.fx).toContainEqual(expect.objectContaining({ type: 'log', level: 'error' }));
  });

  it('box-open as an answer to /state is rejected', () => {
    const s = run(idle(), { type: 'timer', timer: 'heartbeat' }).state;
    const r = step(s, answered('state', cmd({ type: 'box-open', boxes: [B1], displayMessages: [] })));
    expect(pulses(r.fx)).toEqual([]);
    expect(sends(r.fx)).toEqual([expect.objectContaining({ st: 'DOWN' })]);
  });
});

describe('station-disable', () => {
  it('shows its text, refuses input, keeps the heartbeat, and comes back on wait-for-input', () => {
    let s = run(idle(), { type: 'timer', timer: 'heartbeat' }).state;
    let r = step(s, answered('state', cmd({ type: 'station-disable', displayMessages: ['Closed today'] })));
    expect(r.state.mode.kind).toBe('disabled');
    expect(r.fx).toContainEqual({ type: 'display', lines: ['Closed today'] });
    s = r.state;
    r = step(s, { type: 'scan', identifierType: 'BAR_CODE', value: 'A', at: 0 });
    expect(sends(r.fx)).toEqual([]);
    r = step(r.state, { type: 'timer', timer: 'heartbeat' });
    expect(sends(r.fx)).toEqual([expect.objectContaining({ endpoint: 'state' })]);
    r = step(r.state, answered('state', waitForInput(['Welcome back'])));
    expect(r.state.mode.kind).toBe('idle');
  });
});

describe('exception', () => {
  it('shows the messages, then the prompt again', () => {
    let r = run(idle(), { type: 'scan', identifierType: 'BAR_CODE', value: 'A', at: 0 });
    r = run(r.state, answered('item-identify', { kind: 'exception', status: 500, exceptionType: 'IllegalStateException', displayMessages: ['Server error'] }));
    expect(r.fx).toContainEqual({ type: 'display', lines: ['Server error'] });
    expect(r.state.mode.kind).toBe('idle');
    r = run(r.state, { type: 'timer', timer: 'message' });
    expect(r.fx).toContainEqual({ type: 'display', lines: ['Scan or PIN'] });
  });
});

describe('deactivated mode', () => {
  it('after an unanswered event: station-off, all input refused, heartbeat only, back on the first answered /state', () => {
    let r = run(idle(), { type: 'scan', identifierType: 'BAR_CODE', value: 'A', at: 0 });
    r = run(r.state, { type: 'unanswered', endpoint: 'item-identify', reason: 'timeout' });
    expect(r.state.mode.kind).toBe('deactivated');
    expect(r.fx).toContainEqual({ type: 'display', lines: config.messages.stationOff });
    let x = step(r.state, { type: 'scan', identifierType: 'BAR_CODE', value: 'B', at: 10_000 });
    expect(sends(x.fx)).toEqual([]);
    x = step(x.state, { type: 'key', key: { kind: 'digit', digit: '1' } });
    expect(x.state.pin).toBe('');
    x = step(x.state, { type: 'timer', timer: 'heartbeat' });
    expect(sends(x.fx)).toEqual([expect.objectContaining({ endpoint: 'state' })]);
    x = step(x.state, { type: 'unanswered', endpoint: 'state', reason: 'timeout' });
    expect(x.state.mode.kind).toBe('deactivated');
    x = step(x.state, { type: 'timer', timer: 'heartbeat' });
    x = step(x.state, answered('state', waitForInput()));
    expect(x.state.mode.kind).toBe('idle');
  });

  it('one-shot errors of an unanswered /state are reported again with the next one', () => {
    let r = run(idle(), { type: 'scan', identifierType: 'BAR_CODE', value: 'A', at: 0 }, answered('item-identify', { kind: 'invalid', reason: 'bad' }));
    expect(sends(r.fx).at(-1)).toMatchObject({ st: 'DOWN' });
    r = run(r.state, { type: 'unanswered', endpoint: 'state', reason: 'timeout' }, { type: 'timer', timer: 'heartbeat' });
    expect(sends(r.fx).at(-1)).toMatchObject({ st: 'DOWN', errorMessage: expect.stringContaining('bad') });
  });
});

describe('faults and heartbeat', () => {
  it('a device fault sends /state DOWN at once; clearing it sends UP', () => {
    let r = run(idle(), { type: 'fault', key: 'device:scanner', message: 'barcode scanner missing' });
    expect(sends(r.fx)).toEqual([expect.objectContaining({ st: 'DOWN', errorMessage: 'barcode scanner missing' })]);
    r = run(r.state, answered('state', waitForInput()), { type: 'fault', key: 'device:scanner', message: null });
    expect(sends(r.fx)).toEqual([expect.objectContaining({ st: 'UP', errorMessage: null })]);
  });

  it('a heartbeat due while an event is in flight goes out right after its answer, once', () => {
    let r = run(
      idle(),
      { type: 'scan', identifierType: 'BAR_CODE', value: 'A', at: 0 },
      { type: 'timer', timer: 'heartbeat' },
      { type: 'timer', timer: 'heartbeat' },
    );
    expect(sends(r.fx)).toHaveLength(1);
    r = run(r.state, answered('item-identify', { kind: 'exception', status: 404, exceptionType: 'X', displayMessages: [] }));
    expect(sends(r.fx)).toEqual([expect.objectContaining({ endpoint: 'state' })]);
  });

  it('an answer for an event not in flight is ignored', () => {
    const s = idle();
    const r = step(s, answered('item-identify', cmd({ type: 'box-open', boxes: [B1], displayMessages: [] })));
    expect(pulses(r.fx)).toEqual([]);
    expect(r.state.mode).toEqual(s.mode);
  });
});

describe('technician open', () => {
  it('pulses the box and reports through /state like any opening', () => {
    let r = run(idle(), { type: 'technician-open', boxId: B2 });
    expect(pulses(r.fx)).toEqual([[B2]]);
    r = run(r.state, { type: 'door', boxId: B2, state: 'OPEN' });
    expect(sends(r.fx)).toEqual([
      expect.objectContaining({
        endpoint: 'state',
        boxes: [
          { id: B1, st: 'CLOSED' },
          { id: B2, st: 'OPEN' },
        ],
      }),
    ]);
  });
  it('is refused while an event is in flight', () => {
    const s = run(idle(), { type: 'scan', identifierType: 'BAR_CODE', value: 'A', at: 0 }).state;
    expect(pulses(step(s, { type: 'technician-open', boxId: B1 }).fx)).toEqual([]);
  });
});

describe('heartbeat while doors open', () => {
  it('a heartbeat due while pulsed doors are opening waits for the door outcome', () => {
    let r = run(
      idle(),
      { type: 'scan', identifierType: 'BAR_CODE', value: 'A', at: 0 },
      answered('item-identify', cmd({ type: 'box-open', boxes: [B1], displayMessages: [] })),
    );
    r = run(r.state, { type: 'timer', timer: 'heartbeat' });
    expect(sends(r.fx)).toEqual([]);
    r = run(r.state, { type: 'door', boxId: B1, state: 'OPEN' });
    expect(sends(r.fx)).toEqual([
      expect.objectContaining({
        endpoint: 'state',
        boxes: [
          { id: B1, st: 'OPEN' },
          { id: B2, st: 'CLOSED' },
        ],
      }),
    ]);
  });
});
