/**
 * Restart truth: what the first /state after a start says about an action an earlier run left
 * unfinished (a kill -9, a power cut, a watchdog abort). The journal (src/journal/) read it back;
 * the doors are what the sensors read now. Nothing here acts: a lock is never pulsed and an event
 * of an earlier run is never resent — the restarted station only tells.
 *
 * Transitions here:
 * | input                         | effect                                                         |
 * |-------------------------------|----------------------------------------------------------------|
 * | start, nothing left           | /state owed (UP unless a fault)                                |
 * | start, event without outcome  | /state owed, DOWN "restarted during pickup: /pin-enter (event  |
 * |                               | …) not answered, not resent; no box opened"                    |
 * | start, action not finished    | /state owed, DOWN naming each box: not opened / opened, still  |
 * |                               | open / opened, closed while stopped / …                        |
 * | start, journal damaged        | /state owed, DOWN "journal damaged: …"                         |
 * | start, a pulsed door CLOSED   | its door-open window carried over (doors.ts): a door springing |
 * |                               | open right after the restart is no forced opening               |
 * | first answer after such start | a deposit or pickup was cut short: its notice is shown (close  |
 * |                               | the box / try again; none when it visibly completed)           |
 *
 * The errorMessage is one-shot: the /state after the first answered one is UP unless something
 * else is wrong.
 */
import type { BoxStatus } from '../../protocol/types.js';
import type { CoreConfig } from '../core-types.js';
import type { ActionSource, PreviousRun } from '../../journal/types.js';
import type { Ctx } from './context.js';
import { boxNumber } from './context.js';
import { showOverlay } from './display.js';
import { carryDoorWindows } from './doors.js';

const ACTION_NAMES: Readonly<Record<ActionSource | 'cancel', string>> = {
  'item-identify': 'deposit',
  'pin-enter': 'pickup',
  cancel: 'cancel',
  technician: 'technician open',
};

/** What happened to one box of a cut-short action, judged from the journal and the sensor now. */
function boxOutcome(pulsed: boolean, reported: BoxStatus | undefined, now: BoxStatus | undefined): string {
  if (!pulsed) return 'was not opened';
  if (now === 'OPEN') return reported === 'OPEN' ? 'open, waiting for closing' : 'opened, still open';
  return reported === 'OPEN' ? 'opened, closed while stopped' : 'pulsed, closed now (not opened, or closed while stopped)';
}

/** The errorMessage parts for what `previous` left unfinished, given the doors read now. */
export function restartNotes(config: CoreConfig, doors: Readonly<Record<string, BoxStatus>>, previous: PreviousRun): string[] {
  const notes: string[] = [];
  const { inFlight, action, reported } = previous;
  if (inFlight !== null) {
    const attempts = `${inFlight.attempts} attempt${inFlight.attempts === 1 ? '' : 's'}`;
    const what = inFlight.preview === null ? '' : ` for ${inFlight.preview}`;
    notes.push(
      `restarted during ${ACTION_NAMES[inFlight.endpoint]}: /${inFlight.endpoint}${what} (event ${inFlight.eventId}, ${attempts}) not answered, not resent` +
        (action === null ? '; no box opened' : ''),
    );
  }
  if (action !== null) {
    const boxes = action.boxes.map((id) => `box ${boxNumber(config, id) ?? id} ${boxOutcome(action.pulsed.includes(id), reported?.[id], doors[id])}`);
    const event = action.eventId === null ? '' : ` (event ${action.eventId})`;
    notes.push(`restarted during ${ACTION_NAMES[action.by]}: ${boxes.join(', ')}${event}`);
  }
  if (previous.problem !== null) notes.push(`journal: ${previous.problem}`);
  return notes;
}

/** The start input: the first /state is owed at once, carrying what an earlier run left unfinished. */
export function onStart(ctx: Ctx, previous: PreviousRun | null): void {
  const { s, config, log } = ctx;
  s.stateOwed = true;
  if (previous === null) return;
  if (previous.action !== null) carryDoorWindows(ctx, previous.action.pulsed);
  const notes = restartNotes(config, s.boxes, previous);
  if (notes.length === 0) return;
  log('warn', 'restarted with work of an earlier run unfinished; it is reported, not redone', { notes });
  s.pendingErrors = [...s.pendingErrors, ...notes];
  const by = previous.action?.by ?? previous.inFlight?.endpoint;
  if (by === 'item-identify' || by === 'pin-enter') s.notice = readerNotice(config, s.boxes, previous);
}

/**
 * What to tell the person who was at the station: close the box (one of its boxes is open now), try
 * again (nothing was opened, or it is unknown whether it was), or nothing (every box opened, was
 * reported open and is closed again: the deposit or pickup happened).
 */
function readerNotice(config: CoreConfig, doors: Readonly<Record<string, BoxStatus>>, previous: PreviousRun): readonly string[] | null {
  const pulsed = previous.action?.pulsed ?? [];
  if (pulsed.some((id) => doors[id] === 'OPEN')) return config.messages.restartedOpened;
  const allDone = previous.action !== null && previous.action.boxes.every((id) => pulsed.includes(id) && previous.reported?.[id] === 'OPEN');
  return allDone && previous.inFlight === null ? null : config.messages.restartedNotOpened;
}

/** Show the restart notice over whatever the first answer brought (called after every input). */
export function showNotice(ctx: Ctx): void {
  const { s } = ctx;
  if (s.notice === null || s.mode.kind === 'starting') return;
  showOverlay(ctx, s.notice);
  s.notice = null;
}
