/** Small HTTP helpers of the technician port: JSON answers, typed errors, bounded JSON bodies (read by the edge, src/edge/http.ts). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as z from '../schema.js';
import { BodyTooLarge, COMMON_HEADERS, readBody, saysJson } from '../edge/http.js';
import { sendJson as sendJsonBody } from '../http-json.js';
import { SupervisorRefusal, type RefusalCode } from '../supervisor/refusal.js';

/** An answer other than 2xx, with a stable machine-readable `error` code and a message for people. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Readonly<Record<string, unknown>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

const REFUSAL_STATUS: Readonly<Record<RefusalCode, number>> = { busy: 409, no_config_file: 409, reloading: 503, start_failed: 500 };

/** The answer for an error a route threw: its own, or the supervisor's refusal; null for anything else (a 500). */
export function httpErrorOf(e: unknown): HttpError | null {
  if (e instanceof HttpError) return e;
  if (e instanceof SupervisorRefusal) return new HttpError(REFUSAL_STATUS[e.code], e.code, e.message);
  return null;
}

/** JSON with the port's common headers (`headers` may override them). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  sendJsonBody(res, status, body, { ...COMMON_HEADERS, ...headers }, 'application/json; charset=utf-8');
}

export function sendError(res: ServerResponse, e: HttpError): void {
  sendJson(res, e.status, { error: e.code, message: e.message, ...e.extra }, e.headers);
}

/**
 * Read a JSON body of at most `limit` bytes and validate it. An empty body counts as `{}` (actions
 * without parameters may be POSTed bare). 413 for too large (checked on Content-Length first, then
 * while reading), 415 for a body that does not say it is JSON, 400 for malformed JSON or a body
 * the schema refuses.
 */
export async function readJson<S extends z.ZodMiniType>(req: IncomingMessage, limit: number, schema: S): Promise<z.output<S>> {
  let body: Buffer;
  try {
    body = await readBody(req, limit);
  } catch (e) {
    // Connection: close: the rest of an oversized body is not read.
    if (e instanceof BodyTooLarge) throw new HttpError(413, 'payload_too_large', e.message, {}, { connection: 'close' });
    throw e;
  }
  let raw: unknown = {};
  if (body.length > 0) {
    if (!saysJson(req)) throw new HttpError(415, 'unsupported_media_type', 'the body must be application/json');
    try {
      raw = JSON.parse(body.toString('utf8'));
    } catch {
      throw new HttpError(400, 'malformed_json', 'the body is not valid JSON');
    }
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    // Paths and messages only: the input may hold a PIN.
    const problems = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
    throw new HttpError(400, 'invalid_body', 'the body does not match what this action takes', { problems });
  }
  return parsed.data;
}
