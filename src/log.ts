/**
 * pino logger: JSON lines on stdout for journald. Secrets are redacted by path as a second line of
 * defence; the first is that the code never puts a password, token, Authorization header or PIN
 * into a log object at all. Patrons' identifiers (item numbers, card and tag UIDs, barcodes, names)
 * are logged only masked (maskIdentifier, src/mask.ts): the call sites mask them, and a field under one of
 * IDENTIFIER_KEYS is masked here again whatever a call site passed (docs/privacy.md).
 *
 * Optionally the same lines (already redacted: pino redacts before writing) are kept in a LogRing
 * for the technician port's log tail.
 */
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { IDENTIFIER_KEYS, maskIdentifier } from './mask.js';

// The masking is its own pure module (the pure core uses it too); callers may take it from here.
export { IDENTIFIER_KEYS, maskIdentifier };

export const REDACT_PATHS = [
  'password',
  '*.password',
  'pin',
  '*.pin',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
  'token',
  '*.token',
  'accessToken',
  '*.accessToken',
  'clientSecret',
  '*.clientSecret',
];

const IDENTIFIER_KEY_SET: ReadonlySet<string> = new Set(IDENTIFIER_KEYS);

/** pino's censor: identifiers masked (strings, lists of strings), every other redacted path replaced. */
function censor(value: unknown, path: string[]): unknown {
  if (!IDENTIFIER_KEY_SET.has(path[path.length - 1] ?? '')) return '[redacted]';
  if (typeof value === 'string' || typeof value === 'number') return maskIdentifier(String(value));
  if (Array.isArray(value)) return value.map((v: unknown) => (typeof v === 'string' || typeof v === 'number' ? maskIdentifier(String(v)) : '[redacted]'));
  return value === null || value === undefined ? value : '[redacted]';
}

const REDACTED_PATHS = [...REDACT_PATHS, ...IDENTIFIER_KEYS.flatMap((k) => [k, `*.${k}`])];

export type LogLevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** The last `capacity` log lines (JSON text, no newline), with listeners for a live tail. */
export class LogRing implements DestinationStream {
  private readonly lines: string[] = [];
  private readonly listeners = new Set<(line: string) => void>();

  constructor(readonly capacity: number) {}

  /** pino calls this once per line (with its trailing newline). */
  write(chunk: string): void {
    for (const line of chunk.split('\n')) {
      if (line === '') continue;
      this.lines.push(line);
      if (this.lines.length > this.capacity) this.lines.shift();
      for (const l of this.listeners) l(line);
    }
  }

  /** The newest `n` lines, oldest first. */
  tail(n: number): string[] {
    return n <= 0 ? [] : this.lines.slice(-n);
  }

  /** Called with every line written from now on; returns the unsubscribe function. */
  follow(listener: (line: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export function createLogger(level: LogLevelName, destination?: DestinationStream, opts: { ring?: LogRing } = {}): Logger {
  const options: LoggerOptions = {
    level,
    base: { svc: 'pickup-station' },
    redact: { paths: REDACTED_PATHS, censor },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (opts.ring === undefined) return destination ? pino(options, destination) : pino(options);
  // Each stream takes every level: the logger's own level (changeable on reload) does the filtering.
  const streams = pino.multistream([
    { level: 'trace', stream: destination ?? pino.destination({ dest: 1, sync: true }) },
    { level: 'trace', stream: opts.ring },
  ]);
  return pino(options, streams);
}

export type { Logger };
