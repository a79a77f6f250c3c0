/**
 * The `debug` section of the station config: where the technician port listens and which
 * technician tokens it accepts (by hash only; the tokens themselves are never stored).
 *
 * Defaults: on, 127.0.0.1:8470, no tokens (only /healthz and the page answer until one is added).
 * Listening on every interface needs an explicit `listen.host` ("0.0.0.0" or "::").
 */
import { z } from 'zod';

export const DEFAULT_DEBUG_PORT = 8470;
/** Name of the systemd credential (LoadCredential=technician-tokens:...) with extra token entries. */
export const TOKENS_CREDENTIAL = 'technician-tokens';

/** metrics: GET /metrics only (a Prometheus server). read: also status, logs, events. service: also the actions. */
export const tokenScopeSchema = z.enum(['metrics', 'read', 'service']);
export type TokenScope = z.output<typeof tokenScopeSchema>;

/**
 * `sha256:` + 64 lowercase hex digits. A fast hash is enough: tokens are 256 random bits, so the
 * hash cannot be reversed by guessing, and a slow KDF would cost the board CPU on every request.
 */
export const TOKEN_HASH_RE = /^sha256:[0-9a-f]{64}$/;

export const tokenEntrySchema = z.strictObject({
  /** Who holds the token; logged with every service action (the token itself never is). */
  name: z.string().regex(/^[A-Za-z0-9._@-]{1,64}$/, 'must be 1-64 of A-Z a-z 0-9 . _ @ -'),
  /** metrics: /metrics only. read: also status, logs, events. service: also the actions (open, self-test, service mode, ...). */
  scope: tokenScopeSchema,
  hash: z.string().regex(TOKEN_HASH_RE, 'must be "sha256:" and 64 lowercase hex digits (stationctl token new)'),
});
export type TokenEntry = z.output<typeof tokenEntrySchema>;
export const tokenListSchema = z.array(tokenEntrySchema).max(64);

const tcpListenSchema = z.strictObject({
  /** Loopback by default; "0.0.0.0" / "::" (every interface) only when written here. */
  host: z.string().min(1).default('127.0.0.1'),
  /** 0 picks a free port (tests). */
  port: z.number().int().min(0).max(65_535).default(DEFAULT_DEBUG_PORT),
});
const socketListenSchema = z.strictObject({
  /** A unix socket path (created mode 0600: the station's user and root only). */
  socket: z.string().min(1).max(100),
});

export const debugConfigSchema = z
  .strictObject({
  /** false: no technician port at all. */
  enabled: z.boolean().default(true),
  listen: z.union([socketListenSchema, tcpListenSchema]).default({ host: '127.0.0.1', port: DEFAULT_DEBUG_PORT }),
  /** Technician tokens; more may come from the systemd credential `technician-tokens` (same JSON shape). */
  tokens: tokenListSchema.default([]),
  /** Largest accepted request body; larger -> 413. */
  maxBodyBytes: z.number().int().min(256).max(1_048_576).default(16_384),
  /** Finished protocol events listed by /api/status. */
  statusEvents: z.number().int().min(1).max(100).default(20),
  /** Log lines kept in memory for /api/logs. */
  logLines: z.number().int().min(10).max(10_000).default(1_000),
  /** A comment line is sent on idle event streams this often (keeps proxies and NATs from closing them). */
  keepAliveMs: z.number().int().min(100).max(300_000).default(15_000),
  /** Concurrent live streams; more -> 503 (each holds a socket on a small board). */
  maxStreams: z.number().int().min(1).max(100).default(8),
  /**
   * Unsent data a live stream may hold for a client that stops reading (beyond what the kernel's
   * socket buffers took, and beyond the backlog asked for); past it the stream is dropped.
   */
  streamBufferBytes: z.number().int().min(16_384).max(67_108_864).default(262_144),
  /** A connection must send a complete request head within this (else 408 and closed). */
  headersTimeoutMs: z.number().int().min(100).max(120_000).default(5_000),
  /** ... and its whole request (head and body) within this. */
  requestTimeoutMs: z.number().int().min(100).max(300_000).default(10_000),
  /** Sockets open at once; unauthenticated ones are closed (least recently active first) to make room. */
  maxConnections: z.number().int().min(4).max(1_024).default(64),
  /** Unauthenticated sockets one peer address may hold (the oldest is closed for a new one). */
  maxConnectionsPerAddress: z.number().int().min(1).max(1_024).default(16),
  /** Refusals before authentication are logged at most once per kind per this interval, with a count. */
  refusalLogIntervalMs: z.number().int().min(100).max(3_600_000).default(60_000),
})
  .superRefine((d, ctx) => {
    // Node refuses a server whose head may take longer than the whole request.
    if (d.headersTimeoutMs > d.requestTimeoutMs)
      ctx.addIssue({ code: 'custom', path: ['headersTimeoutMs'], message: `must not be longer than requestTimeoutMs (${d.requestTimeoutMs})`, input: d.headersTimeoutMs });
  });

export type DebugConfig = z.output<typeof debugConfigSchema>;
