/**
 * box-open answer → lock energized and door edge → /state at the server, measured by
 * bench/children/latency-station.ts (bundled like the release) run with the node under test and
 * the unit's node flags; the result comes back over IPC.
 */
import type { NodeUnderTest } from './lib/node.js';
import { nextMessage, spawnNode, stopChild } from './lib/proc.js';
import type { Summary } from './lib/stats.js';

export interface LatencyResult {
  /** answer received → lock energized. */
  readonly answerToLock: Summary;
  /** answer received → runtime event-done (HTTP client side). */
  readonly answerToDone: Summary;
  /** runtime event-done → lock energized (core + runtime). */
  readonly doneToLock: Summary;
  /** door edge → /state received at the server. */
  readonly doorToState: Summary;
}

export async function benchLatency(
  node: NodeUnderTest,
  script: string,
  nodeFlags: readonly string[],
  stateDir: string,
  iterations: number,
  warmup: number,
): Promise<LatencyResult> {
  const p = spawnNode([...nodeFlags, script, String(iterations), String(warmup), stateDir], { node: node.path, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    return await nextMessage(
      p.child,
      (m) => (typeof m === 'object' && m !== null && 'result' in m ? (m as { result: LatencyResult }).result : undefined),
      300_000,
      'latency-station',
    );
  } finally {
    await stopChild(p);
  }
}
