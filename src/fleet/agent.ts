/**
 * One keep-alive HTTP agent with a bounded socket pool for every station of the fleet, so 1,000+
 * stations share a few dozen connections instead of holding one (a file descriptor) each. Every
 * station's protocol client gets it through startStation's `agent` option.
 */
import http from 'node:http';
import https from 'node:https';

export interface SharedAgents {
  readonly http: http.Agent;
  readonly https: https.Agent;
  /** Close the shared sockets. */
  release(): void;
}

export function useSharedAgents(maxSockets: number): SharedAgents {
  // lifo: reuse the most recently used socket, so idle ones time out and the pool shrinks.
  const options = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'lifo' as const, timeout: 60_000 };
  const shared = { http: new http.Agent(options), https: new https.Agent(options) };
  let released = false;
  return {
    ...shared,
    release() {
      if (released) return;
      released = true;
      shared.http.destroy();
      shared.https.destroy();
    },
  };
}
