/**
 * Refusals before authentication cost a bounded amount (docs/decisions/0037): a flood of 10,000
 * requests without a valid token, of four kinds (none, wrong, in the URL, a target that is no URL),
 * writes at most one line per kind per interval, each with a count that adds up to what was sent;
 * the station's own warning from before the flood is still in /api/logs afterwards.
 */
import { Agent, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { idle, startDebugHarness, type DebugHarness } from '../support/technician-harness.js';
import { sleep, waitFor } from '../support/shared.js';

let d: DebugHarness | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

const KINDS = ['no-token', 'wrong-token', 'token-in-url', 'bad-target'] as const;
type Kind = (typeof KINDS)[number];

function refused(url: URL, agent: Agent, kind: Kind): Promise<number> {
  const path = { 'no-token': '/api/status', 'wrong-token': '/api/logs', 'token-in-url': '/x?token=1', 'bad-target': '//' }[kind];
  const headers: Record<string, string> = kind === 'wrong-token' ? { authorization: 'Bearer pst_not-a-token-of-this-station' } : {};
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('a 10,000-request flood without a token', () => {
  it("is logged once per kind per interval with counts; the station's own warning stays in /api/logs", async () => {
    const intervalMs = 1_000;
    d = await startDebugHarness({ technician: { refusalLogIntervalMs: intervalMs } });
    await idle(d);
    // The station's own warning before the flood: an unanswered /state (HTML 502 from a "proxy").
    d.h.server.setFault('state', { kind: 'html502' }, { times: 1 });
    await waitFor('the station warns about the unanswered /state', () => d!.ring.tail(1000).find((l) => l.includes('"msg":"event unanswered"')));

    const url = new URL(d.url);
    // 8 keep-alive sockets: under the per-address cap, as a flood that wants to be answered would do.
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const sent: Record<Kind, number> = { 'no-token': 0, 'wrong-token': 0, 'token-in-url': 0, 'bad-target': 0 };
    const statuses = new Map<number, number>();
    const t0 = performance.now();
    const floodFrom = new Date().toISOString();
    const N = 10_000;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < N) {
        const kind = KINDS[next++ % KINDS.length]!;
        const status = await refused(url, agent, kind);
        sent[kind]++;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    const floodMs = performance.now() - t0;
    agent.destroy();
    expect(Object.fromEntries(statuses)).toEqual({ 400: N / 2, 401: N / 2 });

    // Every count is flushed one interval after the last refusal of its kind.
    await sleep(intervalMs * 2.5);
    const lines = d.ring.tail(1000).map((l) => JSON.parse(l) as { msg: string; refusal?: Kind; count?: number; level: number; time: string });
    const refusalLines = lines.filter((l) => l.refusal !== undefined);
    const windows = Math.ceil((floodMs + intervalMs * 2.5) / intervalMs) + 1;
    for (const kind of KINDS) {
      const mine = refusalLines.filter((l) => l.refusal === kind);
      // The first refusal of a window is logged as it happens; the rest are counted.
      const accounted = mine.reduce((n, l) => n + (l.count ?? 1), 0);
      expect(accounted, kind).toBe(sent[kind]);
      expect(mine.length, kind).toBeLessThanOrEqual(windows);
    }
    // The port wrote nothing but those summaries (the station's own heartbeat lines go on as usual),
    // and the station's warning from before the flood is still there.
    const portLines = lines.filter((l) => l.msg.startsWith('technician port') && l.time >= floodFrom);
    expect(portLines.filter((l) => l.refusal === undefined).map((l) => l.msg)).toEqual([]);
    expect(lines.some((l) => l.msg === 'event unanswered')).toBe(true);
    const api = await d.call('GET', '/api/logs?lines=1000', { token: d.tokens.read });
    expect((api.body['lines'] as string[]).some((l) => l.includes('"msg":"event unanswered"'))).toBe(true);
    console.error(
      `figure: log flood: ${N} refused requests in ${(floodMs / 1000).toFixed(1)} s -> ${refusalLines.length} log lines (${KINDS.length} kinds, interval ${intervalMs} ms)`,
    );
  }, 60_000);
});
