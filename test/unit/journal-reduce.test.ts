/** The journal's records add up to what a restart needs to know (pure reducer). */
import { describe, expect, it } from 'vitest';
import { EMPTY_JOURNAL, reduceJournal } from '../../src/journal/reduce.js';
import { maskIdentifier, previousRun, type JournalEntry, type JournalState } from '../../src/journal/types.js';

const B1 = '11111111-1111-4111-8111-111111111111';
const B2 = '22222222-2222-4222-8222-222222222222';
const EV = '5e0c2b7a-3d7e-4f7a-9b1c-2a4e6f8d0c11';
const at = '2025-01-01T00:00:00.000Z';
const reduce = (entries: readonly JournalEntry[], from: JournalState = EMPTY_JOURNAL): JournalState => entries.reduce(reduceJournal, from);
const doors = (b1: 'OPEN' | 'CLOSED', b2: 'OPEN' | 'CLOSED' = 'CLOSED'): JournalEntry => ({ t: 'reported', boxes: { [B1]: b1, [B2]: b2 } });

const deposit: JournalEntry[] = [
  { t: 'start', at },
  doors('CLOSED'),
  { t: 'event', endpoint: 'item-identify', eventId: EV, preview: maskIdentifier('31234000000017') },
  { t: 'attempt', eventId: EV, attempt: 1 },
  { t: 'outcome', eventId: EV, outcome: 'box-open' },
  { t: 'action', by: 'item-identify', eventId: EV, boxes: [B1] },
  { t: 'pulse', boxId: B1, at },
];

describe('journal reducer', () => {
  it('follows a deposit step by step and forgets it once the server has the box closed', () => {
    const steps = [...deposit, doors('OPEN'), doors('CLOSED')];
    const states = steps.map((_, i) => reduce(steps.slice(0, i + 1)));
    expect(states[2]?.inFlight).toEqual({ endpoint: 'item-identify', eventId: EV, attempts: 0, preview: '***017 (14)' });
    expect(states[3]?.inFlight?.attempts).toBe(1);
    expect(states[4]?.inFlight).toBeNull();
    expect(states[5]?.action).toEqual({ by: 'item-identify', eventId: EV, boxes: [B1], pulsed: [] });
    expect(states[6]?.action?.pulsed).toEqual([B1]);
    expect(states[7]?.action).not.toBeNull(); // reported OPEN: waiting for closing
    expect(states[8]).toEqual({ inFlight: null, action: null, reported: { [B1]: 'CLOSED', [B2]: 'CLOSED' }, previous: null });
  });

  it('a box that did not open ends the action with the /state that reports it closed', () => {
    expect(reduce([...deposit, doors('CLOSED')]).action).toBeNull();
  });

  it('a box not yet pulsed keeps the action (multi-box pickup cut between pulses)', () => {
    const s = reduce([{ t: 'action', by: 'pin-enter', eventId: EV, boxes: [B1, B2] }, { t: 'pulse', boxId: B1, at }, doors('CLOSED')]);
    expect(s.action?.pulsed).toEqual([B1]);
  });

  it('a start turns the unfinished work into `previous`, which the first answered /state clears', () => {
    const cut = reduce([...deposit, { t: 'start', at }]);
    expect(cut.action).toBeNull();
    expect(cut.previous?.action?.boxes).toEqual([B1]);
    expect(previousRun({ state: cut, problem: null }).action?.pulsed).toEqual([B1]);
    // Killed again before that /state was answered: still there after the next start.
    expect(reduce([{ t: 'start', at }], cut).previous?.action?.boxes).toEqual([B1]);
    expect(reduce([doors('CLOSED')], cut).previous).toBeNull();
  });

  it("an earlier run's box still open carries on as the current action until it is reported closed", () => {
    const cut = reduce([...deposit, doors('OPEN'), { t: 'start', at }]);
    const reported = reduce([doors('OPEN')], cut);
    expect(reported.previous).toBeNull();
    expect(reported.action).toEqual({ by: 'item-identify', eventId: EV, boxes: [B1], pulsed: [B1] });
    expect(reduce([doors('CLOSED')], reported).action).toBeNull();
  });

  it('returns the same state for a record that changes nothing', () => {
    const s = reduce(deposit);
    expect(reduceJournal(s, { t: 'pulse', boxId: B1, at })).toBe(s);
    const d = reduce([doors('CLOSED')]);
    expect(reduceJournal(d, doors('CLOSED'))).toBe(d);
    expect(reduceJournal(EMPTY_JOURNAL, { t: 'start', at })).toBe(EMPTY_JOURNAL);
  });

  it('masks identifiers to a short preview', () => {
    expect(maskIdentifier('31234000000017')).toBe('***017 (14)');
    expect(maskIdentifier('123456')).toBe('*** (6)');
  });
});
