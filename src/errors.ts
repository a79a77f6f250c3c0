/** Typed errors of the station. Each carries what a technician needs to act, never a secret. */

/** Exit code for a bad config (sysexits EX_CONFIG); the systemd unit does not restart on it. */
export const EXIT_CONFIG = 78;

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
        problems.map((p) => `  ${p.path || '(root)'}: ${p.message}${p.value === undefined ? '' : ` (got ${p.value})`}`).join('\n'),
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

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
