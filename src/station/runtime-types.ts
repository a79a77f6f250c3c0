/**
 * The runtime's public shapes: what it is given (RuntimeOptions), what it tells its observers
 * (RuntimeEvent) and how it describes a finished protocol event (EventRecord). Types only; the
 * runtime (runtime.ts) re-exports them.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import type { DoorState, StationHardware } from '../devices/types.js';
import type { Journal } from '../journal/types.js';
import type { ProtocolSender } from '../protocol/client.js';
import type { CommandType, Endpoint } from '../protocol/types.js';
import type { PinThrottleStore } from '../storage/types.js';
import type { Alarm, CoreState, DoorOutcome } from './core-types.js';

/**
 * How an event ended, as a closed set (a metrics label must never grow with what a server sends):
 * the answered command's type, the protocol's exception body, an answer that was no valid command,
 * or no answer after every attempt.
 */
export type OutcomeKind = CommandType | 'exception' | 'invalid' | 'unanswered';

/**
 * Why an event did not end in a command carried out, as a closed set: no answer after every
 * attempt, the protocol's exception body, an answer that was no valid command, or a valid command
 * the core refused (a box that is not its own, a state it may not act in). Null when carried out.
 */
export type FailureKind = 'unanswered' | 'exception' | 'invalid' | 'refused';

/** A finished protocol event as technicians see it (never with the PIN). */
export interface EventRecord {
  readonly endpoint: Endpoint;
  readonly eventId: string;
  readonly traceIds: readonly string[];
  readonly attempts: number;
  readonly outcome: string;
  readonly outcomeKind: OutcomeKind;
  /** Why it was not carried out, or null: what the technician status's last failure is decided by. */
  readonly failure: FailureKind | null;
  /** How long the answering HTTP attempt took (request to parsed answer), ms; null when unanswered. */
  readonly answerMs: number | null;
  readonly startedAt: number;
  readonly ms: number;
}

/** What the runtime tells its observers (technician port, demo terminal, bench). */
export type RuntimeEvent =
  | { readonly type: 'event-sent'; readonly endpoint: Endpoint; readonly eventId: string }
  | { readonly type: 'event-done'; readonly record: EventRecord }
  | { readonly type: 'display'; readonly lines: readonly string[] }
  /** A door changed; `outcome`: how its last opening counts (null before any). */
  | { readonly type: 'box'; readonly boxId: string; readonly number: number; readonly state: DoorState; readonly outcome: DoorOutcome | null }
  | { readonly type: 'lock'; readonly boxId: string; readonly number: number; readonly energized: boolean }
  | { readonly type: 'mode'; readonly mode: CoreState['mode']['kind'] }
  /** An alarm raised (active) or cleared; the core state's `alarms` holds those in force. */
  | { readonly type: 'alarm'; readonly alarm: Alarm; readonly active: boolean }
  /** A deposited item's security bit could not be cleared within its window (the exit gates may alarm). */
  | { readonly type: 'rfid-security-failed'; readonly reader: string };

/** Input voltage (V) and signal strength (%) as last measured for /state; null where the source could not tell. */
export interface PowerReading {
  readonly inputVoltage: number | null;
  readonly internetSignalStrength: number | null;
}

export interface RuntimeOptions {
  readonly config: Config;
  readonly hardware: StationHardware;
  readonly client: ProtocolSender;
  readonly log: Logger;
  /** Monotonic clock, ms. */
  readonly now?: () => number;
  /** How many finished events to keep for technicians. */
  readonly historySize?: number;
  /** Where the PIN throttle survives a restart (default: memory, lost on restart). */
  readonly pinThrottleStore?: PinThrottleStore;
  /** Where the runtime writes down what it is about to do (default: memory, kept for this run only). */
  readonly journal?: Journal;
}

/** How a drain ended: everything finished, or the drain limit ran out first. */
export type DrainResult = 'drained' | 'limit';
