/** Typed errors of the station. Each carries what a technician needs to act, never a secret. */

/**
 * The exit codes of every command (the daemon, safe-state, sim-server, fleet, stationctl), one
 * name each; a command returns one of these, never a bare number.
 */
export const EXIT_OK = 0;
/** The command ran and failed (a refusal, an unreachable station, a lock line it could not drive). */
export const EXIT_FAILURE = 1;
/** A wrong command line (the usage text is printed, never a stack). */
export const EXIT_USAGE = 2;
/** A service the command needs is not available: it could not listen (sysexits EX_UNAVAILABLE). */
export const EXIT_UNAVAILABLE = 69;
/** A bad config (sysexits EX_CONFIG); the systemd unit does not restart on it. */
export const EXIT_CONFIG = 78;
/** Problems printed one per line in a ConfigError's message; the rest are counted (the journal stays readable). */
const MAX_PRINTED_PROBLEMS = 50;

export interface ConfigProblem {
  /** Dotted path into the config file, e.g. "server.answerTimeoutMs" or "station.boxes.2.id". */
  readonly path: string;
  readonly message: string;
  /** The offending value, rendered for a log line (omitted for secrets and missing keys). */
  readonly value?: string;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly source: string,
    readonly problems: readonly ConfigProblem[],
  ) {
    super(
      `invalid config ${source}: ${problems.length} problem(s)\n` +
        problems
          .slice(0, MAX_PRINTED_PROBLEMS)
          .map((p) => `  ${p.path || '(root)'}: ${p.message}${p.value === undefined ? '' : ` (got ${p.value})`}`)
          .join('\n') +
        (problems.length > MAX_PRINTED_PROBLEMS ? `\n  … and ${problems.length - MAX_PRINTED_PROBLEMS} more` : ''),
    );
  }
}

/** A device could not be opened or driven. */
export class DeviceError extends Error {
  override readonly name = 'DeviceError';
  constructor(
    readonly device: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${device}: ${message}`, options);
  }
}

/** One HTTP attempt got no protocol answer (timeout, connection error, non-protocol response). */
export class UnansweredError extends Error {
  override readonly name = 'UnansweredError';
  constructor(
    readonly reason: string,
    readonly status: number | null = null,
  ) {
    super(reason);
  }
}

/** The command line is wrong: a missing option value, an unknown flag, an extra argument. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * A command-line mistake: our UsageError or node:util parseArgs's own (ERR_PARSE_ARGS_*). Told by
 * its name: in the release each mode is a bundle of its own with its own copy of the class, so a
 * UsageError thrown in a mode's file is not an instance of main.js's.
 */
export function isUsageError(e: unknown): e is Error {
  return (
    (e instanceof Error && e.name === 'UsageError') ||
    (e instanceof TypeError && 'code' in e && typeof e.code === 'string' && e.code.startsWith('ERR_PARSE_ARGS'))
  );
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
