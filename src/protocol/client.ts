/**
 * HTTP client of the station protocol: one event = one eventId, sent up to `attempts` times.
 *
 * - got does one HTTP request per attempt (its own retry is off, its timeout is the answer timeout);
 * - p-retry resends the *same body with the same eventId* after an unanswered attempt. The next
 *   attempt starts one answer timeout after the previous one started, so a refused connection does
 *   not burn all attempts in a millisecond (the spec's cadence is "no answer within 20 s");
 * - every HTTP request has a fresh X-Service-Trace-Id, logged with the eventId so a technician can
 *   find it in the server's log (/actuator/logfile);
 * - bodies are never logged (a /pin-enter body holds the PIN);
 * - an answer is read as a stream up to `maxAnswerBytes` (a Content-Length above it is not read at
 *   all); past it the request is abandoned and the attempt counts as unanswered, so a hostile or
 *   broken server (or a captive portal) cannot make the station buffer and parse megabytes.
 *
 * got runs in its stream mode (got.stream), not its promise mode: this client reads the body
 * itself anyway (for the cap), and the promise mode turns every 4xx/5xx answer — the protocol's
 * exceptions — into an HTTPError with a captured stack and a pass through got's retry and error
 * machinery before `throwHttpErrors: false` hands the response back (measured: 466 instead of
 * 603 µs of CPU per 404 exchange, 475 instead of 507 per /state, the reference server's own work
 * included; docs/decisions/0051). `decompress: false`: the answers are a few hundred
 * bytes, so no Accept-Encoding is sent and no decompressing stream is set up per answer.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ClientRequest, Agent as HttpAgent, IncomingMessage } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import got, { type Got } from 'got';
import pRetry, { AbortError } from 'p-retry';
import type { Logger } from 'pino';
import { UnansweredError, errorMessage } from '../errors.js';
import { sleep } from '../time.js';
import { describeTransportError } from './failure.js';
import { parseServerResponse } from './parse.js';
import type { Endpoint, RequestBodies, ServerAnswer } from './types.js';

export interface AttemptRecord {
  readonly attempt: number;
  readonly traceId: string;
  readonly status: number | null;
  readonly answered: boolean;
  readonly error: string | null;
  readonly ms: number;
}

export interface SendOutcome {
  readonly eventId: string;
  readonly endpoint: Endpoint;
  readonly attempts: readonly AttemptRecord[];
  readonly result: { readonly kind: 'answered'; readonly answer: ServerAnswer } | { readonly kind: 'unanswered'; readonly reason: string };
}

/** What the runtime needs from a protocol client (a fleet or a test may bring its own). */
/** What the runtime may add to one send: journal each attempt, stop resending while it drains. */
export interface SendControl {
  /** Called just before attempt n (1-based) leaves. */
  readonly onAttempt?: (attempt: number) => void;
  /**
   * Called when attempt n's request has been written out (handed to the OS), or has ended without
   * that (refused connection, time-out, stop).
   */
  readonly onWritten?: (attempt: number) => void;
  /** Once aborted no further attempt is sent (the one on the wire may still be answered). */
  readonly noResend?: AbortSignal;
}

/** The reason of an event left unanswered because the station stopped resending it. */
export const NOT_RESENT_STOPPING = 'not resent: station stopping';

export interface ProtocolSender {
  send<E extends Endpoint>(endpoint: E, body: RequestBodies[E], signal?: AbortSignal, control?: SendControl): Promise<SendOutcome>;
}

export interface ProtocolClientOptions {
  readonly baseUrl: string;
  readonly version: string;
  readonly stationId: string;
  readonly password: string;
  readonly answerTimeoutMs: number;
  readonly attempts: number;
  readonly acceptLanguage: string | null;
  readonly caFile: string | null;
  /** Largest answer body read (server.maxAnswerBytes); default 64 KiB. */
  readonly maxAnswerBytes?: number;
  /** e.g. "pickup-station/1.2.3" */
  readonly userAgent: string;
  readonly log: Logger;
  /** Monotonic clock, ms. */
  readonly now?: () => number;
  /** Connection pooling; default Node's global agents (keep-alive). A fleet shares bounded ones. */
  readonly agent?: HttpAgents;
}

