/**
 * The one HTTP layer of the portal client: a got instance with got's own retry off (the only
 * retry is the auth layer's single renewal after a 401), JSON in and out, and typed errors.
 *
 * Logging: only method, path (no query), status and duration — never headers or bodies, which
 * carry the bearer token, the client secret (Basic) and the user's password (password grant).
 *
 * Answers are read up to `maxAnswerBytes` (portal.maxAnswerBytes) and abandoned past it (a
 * Content-Length above it is not read at all): a captive portal or a broken proxy must not make a
 * technician's stationctl buffer and parse hundreds of megabytes. An answer that is not JSON is
 * named as such — status, content type, first bytes — rather than as a schema mismatch.
 */
import type { ClientRequest, IncomingMessage } from 'node:http';
import got, { RequestError, type Got } from 'got';
import type * as z from '../schema.js';
import { PortalHttpError, PortalNetworkError, PortalNotJsonError, PortalResponseError } from './errors.js';

/** portal.maxAnswerBytes's default: a search page of records is tens to hundreds of KiB. */
export const DEFAULT_PORTAL_MAX_ANSWER_BYTES = 4 * 1_048_576;

export type HttpMethod = 'GET' | 'POST' | 'PUT';
export type QueryValue = string | number | boolean | undefined;

export interface PortalRequest {
  readonly method: HttpMethod;
  /** Path relative to {base_url}, starting with '/', segments already encoded. */
  readonly path: string;
  /** Query parameters; undefined values are left out. */
  readonly query?: Readonly<Record<string, QueryValue>>;
  /** JSON body. Absent means no body at all (the spec's "no body" requests). */
  readonly json?: unknown;
  /** application/x-www-form-urlencoded body (the token request only). */
  readonly form?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface PortalResponse {
  readonly status: number;
  /** Parsed JSON; the raw text when it is not JSON; undefined when empty. */
  readonly body: unknown;
  /** The Content-Type header, when there was one. */
  readonly contentType?: string;
  /** True when the body was not empty and not JSON (then `body` is its text). */
  readonly notJson?: boolean;
}

/** Sends one request and resolves with any HTTP status; rejects only with PortalNetworkError. */
export type SendFn = (req: PortalRequest) => Promise<PortalResponse>;

/** The subset of a pino logger the client uses (pino's Logger satisfies it). */
export interface PortalLogger {
  debug(obj: Record<string, unknown>, msg?: string): void;
}

export interface HttpOptions {
  readonly baseUrl: string;
  readonly timeoutMs?: number;
  /** Largest answer body read (default DEFAULT_PORTAL_MAX_ANSWER_BYTES). */
  readonly maxAnswerBytes?: number;
  readonly logger?: PortalLogger;
  /** Monotonic clock in ms for durations (default performance.now). */
  readonly now?: () => number;
}

/** Encode one path segment (ids are opaque to the client, e.g. the editation id). */
export const seg = (s: string | number): string => encodeURIComponent(String(s));

export function createSend(options: HttpOptions): SendFn {
  // {base_url} may carry a path prefix: resolve API paths relative to it, not to the host root.
  const base = options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`;
  const now = options.now ?? (() => performance.now());
  const log = options.logger;
  const client: Got = got.extend({
    retry: { limit: 0 },
    throwHttpErrors: false,
    // A redirect would resend the bearer/Basic header to wherever it points; report it instead.
    followRedirect: false,
    timeout: { request: options.timeoutMs ?? 30_000 },
    responseType: 'text',
    headers: { accept: 'application/json', 'user-agent': 'pickup-station-portal-client' },
  });

  return async (req) => {
    const url = new URL(req.path.replace(/^\//, ''), base);
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const started = now();
    const cap = options.maxAnswerBytes ?? DEFAULT_PORTAL_MAX_ANSWER_BYTES;
    let tooLarge: string | null = null;
    try {
      const pending = client(url, {
        method: req.method,
        headers: { ...req.headers },
        ...(req.json !== undefined ? { json: req.json } : {}),
        ...(req.form !== undefined ? { form: req.form } : {}),
      });
      let status: number | null = null;
      const abandon = (why: string): void => {
        tooLarge ??= `${why}${status === null ? '' : ` (HTTP ${status})`}`;
        pending.cancel();
      };
      // got (promise mode) emits 'response' only after the whole body: the status comes from the request.
      void pending.on('request', (r: ClientRequest) => r.once('response', (m: IncomingMessage) => (status = m.statusCode ?? null)));
      void pending.on('downloadProgress', ({ transferred, total }: { transferred: number; total?: number }) => {
        if (total !== undefined && total > cap) abandon(`an answer of ${total} bytes declared, more than portal.maxAnswerBytes (${cap}): not read`);
        else if (transferred > cap) abandon(`an answer longer than portal.maxAnswerBytes (${cap} bytes): abandoned`);
      });
      const res = await pending;
      log?.debug({ method: req.method, path: req.path, status: res.statusCode, durationMs: Math.round(now() - started) }, 'portal request');
      const contentType = res.headers['content-type'];
      const body = parseBody(res.body);
      const notJson = res.body !== '' && typeof body === 'string';
      return { status: res.statusCode, body, ...(contentType === undefined ? {} : { contentType }), ...(notJson ? { notJson } : {}) };
    } catch (e) {
      const code = tooLarge !== null ? 'ERR_ANSWER_TOO_LARGE' : e instanceof RequestError ? e.code : 'ERR_UNKNOWN';
      log?.debug({ method: req.method, path: req.path, error: code, durationMs: Math.round(now() - started) }, 'portal request failed');
      // Deliberately no `cause`: got's error holds the request options, i.e. the secrets.
      throw new PortalNetworkError(req.method, req.path, code, tooLarge ?? (e instanceof Error ? e.message : String(e)));
    }
  };
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Throw PortalHttpError unless the status is 2xx. */
export function ensureOk(req: PortalRequest, res: PortalResponse): void {
  if (res.status < 200 || res.status > 299) throw new PortalHttpError(req.method, req.path, res.status, res.body);
}

/**
 * Validate a 2xx body; unknown fields are stripped by the (non-strict) schemas. A body that is not
 * JSON is a PortalNotJsonError naming status, content type and (unless `preview` is false, for an
 * answer that may carry a secret, like the token endpoint's) its first bytes.
 */
export function parseResponse<S extends z.ZodMiniType>(
  schema: S,
  req: PortalRequest,
  res: PortalResponse,
  { preview = true }: { preview?: boolean } = {},
): z.output<S> {
  if (res.notJson === true)
    throw new PortalNotJsonError(req.method, req.path, res.status, res.contentType, preview && typeof res.body === 'string' ? res.body : undefined);
  const parsed = schema.safeParse(res.body);
  if (!parsed.success) throw new PortalResponseError(req.method, req.path, res.status, parsed.error);
  return parsed.data;
}
