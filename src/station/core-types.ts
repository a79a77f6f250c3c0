/**
 * Types of the pure station core: its state, the inputs it accepts and the effects it asks for.
 * No I/O, no timers, no clock: time arrives as data (`at`, monotonic ms) inside inputs.
 */
import type { Messages } from '../config/messages.js';
import type { AssistRequest, DoorState, IdentifierType, KeypadKey, RfidTag, SecurityWrite, SecurityWriteResult } from '../devices/types.js';
import type { BoxStatus, Endpoint, ServerAnswer, StationHealth } from '../protocol/types.js';
import type { ActionSource, PreviousRun } from '../journal/types.js';
import type { PinThrottleRecord } from '../storage/types.js';

export interface CoreConfig {
  /** This station's boxes in number order. */
  readonly boxes: readonly { readonly id: string; readonly number: number }[];
  readonly timing: {
    readonly heartbeatIntervalMs: number;
    readonly pinIdleMs: number;
    readonly messageMs: number;
    readonly duplicateScanWindowMs: number;
    readonly doorOpenTimeoutMs: number;
    /** A door still OPEN this long after it opened raises the door-ajar alarm. */
    readonly doorAjarMs: number;
    /** While a door stays ajar, the buzzer's reminder repeats this often. */
    readonly doorAjarReminderMs: number;
    /** A patron's time limit is announced this long before it runs out (core/time-to-act.ts); 0: never. */
    readonly warnBeforeMs: number;
    /** More time given at most this often in a row to one patron. */
    readonly maxExtensions: number;
    /** The patron has gone once the station has waited at its prompt this long (core/assist.ts). */
    readonly sessionEndMs: number;
  };
  /** Speech (core/assist.ts): whether the station has a voice, and when it speaks. */
  readonly speech: {
    /** off: never; patron: once a patron starts it; always: every screen. Off when the board has no audio output. */
    readonly mode: 'off' | 'patron' | 'always';
    /** A failing audio output puts the station DOWN (else /state only names it). */
    readonly required: boolean;
    /** The keypad key whose hold starts speech. */
    readonly holdKey: 'any' | 'backspace' | 'clear' | 'enter' | 'none';
    readonly volume: { readonly initial: number; readonly step: number; readonly min: number; readonly max: number };
  };
  /** The PIN brute-force throttle (core/pin-throttle.ts). */
  readonly pin: {
    /** Exception answers to /pin-enter in a row before the keypad is locked. */
    readonly maxFailures: number;
    /** The first lock-out; each further failure doubles it ... */
    readonly lockoutMs: number;
    /** ... up to this. */
    readonly maxLockoutMs: number;
    /** The display's countdown steps this often (the lock-out ends on a step: never early). */
    readonly countdownTickMs: number;
  };
  readonly messages: Messages;
  /** Library tags on host-mode readers (core/rfid.ts); absent: the defaults (sets require all parts, security bit off). */
  readonly rfid?: RfidCoreConfig;
  /** What an unknown USB device plugged in does (core/alarms.ts); absent: report (the station stays in service). */
  readonly security?: { readonly unknownUsb: 'report' | 'out-of-service' };
}

/** The `rfid` section as the core reads it (src/config/rfid.ts validates it). */
export interface RfidCoreConfig {
  readonly sets: 'require-all' | 'report-first';
  readonly security: { readonly kind: 'off' } | { readonly kind: 'afi'; readonly secured: number; readonly unsecured: number } | { readonly kind: 'eas' };
  readonly securityWindowMs: number;
  readonly securityRetryMs: number;
}

/**
 * Station modes. Server commands move between them (see the transition table in core.ts);
 * `deactivated` is entered when an event stays unanswered after every attempt.
 */
export type Mode =
  /** Booted, the first /state not yet answered. */
  | { readonly kind: 'starting' }
  /** wait-for-input: the prompt is shown, a scan or PIN is accepted. */
  | { readonly kind: 'idle'; readonly lines: readonly string[] }
  /** box-open received: locks pulsed, waiting for the doors in `pending` to report OPEN. */
  | { readonly kind: 'opening'; readonly boxes: readonly string[]; readonly pending: readonly string[]; readonly lines: readonly string[] }
  /** wait-for-closing: waiting for the listed boxes to be closed. */
  | { readonly kind: 'closing'; readonly boxes: readonly string[]; readonly cancellable: boolean; readonly lines: readonly string[] }
  /** station-disable: its text shown, input refused, heartbeat continues. */
  | { readonly kind: 'disabled'; readonly lines: readonly string[] }
  /** No answer after every attempt: station-off message, all operations refused, heartbeat only. */
  | { readonly kind: 'deactivated' };

