/**
 * The technician's rescue open (core/input.ts): with service mode on, a box can be opened while the
 * server cannot be asked (starting, deactivated, disabled); without service mode the refusal stays.
 * Also: "please wait" while a reader's or librarian's event is in flight.
 */
import { describe, expect, it } from 'vitest';
import { initialState, screen, technicianOpenCheck } from '../../src/station/core.js';
import type { Effect } from '../../src/station/core-types.js';
import { answered, B1, B2, cmd, coreConfig, idleStepper, logs, pinKeys, states, stepper, wrongPin, type Stepper } from '../support/core-driver.js';

const pulses = (fx: readonly Effect[]) => fx.flatMap((e) => (e.type === 'pulse' ? [e.boxIds] : []));
const serviceOn = { type: 'fault', key: 'service', message: 'service' } as const;

/** A station whose server stopped answering: deactivated, the heartbeat in flight again. */
function deactivated(): Stepper {
  const st = idleStepper();
  st.feed({ type: 'timer', timer: 'heartbeat' }, { type: 'unanswered', endpoint: 'state', reason: 'timeout' });
  expect(st.state.mode.kind).toBe('deactivated');
  st.feed({ type: 'timer', timer: 'heartbeat' });
  expect(st.state.inFlight).toBe('state');
  st.take();
  return st;
}

