/**
 * pino logger: JSON lines on stdout for journald. Secrets are redacted by path as a second line of
 * defence; the first is that the code never puts a password, token, Authorization header or PIN
 * into a log object at all. Patrons' identifiers (item numbers, card and tag UIDs, barcodes, names)
 * are logged only masked: the call sites mask the ones they know (maskIdentifier), and every line
 * is masked again here whatever a call site passed (src/mask.ts, docs/privacy.md): identifier
 * fields at any depth, every other string, the message and errors (message, stack) by the
 * identifier's shape.
 *
 * Optionally the same lines (already masked and redacted) are kept in a LogRing for the
 * technician port's log tail.
 */
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { maskFields, maskText } from './mask.js';

export { IDENTIFIER_KEYS, maskIdentifier } from './mask.js';

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

/** A printf value or the message: text masked by shape, an object walked. */
function maskValue(a: unknown): unknown {
  if (typeof a === 'string') return maskText(a);
  return a !== null && typeof a === 'object' ? maskFields({ value: a })['value'] : a;
}

/**
 * A log method's arguments, masked before pino sees them: the object (an Error becomes its `err`
 * field, as pino would make it), the message and any printf values. pino takes a line's message
 * from its error when none is given: that is the masked one too.
 */
function maskArguments(args: readonly unknown[]): unknown[] {
  const [first, ...rest] = args;
  if (first instanceof Error) return [maskFields({ err: first }), ...(rest.length === 0 ? [maskText(first.message)] : rest.map(maskValue))];
  if (first !== null && typeof first === 'object') return [maskFields(first as Record<string, unknown>), ...rest.map(maskValue)];
  return args.map(maskValue);
}

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
    // Errors are already made plain and masked (maskFields): pino's serializer would name them "Object".
    serializers: { err: (e: unknown) => e },
    hooks: {
      logMethod(args, method) {
        method.apply(this, maskArguments(args) as Parameters<typeof method>);
      },
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  let logger: Logger;
  if (opts.ring === undefined) logger = destination ? pino(options, destination) : pino(options);
  else {
    // Each stream takes every level: the logger's own level (changeable on reload) does the filtering.
    const streams = pino.multistream([
      { level: 'trace', stream: destination ?? pino.destination({ dest: 1, sync: true }) },
      { level: 'trace', stream: opts.ring },
    ]);
    logger = pino(options, streams);
  }
  // A child's bindings are written into every line it logs: masked once, when it is made (children
  // inherit this from the logger they are made from, so every generation does it).
  type MakeChild = (this: Logger, bindings: Record<string, unknown>, options?: unknown) => Logger;
  const pinoChild = (logger as unknown as { readonly child: MakeChild }).child;
  logger.child = function (this: Logger, bindings: Record<string, unknown>, childOptions?: unknown): Logger {
    return pinoChild.call(this, maskFields(bindings), childOptions);
  } as unknown as Logger['child'];
  return logger;
}

export type { Logger };
