/**
 * The `technician` section of the station config (formerly `debug`, still read under that name:
 * aliases.ts): where the technician port listens and which technician tokens it accepts (by hash
 * only; the tokens themselves are never stored).
 *
 * Defaults: on, the unix socket /run/pickup-station/technician.sock (plus 127.0.0.1:8470 from the
 * socket systemd holds, pickup-station-technician.socket), no tokens (only /healthz and the page
 * answer until one is added). The process binds TCP only when `listen` says so; every interface
 * needs an explicit `listen.host` ("0.0.0.0" or "::").
 */
import { edgeLimitKeys, headWithinRequest, TECHNICIAN_EDGE } from '../edge/limits-schema.js';
import * as z from '../schema.js';
import { intIn } from '../schema.js';
import { live, restartsProcess } from './apply.js';

/** The port's edge limits (src/edge/limits-schema.ts), each declared below with its reload class. */
const edge = edgeLimitKeys(TECHNICIAN_EDGE);

export const DEFAULT_TECHNICIAN_PORT = 8470;
/** The technician port's unix socket by default: in the unit's RuntimeDirectory (only root makes it, the station's user writes it). */
export const DEFAULT_TECHNICIAN_SOCKET = '/run/pickup-station/technician.sock';
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
  name: z.string().check(z.regex(/^[A-Za-z0-9._@-]{1,64}$/, 'must be 1-64 of A-Z a-z 0-9 . _ @ -')),
  /** metrics: /metrics only. read: also status, logs, events. service: also the actions (open, self-test, service mode, ...). */
  scope: tokenScopeSchema,
  hash: z.string().check(z.regex(TOKEN_HASH_RE, 'must be "sha256:" and 64 lowercase hex digits (stationctl token new)')),
});
export type TokenEntry = z.output<typeof tokenEntrySchema>;
export const tokenListSchema = z.array(tokenEntrySchema).check(z.maxLength(64));

const tcpListenSchema = z.strictObject({
  /** Loopback by default; "0.0.0.0" / "::" (every interface) only when written here. */
  host: z._default(z.string().check(z.minLength(1)), '127.0.0.1'),
  /** 0 picks a free port (tests). */
  port: z._default(intIn(0, 65_535), DEFAULT_TECHNICIAN_PORT),
});
const socketListenSchema = z.strictObject({
  /** A unix socket path (created mode 0600: the station's user and root only). */
  socket: z.string().check(z.minLength(1), z.maxLength(100)),
});

export const technicianConfigSchema = z
  .strictObject({
    /** false: no technician port at all. */
    enabled: restartsProcess(z._default(z.boolean(), true)),
    /**
     * Where the process itself listens: a unix socket (the default), or TCP when written here (the
     * process then binds it itself: while it restarts, any local process may take that port). The
     * socket systemd holds (127.0.0.1:8470) is served as well, whatever this says.
     */
    listen: restartsProcess(z._default(z.union([socketListenSchema, tcpListenSchema]), { socket: DEFAULT_TECHNICIAN_SOCKET })),
    /** Technician tokens; more may come from the systemd credential `technician-tokens` (same JSON shape). */
    tokens: live(z._default(tokenListSchema, [])),
    /** Largest accepted request body; larger -> 413. */
    maxBodyBytes: live(z._default(intIn(256, 1_048_576), 16_384)),
    /** Finished protocol events listed by /api/status. */
    statusEvents: live(z._default(intIn(1, 100), 20)),
    /** Log lines kept in memory for /api/logs. */
    logLines: restartsProcess(z._default(intIn(10, 10_000), 1_000)),
    /** A comment line is sent on idle event streams this often (keeps proxies and NATs from closing them). */
    keepAliveMs: live(edge.keepAliveMs),
    /** Concurrent live streams; more -> 503 (each holds a socket on a small board). */
    maxStreams: live(edge.maxStreams),
    /**
     * Unsent data a live stream may hold for a client that stops reading (beyond what the kernel's
     * socket buffers took, and beyond the backlog asked for); past it the stream is dropped.
     */
    streamBufferBytes: live(edge.streamBufferBytes),
    /** A connection must send a complete request head within this (else 408 and closed). */
    headersTimeoutMs: restartsProcess(edge.headersTimeoutMs),
    /** ... and its whole request (head and body) within this. */
    requestTimeoutMs: restartsProcess(edge.requestTimeoutMs),
    /** Sockets open at once; unauthenticated ones are closed (least recently active first) to make room. */
    maxConnections: restartsProcess(edge.maxConnections),
    /** Unauthenticated sockets one peer address may hold (the oldest is closed for a new one). */
    maxConnectionsPerAddress: restartsProcess(z._default(intIn(1, 1_024), 16)),
    /** Refusals before authentication are logged at most once per kind per this interval, with a count. */
    refusalLogIntervalMs: restartsProcess(edge.refusalLogIntervalMs),
  })
  .check(z.superRefine(headWithinRequest));

export type TechnicianConfig = z.output<typeof technicianConfigSchema>;
