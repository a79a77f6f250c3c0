/**
 * pino logger: JSON lines on stdout for journald. Secrets are redacted by path as a second line of
 * defence; the first is that the code never puts a password, token, Authorization header or PIN
 * into a log object at all.
 *
 * Optionally the same lines (already redacted: pino redacts before writing) are kept in a LogRing
 * for the technician port's log tail.
 */
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

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
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
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
