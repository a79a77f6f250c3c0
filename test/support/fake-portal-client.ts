/** Helpers for tests against the fake portal: a client wired to it and a controllable clock. */
import { PortalClient, type PortalClientOptions } from '../../src/portal/client.js';
import { FAKE_CLIENT, type FakePortal } from './fake-portal.js';

/** A monotonic clock the test moves by hand (stands in for performance.now). */
export function manualClock(start = 10_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

export function clientFor(fake: FakePortal, options: Partial<PortalClientOptions> = {}): PortalClient {
  return new PortalClient({ baseUrl: fake.url, ...FAKE_CLIENT, grant: { type: 'client_credentials' }, ...options });
}

/** A pino-compatible logger that keeps every call, for asserting what was (not) logged. */
export function captureLogger(): { logger: { debug: (obj: Record<string, unknown>, msg?: string) => void }; lines: string[] } {
  const lines: string[] = [];
  return { logger: { debug: (obj, msg) => void lines.push(JSON.stringify({ ...obj, msg })) }, lines };
}
