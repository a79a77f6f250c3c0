/** Why the supervisor refuses a request about the running station (its clients map it: HTTP status, log line). */
export type RefusalCode =
  /** Someone uses the station, or another long action runs. */
  | 'busy'
  /** A reload is swapping the station: there is none for a moment. */
  | 'reloading'
  /** Reload asked of a station not started from a config file. */
  | 'no_config_file'
  /** The new config did not start (the previous one runs again). */
  | 'start_failed';

export class SupervisorRefusal extends Error {
  override readonly name = 'SupervisorRefusal';
  constructor(
    readonly code: RefusalCode,
    message: string,
  ) {
    super(message);
  }
}
