/** Typed errors of the reference server. */

/** The server was given stations, deposits or pickups that do not fit together. */
export class SimConfigError extends Error {
  override readonly name = 'SimConfigError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid reference server data: ${problems.length} problem(s)\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

export class UnknownStationError extends Error {
  override readonly name = 'UnknownStationError';
  constructor(readonly stationId: string) {
    super(`unknown station ${stationId}`);
  }
}

/** waitForRequest saw no matching request in time; `seen` helps tell "nothing came" from "something else came". */
export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
  constructor(
    readonly timeoutMs: number,
    readonly seen: number,
  ) {
    super(`no matching request within ${timeoutMs} ms (${seen} request(s) recorded)`);
  }
}

export class ServerStoppedError extends Error {
  override readonly name = 'ServerStoppedError';
  constructor() {
    super('reference server stopped');
  }
}