export interface HttpAgents {
  readonly http?: HttpAgent;
  readonly https?: HttpsAgent;
}

/** server.maxAnswerBytes's default: the protocol's answers are a few hundred bytes. */
export const DEFAULT_MAX_ANSWER_BYTES = 65_536;

export function endpointUrl(baseUrl: string, version: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${version}/`;
}

export class HttpProtocolClient implements ProtocolSender {
  private readonly http: Got;
  private readonly now: () => number;
  /** Whether the last attempt was answered: an answered heartbeat after an answered one logs at debug. */
  private lastAnswered = false;

  constructor(private readonly opts: ProtocolClientOptions) {
    this.now = opts.now ?? (() => performance.now());
    const authorization = `Basic ${Buffer.from(`${opts.stationId}:${opts.password}`).toString('base64')}`;
    this.http = got.extend({
      prefixUrl: endpointUrl(opts.baseUrl, opts.version),
      method: 'POST',
      retry: { limit: 0 },
      timeout: { request: opts.answerTimeoutMs },
      throwHttpErrors: false,
      followRedirect: false,
      decompress: false,
      headers: {
        authorization,
        'content-type': 'application/json',
        accept: 'application/json',
        'user-agent': opts.userAgent,
        ...(opts.acceptLanguage ? { 'accept-language': opts.acceptLanguage } : {}),
      },
      ...(opts.caFile ? { https: { certificateAuthority: readFileSync(opts.caFile) } } : {}),
      ...(opts.agent ? { agent: { ...(opts.agent.http ? { http: opts.agent.http } : {}), ...(opts.agent.https ? { https: opts.agent.https } : {}) } } : {}),
    });
  }

  /**
   * One HTTP request and its answer, read up to the cap. `status()` is the answer's status once its
   * head arrived (for an attempt that fails after it); `abandoned()` why the answer was not read
   * to the end (too large), else null.
   */
  private exchange(endpoint: Endpoint, payload: string, traceId: string, signal: AbortSignal | undefined, written: (() => void) | undefined): Exchange {
    const cap = this.opts.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
    let status: number | null = null;
    let abandoned: string | null = null;
    const answer = new Promise<RawAnswer>((resolve, reject) => {
      const stream = this.http.stream(endpoint, { body: payload, headers: { 'x-service-trace-id': traceId }, ...(signal ? { signal } : {}) });
      // 'finish' of Node's request: the whole request is in the socket (got's own stream finishes earlier).
      if (written) stream.once('request', (req: ClientRequest) => req.once('finish', written));
      const chunks: Buffer[] = [];
      let received = 0;
      let head: IncomingMessage | null = null;
      const abandon = (why: string): void => {
        abandoned ??= why;
        stream.destroy();
        reject(new Error(why));
      };
      stream.once('response', (res: IncomingMessage) => {
        head = res;
        status = res.statusCode ?? null;
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > cap) abandon(`answer of ${declared} bytes declared, more than server.maxAnswerBytes (${cap}): not read`);
      });
      stream.on('data', (chunk: Buffer) => {
        if (abandoned !== null) return;
        received += chunk.length;
        if (received > cap) abandon(`answer longer than server.maxAnswerBytes (${cap} bytes): abandoned after ${received} bytes`);
        else chunks.push(chunk);
      });
      stream.once('end', () => {
        // got's request stream is not destroyed by itself (autoDestroy off): it would keep the
        // answer, its timers and listeners alive (what got's promise mode does after each answer).
        stream.destroy();
        if (abandoned !== null) return;
        if (head === null) reject(new Error('the answer ended before its head'));
        else resolve({ statusCode: head.statusCode ?? 0, contentType: head.headers['content-type'], body: Buffer.concat(chunks, received).toString('utf8') });
      });
      // .on, not .once: after an abandon, got may still report the destroyed request's error.
      stream.on('error', (e: Error) => {
        stream.destroy();
        reject(e);
      });
    });
    return { answer, status: () => status, abandoned: () => abandoned };
  }

  async send<E extends Endpoint>(endpoint: E, body: RequestBodies[E], signal?: AbortSignal, control: SendControl = {}): Promise<SendOutcome> {
    const eventId = body.event;
    const attempts: AttemptRecord[] = [];
    const payload = JSON.stringify(body);
    const { log, answerTimeoutMs } = this.opts;
    let slotStart = 0;
    try {
      const answer = await pRetry(
        async (attempt) => {
          if (signal?.aborted) throw new AbortError('station stopping');
          if (attempt > 1 && control.noResend?.aborted) throw new AbortError(NOT_RESENT_STOPPING);
          const traceId = randomUUID();
          slotStart = this.now();
          control.onAttempt?.(attempt);
          log.debug({ endpoint, eventId, traceId, attempt }, 'sending event');
          // Only when asked (first-write.ts asks until the first report is on the wire): not per request.
          const { onWritten } = control;
          let writtenReported = false;
          const written = onWritten
            ? (): void => {
                if (writtenReported) return;
                writtenReported = true;
                onWritten(attempt);
              }
            : undefined;
          const exchange = this.exchange(endpoint, payload, traceId, signal, written);
          try {
            const res = await (written ? exchange.answer.finally(written) : exchange.answer);
            const answer = parseServerResponse(res.statusCode, res.contentType, res.body);
            const ms = this.now() - slotStart;
            attempts.push({ attempt, traceId, status: res.statusCode, answered: true, error: null, ms });
            // A heartbeat answered at its first attempt, the previous event answered too, is an
            // idle station's whole traffic: at debug, so that idle writes nothing to the journal
            // (an SD card wears by writes). The first answer of a run, the first after a failure,
            // readers' events, resends and exception answers stay at info.
            const routine = endpoint === 'state' && attempt === 1 && answer.kind === 'command' && this.lastAnswered;
            this.lastAnswered = true;
            log[routine ? 'debug' : 'info'](
              { endpoint, eventId, traceId, attempt, status: res.statusCode, answer: answer.kind, ms: Math.round(ms) },
              'event answered',
            );
            return answer;
          } catch (e) {
            if (signal?.aborted) throw new AbortError('station stopping');
            const status = e instanceof UnansweredError ? e.status : exchange.status();
            const reason = exchange.abandoned() ?? (e instanceof UnansweredError ? e.reason : describeTransportError(e));
            const ms = this.now() - slotStart;
            attempts.push({ attempt, traceId, status, answered: false, error: reason, ms });
            this.lastAnswered = false;
            log.warn({ endpoint, eventId, traceId, attempt, status, error: reason, ms: Math.round(ms) }, 'event unanswered');
            throw new UnansweredError(reason, status);
          }
        },
        {
          retries: this.opts.attempts - 1,
          minTimeout: 0,
          maxTimeout: 0,
          randomize: false,
          // Resend one answer timeout after the previous attempt started.
          onFailedAttempt: async ({ retriesLeft }) => {
            const waitSignal = control.noResend ? (signal ? AbortSignal.any([signal, control.noResend]) : control.noResend) : signal;
            if (retriesLeft > 0) await sleep(slotStart + answerTimeoutMs - this.now(), waitSignal);
          },
          ...(signal ? { signal } : {}),
        },
      );
      return { eventId, endpoint, attempts, result: { kind: 'answered', answer } };
    } catch (e) {
      return { eventId, endpoint, attempts, result: { kind: 'unanswered', reason: errorMessage(e) } };
    }
  }
}

interface RawAnswer {
  readonly statusCode: number;
  readonly contentType: string | undefined;
  readonly body: string;
}

interface Exchange {
  readonly answer: Promise<RawAnswer>;
  status(): number | null;
  abandoned(): string | null;
}
