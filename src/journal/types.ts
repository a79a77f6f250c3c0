/**
 * The journal port: what the station writes down before it acts, so that a restarted station can
 * tell what an earlier run left unfinished (restart truth, src/station/core/restart.ts).
 *
 * It holds, and only holds: the librarian's or reader's event in flight (endpoint, eventId,
 * attempts so far, and for a scan a short masked preview — never a PIN, never an identifier
 * value), a box action (box-open answered, or a technician open) and which of its boxes were
 * pulsed and when, the door states the server last acknowledged, and the last few notes for a
 * person reading it (an RFID security bit that could not be cleared, by masked item).
 *
 * Two adapters (serialport's binding model): file.ts (an append-only log with a checksum per record
 * in `storage.directory`, compacted by atomicWrite) and memory.ts (tests, the demo, fleet mode).
 */
import type { BoxStatus, Endpoint } from '../protocol/types.js';

/** What started a box action: a librarian's scan, a reader's PIN, or a technician. */
export type ActionSource = 'item-identify' | 'pin-enter' | 'technician';

/**
 * What the journal says an earlier run left unfinished: the core turns it into the first /state's
 * errorMessage and a message for a reader (core/restart.ts). Never a PIN; an identifier only as a
 * short masked preview.
 */
export interface PreviousRun {
  /** A librarian's or reader's event that had no outcome (it is never resent). */
  readonly inFlight: {
    readonly endpoint: Exclude<Endpoint, 'state'>;
    readonly eventId: string;
    readonly attempts: number;
    readonly preview: string | null;
  } | null;
  /** A box action (box-open answered, or a technician open) not yet reported finished. */
  readonly action: {
    readonly by: ActionSource;
    readonly eventId: string | null;
    readonly boxes: readonly string[];
    /** The boxes whose lock pulse had begun. */
    readonly pulsed: readonly string[];
  } | null;
  /** The door states the server last acknowledged (an answered /state); null: none yet. */
  readonly reported: Readonly<Record<string, BoxStatus>> | null;
  /** The journal was damaged or unreadable (and set aside): what the technician and the server are told. */
  readonly problem: string | null;
}

export type UserEndpoint = Exclude<Endpoint, 'state'>;

export interface JournalAction {
  readonly by: ActionSource;
  readonly eventId: string | null;
  readonly boxes: readonly string[];
  readonly pulsed: readonly string[];
}

export interface JournalEvent {
  readonly endpoint: UserEndpoint;
  readonly eventId: string;
  readonly attempts: number;
  readonly preview: string | null;
}

/** What the records add up to (reduce.ts). */
export interface JournalState {
  /** The event in flight of the current run. */
  readonly inFlight: JournalEvent | null;
  /** The box action of the current run, until an answered /state reports its boxes closed. */
  readonly action: JournalAction | null;
  /** The door states of the last answered /state. */
  readonly reported: Readonly<Record<string, BoxStatus>> | null;
  /** What an earlier run left unfinished, until the current run's first answered /state told the server. */
  readonly previous: { readonly inFlight: JournalEvent | null; readonly action: JournalAction | null } | null;
  /** The last notes for people reading the file (absent: none yet). */
  readonly notes?: readonly string[];
}

/** One record. `at` fields are wall-clock ISO times for people reading the file; nothing computes with them. */
export type JournalEntry =
  /** A run began (records before it belong to earlier runs). */
  | { readonly t: 'start'; readonly at: string }
  /** A librarian's or reader's event is about to be sent (written before the request leaves). */
  | { readonly t: 'event'; readonly endpoint: UserEndpoint; readonly eventId: string; readonly preview: string | null }
  /** Attempt number `attempt` of that event is about to be sent. */
  | { readonly t: 'attempt'; readonly eventId: string; readonly attempt: number }
  /** The event has its outcome (answered with `outcome`, or unanswered after every attempt). */
  | { readonly t: 'outcome'; readonly eventId: string; readonly outcome: string }
  /** A box action begins (written before the first pulse). */
  | { readonly t: 'action'; readonly by: ActionSource; readonly eventId: string | null; readonly boxes: readonly string[] }
  /** A box's lock pulse is about to begin (written before the lock is energized). */
  | { readonly t: 'pulse'; readonly boxId: string; readonly at: string }
  /** Something a person reading the journal must find (an RFID security bit not cleared after a deposit). */
  | { readonly t: 'note'; readonly at: string; readonly note: string }
  /** A /state was answered: the server knows these door states. */
  | { readonly t: 'reported'; readonly boxes: Readonly<Record<string, BoxStatus>> }
  /** Compaction: the whole state at once (the first record of a compacted file). */
  | { readonly t: 'snapshot'; readonly state: JournalState };

export interface JournalHealth {
  /** Records are being kept (in the file, or in memory for a memory journal). */
  readonly ok: boolean;
  /** The last problem: damaged or unreadable at start (set aside), or a failed write; null: none. */
  readonly problem: string | null;
}

/**
 * The journal a station runtime writes to. Contract:
 * - `readBack` is what earlier runs left, read once when the journal was opened; a damaged or
 *   unreadable journal comes back with `problem` set and whatever could be trusted (never a throw).
 * - `record()` is synchronous on purpose: it returns once the record is in the operating system
 *   (a kill -9 cannot lose it) so the runtime can write and then pulse in the same tick — a lock is
 *   energized less than a millisecond after its box-open answer (docs/decisions/0007). Durability against a
 *   power cut follows within `flush()`'s fsync, which the file adapter starts at the end of the
 *   event-loop turn that wrote the record, batched.
 *   It never throws: a failed write is reported through `health()` and `onProblem`.
 * - Records that change nothing (the same doors reported again) may be skipped.
 * - `close()` flushes and releases the file; records after it are dropped.
 */
export interface Journal {
  /** "memory", or the file path; for logs and the technician status. */
  readonly location: string;
  readonly readBack: JournalReadBack;
  record(entry: JournalEntry): void;
  /** Resolves once every record so far is on stable storage. */
  flush(): Promise<void>;
  health(): JournalHealth;
  /** Called with each new problem (a failed write, a failed compaction). Returns an unsubscribe. */
  onProblem(listener: (problem: string) => void): () => void;
  close(): Promise<void>;
}

export interface JournalReadBack {
  readonly state: JournalState;
  /** Damaged or unreadable: what was wrong and where the file was set aside. */
  readonly problem: string | null;
}

/** The read-back as the core's start input takes it. */
export function previousRun(readBack: JournalReadBack): PreviousRun {
  const { state } = readBack;
  return {
    inFlight: state.inFlight ?? state.previous?.inFlight ?? null,
    action: state.action ?? state.previous?.action ?? null,
    reported: state.reported,
    problem: readBack.problem,
  };
}

/** The one masking of identifiers (src/mask.ts): the journal's preview is the log's. */
export { maskIdentifier } from '../mask.js';
