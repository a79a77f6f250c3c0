/**
 * Answers are bounded (docs/decisions/0039), against a hostile server double on 127.0.0.1: a 200 MB
 * answer (chunked, or announced by Content-Length) is read only up to server.maxAnswerBytes and
 * abandoned; the attempt counts as unanswered with the reason named and the event is resent with
 * the same eventId; the daemon's RSS — peak included — stays where it was.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { HttpProtocolClient } from '../../src/protocol/client.js';
import { HostileServer } from '../support/hostile-server.js';
import { startDaemon, type Daemon } from '../support/daemon.js';
import { sleep, STATION } from '../support/shared.js';

const WAIT_FOR_INPUT = { type: 'wait-for-input', displayMessages: ['Scan an item'] };
const MB = 1024 * 1024;

let server: HostileServer | undefined;
let daemon: Daemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  await server?.stop();
  daemon = undefined;
  server = undefined;
});

function client(baseUrl: string, maxAnswerBytes?: number): HttpProtocolClient {
  return new HttpProtocolClient({
    baseUrl,
    version: 'v2',
    stationId: STATION.id,
    password: 'x'.repeat(20),
    answerTimeoutMs: 5_000,
    attempts: 1,
    acceptLanguage: null,
    caFile: null,
    userAgent: 'pickup-station/test',
    log: pino({ level: 'silent' }),
    ...(maxAnswerBytes === undefined ? {} : { maxAnswerBytes }),
  });
}
const stateBody = {
  station: STATION.id,
  st: 'UP' as const,
  errorMessage: null,
  inputVoltage: 12,
  internetSignalStrength: 100,
  boxes: [],
  event: 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb',
};

describe('the protocol client reads at most server.maxAnswerBytes', () => {
  it('a 200 MB chunked answer: abandoned past 64 KiB (the default), unanswered with the reason', async () => {
    server = new HostileServer(() => ({ kind: 'json', body: WAIT_FOR_INPUT }));
    const url = await server.start();
    server.arm(() => true, { kind: 'huge', bytes: 200 * MB });
    const outcome = await client(url).send('state', stateBody);
    expect(outcome.result).toEqual({
      kind: 'unanswered',
      reason: expect.stringMatching(/^answer longer than server\.maxAnswerBytes \(65536 bytes\): abandoned after \d+ bytes$/),
    });
    expect(outcome.attempts[0]).toMatchObject({ status: 200, answered: false });
    const d = server.deliveries[0]!;
    await d.done;
    expect(d.abandoned).toBe(true);
    // What left the server before the station hung up: the cap plus what the sockets held.
    expect(d.bytesOut).toBeLessThan(16 * MB);
  });

  it('a Content-Length above the cap is not read at all', async () => {
    server = new HostileServer(() => ({ kind: 'json', body: WAIT_FOR_INPUT }));
    const url = await server.start();
    server.arm(() => true, { kind: 'huge', bytes: 200 * MB, declare: true });
    const outcome = await client(url, 4_096).send('state', stateBody);
    expect(outcome.result).toEqual({ kind: 'unanswered', reason: `answer of ${200 * MB} bytes declared, more than server.maxAnswerBytes (4096): not read` });
    await server.deliveries[0]!.done;
    expect(server.deliveries[0]!.abandoned).toBe(true);
  });

  it('an answer under the cap is read as before', async () => {
    server = new HostileServer(() => ({ kind: 'json', body: { ...WAIT_FOR_INPUT, displayMessages: ['x'.repeat(50_000)] } }));
    const outcome = await client(await server.start()).send('state', stateBody);
    expect(outcome.result.kind).toBe('answered');
  });
});

describe('the daemon given a 200 MB answer', () => {
  it('abandons it, resends with the same eventId, and its RSS (peak too) stays put', async () => {
    server = new HostileServer(() => ({ kind: 'json', body: WAIT_FOR_INPUT }));
    const url = await server.start();
    // debug: answered heartbeats after the first are logged at that level only.
    daemon = await startDaemon(url, { server: { answerTimeoutMs: 1_500 }, timing: { heartbeatIntervalMs: 300 }, log: { level: 'debug' } });
    const d = daemon;
    // Warm: a few heartbeats answered, so start-up allocation is behind us.
    await d.waitForLine(
      (l) => l['msg'] === 'event answered' && Number(l['attempt']) === 1 && d.lines().filter((x) => x.includes('"event answered"')).length >= 8,
      'eight answered heartbeats',
    );
    const before = d.memory();
    const armedAt = server.deliveries.length;
    server.arm((p) => p.endsWith('/state'), { kind: 'huge', bytes: 200 * MB });
    const unanswered = await d.waitForLine((l) => l['msg'] === 'event unanswered', 'the big answer abandoned');
    expect(unanswered['error']).toMatch(/^answer longer than server\.maxAnswerBytes \(65536 bytes\): abandoned after \d+ bytes$/);
    expect(unanswered['status']).toBe(200);
    // Resent with the same eventId one answer timeout later, and answered.
    const resent = await d.waitForLine((l) => l['msg'] === 'event answered' && l['eventId'] === unanswered['eventId'], 'the resend answered');
    expect(resent['attempt']).toBe(2);
    const big = server.deliveries[armedAt]!;
    await big.done;
    expect(big.abandoned).toBe(true);
    await sleep(1_000);
    const after = d.memory();
    // 200 MB read and parsed would be ~400 MiB of RSS; bounded reading costs next to nothing.
    expect(after.hwm - before.rss).toBeLessThan(24);
    expect(after.rss - before.rss).toBeLessThan(16);
    console.error(
      `figure: 200 MB answer -> daemon RSS ${before.rss.toFixed(1)} MiB before, ${after.rss.toFixed(1)} MiB after, peak ${after.hwm.toFixed(1)} MiB ` +
        `(server wrote ${(big.bytesOut / MB).toFixed(2)} MiB before the station hung up)`,
    );
  }, 60_000);
});
