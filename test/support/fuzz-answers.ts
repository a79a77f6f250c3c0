/**
 * Arbitrary server responses as they arrive over HTTP: any status, any content type, and a body
 * that is a valid command, a near-valid one (one thing wrong), the protocol's exception body, or
 * garbage (any JSON, any text, a truncated command, nothing).
 *
 * Box ids are drawn mostly from this station's boxes, so valid box-opens are common, plus foreign
 * ids, uppercase and malformed ones, and duplicates.
 */
import fc from 'fast-check';

export interface RawResponse {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: string;
}

export const OWN_BOXES = [1, 2, 3, 4].map((n) => `bbbbbbbb-bbbb-4bbb-8bbb-${String(n).padStart(12, '0')}`);
export const FOREIGN_BOXES = ['0f0f0f0f-dead-4bad-8bad-f0f0f0f0f0f0', 'ffffffff-ffff-4fff-8fff-ffffffffffff'];

const boxId = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...OWN_BOXES) },
  { weight: 2, arbitrary: fc.constantFrom(...FOREIGN_BOXES) },
  { weight: 1, arbitrary: fc.uuid().map((u) => u.toLowerCase()) },
  { weight: 1, arbitrary: fc.constantFrom(...OWN_BOXES).map((b) => b.toUpperCase()) },
  { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('box-1', '', '1')) },
);

const lines = fc.array(fc.oneof({ weight: 4, arbitrary: fc.string({ maxLength: 30 }) }, { weight: 1, arbitrary: fc.constant('') }), { maxLength: 4 });

const commandType = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom('wait-for-input', 'station-disable', 'box-open', 'wait-for-closing') },
  { weight: 1, arbitrary: fc.constantFrom('exception', 'Box-Open', 'box_open', 'frobnicate', '') },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
);

/** A command-shaped object: often valid, sometimes with one field wrong, missing or extra. */
const commandish: fc.Arbitrary<Record<string, unknown>> = fc
  .record(
    {
      type: commandType,
      boxes: fc.oneof(
        { weight: 6, arbitrary: fc.array(boxId, { minLength: 1, maxLength: 3 }) },
        { weight: 1, arbitrary: fc.constant([]) },
        { weight: 1, arbitrary: fc.jsonValue() },
      ),
      displayMessages: fc.oneof({ weight: 8, arbitrary: lines }, { weight: 1, arbitrary: fc.jsonValue() }),
      cancellable: fc.oneof({ weight: 6, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.jsonValue() }),
      extra: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 2 }),
    },
    { requiredKeys: ['type'] },
  )
  .map(({ extra, ...known }) => ({ ...extra, ...known }));

/** A valid command (every field right; boxes unique), naming a foreign box now and then. */
const validCommand: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ type: fc.constantFrom('wait-for-input', 'station-disable'), displayMessages: lines }),
  fc.record({
    type: fc.constantFrom('box-open', 'wait-for-closing'),
    boxes: fc.uniqueArray(fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...OWN_BOXES) }, { weight: 1, arbitrary: fc.constantFrom(...FOREIGN_BOXES) }), {
      minLength: 1,
      maxLength: 3,
    }),
    displayMessages: lines,
    cancellable: fc.boolean(),
  }),
);

const exceptionish: fc.Arbitrary<Record<string, unknown>> = fc.record(
  { type: fc.constant('exception'), exceptionType: fc.oneof(fc.string({ maxLength: 30 }), fc.jsonValue()), displayMessages: fc.oneof(lines, fc.jsonValue()) },
  { requiredKeys: ['type'] },
);

const body: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: validCommand.map((c) => JSON.stringify(c)) },
  { weight: 4, arbitrary: commandish.map((c) => JSON.stringify(c)) },
  { weight: 2, arbitrary: exceptionish.map((c) => JSON.stringify(c)) },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
  {
    weight: 1,
    arbitrary: fc.tuple(commandish, fc.nat()).map(([c, n]) => {
      const text = JSON.stringify(c);
      return text.slice(0, n % text.length);
    }),
  },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', 'null', '[]', '{}', '<html>502</html>') },
);

const status = fc.oneof(
  { weight: 24, arbitrary: fc.constant(200) },
  { weight: 3, arbitrary: fc.constantFrom(400, 401, 404, 409, 500, 502, 503) },
  { weight: 1, arbitrary: fc.constantFrom(201, 204, 301, 302, 307) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 599 }) },
);

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  { weight: 2, arbitrary: fc.constantFrom('application/json; charset=utf-8', 'text/plain', 'text/html', 'application/problem+json') },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
);

export const rawResponse: fc.Arbitrary<RawResponse> = fc.record({ status, contentType, body });
