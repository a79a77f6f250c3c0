/**
 * One keep-alive HTTP agent with a bounded socket pool for every station of the fleet, so 1,000+
 * stations share a few dozen connections instead of holding one (a file descriptor) each.
 *
 * Why the global agent: the protocol client (got, src/protocol/client.ts) takes no agent option,
 * and got without one uses Node's global agent. So the fleet process swaps in its own for the
 * run and restores the previous one afterwards. (A core change - an `agent` option through
 * createClient - would make this explicit; see the bench notes in README.md.)
 */
import http from 'node:http';
import https from 'node:https';

export interface SharedAgents {
  readonly http: http.Agent;
  readonly https: https.Agent;
  /** Restore the previous global agents and close the shared sockets. */
  release(): void;
}

export function useSharedAgents(maxSockets: number): SharedAgents {
  const previous = { http: http.globalAgent, https: https.globalAgent };
  // lifo: reuse the most recently used socket, so idle ones time out and the pool shrinks.
  const options = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'lifo' as const, timeout: 60_000 };
  const shared = { http: new http.Agent(options), https: new https.Agent(options) };
  http.globalAgent = shared.http;
  https.globalAgent = shared.https;
  let released = false;
  return {
    ...shared,
    release() {
      if (released) return;
      released = true;
      http.globalAgent = previous.http;
      https.globalAgent = previous.https;
      shared.http.destroy();
      shared.https.destroy();
    },
  };
}
