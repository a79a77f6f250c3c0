/**
 * OAuth2 for the portal (spec "Authentication"):
 * - POST /oauth/token with `Authorization: Basic base64(clientId:clientSecret)` and the grant
 *   parameters as application/x-www-form-urlencoded data: grant_type=client_credentials, or
 *   grant_type=password&username=…&password=….
 * - Every other call carries `Authorization: Bearer <access_token>`.
 *
 * The token is cached and renewed before `expires_in` runs out. expires_in is taken as seconds
 * (RFC 6749 §5.1; the spec leaves the unit open). Ages are measured on a monotonic clock
 * (performance.now by default, injectable for tests) so wall-clock steps (NTP on a freshly
 * booted station) cannot make a token look fresh or stale.
 */
import { ensureOk, parseResponse, type PortalRequest, type PortalResponse, type SendFn } from './http.js';
import { PortalTokenError } from './errors.js';
import { tokenResponseSchema } from './schemas.js';

export type PortalGrant = { readonly type: 'client_credentials' } | { readonly type: 'password'; readonly username: string; readonly password: string };

export interface TokenOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly grant: PortalGrant;
  /** Monotonic clock in ms (default performance.now). Never Date.now: see the module comment. */
  readonly now?: () => number;
  /**
   * Renew this long before expiry (default 60 s). Capped at a tenth of the token's lifetime so
   * that a short-lived token is not renewed on every call.
   */
  readonly renewMarginMs?: number;
}

/** A token as the client holds it. `accessToken` is a secret: never log or print it. */
export interface AccessToken {
  readonly accessToken: string;
  readonly scopes: readonly string[];
  /** expires_in as received, in seconds. */
  readonly expiresInSeconds: number;
  readonly jti: string | undefined;
  /** Monotonic time (ms) at which the token is renewed rather than used. */
  readonly renewAt: number;
  /** Monotonic time (ms) at which the portal considers it expired. */
  readonly expiresAt: number;
}

export const TOKEN_PATH = '/oauth/token';

export class TokenManager {
  private cached: AccessToken | undefined;
  /** One token request at a time: concurrent callers share it instead of each fetching a token. */
  private inflight: Promise<AccessToken> | undefined;
  private readonly now: () => number;
  private readonly marginMs: number;

  constructor(
    private readonly send: SendFn,
    private readonly options: TokenOptions,
  ) {
    this.now = options.now ?? (() => performance.now());
    this.marginMs = options.renewMarginMs ?? 60_000;
  }

  /** A valid token: the cached one, or a new one when none is cached or it is due for renewal. */
  async token(): Promise<AccessToken> {
    const t = this.cached;
    if (t !== undefined && this.now() < t.renewAt) return t;
    return this.renew();
  }

  /**
   * Forget `rejected` (the portal answered 401 to it) so the next token() fetches a new one.
   * A token other than the cached one is ignored: a concurrent call has already renewed.
   */
  invalidate(rejected: AccessToken): void {
    if (this.cached === rejected) this.cached = undefined;
  }

  private renew(): Promise<AccessToken> {
    this.inflight ??= this.request().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  private async request(): Promise<AccessToken> {
    const { clientId, clientSecret, grant } = this.options;
    const form: Record<string, string> =
      grant.type === 'password' ? { grant_type: 'password', username: grant.username, password: grant.password } : { grant_type: 'client_credentials' };
    const req: PortalRequest = {
      method: 'POST',
      path: TOKEN_PATH,
      form,
      headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`, 'utf8').toString('base64')}` },
    };
    const sentAt = this.now();
    const res = await this.send(req);
    if (res.status < 200 || res.status > 299) throw new PortalTokenError(req.method, req.path, res.status, res.body);
    // No preview of a non-JSON token answer: it may be a form-encoded access token.
    const body = parseResponse(tokenResponseSchema, req, res, { preview: false });
    const lifetimeMs = body.expires_in * 1000;
    // Count from when the request was sent: the portal started the clock no later than that.
    const expiresAt = sentAt + lifetimeMs;
    const token: AccessToken = {
      accessToken: body.access_token,
      scopes: (body.scope ?? '').split(' ').filter(Boolean),
      expiresInSeconds: body.expires_in,
      jti: body.jti,
      expiresAt,
      renewAt: expiresAt - Math.min(this.marginMs, lifetimeMs / 10),
    };
    this.cached = token;
    return token;
  }
}

/**
 * Wrap `send` with the bearer token: on a 401, renew the token once and retry once. Retrying is
 * safe even for POST because a 401 means the request was refused before it was processed.
 * Resolves only with 2xx responses; anything else is a PortalHttpError (a second 401 included).
 */
export function authorizedSend(send: SendFn, tokens: TokenManager): SendFn {
  const attempt = async (req: PortalRequest, token: AccessToken): Promise<PortalResponse> =>
    send({ ...req, headers: { ...req.headers, authorization: `Bearer ${token.accessToken}` } });
  return async (req) => {
    const first = await tokens.token();
    let res = await attempt(req, first);
    if (res.status === 401) {
      tokens.invalidate(first);
      res = await attempt(req, await tokens.token());
    }
    ensureOk(req, res);
    return res;
  };
}
