/**
 * Property (docs/decisions/0019, the server's answers on the wire): an arbitrary server response — any status from 200
 * to 599, any content type, any body — sent over a real socket to the station's HTTP client (got,
 * its answer cap, its header handling) means exactly what the parse says it means: the client
 * reports it answered with the parsed answer, or unanswered, and never anything else. Together
 * with protocol-server-answers.test.ts (parse + core) this covers the whole path from the socket to a pulse.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnansweredError } from '../../src/errors.js';
import { HttpProtocolClient } from '../../src/protocol/client.js';
import { parseServerResponse } from '../../src/protocol/parse.js';
import { rawResponse, type RawResponse } from '../support/fuzz-answers.js';
import { checkAsync, FUZZ_TIMEOUT_MS, must } from '../support/fuzz-runs.js';
import { STATION } from '../support/shared.js';

let next: RawResponse = { status: 200, contentType: 'application/json', body: '{}' };
let server: Server;
let client: HttpProtocolClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const headers: Record<string, string> = next.contentType === undefined ? {} : { 'content-type': next.contentType };
      res.writeHead(next.status, headers);
      res.end(next.body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  client = new HttpProtocolClient({
    baseUrl: `http://127.0.0.1:${port}`,
    version: 'v2',
    stationId: STATION.id,
    password: 'FuzzStationPassword1',
    answerTimeoutMs: 2_000,
    attempts: 1,
    acceptLanguage: null,
    caFile: null,
    userAgent: 'pickup-station-fuzz/0',
    log: pino({ level: 'silent' }),
  });
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** Header values a server can send at all (visible ASCII); statuses with a final response. */
const onTheWire = rawResponse
  .filter((r) => r.status >= 200 && r.status !== 204 && r.status !== 304)
  .map((r) => ({ ...r, contentType: r.contentType?.replace(/[^\x21-\x7e]/g, '') || undefined }));

describe('arbitrary server answers over a real socket', () => {
  it(
    'the client reports what the parse says: the same answer, or unanswered',
    async () => {
      await checkAsync(
        '8a server answers (on the wire)',
        3_000,
        fc.asyncProperty(onTheWire, async (r) => {
          next = r;
          const outcome = await client.send('state', { station: STATION.id, st: 'UP', errorMessage: null, boxes: [], event: crypto.randomUUID() });
          let expected: { kind: 'answered'; answer: unknown } | { kind: 'unanswered' };
          try {
            expected = { kind: 'answered', answer: parseServerResponse(r.status, r.contentType, r.body) };
          } catch (e) {
            if (!(e instanceof UnansweredError)) throw e;
            expected = { kind: 'unanswered' };
          }
          must(outcome.result.kind === expected.kind, () => `client ${outcome.result.kind}, parse ${expected.kind} for ${JSON.stringify(r)}`);
          if (outcome.result.kind === 'answered' && expected.kind === 'answered') expect(outcome.result.answer).toEqual(expected.answer);
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});
