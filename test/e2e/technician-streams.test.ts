/**
 * Live streams have backpressure (docs/decisions/0038), on the daemon as a process: eight
 * `/api/logs/stream` clients that never read, under a log flood, are dropped once their unsent
 * data passes technician.streamBufferBytes; a client that reads keeps its stream (a 12 MiB backlog
 * included); after the stuck clients are gone the daemon's memory, measured after a forced GC
 * (the daemon's own runDaemon with a GC hook: support/daemon-gc.mjs), is back where it was.
 *
 * The flood: authenticated requests with long paths at log level debug, so each writes one
 * ~6 KiB line to the log ring (and to every live log stream).
 */
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ReferenceServer, defaultSeed } from '../../src/reference-server/index.js';
import { sleep, STATION, waitFor } from '../support/shared.js';
import { startDaemon, type Daemon } from '../support/daemon.js';

const MB = 1024 * 1024;
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

/** A live log stream read as fast as it comes (after a backlog of `lines`); counts the bytes. */
function readingStream(d: Daemon, lines = 0): { bytes: () => number; ended: () => boolean; close: () => void } {
  let bytes = 0;
  let ended = false;
  const req = request(`${d.url}/api/logs/stream?lines=${lines}`, { headers: { authorization: `Bearer ${d.token}` }, agent: false }, (res) => {
    res.on('data', (b: Buffer) => (bytes += b.length));
    res.on('close', () => (ended = true));
  });
  req.on('error', () => (ended = true));
  req.end();
  return { bytes: () => bytes, ended: () => ended, close: () => req.destroy() };
}

describe('live streams whose clients stop reading', () => {
  it('are dropped past technician.streamBufferBytes; the reader keeps its stream; memory after GC returns to its level before', async () => {
    server = new ReferenceServer({ stations: [STATION], ...defaultSeed(STATION) });
    const url = await server.start();
    daemon = await startDaemon(new URL(url).origin, { log: { level: 'debug' }, technician: { logLines: 2_000 } }, { gc: true });
    const d = daemon;
    // Warm-up: the same flood to eight clients that read, so the ring is full (2,000 lines of
    // ~6 KiB) and everything the flood and eight streams need anyway has been allocated once.
    const warm = Array.from({ length: 8 }, () => readingStream(d));
    await sleep(300);
    await flood(d, 3_000);
    for (const w of warm) w.close();
    await sleep(500);
    const before = await d.memoryAfterGc();

    const reader = readingStream(d, 2_000);
    const stuck = await Promise.all(Array.from({ length: 7 }, () => stuckStream(d)));
    await sleep(300);
    // 3,000 lines of ~6 KiB: ~18 MiB per stream, ~125 MiB for seven if nothing bounded them.
    await flood(d, 3_000);
    await waitFor('seven streams dropped', () => d.lines().filter((l) => l.includes('live stream dropped')).length >= 7, 20_000);
    const during = d.memory();
    const drops = d
      .lines()
      .filter((l) => l.includes('live stream dropped'))
      .map((l) => JSON.parse(l) as { unsentBytes: number; limit: number; path: string });
    expect(drops).toHaveLength(7);
    for (const x of drops) {
      expect(x.limit).toBe(256 * 1024);
      expect(x.unsentBytes).toBeGreaterThan(256 * 1024);
      expect(x.path).toBe('/api/logs/stream');
    }
    // The client that reads kept its stream: the 12 MiB backlog it asked for, then the whole flood.
    expect(reader.ended()).toBe(false);
    expect(reader.bytes()).toBeGreaterThan((2_000 + 3_000) * 6_000);
    reader.close();
    for (const s of stuck) s.destroy();
    await sleep(500);
    const after = await d.memoryAfterGc();
    console.error(
      `figure: 7 stuck + 1 reading log streams under a ${((3_000 * 6_000) / MB).toFixed(0)} MiB log flood -> daemon after GC: RSS ${before.rss.toFixed(1)} MiB ` +
        `(heap ${before.heapUsed.toFixed(1)}, external ${before.external.toFixed(1)}) before, ${during.rss.toFixed(1)} MiB (no GC) when all 7 were dropped, ` +
        `${after.rss.toFixed(1)} MiB (heap ${after.heapUsed.toFixed(1)}, external ${after.external.toFixed(1)}) after they closed; peak ${after.hwm.toFixed(1)} MiB`,
    );
    // Nothing of the dropped streams is held: V8's heap and external memory are back where they were ...
    expect(after.heapUsed - before.heapUsed).toBeLessThan(2);
    expect(after.external - before.external).toBeLessThan(2);
    // ... and so is the process's RSS (what glibc keeps of freed buffers included).
    expect(after.rss - before.rss).toBeLessThan(8);
    // Bounded meanwhile: each stuck stream held at most 256 KiB unsent (the drop lines say how much),
    // the rest of the peak is the flood's garbage (and the reader's 12 MiB backlog) before V8
    // collects it. Unbounded, the seven alone would have held 7 x 18 MiB = 126 MiB.
    for (const x of drops) expect(x.unsentBytes).toBeLessThan(256 * 1024 + 16 * 1024);
    expect(after.hwm - before.rss).toBeLessThan(63);
  }, 120_000);
});
