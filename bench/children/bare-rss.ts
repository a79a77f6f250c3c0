/**
 * Bare Node under the same load as the memory run's station: sequential POSTs of /state bodies
 * over a keep-alive agent, nothing kept. Its RSS after GC is what a Node process that talks HTTP
 * costs at all, printed beside the station's.
 *
 *   node --expose-gc bare-rss.js URL AUTHORIZATION BODY
 *
 * IPC as rss-station.ts: {run: N} → N more requests answered, GC (settled), then
 * {events, memory: process.memoryUsage()}. Sends {ready: true} first; exits on disconnect.
 */
import { Agent, request } from 'node:http';

const [url, authorization, body] = process.argv.slice(2);
if (url === undefined || authorization === undefined || body === undefined) throw new Error('usage: bare-rss URL AUTHORIZATION BODY');
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
let events = 0;

function post(): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url as string, {
      method: 'POST',
      agent,
      headers: { authorization, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body as string) },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('error', reject);
    req.end(body);
  });
}

process.on('message', (m: { run?: number }) => {
  void (async () => {
    const target = events + (m.run ?? 0);
    while (events < target) {
      await post();
      events++;
    }
    for (let i = 0; i < 3; i++) {
      globalThis.gc?.();
      await new Promise((r) => setTimeout(r, 200));
    }
    process.send?.({ events, memory: process.memoryUsage() });
  })().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
});
process.send?.({ ready: true });
process.on('disconnect', () => process.exit(0));
