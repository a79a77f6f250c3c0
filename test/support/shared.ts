/**
 * What every kind of test shares: the test station's identity and the one way to wait in real time.
 * Unit tests do not wait: they use fake timers.
 */
import type { SimulatedStation } from '../../src/reference-server/index.js';

/** The station every test configures: its UUID, its password (a test secret), eight boxes. */
export const STATION: SimulatedStation = {
  id: 'd3b07384-d9a0-4c9b-8f3e-2b8c1a0e5f11',
  password: 'TestStationPassw0rd1',
  boxes: Array.from({ length: 8 }, (_, i) => `a1b2c3d4-0000-4000-8000-${String(i + 1).padStart(12, '0')}`),
};

/** Box `n` (1-based) of STATION. */
export const box = (n: number): string => STATION.boxes[n - 1] ?? '';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Poll `predicate` every 5 ms until it returns something truthy, and return that; throws after
 * `timeoutMs` naming `what`. For real devices, sockets and processes; the code under test never polls.
 */
export async function waitFor<T>(what: string, predicate: () => T | undefined | false | null, timeoutMs = 10_000): Promise<T> {
  const start = performance.now();
  for (;;) {
    const value = predicate();
    if (value) return value;
    if (performance.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(5);
  }
}
