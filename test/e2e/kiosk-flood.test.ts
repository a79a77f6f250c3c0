/**
 * The kiosk page bounded like the technician port (docs/decisions/0036, 0038), on the real daemon,
 * socket-activated as the field runs it (the socket unit's SendBuffer= included):
 *
 * - A local attacker without the secret holds 300 idle sockets, 10 slowloris sockets and 20 sockets
 *   asking for streams, keys and cancels, reconnecting whenever the station closes one. Until every
 *   one of its sockets has been closed twice over (on average), the kiosk types and deletes a digit
 *   and waits for its own event stream to show each screen: every key is answered 204 and
 *   followed; the attacker's requests get 401 and reach nothing (no digit typed, the update lock
 *   never taken); the daemon holds no more sockets than `maxConnections` beyond its own; its RSS
 *   stays below the unit's MemoryHigh=.
 * - A stream with the secret that stops reading is dropped before what it holds — Node's unsent
 *   queue plus the kernel's unacknowledged send queue, as /proc/net/tcp tells — passes
 *   `streamBufferBytes`; the reading one is not.
 *
 * Nothing here waits for a time or measures one: the test goes on as the station's and the
 * attacker's events come. How long the kiosk's keys take under this flood is a figure of the bench
 * (`npm run bench`, bench/kiosk.ts). The counts are printed.
 */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { Agent, request, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { unitMemoryLimits } from '../../bench/lib/unit-memory.js';
import { txQueueIn } from '../../src/edge/send-queue.js';
import { KioskDaemon } from '../support/kiosk-daemon.js';
import { waitFor } from '../support/shared.js';

const FLOOD = join(import.meta.dirname, '../support/socket-flood.mjs');
const STREAM_BUFFER = 65_536;
const MAX_CONNECTIONS = 16;
/** The attacker's sockets: idle, slowloris, asking. */
const IDLE = 300;
const SLOW = 10;
const ASK = 20;

let k: KioskDaemon | undefined;
afterEach(async () => {
  pageAgent.destroy();
  await k?.close();
  k = undefined;
});

/** The kiosk's event stream with the secret, as the page reads it: the state events so far. */
function stream(kiosk: KioskDaemon): { events: () => unknown[]; response: Promise<IncomingMessage>; close: () => void } {
  const events: unknown[] = [];
  let buf = '';
  let res: IncomingMessage | null = null;
  const req = request({ host: '127.0.0.1', port: kiosk.port, path: '/events', headers: { authorization: `Bearer ${kiosk.secret}` }, agent: false });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', (r) => {
      res = r;
      r.setEncoding('utf8');
      r.on('data', (d: string) => {
        buf += d;
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (block.startsWith('event: state') && data) events.push(JSON.parse(data));
        }
      });
      r.on('error', () => undefined);
      resolve(r);
    });
    req.on('error', reject);
  });
  req.end();
  return { events: () => events, response, close: () => (res ? res.destroy() : req.destroy()) };
}

/** The screens with a typed digit (masked) among the stream's events. */
function masks(events: unknown[]): number {
  return events.filter((e) => (e as { lines: string[] }).lines.includes('PIN: *')).length;
}

/** The page's connections: kept alive between keys, as a browser keeps them. */
const pageAgent = new Agent({ keepAlive: true, maxSockets: 1 });

