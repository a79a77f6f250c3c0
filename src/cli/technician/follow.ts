/**
 * `stationctl logs -f` / `events -f`: follow a live stream across station restarts.
 *
 * A station restarts (an upgrade, a reload, systemd after a crash) and drops a stream whose client
 * stopped reading (a laptop that slept): once connected, the follower then says so in one line, reconnects with
 * backoff (0.5 s doubling to 5 s) until the station answers again or Ctrl-C, and says so in one
 * line when it is back. A refused token ends the follow (retrying cannot fix it); so does any
 * other refusal but "busy for now" (503: restarting, too many streams).
 */
import { describeTarget, StationNotRunningError, StationRefusedError, TokenRefusedError, type PortClient, type Target } from './client.js';
import { Backoff } from '../../time.js';

export interface FollowOptions {
  readonly client: PortClient;
  readonly target: Target;
  /** Where the one-line notices go (stderr: stdout stays the stream's data). */
  readonly notice: (line: string) => void;
  readonly signal?: AbortSignal;
  /** First and longest wait between reconnect attempts (ms). */
  readonly backoff?: { readonly firstMs: number; readonly maxMs: number };
}

export const FOLLOW_BACKOFF = { firstMs: 500, maxMs: 5_000 } as const;

/** Whether a failed stream is worth another try (the station away or busy), or final. */
function retryable(e: unknown): boolean {
  if (e instanceof TokenRefusedError) return false;
  if (e instanceof StationRefusedError) return e.status === 503;
  // Not running (refused, no socket), reset, "socket hang up", "aborted": a restart looks like these.
  return e instanceof StationNotRunningError || e instanceof Error;
}

/**
 * Follow `path(reconnecting)` until `signal` aborts. `reconnecting` is true for every connection
 * after the first (a caller may ask for a different backlog then). Rejects only with a final error.
 */
export async function followStream(
  opts: FollowOptions,
  path: (reconnecting: boolean) => string,
  onEvent: (event: string, data: unknown) => void,
  onReconnected?: () => string,
): Promise<void> {
  const { client, target, notice, signal } = opts;
  const { firstMs, maxMs } = opts.backoff ?? FOLLOW_BACKOFF;
  const backoff = new Backoff({ initialMs: firstMs, maxMs, factor: 2 });
  let away = false;
  let connectedOnce = false;
  while (!signal?.aborted) {
    try {
      await client.stream(path(connectedOnce), onEvent, signal, () => {
        if (away) notice(`stationctl: reconnected to ${describeTarget(target)}${onReconnected ? `; ${onReconnected()}` : ''}`);
        away = false;
        connectedOnce = true;
        backoff.reset();
      });
    } catch (e) {
      if (signal?.aborted) return;
      // Never connected: a wrong --url or a stopped station is reported, not waited for.
      if (!connectedOnce || !retryable(e)) throw e;
    }
    if (signal?.aborted) return;
    if (!away) notice(`stationctl: the station closed the stream (restarting?); reconnecting to ${describeTarget(target)} until it answers (Ctrl-C to stop)`);
    away = true;
    await backoff.pause(signal);
  }
}
