/**
 * The alarm transitions of the pure core (core/alarms.ts, core/doors.ts): forced open, the three
 * door outcomes, door ajar, tamper, an unknown USB device, and how /state reports them. Timer expiry is an input.
 */
import { describe, expect, it } from 'vitest';
import { initialState, screen } from '../../src/station/core.js';
import {
  answered,
  B1,
  B2,
  cmd,
  coreConfig,
  idleStepper,
  logs,
  sends,
  sounds,
  states,
  stepper,
  timer,
  timersStarted,
  waitForInput,
} from '../support/core-driver.js';

const boxOpen = (boxes: string[]) => cmd({ type: 'box-open', boxes, displayMessages: ['Box opens'] });

describe('door outcomes: commanded and opened / commanded not opened / opened without a command', () => {
  it('opened without a command: forced-open alarm, /state at once naming it (UP), error log, alarm sound; held until the door closes', () => {
    const st = idleStepper();
    const fx = st.feed({ type: 'door', boxId: B2, state: 'OPEN' });
    expect(states(fx)).toEqual([
      {
        endpoint: 'state',
        st: 'UP',
        errorMessage: 'box 2 forced open',
        boxes: [
          { id: B1, st: 'CLOSED' },
          { id: B2, st: 'OPEN' },
        ],
      },
    ]);
    expect(logs(fx)).toContainEqual({ level: 'error', msg: 'box 2 forced open: opened without a command' });
    expect(sounds(fx)).toEqual(['alarm']);
    expect(st.state.alarms).toEqual([{ kind: 'forced-open', boxId: B2, detail: 'box 2 forced open' }]);
    expect(st.state.doorOutcomes[B2]).toBe('opened-without-command');

    // Held: the next heartbeat still names it.
    st.feed(answered('state', waitForInput));
    const hb = st.feed(timer('heartbeat'));
    expect(states(hb)[0]?.errorMessage).toBe('box 2 forced open');
    st.feed(answered('state', waitForInput));

    const closed = st.feed({ type: 'door', boxId: B2, state: 'CLOSED' });
    expect(st.state.alarms).toEqual([]);
    expect(states(closed)).toEqual([
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
    expect(logs(closed)).toContainEqual({ level: 'info', msg: 'alarm cleared: box 2 forced open (door closed)' });
  });

  it('commanded and opened: info log, no alarm', () => {
    const st = idleStepper();
    st.feed({ type: 'scan', identifierType: 'BAR_CODE', value: 'X1', at: 0 }, answered('item-identify', boxOpen([B1])));
    const fx = st.feed({ type: 'door', boxId: B1, state: 'OPEN' });
    expect(logs(fx)).toContainEqual({ level: 'info', msg: 'box 1 opened (commanded)' });
    expect(st.state.alarms).toEqual([]);
    expect(st.state.doorOutcomes[B1]).toBe('commanded-opened');
    expect(states(fx)[0]).toMatchObject({ st: 'UP', errorMessage: null });
  });

  it('commanded but not opened: error log and errorMessage when the window ends; a later opening is forced', () => {
    const st = idleStepper();
    st.feed({ type: 'scan', identifierType: 'BAR_CODE', value: 'X1', at: 0 }, answered('item-identify', boxOpen([B1])));
    const fx = st.feed(timer('door-open'));
    expect(logs(fx)).toContainEqual({ level: 'error', msg: 'box 1 did not open: no OPEN within 4000 ms of the pulse' });
    expect(states(fx)[0]).toMatchObject({ st: 'DOWN', errorMessage: 'box 1 did not open' });
    expect(st.state.doorOutcomes[B1]).toBe('commanded-not-opened');
    expect(st.state.alarms).toEqual([]);

    st.feed(answered('state', waitForInput));
    const late = st.feed({ type: 'door', boxId: B1, state: 'OPEN' });
    expect(st.state.doorOutcomes[B1]).toBe('opened-without-command');
    expect(st.state.alarms.map((a) => a.kind)).toEqual(['forced-open']);
    expect(states(late)[0]?.errorMessage).toBe('box 1 forced open');
  });

  it('a door that opens, closes and opens again within its window is still the commanded opening', () => {
    const st = idleStepper();
    st.feed({ type: 'scan', identifierType: 'BAR_CODE', value: 'X1', at: 0 }, answered('item-identify', boxOpen([B1])));
    st.feed({ type: 'door', boxId: B1, state: 'OPEN' }, { type: 'door', boxId: B1, state: 'CLOSED' }, { type: 'door', boxId: B1, state: 'OPEN' });
    expect(st.state.alarms).toEqual([]);
    // After the window, a reopening is not.
    st.feed(timer('door-open'), { type: 'door', boxId: B1, state: 'CLOSED' }, { type: 'door', boxId: B1, state: 'OPEN' });
    expect(st.state.alarms.map((a) => a.kind)).toEqual(['forced-open']);
  });

  it('a technician opening is a command like a server box-open', () => {
    const st = idleStepper();
    st.feed({ type: 'technician-open', boxId: B2, by: 'alice' });
    const fx = st.feed({ type: 'door', boxId: B2, state: 'OPEN' });
    expect(st.state.alarms).toEqual([]);
    expect(logs(fx)).toContainEqual({ level: 'info', msg: 'box 2 opened (commanded)' });
  });

  it('a forced door while another box is being opened: /state waits for the pulsed door, then names both', () => {
    const st = idleStepper();
    st.feed({ type: 'scan', identifierType: 'BAR_CODE', value: 'X1', at: 0 }, answered('item-identify', boxOpen([B1])));
    const forced = st.feed({ type: 'door', boxId: B2, state: 'OPEN' });
    expect(sends(forced)).toEqual([]); // a /state now would report B1 CLOSED: "closed again, done"
    const opened = st.feed({ type: 'door', boxId: B1, state: 'OPEN' });
    expect(states(opened)).toEqual([
      {
        endpoint: 'state',
        st: 'UP',
        errorMessage: 'box 2 forced open',
        boxes: [
          { id: B1, st: 'OPEN' },
          { id: B2, st: 'OPEN' },
        ],
      },
    ]);
  });
});

describe('door ajar', () => {
  it('every opening starts its door-ajar timer; at doorAjarMs: alarm, /state naming it, display reminder, reminder sound, repeated', () => {
    const st = idleStepper();
    st.feed({ type: 'scan', identifierType: 'BAR_CODE', value: 'X1', at: 0 }, answered('item-identify', boxOpen([B1])));
    const open = st.feed({ type: 'door', boxId: B1, state: 'OPEN' });
    expect(timersStarted(open)).toContainEqual({ timer: `door-ajar:${B1}`, ms: 120_000 });
    st.feed(answered('state', cmd({ type: 'wait-for-closing', boxes: [B1], displayMessages: ['Put it in', 'and close'], cancellable: true })));
    expect(screen(st.config, st.state)).toEqual(['Put it in', 'and close']);

    const ajar = st.feed(timer(`door-ajar:${B1}`));
    expect(st.state.alarms).toEqual([{ kind: 'door-ajar', boxId: B1, detail: 'box 1 open for 120 s' }]);
    expect(states(ajar)).toEqual([
      {
        endpoint: 'state',
        st: 'UP',
        errorMessage: 'box 1 open for 120 s',
        boxes: [
          { id: B1, st: 'OPEN' },
          { id: B2, st: 'CLOSED' },
        ],
      },
    ]);
    expect(logs(ajar)).toContainEqual({ level: 'warn', msg: 'box 1 ajar: open for 120 s' });
    expect(sounds(ajar)).toEqual(['reminder']);
    expect(timersStarted(ajar)).toContainEqual({ timer: 'ajar-reminder', ms: 30_000 });
    expect(screen(st.config, st.state)).toEqual(['Please close box 1']);

    expect(sounds(st.feed(timer('ajar-reminder')))).toEqual(['reminder']);
    st.feed(answered('state', cmd({ type: 'wait-for-closing', boxes: [B1], displayMessages: ['Put it in', 'and close'], cancellable: true })));

    const closed = st.feed({ type: 'door', boxId: B1, state: 'CLOSED' });
    expect(closed).toContainEqual({ type: 'stop-timer', timer: `door-ajar:${B1}` });
    expect(st.state.alarms).toEqual([]);
    expect(states(closed)[0]).toMatchObject({ st: 'UP', errorMessage: null });
    // The reminder stops with the last ajar door.
    const late = st.feed(timer('ajar-reminder'));
    expect(sounds(late)).toEqual([]);
    expect(timersStarted(late)).toEqual([]);
  });

  it('names every ajar box on the display and in /state; forced and ajar together', () => {
    const st = idleStepper();
    st.feed(
      { type: 'door', boxId: B1, state: 'OPEN' },
      answered('state', waitForInput),
      { type: 'door', boxId: B2, state: 'OPEN' },
      answered('state', waitForInput),
    );
    st.take();
    const fx = st.feed(timer(`door-ajar:${B1}`), answered('state', waitForInput), timer(`door-ajar:${B2}`));
    expect(screen(st.config, st.state)).toEqual(['Please close box 1, 2']);
    expect(states(fx).at(-1)?.errorMessage).toBe('box 1 forced open; box 2 forced open; box 1 open for 120 s; box 2 open for 120 s');
  });

  it('a stale door-ajar timer (door closed meanwhile) does nothing', () => {
    const st = idleStepper();
    st.feed({ type: 'door', boxId: B1, state: 'OPEN' }, { type: 'door', boxId: B1, state: 'CLOSED' });
    st.take();
    const fx = st.feed(timer(`door-ajar:${B1}`));
    expect(st.state.alarms).toEqual([]);
    expect(sounds(fx)).toEqual([]);
  });

  it('a door already open at start gets its door-ajar timer (no forced-open: its opening was before the start)', () => {
    const st = stepper(coreConfig({ timing: { doorAjarMs: 5_000 } }), initialState({ [B1]: 'OPEN', [B2]: 'CLOSED' }));
    const fx = st.feed({ type: 'start' });
    expect(timersStarted(fx)).toContainEqual({ timer: `door-ajar:${B1}`, ms: 5_000 });
    expect(st.state.alarms).toEqual([]);
    st.feed(answered('state', waitForInput), timer(`door-ajar:${B1}`));
    expect(st.state.alarms).toEqual([{ kind: 'door-ajar', boxId: B1, detail: 'box 1 open for 5 s' }]);
  });
});

describe('tamper', () => {
  it('open: /state DOWN "tamper" at once, alarm sound, out-of-service screen, customer input refused; closed: cleared', () => {
    const st = idleStepper();
    const fx = st.feed({ type: 'tamper', open: true });
    expect(states(fx)).toEqual([
      {
        endpoint: 'state',
        st: 'DOWN',
        errorMessage: 'tamper',
        boxes: [
          { id: B1, st: 'CLOSED' },
          { id: B2, st: 'CLOSED' },
        ],
      },
    ]);
    expect(sounds(fx)).toEqual(['alarm']);
    expect(logs(fx).some((l) => l.level === 'error' && l.msg.startsWith('tamper alarm'))).toBe(true);
    expect(screen(st.config, st.state)).toEqual(st.config.messages.tamper);
    st.feed(answered('state', waitForInput));
    // The tamper screen wins over the server's prompt.
    expect(screen(st.config, st.state)).toEqual(st.config.messages.tamper);

    st.take();
    const refused = st.feed(
      { type: 'scan', identifierType: 'BAR_CODE', value: 'X1', at: 0 },
      { type: 'key', key: { kind: 'digit', digit: '1' } },
      { type: 'cancel-pressed' },
    );
    expect(sends(refused)).toEqual([]);
    expect(st.state.pin).toBe('');
    expect(sounds(refused)).toEqual(['refused', 'refused', 'refused']);
    expect(logs(refused).map((l) => l.msg)).toEqual(['scan refused: tamper alarm', 'key refused: tamper alarm', 'cancel refused: tamper alarm']);

    const closed = st.feed({ type: 'tamper', open: false });
    expect(states(closed)[0]).toMatchObject({ st: 'UP', errorMessage: null });
    expect(st.state.alarms).toEqual([]);
    expect(screen(st.config, st.state)).toEqual(st.config.messages.prompt);
  });

  it('in service mode a technician opening the cabinet is expected: no alarm; service off while still open raises it', () => {
    const st = idleStepper();
    st.feed({ type: 'fault', key: 'service', message: 'service' });
    const fx = st.feed({ type: 'tamper', open: true });
    expect(st.state.alarms).toEqual([]);
    expect(sounds(fx)).toEqual([]);
    expect(logs(fx)).toContainEqual({ level: 'info', msg: 'tamper input open in service mode: a technician at work, no alarm' });
    st.feed(answered('state', waitForInput));
    const off = st.feed({ type: 'fault', key: 'service', message: null });
    expect(st.state.alarms.map((a) => a.kind)).toEqual(['tamper']);
    expect(states(off)[0]).toMatchObject({ st: 'DOWN', errorMessage: 'tamper' });
  });

  it('an alarm raised before service mode is held until the input closes', () => {
    const st = idleStepper();
    st.feed({ type: 'tamper', open: true }, answered('state', waitForInput), { type: 'fault', key: 'service', message: 'service' });
    expect(st.state.alarms.map((a) => a.kind)).toEqual(['tamper']);
    const fx = st.feed(answered('state', waitForInput), { type: 'tamper', open: false });
    expect(st.state.alarms).toEqual([]);
    expect(states(fx)[0]).toMatchObject({ st: 'DOWN', errorMessage: 'service' });
  });

  it('a tamper input open at start is an alarm in the first /state', () => {
    const st = stepper(coreConfig(), initialState({ [B1]: 'CLOSED', [B2]: 'CLOSED' }));
    const fx = st.feed({ type: 'start', tamperOpen: true });
    expect(states(fx)[0]).toMatchObject({ st: 'DOWN', errorMessage: 'tamper' });
  });

  it('errorMessage names faults, alarms and one-shot errors together; st DOWN for the fault', () => {
    const st = idleStepper();
    st.feed({ type: 'door', boxId: B2, state: 'OPEN' }, answered('state', waitForInput));
    const fx = st.feed({ type: 'fault', key: 'device:scanner', message: 'barcode scanner missing' });
    expect(states(fx)[0]).toMatchObject({ st: 'DOWN', errorMessage: 'barcode scanner missing; box 2 forced open' });
  });
});

describe('an unknown USB device (security.unknownUsb)', () => {
  const scanKeyCancel = [
    { type: 'scan', identifierType: 'BAR_CODE', value: 'X1', at: 0 },
    { type: 'key', key: { kind: 'digit', digit: '1' } },
    { type: 'cancel-pressed' },
  ] as const;

  it('report (the default): the station stays in service, no alarm, input accepted', () => {
    const st = idleStepper();
    const fx = st.feed({ type: 'unknown-usb', present: 2 });
    expect(st.state.alarms).toEqual([]);
    expect(states(fx)).toEqual([]);
    expect(sounds(fx)).toEqual([]);
    const scan = st.feed(scanKeyCancel[0]);
    expect(sends(scan).map((r) => r.endpoint)).toEqual(['item-identify']);
  });

  it('out-of-service: /state DOWN naming it at once, alarm sound, out-of-service screen, customer input refused; removed: back in service', () => {
    const st = idleStepper({ ...coreConfig(), security: { unknownUsb: 'out-of-service' } });
    const fx = st.feed({ type: 'unknown-usb', present: 1 });
    expect(states(fx)).toEqual([
      {
        endpoint: 'state',
        st: 'DOWN',
        errorMessage: 'unknown USB device (1)',
        boxes: [
          { id: B1, st: 'CLOSED' },
          { id: B2, st: 'CLOSED' },
        ],
      },
    ]);
    expect(sounds(fx)).toEqual(['alarm']);
    expect(logs(fx)).toContainEqual({
      level: 'error',
      msg: 'unknown USB device plugged in: customer input refused until it is removed (security.unknownUsb out-of-service)',
    });
    st.feed(answered('state', waitForInput));
    expect(screen(st.config, st.state)).toEqual(st.config.messages.tamper);

    // A second device: still one alarm, no second sound.
    expect(sounds(st.feed({ type: 'unknown-usb', present: 2 }))).toEqual([]);
    expect(st.state.alarms.map((a) => a.kind)).toEqual(['unknown-usb']);

    st.take();
    const refused = st.feed(...scanKeyCancel);
    expect(sends(refused)).toEqual([]);
    expect(st.state.pin).toBe('');
    expect(logs(refused).map((l) => l.msg)).toEqual([
      'scan refused: unknown USB device plugged in',
      'key refused: unknown USB device plugged in',
      'cancel refused: unknown USB device plugged in',
    ]);

    const gone = st.feed({ type: 'unknown-usb', present: 0 });
    expect(states(gone)[0]).toMatchObject({ st: 'UP', errorMessage: null });
    expect(logs(gone)).toContainEqual({ level: 'info', msg: 'alarm cleared: no unknown USB device plugged in' });
    st.feed(answered('state', waitForInput));
    expect(screen(st.config, st.state)).toEqual(st.config.messages.prompt);
    expect(sends(st.feed({ type: 'scan', identifierType: 'BAR_CODE', value: 'X2', at: 60_000 })).map((r) => r.endpoint)).toEqual(['item-identify']);
  });

  const blind = 'USB watch (/sys/bus/usb/devices) not watching (udevadm: spawn udevadm ENOENT): unknown USB devices are not reported';

  it('report: a USB watch that cannot see the bus leaves the station in service (its own warning and health say so)', () => {
    const st = idleStepper();
    const fx = st.feed({ type: 'usb-watch', problem: blind });
    expect(st.state.faults).toEqual({});
    expect(states(fx)).toEqual([]);
    expect(sends(st.feed(scanKeyCancel[0])).map((r) => r.endpoint)).toEqual(['item-identify']);
  });

  it('out-of-service: a USB watch that cannot see the bus is a fault (st DOWN with its words) until it sees it again', () => {
    const st = idleStepper({ ...coreConfig(), security: { unknownUsb: 'out-of-service' } });
    const fx = st.feed({ type: 'usb-watch', problem: blind });
    expect(states(fx)[0]).toMatchObject({ st: 'DOWN', errorMessage: blind });
    st.feed(answered('state', waitForInput));
    const back = st.feed({ type: 'usb-watch', problem: null });
    expect(states(back)[0]).toMatchObject({ st: 'UP', errorMessage: null });
    expect(st.state.faults).toEqual({});
  });
});
