/**
 * Typed errors of the portal client. None carries a secret: no request headers, no form data,
 * no access token, and no `cause` pointing at got's error (whose `options` hold the
 * Authorization header and the password-grant form). A response body an error keeps or quotes is
 * masked first (src/mask.ts): a portal's answer names patrons and items, and an error goes to a
 * terminal, a ticket or a log.
 */
import { maskFields, maskText } from '../mask.js';
import type * as z from '../schema.js';

/** Longest response body kept on an error (the spec does not show the error body shape). */
const MAX_BODY_CHARS = 2_000;

/** Base class: every portal failure names the request it belongs to. */
export abstract class PortalError extends Error {
  constructor(
    readonly method: string,
    /** Request path without the query string (the query may hold a reader's name). */
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** The portal answered with a non-2xx status. */
export class PortalHttpError extends PortalError {
  override readonly name: string = 'PortalHttpError';
  /** The response body: parsed JSON when it was JSON, else text (truncated). */
  readonly body: unknown;
  constructor(
    method: string,
    path: string,
    readonly status: number,
    body: unknown,
  ) {
    const shown = renderBody(body);
    super(method, path, `${method} ${path}: HTTP ${status}${shown ? `: ${shown}` : ''}`);
    this.body = maskFields({ body: typeof body === 'string' ? body.slice(0, MAX_BODY_CHARS) : body })['body'];
  }
}

/** The token endpoint refused the token request (bad client credentials, user password or grant). */
export class PortalTokenError extends PortalHttpError {
  override readonly name: string = 'PortalTokenError';
}

/** One issue of a response that failed validation: where in the body, and what was wrong. */
export interface PortalResponseIssue {
  /** zod path into the response body, e.g. ['result', 'content', 0, 'id']. */
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/** A 2xx response whose body does not match the spec's shape. */
export class PortalResponseError extends PortalError {
  override readonly name = 'PortalResponseError';
  readonly issues: readonly PortalResponseIssue[];
  constructor(
    method: string,
    path: string,
    readonly status: number,
    error: z.core.$ZodError,
  ) {
    // Issues carry path and message only (no input), so a token response never leaks its token.
    const issues = error.issues.map((i) => ({ path: i.path, message: i.message }));
    super(
      method,
      path,
      `${method} ${path}: unexpected response: ` +
        issues
          .slice(0, 5)
          .map((i) => `${i.path.map(String).join('.') || '(body)'}: ${i.message}`)
          .join('; ') +
        (issues.length > 5 ? `; and ${issues.length - 5} more` : ''),
    );
    this.issues = issues;
  }
}

/** A 2xx answer that is not JSON at all (an HTML login page of a captive portal, a proxy's page). */
export class PortalNotJsonError extends PortalError {
  override readonly name = 'PortalNotJsonError';
  constructor(
    method: string,
    path: string,
    readonly status: number,
    readonly contentType: string | undefined,
    /** The body's text; only its first bytes are kept (undefined: not to be shown). */
    text: string | undefined,
  ) {
    const shown = text === undefined ? undefined : maskText(text.slice(0, 200));
    const start = shown === undefined ? '' : `, starts with ${JSON.stringify(shown.slice(0, 80))}${shown.length > 80 ? '…' : ''}`;
    super(
      method,
      path,
      `${method} ${path}: the answer is not JSON (HTTP ${status}, content type ${contentType === undefined ? 'none' : JSON.stringify(contentType)}${start}): is portal.baseUrl the portal's API, and is there a login page (captive portal, proxy) in the way?`,
    );
  }
}

/** No HTTP answer at all: connection refused, DNS, TLS, timeout, an answer past portal.maxAnswerBytes. */
export class PortalNetworkError extends PortalError {
  override readonly name = 'PortalNetworkError';
  constructor(
    method: string,
    path: string,
    /** got's error code, e.g. ECONNREFUSED, ETIMEDOUT. */
    readonly code: string,
    reason: string,
  ) {
    super(method, path, `${method} ${path}: ${reason}`);
  }
}

function renderBody(body: unknown): string {
  if (body === undefined || body === '') return '';
  // Masked before it is cut short, so that no identifier is cut to a piece too short to be masked.
  const s = maskText((typeof body === 'string' ? body : JSON.stringify(body)).slice(0, MAX_BODY_CHARS));
  return s.length > 300 ? `${s.slice(0, 297)}...` : s;
}
