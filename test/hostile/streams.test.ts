/**
 * Live streams have backpressure (issue 15 point 4), on the daemon as a process: eight
 * `/api/logs/stream` clients that never read, under a log flood, are dropped once their unsent
 * data passes debug.streamBufferBytes; a client that reads keeps its stream; the daemon's RSS
 * after the stuck clients are gone is back where it was before they came (and its peak bounded).
 *
 * The flood: authenticated requests with long paths at log level debug, so each writes one
 * ~6 KiB line to the log ring (and to every live log stream).
 */
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ReferenceServer, defaultSeed } from '../../src/sim/index.js';
import { STATION } from '../support/harness.js';
import { startDaemon, type Daemon } from './support/daemon.js';

const MB = 1024 * 1024;
const SETTLE_MS = 12_000;
let daemon: Daemon | undefined;
let server: ReferenceServer | undefined;
afterEach(async () => {
  await daemon?.stop();
  await server?.stop();
  daemon = undefined;
  server = undefined;
});

/** `n` authenticated GETs of a 6 KiB path (404 after auth: one debug log line each). */
async function flood(d: Daemon, n: number): Promise<void> {
  const url = new URL(d.url);
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const path = `/api/${'x'.repeat(6_000)}`;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next++ < n)
      await new Promise<void>((resolve, reject) => {
        const req = request({ host: url.hostname, port: url.port, path, agent, headers: { authorization: `Bearer ${d.token}` } }, (res) => {
          res.resume();
          res.on('end', resolve);
        });
        req.on('error', reject);
        req.end();
      });
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  agent.destroy();
}

/** A live log stream whose client sends the request and then never reads a byte. */
function stuckStream(d: Daemon): Promise<Socket> {
  const url = new URL(d.url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(url.port), url.hostname, () => {
      s.write(`GET /api/logs/stream HTTP/1.1\r\nHost: station\r\nAuthorization: Bearer ${d.token}\r\n\r\n`);
      s.pause();
      resolve(s);
    });
    s.on('error', () => undefined); // reset by the station when it drops the stream
    s.once('error', reject);
  });
}

/** A live log stream read as fast as it comes; counts the bytes. */
function readingStream(d: Daemon): { bytes: () => number; ended: () => boolean; close: () => void } {
  let bytes = 0;
  let ended = false;
  const req = request(`${d.url}/api/logs/stream`, { headers: { authorization: `Bearer ${d.token}` }, agent: false }, (res) => {
    res.on('data', (b: Buffer) => (bytes += b.length));
    res.on('close', () => (ended = true));
  });
  req.on('error', () => (ended = true));
  req.end();
  return { bytes: () => bytes, ended: () => ended, close: () => req.destroy() };
}

describe('live streams whose clients stop reading', () => {
  it('are dropped past debug.streamBufferBytes; RSS returns to where it was', async () => {
    server = new ReferenceServer({ stations: [STATION], ...defaultSeed(STATION) });
    const url = await server.start();
    daemon = await startDaemon(new URL(url).origin, { log: { level: 'debug' }, debug: { logLines: 2_000 } });
    const d = daemon;
    // Warm-up: the same flood to eight clients that read, so the ring is full and the heap has
    // grown to what the flood and eight streams need anyway. "Before" is measured after it: the
    // difference is what clients that do not read cost.
    const warm = Array.from({ length: 8 }, () => readingStream(d));
    await new Promise((r) => setTimeout(r, 300));
    await flood(d, 3_000);
    for (const w of warm) w.close();
    // V8's memory reducer returns a flood's garbage some 10 s after the allocation stops: "before"
    // is taken once that has happened, so it is the level the daemon really sits at.
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const before = d.memory();

    const reader = readingStream(d);
    const stuck = await Promise.all(Array.from({ length: 7 }, () => stuckStream(d)));
    await new Promise((r) => setTimeout(r, 300));
    // 3,000 lines of ~6 KiB: ~18 MiB per stream, ~130 MiB for seven if nothing bounded them.
    await flood(d, 3_000);
    await d.waitForLine(() => d.lines().filter((l) => l.includes('live stream dropped')).length >= 7, 'seven streams dropped', 20_000);
    const during = d.memory();
    const drops = d.lines().filter((l) => l.includes('live stream dropped')).map((l) => JSON.parse(l) as { unsentBytes: number; limit: number; path: string });
    expect(drops).toHaveLength(7);
    for (const x of drops) {
      expect(x.limit).toBe(MB);
      expect(x.unsentBytes).toBeGreaterThan(MB);
      expect(x.path).toBe('/api/logs/stream');
    }
    // The client that reads kept its stream and got the whole flood.
    expect(reader.ended()).toBe(false);
    expect(reader.bytes()).toBeGreaterThan(3_000 * 6_000);
    reader.close();
    for (const s of stuck) s.destroy();
    const closedAt = performance.now();
    // Back to the level before: polled (the same memory reducer has to run), bounded.
    let after = d.memory();
    while (after.rss - before.rss >= 4 && performance.now() - closedAt < 3 * SETTLE_MS) {
      await new Promise((r) => setTimeout(r, 500));
      after = d.memory();
    }
    const backInS = (performance.now() - closedAt) / 1000;
    console.error(
      `figure: 7 stuck + 1 reading log streams under a ${((3_000 * 6_000) / MB).toFixed(0)} MiB log flood -> daemon RSS ${before.rss.toFixed(1)} MiB before, ` +
        `${during.rss.toFixed(1)} MiB when all 7 were dropped, ${after.rss.toFixed(1)} MiB ${backInS.toFixed(1)} s after they closed (peak ${after.hwm.toFixed(1)} MiB)`,
    );
    expect(after.rss - before.rss).toBeLessThan(4);
    // Bounded meanwhile too: 7 x 1 MiB of unsent data at most, plus the flood's own garbage.
    expect(after.hwm - before.rss).toBeLessThan(40);
  }, 120_000);
});