describe('rescue open', () => {
  it('deactivated + service mode: pulsed, warn log with the technician, reported by the next /state the server answers', () => {
    const st = deactivated();
    st.feed(serviceOn);
    const fx = st.feed({ type: 'technician-open', boxId: B2, by: 'alice' });
    expect(pulses(fx)).toEqual([[B2]]);
    expect(logs(fx)).toContainEqual({
      level: 'warn',
      msg: 'rescue open: technician alice opens box 2 while the station is deactivated (the server cannot be asked)',
    });
    expect(screen(st.config, st.state)).toEqual(['Service: box 2']);

    // The heartbeat in flight stays unanswered; then the door opens: /state with the rescue named.
    st.feed({ type: 'unanswered', endpoint: 'state', reason: 'timeout' });
    const opened = st.feed({ type: 'door', boxId: B2, state: 'OPEN' });
    expect(st.state.alarms).toEqual([]); // a commanded opening, not a forced one
    const first = states(opened)[0];
    expect(first).toMatchObject({ st: 'DOWN', errorMessage: 'service; box 2 rescue-opened by technician alice while deactivated' });
    // Not answered either: carried again by the next one ...
    st.feed({ type: 'unanswered', endpoint: 'state', reason: 'timeout' });
    const again = st.feed({ type: 'timer', timer: 'heartbeat' });
    expect(states(again)[0]?.errorMessage).toBe('service; box 2 rescue-opened by technician alice while deactivated');
    // ... until one is answered; then it is not repeated.
    st.feed(answered('state', cmd({ type: 'wait-for-input', displayMessages: [] })));
    const after = st.feed({ type: 'timer', timer: 'heartbeat' });
    expect(states(after)[0]?.errorMessage).toBe('service');
  });

  it('disabled and starting + service mode: allowed too', () => {
    const disabled = idleStepper();
    disabled.feed(answered('state', cmd({ type: 'station-disable', displayMessages: ['Closed today'] })));
    disabled.feed({ type: 'timer', timer: 'heartbeat' }, answered('state', cmd({ type: 'station-disable', displayMessages: ['Closed today'] })), serviceOn);
    expect(disabled.state.mode.kind).toBe('disabled');
    expect(pulses(disabled.feed({ type: 'technician-open', boxId: B1, by: 'bob' }))).toEqual([[B1]]);

    const starting = stepper(coreConfig(), initialState({ [B1]: 'CLOSED', [B2]: 'CLOSED' }));
    starting.feed({ type: 'start' }, serviceOn);
    expect(starting.state.inFlight).toBe('state');
    expect(pulses(starting.feed({ type: 'technician-open', boxId: B1, by: 'bob' }))).toEqual([[B1]]);
  });

  it('without service mode the refusal stays', () => {
    const st = deactivated();
    const fx = st.feed({ type: 'technician-open', boxId: B2, by: 'alice' });
    expect(pulses(fx)).toEqual([]);
    expect(logs(fx)).toContainEqual({ level: 'info', msg: 'technician open refused: station deactivated (server unanswered)' });
  });

  it('refused while a box is open, even in service mode', () => {
    const st = deactivated();
    st.feed(serviceOn, { type: 'door', boxId: B1, state: 'OPEN' });
    const fx = st.feed({ type: 'technician-open', boxId: B2, by: 'alice' });
    expect(pulses(fx)).toEqual([]);
    expect(logs(fx)).toContainEqual({ level: 'info', msg: 'technician open refused: box 1 is open' });
  });

  it('refused while a PIN is being typed, in a rescue and otherwise: the rule the technician port asks (technicianOpenCheck)', () => {
    const rescue = deactivated();
    rescue.feed(serviceOn);
    // Digits typed before the station was deactivated (keys now are refused, the buffer stays).
    rescue.state = { ...rescue.state, pin: '12' };
    expect(technicianOpenCheck(rescue.config, rescue.state)).toEqual({ rescue: true, blocker: 'a PIN is being typed at the station' });
    expect(pulses(rescue.feed({ type: 'technician-open', boxId: B2, by: 'alice' }))).toEqual([]);

    const idle = idleStepper();
    idle.feed({ type: 'key', key: { kind: 'digit', digit: '1' } }, { type: 'key', key: { kind: 'digit', digit: '2' } });
    expect(technicianOpenCheck(idle.config, idle.state)).toEqual({ rescue: false, blocker: 'a PIN is being typed at the station' });
    const fx = idle.feed({ type: 'technician-open', boxId: B2, by: 'alice' });
    expect(pulses(fx)).toEqual([]);
    expect(logs(fx)).toContainEqual({ level: 'info', msg: 'technician open refused: a PIN is being typed at the station' });
  });

  it('what the core does is what technicianOpenCheck said: a rescue is pulsed as one, an ordinary opening as one', () => {
    const rescue = deactivated();
    rescue.feed(serviceOn);
    expect(technicianOpenCheck(rescue.config, rescue.state)).toEqual({ rescue: true, blocker: null });
    expect(logs(rescue.feed({ type: 'technician-open', boxId: B2, by: 'alice' }))[0]?.msg).toMatch(/^rescue open: /);

    const idle = idleStepper();
    expect(technicianOpenCheck(idle.config, idle.state)).toEqual({ rescue: false, blocker: null });
    const fx = idle.feed({ type: 'technician-open', boxId: B2, by: 'alice' });
    expect(pulses(fx)).toEqual([[B2]]);
    expect(logs(fx)).toContainEqual({ level: 'warn', msg: 'technician alice opens box 2' });
  });
});

describe('"please wait" while an event started at the station is in flight', () => {
  it('after a scan and after a PIN the display says to wait, not the prompt; a heartbeat changes nothing', () => {
    const st = idleStepper();
    st.feed({ type: 'scan', identifierType: 'BAR_CODE', value: 'X1', at: 0 });
    expect(screen(st.config, st.state)).toEqual(['Please wait...']);
    st.feed(answered('item-identify', wrongPin), { type: 'timer', timer: 'message' });
    expect(screen(st.config, st.state)).toEqual(st.config.messages.prompt);
    st.feed(...pinKeys('123456'));
    expect(screen(st.config, st.state)).toEqual(['Please wait...']);
    st.feed(answered('pin-enter', wrongPin), { type: 'timer', timer: 'message' });
    st.feed({ type: 'timer', timer: 'heartbeat' });
    expect(st.state.inFlight).toBe('state');
    expect(screen(st.config, st.state)).toEqual(st.config.messages.prompt);
  });

  it('in Czech', () => {
    const st = idleStepper(coreConfig({ locale: 'cs' }));
    st.feed({ type: 'scan', identifierType: 'BAR_CODE', value: 'X1', at: 0 });
    expect(screen(st.config, st.state)).toEqual(['Čekejte prosím...']);
  });
});
