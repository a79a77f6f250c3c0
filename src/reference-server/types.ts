/**
 * Public types of the reference station server (the server side of station protocol v2).
 * Request and command shapes are the station's own (../protocol/types.ts); only what is
 * specific to the simulated library server lives here.
 */
import type { BoxStatus, Endpoint, IdentifierType, ServerCommand, StationHealth } from '../protocol/types.js';
import type { ExceptionBody, ExceptionType } from './messages.js';

export interface SimulatedStation {
  readonly id: string;
  readonly password: string;
  /** boxIds in order: index + 1 is the box number printed on the door. */
  readonly boxes: readonly string[];
}

/** An ordered item waiting to be deposited into a given box of a given station. */
export interface SimDeposit {
  readonly identifierValue: string;
  /** Omitted: a barcode or an RFID read of that value both match. */
  readonly identifierType?: IdentifierType;
  readonly stationId: string;
  readonly boxId: string;
}

/** A reader's PIN that opens one or more boxes of a station once. */
export interface SimPickup {
  readonly pin: string;
  readonly stationId: string;
  readonly boxIds: readonly string[];
}

export interface SimLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface ReferenceServerOptions {
  readonly host?: string;
  readonly port?: number;
  /** Default '/v2'; endpoints are `${pathPrefix}/state` etc. '' serves them at the root. */
  readonly pathPrefix?: string;
  readonly stations: readonly SimulatedStation[];
  readonly deposits?: readonly SimDeposit[];
  readonly pickups?: readonly SimPickup[];
  /** Spec: no /state for 2 minutes -> station unavailable, box actions refused. Default 120000. */
  readonly absenceMs?: number;
  /** Monotonic clock in ms; default performance.now. Never wall-clock time: it jumps. */
  readonly now?: () => number;
  readonly logger?: SimLogger;
  /**
   * Log patrons' identifiers in full (a developer's run: `sim-server --log-identifiers`). Default
   * false: every line is masked as the station's own log is (src/mask.ts) — identifier fields, and
   * identifiers in the notes and errors by their shape.
   */
  readonly logIdentifiers?: boolean;
  /** Serve the loopback-only /_control/ API. Default true. */
  readonly control?: boolean;
  /** Keep only the newest N request records (a fleet run would grow without bound). Default 10000. */
  readonly maxRecords?: number;
  /** Serve HTTPS with this key and certificate (PEM) instead of plain HTTP. */
  readonly tls?: { readonly key: string | Buffer; readonly cert: string | Buffer };
}

/** What the server decided to answer to one request. */
export type SimAnswer = { readonly status: 200; readonly body: ServerCommand } | { readonly status: number; readonly body: ExceptionBody };

export type FaultKind =
  | 'delay'
  | 'drop'
  | 'reset'
  | 'truncated'
  | 'huge'
  | 'exception500'
  | 'exception'
  | 'status'
  | 'html502'
  | 'redirect'
  | 'empty'
  | 'non-json'
  | 'malformed'
  | 'unknown-command'
  | 'foreign-box'
  | 'extra-fields';

export type Fault =
  /** The request is processed at once; the answer leaves after `ms` (e.g. past the station's answer timeout). */
  | { readonly kind: 'delay'; readonly ms: number }
  /**
   * The socket is destroyed without an answer. `processed` (default true): the server acted
   * first, so the answer is lost, not the request - the case a resend with the same eventId is for.
   */
  | { readonly kind: 'drop'; readonly processed?: boolean }
  /** The server acts; its answer's headers and the first half of its body go out, then the socket is destroyed. */
  | { readonly kind: 'reset' }
  /** The server acts; its answer's JSON is cut in the middle (a complete HTTP response, an incomplete body). */
  | { readonly kind: 'truncated' }
  /** The server acts; its answer carries an unknown field that makes the body `bytes` long (default 4 MiB). */
  | { readonly kind: 'huge'; readonly bytes?: number }
  | { readonly kind: 'exception500'; readonly displayMessages?: readonly string[] }
  /**
   * The protocol's exception body with any status and exceptionType, without acting on the request
   * (default: 404 InvalidPinException, every PIN answered as wrong: the PIN throttle's tests).
   */
  | { readonly kind: 'exception'; readonly status: number; readonly exceptionType: ExceptionType; readonly displayMessages?: readonly string[] }
  /** A bare status without the exception body (default 503 text/plain "Service Unavailable"). */
  | { readonly kind: 'status'; readonly status?: number; readonly contentType?: string; readonly body?: string }
  | { readonly kind: 'html502' }
  /** A redirect (default 307) to `location` (default the same path on https://library.example). */
  | { readonly kind: 'redirect'; readonly status?: number; readonly location?: string }
  /** HTTP 200 application/json with an empty body. */
  | { readonly kind: 'empty' }
  | { readonly kind: 'non-json'; readonly body?: string }
  /** HTTP 200 application/json: `body` serialized (default {"type":"box-open"}), or `raw` text as is. */
  | { readonly kind: 'malformed'; readonly body?: unknown; readonly raw?: string }
  /** HTTP 200 with a well-formed command of a type the protocol does not have (default "frobnicate"). */
  | { readonly kind: 'unknown-command'; readonly type?: string }
  /**
   * HTTP 200 with the command the endpoint expects naming a box of no station of this server:
   * box-open to /item-identify and /pin-enter, wait-for-closing to /state and /cancel.
   */
  | { readonly kind: 'foreign-box'; readonly boxId?: string }
  /** The normal answer plus unknown top-level fields (never replacing a known one). */
  | { readonly kind: 'extra-fields'; readonly fields?: Readonly<Record<string, unknown>> };

