/**
 * scan → /item-identify received at the reference server: the barcode is written into a real
 * pseudo-terminal (socat), read by the real serial scanner driver in a station process
 * (bench/children/scan-station.ts, bundled like the release, the unit's node flags), framed,
 * turned into a core input, sent by the protocol client; the clock stops when the server has the
 * whole body. Beside it, in the same run and interleaved, the bare-Node hop (bench/children/
 * bare-hop.ts) over its own pty pair, twice: with tty.ReadStream and with serialport.
 *
 * One clock for all: the writer and the server live in this process (performance.now()).
 */
import { openSync, closeSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ReferenceServer, generateStation, type RequestRecord } from '../src/reference-server/index.js';
import { PtyPair } from './lib/pty.js';
import { IPC_STDIO, childScript, isReadyMessage, nextMessage, sleep, spawnNode, stopChild, type Spawned } from './lib/proc.js';
import type { NodeUnderTest } from './lib/node.js';
import { summarize, type Summary } from './lib/stats.js';

export interface ScanResult {
  readonly station: Summary;
  readonly bareTty: Summary;
  readonly bareSerialport: Summary;
  /** Experiment: the same station logging at warn (no info line per scan). */
  readonly stationWarn?: Summary;
}

interface Variant {
  readonly name: keyof ScanResult;
  readonly pty: PtyPair;
  proc?: Spawned;
  fd?: number;
  readonly samples: number[];
}

export async function benchScan(
  dir: string,
  node: NodeUnderTest,
  stationScript: string,
  nodeFlags: readonly string[],
  iterations: number,
  warmup: number,
  experiment = false,
): Promise<ScanResult> {
  const station = generateStation(8);
  // A second station for the experiment variant: two stations never share an id.
  const second = generateStation(8);
  const server = new ReferenceServer({ stations: [station, second], maxRecords: 1_000 });
  const url = await server.start();
  const names: (keyof ScanResult)[] = ['station', 'bareTty', 'bareSerialport', ...(experiment ? (['stationWarn'] as const) : [])];
  const variants: Variant[] = names.map((name) => ({ name, pty: new PtyPair(dir, name), samples: [] }));
  try {
    for (const v of variants) {
      await v.pty.start();
      const args =
        v.name === 'station' || v.name === 'stationWarn'
          ? [
              ...nodeFlags,
              stationScript,
              JSON.stringify({
                serverUrl: url,
                station: v.name === 'station' ? station : second,
                tty: v.pty.b,
                stateDir: join(dir, `${v.name}-state`),
                ...(v.name === 'stationWarn' ? { logLevel: 'warn' } : {}),
              }),
            ]
          : [childScript('bare-hop'), v.name === 'bareTty' ? 'tty' : 'serialport', v.pty.b, `${url}/item-identify`, station.id, station.password];
      v.proc = spawnNode(args, { node: node.path, stdio: [...IPC_STDIO] });
      await nextMessage(v.proc.child, isReadyMessage, 15_000, `${v.name} ready`);
      v.fd = openSync(v.pty.a, 'r+');
    }
    for (let i = 0; i < warmup + iterations; i++) {
      // Rotate the order so no variant always runs right after another one's burst.
      for (let k = 0; k < variants.length; k++) {
        const v = variants[(i + k) % variants.length] as Variant;
        const value = `3${k}${String(i).padStart(12, '0')}`;
        const ms = await oneScan(server, v.fd as number, value);
        if (i >= warmup) v.samples.push(ms);
        // Let the station take the answer (a 404 here) before the next scan, so it is idle again.
        await sleep(10);
      }
    }
  } finally {
    for (const v of variants) {
      if (v.fd !== undefined) closeSync(v.fd);
      if (v.proc) {
        v.proc.child.disconnect?.();
        await stopChild(v.proc);
      }
      await v.pty.stop();
    }
    await server.stop();
  }
  const by = (name: keyof ScanResult): Summary => summarize(variants.find((v) => v.name === name)?.samples ?? []);
  return { station: by('station'), bareTty: by('bareTty'), bareSerialport: by('bareSerialport'), ...(experiment ? { stationWarn: by('stationWarn') } : {}) };
}

async function oneScan(server: ReferenceServer, fd: number, value: string): Promise<number> {
  const afterSeq = server.lastSeq;
  const sent = server.waitForRequest((r: RequestRecord) => r.endpoint === 'item-identify' && hasValue(r.body, value), 5_000, { afterSeq });
  const t0 = performance.now();
  writeSync(fd, `${value}\r\n`);
  const rec = await sent;
  return rec.at - t0;
}

function hasValue(body: unknown, value: string): boolean {
  return typeof body === 'object' && body !== null && 'identifierValue' in body && body.identifierValue === value;
}