export type ModeKind = Mode['kind'];

/**
 * Timers the core asks the runtime for; their expiry comes back as a `timer` input.
 * `refusal`: the window (one heartbeat interval) in which repeated refused commands neither send
 * another /state nor log another line (see core/refusals.ts). `door-ajar:<boxId>` is one timer per
 * open door (doorAjarTimer() builds the name).
 */
export type TimerName =
  | 'heartbeat'
  | 'pin-idle'
  | 'message'
  | 'door-open'
  | 'refusal'
  | 'pin-lockout'
  | 'ajar-reminder'
  | 'security-window'
  | 'security-retry'
  | 'session-end'
  | `door-ajar:${string}`
  | `warn:${TimeLimit}`;

/**
 * A time limit a patron faces (core/time-to-act.ts): the typed PIN's idle clear, or one box's
 * door-ajar alarm (`door-ajar:<boxId>`). Each is warned of before it runs out and can be extended.
 */
export type TimeLimit = 'pin-idle' | `door-ajar:${string}`;

/** Each box's door as one /state reports it, by boxId. */
export type DoorSnapshot = Readonly<Record<string, BoxStatus>>;

/**
 * Door changes on their way to the server (core/door-reports.ts): a /state reports the doors as
 * they are when it goes out, so a door that opens and closes again before the server hears of it
 * would vanish; such a change is kept as a snapshot and reported first.
 */
export interface DoorReports {
  /** Snapshots holding a change that the doors as they are now would hide, oldest first. */
  readonly queued: readonly DoorSnapshot[];
  /** What the /state in flight reports; null when no /state is in flight. */
  readonly sending: DoorSnapshot | null;
  /** What the last answered /state reported (the server received it). */
  readonly delivered: DoorSnapshot;
}

/**
 * Refused server commands inside the current refusal window (null: no window open). The first
 * refusal opens it (logged, one extra /state); later ones are only counted, and the window's end
 * logs them once with their count.
 */
export interface RefusalWindow {
  /** Refusals since the window opened or last logged, the first one excluded. */
  readonly repeats: number;
  /** Distinct reasons among those repeats (bounded), e.g. "rejected command to /state: unknown type". */
  readonly reasons: readonly string[];
}

/**
 * Door truth after a box opened (Open-Locker's decision): its lock was pulsed and the door opened
 * within the door-open window; it was pulsed and did not open; or it opened with no command.
 */
export type DoorOutcome = 'commanded-opened' | 'commanded-not-opened' | 'opened-without-command';

/** What the buzzer plays (patterns in config `buzzer.patterns`). */
export type SoundName = 'accepted' | 'refused' | 'alarm' | 'reminder' | 'warning';

/** Tones of the audio output (config `speech.tones`): a PIN's keys are never spoken, they sound one of these. */
export type ToneName = 'key' | 'erase' | 'clear' | 'enter' | 'warning' | 'volume';

/**
 * The patron at the station and the help they asked for (core/assist.ts, core/time-to-act.ts).
 */
export interface AssistState {
  /** A patron is at the station: from their first input until the station has waited at its prompt for sessionEndMs. */
  readonly session: boolean;
  /** The patron asked for speech (speech key, key held): kept until they have gone. */
  readonly requested: boolean;
  /** Headphones are plugged in (a jack with a detect line): speech while they are. */
  readonly headphones: boolean;
  /** The patron's volume in percent; null: the configured initial volume. */
  readonly volume: number | null;
  /**
   * An assisted visit (speech on, the kiosk's contrast or text size switched, more time asked for):
   * temporary messages then wait for the patron's next input instead of timing out.
   */
  readonly untimed: boolean;
  /** What was last announced, as `screenKey()` names it (a countdown's tick is not a new screen); null: nothing yet. */
  readonly announced: string | null;
  /** Time limits about to run out, in the order they were warned of. */
  readonly warnings: readonly TimeLimit[];
  /** More time given to this patron in a row. */
  readonly extensions: number;
  /** The audio output's problem (it is missing or failing); null: none. */
  readonly outputProblem: string | null;
}