/** POST a key with the secret, as the page does; its status. */
function key(kiosk: KioskDaemon, k: string): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ key: k });
    const req = request(
      {
        host: '127.0.0.1',
        port: kiosk.port,
        path: '/key',
        method: 'POST',
        agent: pageAgent,
        timeout: 5_000,
        headers: { authorization: `Bearer ${kiosk.secret}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer in 5 s')));
    req.on('error', reject);
    req.end(body);
  });
}

/** The daemon's open TCP sockets (file descriptors that are sockets, minus unix ones counted apart). */
function socketFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:');
    } catch {
      return false;
    }
  }).length;
}

describe('kiosk page under a local flood', () => {
  it('300 idle + 10 slowloris + 20 asking sockets without the secret: capped, refused, closed; the kiosk keeps its stream and keys; RSS below MemoryHigh=', async () => {
    k = await KioskDaemon.start({ activated: true, kiosk: { refusalLogIntervalMs: 1_000, maxConnections: MAX_CONNECTIONS } });
    const live = stream(k);
    await live.response;
    await waitFor('the first state', () => live.events().length > 0);
    const sockets0 = socketFds(k.daemonPid);
    const rss0 = k.memory().rss;
    const attacker = spawn(process.execPath, [FLOOD, String(k.port), String(IDLE), String(SLOW), '200', '200', String(ASK)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let attackerOut = '';
    const countLines: ((stats: Record<string, number>) => void)[] = [];
    attacker.stdout.on('data', (b: Buffer) => {
      const before = attackerOut.split('\n').length - 1;
      attackerOut += b.toString();
      const lines = attackerOut.split('\n');
      for (const line of lines.slice(before, -1)) if (line.startsWith('{')) countLines.shift()?.(JSON.parse(line) as Record<string, number>);
    });
    /** The attacker's counts now (it prints them on SIGUSR1). */
    const attackerCounts = (): Promise<Record<string, number>> =>
      new Promise((resolve) => {
        countLines.push(resolve);
        attacker.kill('SIGUSR1');
      });
    const exited = new Promise((r) => attacker.once('exit', r));
    const evicted = () => k!.logs().filter((l) => l['msg'] === 'kiosk page: a connection without the kiosk secret was closed to make room');
    try {
      await waitFor('the attacker', () => attackerOut.includes('ready'));
      // The cap in play: the station has begun closing the attacker's sockets to make room.
      await waitFor('a socket closed to make room', () => evicted().length > 0, 30_000);
      let pairs = 0;
      let maxSockets = 0;
      let counts = await attackerCounts();
      // Until every socket of the attacker's has been closed twice over (on average), and its
      // requests have been answered: the flood is real for every key below.
      while ((counts['closedByStation'] ?? 0) < 2 * (IDLE + SLOW + ASK) || (counts['answered401'] ?? 0) <= 50) {
        expect(pairs, 'the flood never got going').toBeLessThan(5_000);
        for (const d of ['5', 'backspace']) expect((await key(k, d)).status).toBe(204);
        pairs++;
        // The kiosk's stream follows: the digit's screen (masked), and the one after its deletion.
        await waitFor(`the screen of key pair ${pairs}`, () => masks(live.events()) >= pairs, 30_000);
        maxSockets = Math.max(maxSockets, socketFds(k.daemonPid));
        counts = await attackerCounts();
      }
      const { rss, hwm } = k.memory();
      attacker.kill('SIGTERM');
      await exited;
      const stats = JSON.parse(
        attackerOut
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .at(-1) ?? '{}',
      ) as Record<string, number>;

      // The kiosk's stream followed every key: typed and deleted, the screen each time.
      expect(masks(live.events())).toBeGreaterThanOrEqual(pairs);
      // The attack was real, and got nowhere: refused and closed; no digit of its own typed.
      expect(stats['answered401']).toBeGreaterThan(50);
      expect(stats['closedByStation']).toBeGreaterThan(300);
      const status = await k.rig.statusUntil(() => true, 'status');
      expect(status['pin']).toBeUndefined();
      const refused = k.logs().filter((l) => l['msg'] === 'kiosk page: requests refused (keys, heartbeats and streams need the kiosk secret)');
      expect(refused.length).toBeGreaterThan(0);
      // Bounded: at most maxConnections of the kiosk's beside what the daemon had before; below MemoryHigh=.
      expect(maxSockets - sockets0).toBeLessThanOrEqual(MAX_CONNECTIONS);
      const { highMiB } = unitMemoryLimits();
      expect(hwm).toBeLessThan(highMiB);
      console.error(
        `figure: kiosk flood (attacker opened ${stats['opened']}, station closed ${stats['closedByStation']}, 401s ${stats['answered401']}, 408s ${stats['answered408']}): ` +
          `${pairs} key pairs, each answered and followed by the kiosk's stream; ` +
          `daemon sockets ${sockets0} -> at most ${maxSockets} (cap ${MAX_CONNECTIONS}); RSS ${rss0.toFixed(0)} -> ${rss.toFixed(0)} MiB, peak ${hwm.toFixed(0)} MiB (MemoryHigh ${highMiB} MiB)`,
      );
    } finally {
      live.close();
      if (attacker.exitCode === null) {
        attacker.kill('SIGTERM');
        await exited;
      }
    }
  }, 90_000);

  it('a stream that stops reading is dropped before Node and the kernel hold streamBufferBytes for it; the reading stream stays', async () => {
    k = await KioskDaemon.start({ activated: true, kiosk: { streamBufferBytes: STREAM_BUFFER } });
    const reader = stream(k);
    await reader.response;
    // The stuck one: a request with the secret, then never a byte read (the socket paused).
    const stuck: Socket = connect(k.port, '127.0.0.1');
    stuck.on('error', () => undefined);
    await new Promise<void>((r) => stuck.once('connect', () => r()));
    stuck.write(`GET /events HTTP/1.1\r\nHost: 127.0.0.1:${k.port}\r\nAuthorization: Bearer ${k.secret}\r\n\r\n`);
    stuck.pause();
    const local = stuck.localPort ?? 0;
    // The kernel's view of the station's side of the stuck connection: its unacknowledged bytes.
    const stationQueue = (): number | null => txQueueIn(readFileSync('/proc/net/tcp', 'latin1'), k!.port, local);
    let maxQueue = 0;
    let updates = 0;
    const rss0 = k.memory().rss;
    const dropped = () => k!.logs().find((l) => l['msg'] === 'kiosk page: an event stream that does not read was dropped');
    // Every key changes the screen: a state event to both streams. (The paused socket never reads, so
    // it never sees its end: the daemon's word and the kernel's table tell.)
    for (let i = 0; i < 2_000 && dropped() === undefined; i++) {
      expect((await key(k, i % 2 === 0 ? '3' : 'backspace')).status).toBe(204);
      updates++;
      maxQueue = Math.max(maxQueue, stationQueue() ?? 0);
    }
    const drop = dropped();
    expect(drop).toBeDefined();
    // Gone on the station's side: no connection of the port to the stuck socket left in the kernel's table.
    await waitFor('the station let go of it', () => stationQueue() === null, 10_000);
    // Dropped at the write that would have taken it past the bound: it never held more.
    expect(drop!['held'] as number).toBeLessThanOrEqual(STREAM_BUFFER);
    expect((drop!['held'] as number) + (drop!['adding'] as number)).toBeGreaterThan(STREAM_BUFFER);
    // What the kernel held for it, as the kernel's own table says, never passed it either.
    expect(maxQueue).toBeLessThanOrEqual(STREAM_BUFFER);
    // The reading stream got every update and is still open.
    await waitFor('the reader caught up', () => reader.events().length >= updates, 10_000);
    expect((await key(k, '3')).status).toBe(204);
    await waitFor('the reader still follows', () => reader.events().length >= updates + 1, 10_000);
    const { rss, hwm } = k.memory();
    console.error(
      `figure: a stream that stops reading: dropped after ${updates} updates, holding ${String(drop!['held'])} B (Node ${String(drop!['queued'])} + kernel ${String(drop!['kernel'])}), ` +
        `the kernel's queue for it at most ${maxQueue} B (bound ${STREAM_BUFFER}); RSS ${rss0.toFixed(0)} -> ${rss.toFixed(0)} MiB, peak ${hwm.toFixed(0)} MiB`,
    );
    reader.close();
  }, 90_000);
});
