/**
 * The technician port stays reachable (docs/decisions/0036), on real sockets: an attacker process
 * holds 200 idle sockets and 10 slowloris sockets against the port (reconnecting whenever the
 * station closes one). Once the station has begun closing them to make room, a technician runs
 * `stationctl status` with a valid token and a monitor asks `/healthz` on a fresh connection, round
 * after round, while a technician's live event stream stays open: every answer is the right one,
 * the stream keeps receiving events, the station's heartbeat keeps reaching the server, and the
 * attacker's sockets were really closed by the station.
 *
 * The port runs with its shipped defaults (5 s head time-out, 64 sockets, 16 pending per address).
 * Availability, not speed: a request that fails (refused, reset, no answer within the client's own
 * time-out) fails the test; how long the answers take, quiet and under this flood, is a figure of
 * the bench (`npm run bench -- --only technician`, bench/technician.ts).
 */
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFlood } from '../../bench/lib/flood.js';
import { runTechnicianCli } from '../../src/cli/technician/commands.js';
import { idle, readStream, startDebugHarness, type DebugHarness } from '../support/technician-harness.js';
import { sleep, waitFor } from '../support/shared.js';

const CTL = join(import.meta.dirname, '../../dist/src/cli/stationctl.js');
/** The attacker's sockets: idle, slowloris. */
const IDLE = 200;
const SLOW = 10;
/** Rounds of a status and a /healthz during the flood, and the pause between them (pacing only). */
const ROUNDS = 30;
const PACE_MS = 400;

let d: DebugHarness | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

/** GET /healthz on a new connection (no keep-alive pool: a newcomer must get in). */
function healthz(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/healthz`, { agent: false, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('healthz: no answer in 5 s')));
    req.on('error', reject);
    req.end();
  });
}

/** `stationctl status` through the CLI's own code (its client, its parsing, its output). */
async function status(url: string, token: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runTechnicianCli(['status', '--url', url], {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env: { STATIONCTL_TOKEN: token },
  });
  return { code, out, err };
}

describe('technician port under a socket flood', () => {
  it('200 idle sockets + slowloris: every stationctl status and /healthz answered; the live stream and the heartbeat go on', async () => {
    d = await startDebugHarness();
    await idle(d);
    const harness = d;
    // The attacker in its own process (test/support/socket-flood.mjs), as the bench's flood figures run it.
    const attacker = startFlood(Number(new URL(harness.url).port), { idle: IDLE, slow: SLOW });
    try {
      await attacker.ready;
      // The caps in play: the station has begun closing the attacker's sockets to make room.
      await waitFor('a socket closed to make room', () => harness.h.logs.some((l) => l.includes('"refusal":"evicted"')), 30_000);
      const heartbeats = (): number => harness.h.server.requests.filter((r) => r.endpoint === 'state').length;
      // A technician's live stream, open through the whole flood: never closed to make room.
      const live = await readStream(harness, '/api/events/stream');
      const heartbeatsBefore = heartbeats();
      for (let round = 1; round <= ROUNDS; round++) {
        const [s, h] = await Promise.all([status(harness.url, harness.tokens.read), healthz(harness.url)]);
        expect(s.err, `stationctl status, round ${round}`).toBe('');
        expect(s.code, `stationctl status, round ${round}`).toBe(0);
        expect(s.out).toMatch(/mode\s+idle/);
        expect(h.status, `/healthz, round ${round}`).toBe(200);
        expect(JSON.parse(h.body)).toEqual({ ok: true });
        await sleep(PACE_MS);
      }
      // The real stationctl process too, once, mid-flood.
      const ctl = spawn(process.execPath, [CTL, 'status', '--url', harness.url], {
        env: { PATH: process.env['PATH'], STATIONCTL_TOKEN: harness.tokens.read },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let ctlOut = '';
      ctl.stdout.on('data', (b: Buffer) => (ctlOut += b.toString()));
      const ctlCode = await new Promise((r) => ctl.once('exit', r));
      expect(ctlCode).toBe(0);
      expect(ctlOut).toMatch(/mode\s+idle/);

      // The heartbeat kept going: the rounds are paced, so they span at least ROUNDS x PACE_MS
      // (12 s), a dozen of the harness's 1 s heartbeats; one that stopped or stalled sends far fewer.
      const heartbeatsDuring = heartbeats() - heartbeatsBefore;
      expect(heartbeatsDuring).toBeGreaterThan(8);
      // The live stream received the station's events throughout, and is still open: it gets the next one.
      const doneDuring = live.events.filter((e) => e.event === 'event-done').length;
      expect(doneDuring).toBeGreaterThan(8);
      const seen = live.events.length;
      await waitFor('the live stream still follows', () => live.events.length > seen);
      live.close();

      const stats = await attacker.stop();
      // The attack was real: the station closed every attacker socket twice over (on average).
      expect(stats['closedByStation']).toBeGreaterThan(2 * (IDLE + SLOW));
      console.error(
        `figure: socket flood (attacker opened ${stats['opened']}, station closed ${stats['closedByStation']}, 408s ${stats['answered408']}): ` +
          `${ROUNDS} rounds of stationctl status and /healthz, each answered; ${heartbeatsDuring} heartbeats and ${doneDuring} events on the live stream meanwhile`,
      );
    } finally {
      await attacker.stop();
    }
  }, 60_000);

  it('a silent socket and a slowloris socket get 408 and are closed after technician.headersTimeoutMs', async () => {
    // The whole request may take a minute: a 408 and a close within the test's time can only be the head time-out's.
    d = await startDebugHarness({ technician: { headersTimeoutMs: 1_000, requestTimeoutMs: 60_000 } });
    const port = Number(new URL(d.url).port);
    const watch = (slow: boolean): Promise<{ ms: number; answer: string }> =>
      new Promise((resolve) => {
        const t0 = performance.now();
        let answer = '';
        const s = connect(port, '127.0.0.1', () => {
          if (!slow) return;
          s.write('GET /api/status HTTP/1.1\r\n');
          const trickle = setInterval(() => s.write('X-Slow: a\r\n'), 100);
          s.once('close', () => clearInterval(trickle));
        });
        s.on('data', (b: Buffer) => (answer += b.toString('latin1')));
        s.on('error', () => undefined);
        s.once('close', () => resolve({ ms: performance.now() - t0, answer }));
      });
    const [silent, slow] = await Promise.all([watch(false), watch(true)]);
    for (const r of [silent, slow]) {
      expect(r.answer).toMatch(/^HTTP\/1\.1 408/);
      // Not before its configured time (a lower bound of behaviour; how late it fires is no assertion).
      expect(r.ms).toBeGreaterThanOrEqual(1_000);
    }
  });
});
