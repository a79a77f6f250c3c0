/**
 * The HTTP client alone, against real sockets: resend cadence on a refused connection (on a fake
 * clock: each attempt in its slot, in order) and on silence.
 */
import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpProtocolClient } from '../../src/protocol/client.js';
import { ioSettle, ioUntil } from '../support/fake-clock-io.js';
import { STATION } from '../support/shared.js';

const log = pino({ level: 'silent' });
const body = { station: STATION.id, event: 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb' };

function client(baseUrl: string, answerTimeoutMs: number, attempts = 3) {
  return new HttpProtocolClient({
    baseUrl,
    version: 'v2',
    stationId: STATION.id,
    password: 'x'.repeat(20),
    answerTimeoutMs,
    attempts,
    acceptLanguage: null,
    caFile: null,
    userAgent: 'pickup-station/test',
    log,
  });
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

describe('HttpProtocolClient', () => {
  it('a refused connection is retried one answer timeout after the previous attempt started, 3 attempts in all', async () => {
    // A port nobody listens on: bind and close to get one.
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const port = (s.address() as AddressInfo).port;
    await new Promise<void>((r) => s.close(() => r()));
    // The clock is fake (the client's waits and its monotonic reads); the refusals are real I/O.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const attempts: number[] = [];
      let outcome: Awaited<ReturnType<HttpProtocolClient['send']>> | undefined;
      void client(`http://127.0.0.1:${port}`, 150)
        .send('cancel', body, undefined, { onWritten: (attempt) => attempts.push(attempt) })
        .then((o) => (outcome = o));
      for (const attempt of [1, 2]) {
        await ioUntil(() => attempts.length === attempt);
        // The next attempt waits for its slot: nothing before the answer timeout has passed…
        await vi.advanceTimersByTimeAsync(149);
        await ioSettle();
        expect(attempts).toHaveLength(attempt);
        // …and it goes out once it has.
        await vi.advanceTimersByTimeAsync(1);
      }
      await ioUntil(() => outcome !== undefined);
      expect(attempts).toEqual([1, 2, 3]);
      expect(outcome!.result.kind).toBe('unanswered');
      expect(outcome!.attempts).toHaveLength(3);
      expect(outcome!.attempts.every((a) => a.error?.includes('ECONNREFUSED'))).toBe(true);
      expect(new Set(outcome!.attempts.map((a) => a.traceId)).size).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a server that never answers: each attempt times out, same eventId each time', async () => {
    const seen: unknown[] = [];
    server = createServer((req) => {
      let data = '';
      req.on('data', (c: Buffer) => (data += c.toString()));
      req.on('end', () => seen.push(JSON.parse(data)));
      // never respond
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const outcome = await client(`http://127.0.0.1:${port}/`, 100, 2).send('cancel', body);
    expect(outcome.result).toEqual({ kind: 'unanswered', reason: 'no answer within the answer timeout' });
    expect(seen).toEqual([body, body]);
    server.closeAllConnections();
  });

  it('onWritten: once per attempt, when the whole request is in the socket (the server has it before it answers), or when the attempt failed', async () => {
    const events: string[] = [];
    // Answer only once the test saw onWritten and the server has the whole body, in whichever order
    // they come: written means on the wire, not answered.
    let sawWritten = false;
    let answer: (() => void) | undefined;
    server = createServer((req, res) => {
      let data = '';
      req.on('data', (c: Buffer) => (data += c.toString()));
      req.on('end', () => {
        events.push(`server has ${(JSON.parse(data) as { event: string }).event === body.event ? 'the body' : 'something else'}`);
        answer = () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"type":"wait-for-input","displayMessages":["x"]}');
        };
        if (sawWritten) answer();
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const sent = client(`http://127.0.0.1:${port}`, 5_000).send('cancel', body, undefined, {
      onWritten: (attempt) => {
        events.push(`written ${attempt}`);
        sawWritten = true;
        answer?.();
      },
    });
    expect((await sent).result.kind).toBe('answered');
    expect(events).toHaveLength(2);
    expect(events).toContain('written 1');
    expect(events).toContain('server has the body');

    // Refused connections: each attempt reports, having failed before anything was written.
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const closed = (s.address() as AddressInfo).port;
    await new Promise<void>((r) => s.close(() => r()));
    const written: number[] = [];
    const refused = await client(`http://127.0.0.1:${closed}`, 50, 2).send('cancel', body, undefined, { onWritten: (attempt) => written.push(attempt) });
    expect(refused.result.kind).toBe('unanswered');
    expect(written).toEqual([1, 2]);
    server.closeAllConnections();
  });

  it('every request is released after its answer: nothing stays on the station-long abort signal (200s and 4xx)', async () => {
    // The runtime passes one AbortSignal for its whole life: a request that kept its listener on
    // it would keep itself and its answer alive (got's request stream is not destroyed by itself).
    let n = 0;
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(n++ % 2 === 0 ? 200 : 404, { 'content-type': 'application/json' });
        res.end(n % 2 === 1 ? '{"type":"wait-for-input","displayMessages":["x"]}' : '{"type":"exception","exceptionType":"NotFound","displayMessages":["x"]}');
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const c = client(`http://127.0.0.1:${port}`, 5_000);
    const station = new AbortController();
    for (let i = 0; i < 40; i++) expect((await c.send('cancel', body, station.signal)).result.kind).toBe('answered');
    expect(getEventListeners(station.signal, 'abort')).toHaveLength(0);
    server.closeAllConnections();
  });
});
