/**
 * Restart truth in the pure core: given what the journal read back and the doors the sensors read
 * now, the first /state is DOWN naming the cut-short action, the next one UP; nothing is pulsed
 * and nothing but /state is sent; a reader who was mid-pickup gets a message.
 */
import { describe, expect, it } from 'vitest';
import { initialState, screen } from '../../src/station/core.js';
import type { CoreState, Input } from '../../src/station/core-types.js';
import type { PreviousRun } from '../../src/journal/types.js';
import { B1, coreConfig, runCore, states as stateSends } from '../support/core-driver.js';

const B5 = '55555555-5555-4555-8555-555555555555';
const B6 = '66666666-6666-4666-8666-666666666666';
const EV = '5e0c2b7a-3d7e-4f7a-9b1c-2a4e6f8d0c11';
const config = coreConfig({
  boxes: [
    { id: B1, number: 1 },
    { id: B5, number: 5 },
    { id: B6, number: 6 },
  ],
});
type Doors = Record<string, 'OPEN' | 'CLOSED'>;
const allClosed: Doors = { [B1]: 'CLOSED', [B5]: 'CLOSED', [B6]: 'CLOSED' };
const none: PreviousRun = { inFlight: null, action: null, reported: allClosed, problem: null };

const run = (state: CoreState, ...inputs: Input[]) => runCore(config, state, ...inputs);
const waitForInput: Input = { type: 'answered', endpoint: 'state', answer: { kind: 'command', command: { type: 'wait-for-input', displayMessages: [] } } };

/** Start with `previous` and the doors read now; answer the first /state; send the next heartbeat. */
function restart(previous: PreviousRun, doors: Doors = allClosed) {
  const first = run(initialState(doors), { type: 'start', previous });
  const answered = run(first.state, waitForInput);
  const next = run(answered.state, { type: 'timer', timer: 'heartbeat' });
  const all = [...first.fx, ...answered.fx, ...next.fx];
  return { first: stateSends(first.fx)[0], second: stateSends(next.fx)[0], all, afterAnswer: answered.state };
}

const pickup = (pulsed: string[], boxes = [B5]): PreviousRun['action'] => ({ by: 'pin-enter', eventId: EV, boxes, pulsed });

