/**
 * Station protocol v2 (docs/protocol/endpoints.md, answers.md): request bodies and server commands,
 * derived from the schemas in shapes.ts.
 */

import type { CommandShape, ExceptionShape, RequestShapes } from './shapes.js';

export { ENDPOINTS, PIN_LENGTH } from './shapes.js';

export type Endpoint = keyof RequestShapes;

export type StateRequest = RequestShapes['state'];
export type ItemIdentifyRequest = RequestShapes['item-identify'];
export type PinEnterRequest = RequestShapes['pin-enter'];
export type CancelRequest = RequestShapes['cancel'];
export type RequestBodies = RequestShapes;

export type StationHealth = StateRequest['st'];
export type BoxStatus = StateRequest['boxes'][number]['st'];
export type IdentifierType = ItemIdentifyRequest['identifierType'];

/** A server command as the station understands it (validated; unknown fields dropped). */
export type ServerCommand = CommandShape;
export type CommandType = ServerCommand['type'];

/** What a server's HTTP response meant. */
export type ServerAnswer =
  | { readonly kind: 'command'; readonly command: ServerCommand }
  /** The protocol's error body (`type: exception`), with any HTTP status. */
  | ({ readonly kind: 'exception'; readonly status: number } & Omit<ExceptionShape, 'type'>)
  /** A JSON answer with HTTP 200 that is not a valid command: no box is opened, the next /state reports it. */
  | { readonly kind: 'invalid'; readonly reason: string };
