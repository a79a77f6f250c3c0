/**
 * pino logger: JSON lines on stdout for journald. Secrets are redacted by path as a second line of
 * defence; the first is that the code never puts a password, token, Authorization header or PIN
 * into a log object at all.
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

export function createLogger(level: LogLevelName, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level,
    base: { svc: 'pickup-station' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination ? pino(options, destination) : pino(options);
}

export type { Logger };