/** A fault, or just its kind for the defaults (delay: 21 s, past the spec's 20 s answer timeout). */
export type FaultSpec = Fault | FaultKind;
export type FaultTarget = Endpoint | '*';

export interface RequestRecord {
  /** 1-based, in the order the server acted on the requests. */
  readonly seq: number;
  /** Monotonic ms (the server's now()) when the whole body had arrived. */
  readonly at: number;
  /** null: not a protocol endpoint (unknown path). */
  readonly endpoint: Endpoint | null;
  readonly method: string;
  readonly path: string;
  /** Lower-case names; authorization redacted to 'Basic ***'. */
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON, or the raw text when it was not JSON. */
  readonly body: unknown;
  readonly eventId: string | null;
  /** X-Service-Trace-Id, when sent. */
  readonly traceId: string | null;
  /** Authenticated station, when the credentials were valid. */
  readonly stationId: string | null;
  /** HTTP status sent; null when the socket was dropped. */
  readonly status: number | null;
  /** The body sent (JSON value or text); null when dropped. */
  readonly response: unknown;
  /** Set when the request was a resend: the seq of the first request with that eventId. */
  readonly resendOf: number | null;
  readonly fault: FaultKind | null;
  /** Things worth knowing that the answer does not show (forced door, box not opened, ...). */
  readonly notes: readonly string[];
}

export type ActionKind = 'deposit' | 'pickup';

/** What the station's last /state said about itself. */
export interface ReportedHealth {
  readonly st: StationHealth;
  readonly errorMessage: string | null;
  readonly inputVoltage: number | null;
  readonly internetSignalStrength: number | null;
}

export interface StationSnapshot {
  readonly stationId: string;
  readonly available: boolean;
  readonly disabled: readonly string[] | null;
  /** Monotonic ms of the last /state, null before the first. */
  readonly lastHeartbeatAt: number | null;
  readonly health: ReportedHealth | null;
  readonly boxes: readonly {
    readonly number: number;
    readonly id: string;
    /** As last reported by /state; null before the first. */
    readonly reported: BoxStatus | null;
    /** identifierValues of deposited items. */
    readonly contents: readonly string[];
  }[];
  readonly active: {
    readonly kind: ActionKind;
    readonly boxes: readonly string[];
    readonly cancellable: boolean;
    readonly cancelled: boolean;
    /** Boxes seen OPEN in a /state since the box-open answer. */
    readonly seenOpen: readonly string[];
    readonly identifierValue?: string;
    readonly pin?: string;
  } | null;
  readonly pendingDeposits: readonly SimDeposit[];
  readonly storedDeposits: readonly SimDeposit[];
  readonly pendingPickups: readonly SimPickup[];
  readonly usedPickups: readonly SimPickup[];
  /** Newest last; capped. */
  readonly history: readonly HistoryEntry[];
}

export type HistoryEntry =
  | { readonly at: number; readonly kind: 'deposit-stored'; readonly identifierValue: string; readonly boxId: string }
  | { readonly at: number; readonly kind: 'deposit-cancelled'; readonly identifierValue: string; readonly boxId: string }
  | { readonly at: number; readonly kind: 'pickup-done'; readonly pin: string; readonly boxIds: readonly string[] }
  /** box-open was answered but the next /state showed none of its boxes ever OPEN. */
  | { readonly at: number; readonly kind: 'not-opened'; readonly action: ActionKind; readonly boxIds: readonly string[] }
  /** A box reported OPEN that no action opened. */
  | { readonly at: number; readonly kind: 'forced-open'; readonly boxId: string }
  | { readonly at: number; readonly kind: 'station-down'; readonly errorMessage: string | null };
