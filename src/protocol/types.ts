/**
 * Station protocol v2 (docs/protocol/endpoints.md, answers.md): request bodies and server commands.
 */

export type Endpoint = 'state' | 'item-identify' | 'pin-enter' | 'cancel';
export const ENDPOINTS: readonly Endpoint[] = ['state', 'item-identify', 'pin-enter', 'cancel'];

export type StationHealth = 'UP' | 'DOWN';
export type BoxStatus = 'OPEN' | 'CLOSED';
export type IdentifierType = 'BAR_CODE' | 'RFID';

export interface StateRequest {
  readonly station: string;
  readonly st: StationHealth;
  readonly errorMessage: string | null;
  readonly inputVoltage?: number;
  readonly internetSignalStrength?: number;
  readonly boxes: readonly { readonly id: string; readonly st: BoxStatus }[];
  readonly event: string;
}

export interface ItemIdentifyRequest {
  readonly station: string;
  readonly identifierValue: string;
  readonly identifierType: IdentifierType;
  readonly event: string;
}

export interface PinEnterRequest {
  readonly station: string;
  readonly pin: string;
  readonly event: string;
}

export interface CancelRequest {
  readonly station: string;
  readonly event: string;
}

export interface RequestBodies {
  readonly state: StateRequest;
  readonly 'item-identify': ItemIdentifyRequest;
  readonly 'pin-enter': PinEnterRequest;
  readonly cancel: CancelRequest;
}

export type CommandType = 'wait-for-input' | 'station-disable' | 'box-open' | 'wait-for-closing';

/** A server command as the station understands it (validated; unknown fields dropped). */
export type ServerCommand =
  | { readonly type: 'wait-for-input'; readonly displayMessages: readonly string[] }
  | { readonly type: 'station-disable'; readonly displayMessages: readonly string[] }
  | { readonly type: 'box-open'; readonly boxes: readonly string[]; readonly displayMessages: readonly string[] }
  | {
      readonly type: 'wait-for-closing';
      readonly boxes: readonly string[];
      readonly displayMessages: readonly string[];
      readonly cancellable: boolean;
    };

/** What a server's HTTP response meant. */
export type ServerAnswer =
  | { readonly kind: 'command'; readonly command: ServerCommand }
  /** The protocol's error body (`type: exception`), with any HTTP status. */
  | { readonly kind: 'exception'; readonly status: number; readonly exceptionType: string; readonly displayMessages: readonly string[] }
  /** A JSON answer with HTTP 200 that is not a valid command: no box is opened, the next /state reports it. */
  | { readonly kind: 'invalid'; readonly reason: string };

export const PIN_LENGTH = 6;
