/**
 * Who is using the station, and what it is free for: the rules the core refuses input by
 * (input.ts), stated once as pure functions of the state, so that whatever must decide the same
 * outside the core (a technician's action refused with 409 before it reaches the screen, a reload,
 * the update lock) asks the same question rather than derive it again.
 */
import type { CoreConfig, CoreState } from '../core-types.js';
import { inServiceMode } from './context.js';

/** Modes in which the server cannot be asked: a technician in service mode may still open a box. */
const RESCUE_MODES: ReadonlySet<CoreState['mode']['kind']> = new Set(['starting', 'deactivated', 'disabled']);

/**
 * A technician's opening now is a rescue open: service mode is on, the server cannot be asked
 * (starting, deactivated, disabled), and the station is not stopping.
 */
export function isRescue(s: CoreState): boolean {
  return RESCUE_MODES.has(s.mode.kind) && inServiceMode(s) && s.drain === 'off';
}

/** A librarian's or reader's event waiting for its answer (a heartbeat says nothing about a person), or null. */
export function readerEventInFlight(s: CoreState): string | null {
  return s.inFlight !== null && s.inFlight !== 'state' ? `/${s.inFlight} in flight` : null;
}

/** Why the mode lets no input start an event now, or null in idle. */
export function modeBlocker(s: CoreState): string | null {
  switch (s.mode.kind) {
    case 'idle':
      return null;
    case 'starting':
      return 'station starting';
    case 'deactivated':
      return 'station deactivated (server unanswered)';
    case 'disabled':
      return 'station disabled by the server';
    case 'opening':
    case 'closing':
      return `a box action is in progress (${s.mode.kind})`;
  }
}

/**
 * Signs that a reader (or librarian) is using the station right now, or null. A reload, which
 * restarts the station, and an update wait while any holds.
 */
export function readerActivity(config: CoreConfig, s: CoreState): string | null {
  if (s.mode.kind === 'opening' || s.mode.kind === 'closing') return modeBlocker(s);
  const event = readerEventInFlight(s);
  if (event !== null) return event;
  const open = config.boxes.filter((b) => s.boxes[b.id] === 'OPEN').map((b) => b.number);
  if (open.length > 0) return `box ${open.join(', ')} ${open.length === 1 ? 'is' : 'are'} open`;
  // Digits typed but not sent: someone is standing at the keypad.
  if (s.pin !== '') return 'a PIN is being typed at the station';
  return null;
}

/**
 * Why the station is not free for an action that opens a box or acts as a reader (a technician's
 * open or injected input), or null: waiting for input, nothing in flight, no sign of a reader.
 */
export function notFreeReason(config: CoreConfig, s: CoreState): string | null {
  return readerActivity(config, s) ?? modeBlocker(s) ?? (s.inFlight !== null ? `/${s.inFlight} in flight` : null);
}

/** The core's decision on a technician's box opening now: the one rule the core, the supervisor and the audit line read. */
export interface TechnicianOpenCheck {
  /** A rescue open (isRescue): the server cannot be asked, so only a reader's presence blocks it. */
  readonly rescue: boolean;
  /** Why the opening cannot happen now, or null. */
  readonly blocker: string | null;
}

/**
 * Whether a technician may open a box now, and whether that is a rescue open:
 *
 * | state                                   | rescue | blocked by                                        |
 * |-----------------------------------------|--------|---------------------------------------------------|
 * | stopping (drain)                        | no     | always ("station restarting")                     |
 * | service mode, server cannot be asked    | yes    | a reader: their event in flight, an open box, a   |
 * |                                         |        | PIN being typed (readerActivity); the heartbeat   |
 * |                                         |        | in flight is allowed                              |
 * | otherwise                               | no     | anything that makes the station not free          |
 * |                                         |        | (notFreeReason: a reader, the mode, any event in  |
 * |                                         |        | flight)                                           |
 */
export function technicianOpenCheck(config: CoreConfig, s: CoreState): TechnicianOpenCheck {
  if (s.drain !== 'off') return { rescue: false, blocker: 'station restarting' };
  if (isRescue(s)) return { rescue: true, blocker: readerActivity(config, s) };
  return { rescue: false, blocker: notFreeReason(config, s) };
}

/**
 * Why a self-test (which opens every box in turn, so open boxes are its own) must stop now, or
 * null: it runs in service mode, in idle, with no reader's event in flight and no PIN being typed.
 */
export function selfTestBlocker(s: CoreState): string | null {
  if (!inServiceMode(s)) return 'service mode was turned off';
  if (s.mode.kind !== 'idle') return `station mode is ${s.mode.kind}`;
  const event = readerEventInFlight(s);
  if (event !== null) return event;
  if (s.pin !== '') return 'a PIN is being typed at the station';
  return null;
}