describe('restart truth: the seven steps of a pickup', () => {
  it.each<[string, PreviousRun, Doors, RegExp]>([
    [
      '1 before the request left',
      { ...none, inFlight: { endpoint: 'pin-enter', eventId: EV, attempts: 0, preview: null } },
      allClosed,
      /^restarted during pickup: \/pin-enter \(event 5e0c2b7a-3d7e-4f7a-9b1c-2a4e6f8d0c11, 0 attempts\) not answered, not resent; no box opened$/,
    ],
    [
      '2 in flight',
      { ...none, inFlight: { endpoint: 'pin-enter', eventId: EV, attempts: 2, preview: null } },
      allClosed,
      /\/pin-enter \(event .*, 2 attempts\) not answered, not resent; no box opened/,
    ],
    ['3 box-open answered, before the pulse', { ...none, action: pickup([]) }, allClosed, /^restarted during pickup: box 5 was not opened \(event 5e0c2b7a/],
    ['4 mid-pulse, door sprang open', { ...none, action: pickup([B5]) }, { ...allClosed, [B5]: 'OPEN' }, /box 5 opened, still open \(event/],
    ['4 mid-pulse, door still shut', { ...none, action: pickup([B5]) }, allClosed, /box 5 pulsed, closed now \(not opened, or closed while stopped\)/],
    ['5 door OPEN, /state not yet answered', { ...none, action: pickup([B5]) }, { ...allClosed, [B5]: 'OPEN' }, /box 5 opened, still open/],
    [
      '6 waiting for closing',
      { ...none, action: pickup([B5]), reported: { ...allClosed, [B5]: 'OPEN' } },
      { ...allClosed, [B5]: 'OPEN' },
      /box 5 open, waiting for closing/,
    ],
    [
      '7 door closed, /state not yet answered',
      { ...none, action: pickup([B5]), reported: { ...allClosed, [B5]: 'OPEN' } },
      allClosed,
      /box 5 opened, closed while stopped/,
    ],
  ])('%s: first /state DOWN naming it, then UP; no pulse, nothing resent', (_step, previous, doors, message) => {
    const r = restart(previous, doors);
    expect(r.first).toMatchObject({ st: 'DOWN', errorMessage: expect.stringMatching(message) });
    expect(r.first?.boxes).toEqual(Object.entries(doors).map(([id, st]) => ({ id, st })));
    expect(r.second).toMatchObject({ st: 'UP', errorMessage: null });
    expect(r.all.filter((e) => e.type === 'pulse')).toEqual([]);
    expect(r.all.filter((e) => e.type === 'send' && e.request.endpoint !== 'state')).toEqual([]);
  });

  it('a multi-box pickup cut between its pulses names each box', () => {
    const r = restart({ ...none, action: pickup([B5], [B5, B6]) }, { ...allClosed, [B5]: 'OPEN' });
    expect(r.first?.errorMessage).toBe(`restarted during pickup: box 5 opened, still open, box 6 was not opened (event ${EV})`);
  });

  it('the reader who was mid-pickup sees a message once the first answer came', () => {
    const notOpened = restart({ ...none, inFlight: { endpoint: 'pin-enter', eventId: EV, attempts: 1, preview: null } });
    expect(screen(config, notOpened.afterAnswer)).toEqual(config.messages.restartedNotOpened);
    const opened = restart({ ...none, action: pickup([B5]) }, { ...allClosed, [B5]: 'OPEN' });
    expect(screen(config, opened.afterAnswer)).toEqual(config.messages.restartedOpened);
    // Opened, reported open and closed again: the pickup happened; nothing to tell.
    const done = restart({ ...none, action: pickup([B5]), reported: { ...allClosed, [B5]: 'OPEN' } });
    expect(screen(config, done.afterAnswer)).toEqual(config.messages.prompt);
    // A technician open is not a reader's business.
    const tech = restart({ ...none, action: { by: 'technician', eventId: null, boxes: [B1], pulsed: [] } });
    expect(tech.first?.errorMessage).toBe('restarted during technician open: box 1 was not opened');
    expect(screen(config, tech.afterAnswer)).toEqual(config.messages.prompt);
  });
});

describe('restart truth: deposit, cancel, journal problems', () => {
  it('a deposit names the masked identifier, never more', () => {
    const r = restart({ ...none, inFlight: { endpoint: 'item-identify', eventId: EV, attempts: 1, preview: '***017 (14)' } });
    expect(r.first?.errorMessage).toBe(
      `restarted during deposit: /item-identify for ***017 (14) (event ${EV}, 1 attempt) not answered, not resent; no box opened`,
    );
  });

  it('a cancel cut short names the cancel and the open box it was about', () => {
    const r = restart(
      {
        ...none,
        inFlight: { endpoint: 'cancel', eventId: EV, attempts: 1, preview: null },
        action: { by: 'item-identify', eventId: 'e1', boxes: [B1], pulsed: [B1] },
        reported: { ...allClosed, [B1]: 'OPEN' },
      },
      { ...allClosed, [B1]: 'OPEN' },
    );
    expect(r.first?.errorMessage).toBe(
      `restarted during cancel: /cancel (event ${EV}, 1 attempt) not answered, not resent; restarted during deposit: box 1 open, waiting for closing (event e1)`,
    );
  });

  it('a damaged journal is one errorMessage, then UP', () => {
    const r = restart({ ...none, problem: '/var/lib/pickup-station/journal.log damaged: checksum mismatch; set aside as x' });
    expect(r.first).toMatchObject({ st: 'DOWN', errorMessage: 'journal: /var/lib/pickup-station/journal.log damaged: checksum mismatch; set aside as x' });
    expect(r.second).toMatchObject({ st: 'UP' });
  });

  it('nothing left: the first /state is UP', () => {
    expect(restart(none).first).toMatchObject({ st: 'UP', errorMessage: null });
  });
});

describe('restart truth: a door the earlier run pulsed opens after the restart', () => {
  const killedMidPulse: PreviousRun = { ...none, action: pickup([B5]) };
  const opened: Input = { type: 'door', boxId: B5, state: 'OPEN' };

  it('inside the door-open window it is that pulse opening, not a forced one', () => {
    const started = run(initialState(allClosed), { type: 'start', previous: killedMidPulse });
    expect(started.fx).toContainEqual({ type: 'start-timer', timer: 'door-open', ms: config.timing.doorOpenTimeoutMs });
    const late = run(started.state, opened);
    expect(late.state.alarms).toEqual([]);
    expect(late.state.doorOutcomes[B5]).toBe('commanded-opened');
    expect(late.fx.some((e) => e.type === 'pulse')).toBe(false);
  });

  it('after the window it is forced open; a door that stayed shut adds no "did not open" to the restart note', () => {
    const started = run(initialState(allClosed), { type: 'start', previous: killedMidPulse });
    const windowOver = run(started.state, { type: 'timer', timer: 'door-open' });
    expect(windowOver.state.pendingErrors.filter((e) => e.includes('did not open'))).toEqual([]);
    const forced = run(windowOver.state, opened);
    expect(forced.state.alarms).toMatchObject([{ kind: 'forced-open', boxId: B5 }]);
  });

  it('a box the earlier run never pulsed gets no window', () => {
    const started = run(initialState(allClosed), { type: 'start', previous: { ...none, action: pickup([], [B5]) } });
    expect(started.fx.some((e) => e.type === 'start-timer' && e.timer === 'door-open')).toBe(false);
    expect(run(started.state, opened).state.alarms).toMatchObject([{ kind: 'forced-open', boxId: B5 }]);
  });
});
