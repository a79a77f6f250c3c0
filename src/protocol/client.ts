/**
 * HTTP client of the station protocol: one event = one eventId, sent up to `attempts` times.
 *
 * - got does one HTTP request per attempt (its own retry is off, its timeout is the answer timeout);
 * - p-retry resends the *same body with the same eventId* after an unanswered attempt. The next
 *   attempt starts one answer timeout after the previous one started, so a refused connection does
 *   not burn all attempts in a millisecond (the spec's cadence is "no answer within 20 s");
 * - every HTTP request has a fresh X-Service-Trace-Id, logged with the eventId so a technician can
 *   find it in the server's log (/actuator/logfile);
 * - bodies are never logged (a /pin-enter body holds the PIN).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import got, { type Got } from 'got';
import pRetry, { AbortError } from 'p-retry';
import type { Logger } from 'pino';
import { UnansweredError, errorMessage } from '../errors.js';
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
export interface ProtocolSender {
  send<E extends Endpoint>(endpoint: E, body: RequestBodies[E], signal?: AbortSignal): Promise<SendOutcome>;
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

export function endpointUrl(baseUrl: string, version: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${version}/`;
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export class HttpProtocolClient implements ProtocolSender {
  private readonly http: Got;
  private readonly now: () => number;

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
      responseType: 'text',
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

  async send<E extends Endpoint>(endpoint: E, body: RequestBodies[E], signal?: AbortSignal): Promise<SendOutcome> {
    const eventId = body.event;
    const attempts: AttemptRecord[] = [];
    const payload = JSON.stringify(body);
    const { log, answerTimeoutMs } = this.opts;
    let slotStart = 0;
    try {
      const answer = await pRetry(
        async (attempt) => {
          if (signal?.aborted) throw new AbortError('station stopping');
          const traceId = randomUUID();
          slotStart = this.now();
          log.debug({ endpoint, eventId, traceId, attempt }, 'sending event');
          try {
            const res = await this.http(endpoint, { body: payload, headers: { 'x-service-trace-id': traceId }, ...(signal ? { signal } : {}) });
            const answer = parseServerResponse(res.statusCode, res.headers['content-type'], res.body);
            const ms = this.now() - slotStart;
            attempts.push({ attempt, traceId, status: res.statusCode, answered: true, error: null, ms });
            log.info({ endpoint, eventId, traceId, attempt, status: res.statusCode, answer: answer.kind, ms: Math.round(ms) }, 'event answered');
            return answer;
          } catch (e) {
            if (signal?.aborted) throw new AbortError('station stopping');
            const status = e instanceof UnansweredError ? e.status : null;
            const reason = e instanceof UnansweredError ? e.reason : describeTransportError(e);
            const ms = this.now() - slotStart;
            attempts.push({ attempt, traceId, status, answered: false, error: reason, ms });
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
            if (retriesLeft > 0) await delay(slotStart + answerTimeoutMs - this.now(), signal);
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