/**
 * Alarms the station raises on its own (Matter DoorLock's vocabulary): a door opened without a
 * command, a door left open, the cabinet's tamper input, the keypad locked after wrong PINs, and an
 * unknown USB device plugged in (with `security.unknownUsb: out-of-service`). An alarm
 * is held in the core state while its condition lasts; technicians, metrics and /state see it.
 */
export type AlarmKind = 'forced-open' | 'door-ajar' | 'tamper' | 'pin-lockout' | 'unknown-usb';

export interface Alarm {
  readonly kind: AlarmKind;
  /** The box it concerns; null for station-wide alarms (tamper, PIN lock-out). */
  readonly boxId: string | null;
  /** What /state's errorMessage and the technician see, e.g. "box 3 forced open". */
  readonly detail: string;
}

/**
 * A box's door-open window: `pending` (pulsed, not yet OPEN), `opened` (pulsed and OPEN), or
 * `carried` (pulsed by an earlier run that was cut short: its door may still spring open after the
 * restart, which is that pulse's opening, not a forced one; no "did not open" when it stays shut —
 * the restart note already tells).
 */
export type DoorWindow = 'pending' | 'opened' | 'carried';

export interface CoreState {
  readonly mode: Mode;
  /** Door truth per boxId, as the sensors last reported it. */
  readonly boxes: Readonly<Record<string, BoxStatus>>;
  /** The one protocol event in flight (the outbound queue holds at most one). */
  readonly inFlight: Endpoint | null;
  /** A /state is owed: sent as soon as nothing is in flight (a newer snapshot replaces an unsent one). */
  readonly stateOwed: boolean;
  /** PIN digits typed so far (never logged). */
  readonly pin: string;
  readonly lastScan: { readonly value: string; readonly at: number } | null;
  /** Lasting error conditions by key (scanner missing, service mode): st DOWN while any is set. */
  readonly faults: Readonly<Record<string, string>>;
  /**
   * Lasting problems by key that leave the station serving (a kiosk screen not shown beside a
   * tactile keypad): named in /state's errorMessage, st stays UP.
   */
  readonly degraded: Readonly<Record<string, string>>;
  /** One-shot errors (bad command, box not opened) waiting for the next /state. */
  readonly pendingErrors: readonly string[];
  /** One-shot errors carried by the /state in flight; dropped once it is answered. */
  readonly reportingErrors: readonly string[];
  /** Alarms in force (see Alarm), in the order they were raised. */
  readonly alarms: readonly Alarm[];
  /**
   * Boxes whose lock was pulsed and whose door-open window (doorOpenTimeoutMs) is still open:
   * `pending` until the door reports OPEN. A door opening outside such a window is forced open.
   */
  readonly doorWindow: Readonly<Record<string, DoorWindow>>;
  /** The last opening of each box as one of the three door outcomes. */
  readonly doorOutcomes: Readonly<Record<string, DoorOutcome>>;
  /** The tamper input (cabinet or service door) reads open. */
  readonly tamperOpen: boolean;
  /** The PIN throttle: failures in a row; the lock-out in force with its time left. */
  readonly pinThrottle: {
    readonly failures: number;
    readonly lockout: { readonly ms: number; readonly remainingMs: number } | null;
  };
  /** Refused server commands of the current window (no storms on a refused answer); null: none. */
  readonly refusals: RefusalWindow | null;
  /** Door changes not yet known to the server (no change lost while a /state is in flight or unanswered). */
  readonly doorReports: DoorReports;
  /** A message for whoever was at the station when it restarted, shown with the first answer. */
  readonly notice: readonly string[] | null;
  /** Graceful stop (core/drain.ts): off; draining (input refused, in-flight work finishing); drained. */
  readonly drain: 'off' | 'draining' | 'drained';
  /** A temporary message shown over the mode's screen until the message timer ends. */
  readonly overlay: readonly string[] | null;
  /** Lines last sent to the display. */
  readonly shown: readonly string[];
  /** Library tags on host-mode readers: each reader's field, the deposit's security bit (core/rfid.ts). */
  readonly rfid: RfidState;
  /** The patron's session, speech and time limits. */
  readonly assist: AssistState;
}

