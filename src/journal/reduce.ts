/**
 * What a sequence of journal records adds up to (pure). Both adapters keep the reduced state as
 * they record, and compaction writes it back as one `snapshot` record.
 *
 * Transitions (a record that changes nothing returns the same state object, so it can be skipped):
 * | record   | effect                                                                                |
 * |----------|---------------------------------------------------------------------------------------|
 * | start    | the current run's event/action become `previous` (unless empty); current cleared       |
 * | event    | inFlight = that event, 0 attempts                                                     |
 * | attempt  | inFlight.attempts = n (same eventId)                                                  |
 * | outcome  | inFlight cleared (same eventId)                                                       |
 * | action   | action = it, nothing pulsed yet                                                       |
 * | pulse    | the box joins action.pulsed                                                           |
 * | reported | reported = the doors; previous cleared (the server was told), and an earlier run's     |
 * |          | boxes still OPEN carry on as the current action; inFlight cleared (a /state was the    |
 * |          | one event in flight); the action ends once every box of it was pulsed and is CLOSED    |
 * | note     | notes = the last ten notes (what people reading the file need to know: an RFID         |
 * |          | security bit that could not be cleared); nothing else changes                          |
 * | snapshot | the state it holds                                                                    |
 */
import type { BoxStatus } from '../protocol/types.js';
import type { JournalAction, JournalEntry, JournalState } from './types.js';

/** Notes kept in the journal's state (older ones drop off at the next one). */
const MAX_NOTES = 10;

export const EMPTY_JOURNAL: JournalState = { inFlight: null, action: null, reported: null, previous: null };

function sameDoors(a: Readonly<Record<string, BoxStatus>> | null, b: Readonly<Record<string, BoxStatus>>): boolean {
  if (a === null) return false;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

function onReported(s: JournalState, boxes: Readonly<Record<string, BoxStatus>>): JournalState {
  let action: JournalAction | null = s.action;
  // An earlier run's box still open: the restarted station carries on with it (wait-for-closing).
  if (action === null && s.previous?.action) {
    const open = s.previous.action.boxes.filter((b) => boxes[b] === 'OPEN');
    if (open.length > 0) action = { ...s.previous.action, boxes: open, pulsed: open };
  }
  const a = action;
  if (a !== null && a.boxes.every((b) => a.pulsed.includes(b) && boxes[b] !== 'OPEN')) action = null;
  if (action === s.action && s.previous === null && s.inFlight === null && sameDoors(s.reported, boxes)) return s;
  return { inFlight: null, action, reported: { ...boxes }, previous: null, ...(s.notes === undefined ? {} : { notes: s.notes }) };
}

export function reduceJournal(s: JournalState, e: JournalEntry): JournalState {
  switch (e.t) {
    case 'start':
      if (s.inFlight === null && s.action === null) return s;
      return { ...s, inFlight: null, action: null, previous: { inFlight: s.inFlight, action: s.action } };
    case 'event':
      return { ...s, inFlight: { endpoint: e.endpoint, eventId: e.eventId, attempts: 0, preview: e.preview } };
    case 'attempt':
      if (s.inFlight?.eventId !== e.eventId || s.inFlight.attempts === e.attempt) return s;
      return { ...s, inFlight: { ...s.inFlight, attempts: e.attempt } };
    case 'outcome':
      return s.inFlight?.eventId === e.eventId ? { ...s, inFlight: null } : s;
    case 'action':
      return { ...s, action: { by: e.by, eventId: e.eventId, boxes: [...e.boxes], pulsed: [] } };
    case 'pulse':
      if (s.action === null || !s.action.boxes.includes(e.boxId) || s.action.pulsed.includes(e.boxId)) return s;
      return { ...s, action: { ...s.action, pulsed: [...s.action.pulsed, e.boxId] } };
    case 'reported':
      return onReported(s, e.boxes);
    case 'note':
      return { ...s, notes: [...(s.notes ?? []), e.note].slice(-MAX_NOTES) };
    case 'snapshot':
      return e.state;
  }
}
