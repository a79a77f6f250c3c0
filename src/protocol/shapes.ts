/**
 * Station protocol v2's shapes, defined once (docs/protocol/endpoints.md, answers.md): the request
 * bodies a station sends and the answers a server returns, as schemas. The TypeScript
 * types in types.ts are derived from them, the station's answer parser (parse.ts) validates with
 * the answer schemas and the reference server (src/reference-server/validate.ts) with the request schemas.
 * The station itself never parses a request body; only the reference server builds those.
 */
import * as z from '../schema.js';
import { UUID_RE, UUID_V4_RE } from '../uuid.js';

export const ENDPOINTS = ['state', 'item-identify', 'pin-enter', 'cancel'] as const;
export const PIN_LENGTH = 6;

const STATION_HEALTHS = ['UP', 'DOWN'] as const;
const BOX_STATUSES = ['OPEN', 'CLOSED'] as const;
const IDENTIFIER_TYPES = ['BAR_CODE', 'RFID'] as const;

/**
 * Request bodies, as strict as the spec: the reference server exists to catch station bugs, so
 * anything the spec requires is required. Unknown fields are dropped (spec, general rule 1).
 */
function buildRequestSchemas() {
  const uuid = z.string().check(z.regex(UUID_V4_RE, 'must be a lowercase UUIDv4'));
  return {
    state: z.object({
      station: uuid,
      st: z.enum(STATION_HEALTHS),
      errorMessage: z.nullable(z.string()),
      inputVoltage: z.optional(z.number()),
      internetSignalStrength: z.optional(z.number().check(z.int(), z.minimum(0), z.maximum(100))),
      boxes: z.array(z.object({ id: uuid, st: z.enum(BOX_STATUSES) })),
      event: uuid,
    }),
    'item-identify': z.object({
      station: uuid,
      identifierValue: z.string().check(z.minLength(1)),
      identifierType: z.enum(IDENTIFIER_TYPES),
      event: uuid,
    }),
    'pin-enter': z.object({
      station: uuid,
      pin: z.string().check(z.regex(new RegExp(`^[0-9]{${PIN_LENGTH}}$`), `must be ${PIN_LENGTH} digits`)),
      event: uuid,
    }),
    cancel: z.object({ station: uuid, event: uuid }),
  };
}

/** Answers: a command (HTTP 200) or the protocol's exception body (any status). */
function buildAnswerSchemas() {
  const displayMessages = z._default(z.array(z.string()), []);
  const uuidLower = z.string().check(z.regex(UUID_RE, 'not a lowercase UUID'));
  const boxList = z.array(uuidLower).check(
    z.minLength(1, 'no boxes'),
    z.refine((b) => new Set(b).size === b.length, 'duplicate box ids'),
  );
  return {
    command: z.discriminatedUnion('type', [
      z.object({ type: z.literal('wait-for-input'), displayMessages }),
      z.object({ type: z.literal('station-disable'), displayMessages }),
      z.object({ type: z.literal('box-open'), boxes: boxList, displayMessages }),
      z.object({ type: z.literal('wait-for-closing'), boxes: boxList, displayMessages, cancellable: z._default(z.boolean(), false) }),
    ]),
    exception: z.object({
      type: z.literal('exception'),
      exceptionType: z._default(z.string(), 'UnknownException'),
      displayMessages,
    }),
  };
}

type RequestSchemas = ReturnType<typeof buildRequestSchemas>;
type AnswerSchemas = ReturnType<typeof buildAnswerSchemas>;

/** The request body schemas, one per endpoint (built on the first call). */
export const requestShapes: () => RequestSchemas = z.builtOnFirstUse(buildRequestSchemas);

/** The answer schemas (built on the first call). */
export const answerShapes: () => AnswerSchemas = z.builtOnFirstUse(buildAnswerSchemas);

/** The schemas' outputs, read-only all the way down: a parsed body is never changed in place. */
type DeepReadonly<T> = T extends readonly (infer U)[] ? readonly DeepReadonly<U>[] : T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;

export type RequestShapes = { readonly [E in keyof RequestSchemas]: DeepReadonly<z.output<RequestSchemas[E]>> };
export type CommandShape = DeepReadonly<z.output<AnswerSchemas['command']>>;
export type ExceptionShape = DeepReadonly<z.output<AnswerSchemas['exception']>>;