/** One reader's field as the core keeps it. */
export interface RfidField {
  /** The tags it reported last. */
  readonly tags: readonly RfidTag[];
  /** UIDs whose arrival has been acted on (until they leave). */
  readonly seen: readonly string[];
  /** Items (item ids, or `uid:<UID>` for UIDs and unreadable tags) reported or refused, until all their tags have left. */
  readonly done: readonly string[];
  /** An item that arrived while the station was not free: reported once it is, if it still lies there. */
  readonly waiting: string | null;
  /** What the reader sends (its config), kept for that later report. */
  readonly send: 'item-id' | 'uid';
}

/** A deposit's tags whose security bit is owed once the server's box-open comes (the /item-identify in flight). */
export interface SecurityOwed {
  readonly reader: string;
  readonly itemId: string;
  readonly uids: readonly string[];
}

/** A security write after a deposit's box-open: the tags still to do, whether a write is on its way. */
export interface SecurityJob extends SecurityOwed {
  /** Tags not yet verified. */
  readonly remaining: readonly string[];
  /** A write-security effect is being carried out. */
  readonly writing: boolean;
  /** The last failure's reason (for the final report); null before any. */
  readonly lastReason: string | null;
}

/** A security bit that could not be cleared within the window (the technician status lists the last ones). */
export interface SecurityFailure {
  readonly reader: string;
  readonly itemId: string;
  readonly uids: readonly string[];
  readonly reason: string;
}

/** How an item must be handled, from its tag's media format (ISO 28560-1: 5 careful handling, 6 small item). */
export type HandlingNote = 'careful-handling' | 'small-item';

export interface RfidState {
  readonly fields: Readonly<Record<string, RfidField>>;
  readonly owed: SecurityOwed | null;
  /**
   * The handling note of the RFID item whose /item-identify went out last: shown beside "please
   * wait", the box's opening and closing screens of that deposit, until the station is idle again or
   * another event goes out.
   */
  readonly handling: HandlingNote | null;
  readonly job: SecurityJob | null;
  /** The last final failures, oldest first (at most 10). */
  readonly failures: readonly SecurityFailure[];
}

export type Input =
  /**
   * The runtime is up. Restored state comes with it: `previous`, what the journal read back (null:
   * nothing, or no journal); the PIN throttle from its store ('damaged': a file that cannot be
   * trusted); the tamper input's level.
   */
  | {
      readonly type: 'start';
      readonly previous?: PreviousRun | null;
      readonly pinThrottle?: PinThrottleRecord | 'damaged' | null;
      readonly tamperOpen?: boolean;
      /** Headphones plugged in at start (a jack with a detect line). */
      readonly headphones?: boolean;
    }
  | { readonly type: 'scan'; readonly identifierType: IdentifierType; readonly value: string; readonly at: number }
  | { readonly type: 'key'; readonly key: KeypadKey }
  | { readonly type: 'cancel-pressed' }
  | { readonly type: 'door'; readonly boxId: string; readonly state: DoorState }
  | { readonly type: 'answered'; readonly endpoint: Endpoint; readonly answer: ServerAnswer }
  | { readonly type: 'unanswered'; readonly endpoint: Endpoint; readonly reason: string }
  | { readonly type: 'timer'; readonly timer: TimerName }
  | { readonly type: 'fault'; readonly key: string; readonly message: string | null }
  /** A lasting problem that leaves the station serving (set: message; cleared: null): named, st stays UP. */
  | { readonly type: 'degraded'; readonly key: string; readonly message: string | null }
  | { readonly type: 'pulse-failed'; readonly boxId: string; readonly message: string }
  /** The tamper input changed (open: the cabinet or service door is open). */
  | { readonly type: 'tamper'; readonly open: boolean }
  /** How many USB devices the kernel keeps unauthorised are plugged in now (src/devices/usb/). */
  | { readonly type: 'unknown-usb'; readonly present: number }
  /** Whether the USB watch sees the bus (problem null) or not, and why (src/devices/usb/watch.ts). */
  | { readonly type: 'usb-watch'; readonly problem: string | null }
  /** An authenticated technician opens one box (debug port, service scope); `by` is the token's name. */
  | { readonly type: 'technician-open'; readonly boxId: string; readonly by?: string }
  /** A one-shot problem for the next /state's errorMessage (e.g. the journal could not be written). */
  | { readonly type: 'problem'; readonly message: string }
  /** Stop gracefully: refuse new input, finish what is in flight, then `drained` (core/drain.ts). */
  | { readonly type: 'drain' }
  /** A host-mode RFID reader's whole field, reported whenever it changed (core/rfid.ts). */
  | { readonly type: 'rfid-field'; readonly reader: string; readonly send: 'item-id' | 'uid'; readonly tags: readonly RfidTag[]; readonly at: number }
  /** The outcome of a write-security effect: one result per UID, verified by reading back. */
  | { readonly type: 'security-result'; readonly reader: string; readonly results: readonly SecurityWriteResult[] }
  /** A keypad key held down (its press came as a `key` input before). */
  | { readonly type: 'key-held'; readonly key: KeypadKey }
  /** A help control: speech, louder, softer, more time, the kiosk's visual settings. */
  | { readonly type: 'assist'; readonly request: AssistRequest }
  /** Headphones plugged in or out. */
  | { readonly type: 'headphones'; readonly plugged: boolean }
  /** The audio output's health: its problem, or null once it works. */
  | { readonly type: 'speech-output'; readonly problem: string | null };

export type OutboundRequest =
  | {
      readonly endpoint: 'state';
      readonly st: StationHealth;
      readonly errorMessage: string | null;
      readonly boxes: readonly { readonly id: string; readonly st: BoxStatus }[];
    }
  | { readonly endpoint: 'item-identify'; readonly identifierType: IdentifierType; readonly identifierValue: string }
  | { readonly endpoint: 'pin-enter'; readonly pin: string }
  | { readonly endpoint: 'cancel' };

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type Effect =
  | { readonly type: 'send'; readonly request: OutboundRequest }
  /** Journal a box action before its pulse (write, then pulse); the runtime adds the eventId. */
  | { readonly type: 'journal-action'; readonly by: ActionSource; readonly boxIds: readonly string[] }
  | { readonly type: 'pulse'; readonly boxIds: readonly string[] }
  /** Draining is done: nothing in flight, every answered box-open carried out and reported. */
  | { readonly type: 'drained' }
  | { readonly type: 'display'; readonly lines: readonly string[] }
  | { readonly type: 'start-timer'; readonly timer: TimerName; readonly ms: number }
  | { readonly type: 'stop-timer'; readonly timer: TimerName }
  /** Play a buzzer pattern (the runtime never lets it overlap a lock pulse). */
  | { readonly type: 'sound'; readonly sound: SoundName }
  /** Write the security bit of these tags on this reader and read it back (then a `security-result`). */
  | { readonly type: 'write-security'; readonly reader: string; readonly uids: readonly string[]; readonly write: SecurityWrite }
  /** A security bit that could not be cleared in time: the journal names it (under the deposit's event). */
  | { readonly type: 'journal-security-failure'; readonly failure: SecurityFailure }
  /** Speak these lines (already in their spoken form) in the station's locale; interrupts what is playing. */
  | { readonly type: 'speak'; readonly lines: readonly string[]; readonly volume: number }
  /** Play a tone on the audio output; interrupts what is playing. */
  | { readonly type: 'tone'; readonly tone: ToneName; readonly volume: number }
  /** Stop speaking now (speech turned off). */
  | { readonly type: 'hush' }
  /** The station offers more time (a warning is showing) or no longer does. */
  | { readonly type: 'more-time-offered'; readonly offered: boolean }
  /** The patron has gone: their settings go back to the defaults (the kiosk page's contrast and text size). */
  | { readonly type: 'session-end' }
  /** Write the PIN throttle to its store (before the keypad is used again). */
  | { readonly type: 'save-pin-throttle'; readonly record: PinThrottleRecord }
  | { readonly type: 'log'; readonly level: LogLevel; readonly msg: string; readonly data?: Readonly<Record<string, unknown>> };

export interface Transition {
  readonly state: CoreState;
  readonly effects: readonly Effect[];
}
