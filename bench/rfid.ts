/**
 * Library RFID, as the wire allows it at 115200 baud:
 *
 * - tag placed → /item-identify received at the reference server: a tag image is laid on the model
 *   reader (in this process, on one end of a socat pty, answering with its processing time and the
 *   line time of 115200 baud 8E1); the station in its own process (bench/children/rfid-station.ts,
 *   bundled like the release) polls it with the real driver, reads and decodes the tag, and its
 *   core sends the item number. The inventory interval (`inventoryIntervalMs`, default 200) is in
 *   the figure: a tag waits on average half of it for the next inventory.
 * - inventory + read of a 3-part set: the FEIG session (the driver's protocol layer) in this process
 *   over its own pty against a second model with three tags: one inventory, then for each tag its
 *   system information and its 112 bytes of memory. Beside it, the floor: the time the model's own
 *   account gives for the same answers (processing + line time) — what any host would wait for.
 *
 * The model's processing times are estimates from ISO/IEC 15693's air interface (26.48 kbit/s:
 * an inventory round about 20 ms, a 4-byte block about 1.3 ms), not a FEIG reader's measurements.
 */
import { join } from 'node:path';
import { openSerialPort } from '../src/devices/serial/link.js';
import { feigIsoHost } from '../src/devices/rfid/feig/session.js';
import { FeigReaderModel, type ModelTiming } from '../src/devices/simulated/feig-reader-model.js';
import { serveModel } from '../src/devices/simulated/model-port.js';
import { iso28560_3Set, iso28560_3Tag } from '../src/devices/simulated/tag-images.js';
import { ReferenceServer, generateStation, type RequestRecord } from '../src/reference-server/index.js';
import { PtyPair } from './lib/pty.js';
import { isReadyMessage, nextMessage, sleep, spawnNode, stopChild } from './lib/proc.js';
import type { NodeUnderTest } from './lib/node.js';
import { summarize, type Summary } from './lib/stats.js';

export interface RfidResult {
  readonly baudRate: number;
  readonly inventoryIntervalMs: number;
  readonly tagToIdentify: Summary;
  readonly setRead: Summary;
  readonly setReadFloor: Summary;
}

const BAUD = 115_200;
const INTERVAL_MS = 200;
/** ISO/IEC 15693 at its high data rate, by estimate (see the header). */
export const MODEL_TIMING: ModelTiming = { inventoryMs: 20, perTagMs: 4, readMs: 4, perBlockMs: 1.3, writeMs: 12, otherMs: 4 };

export async function benchRfid(
  dir: string,
  node: NodeUnderTest,
  stationScript: string,
  nodeFlags: readonly string[],
  iterations: number,
  warmup: number,
): Promise<RfidResult> {
  const station = generateStation(8);
  const server = new ReferenceServer({ stations: [station], maxRecords: 1_000 });
  const url = await server.start();
  const pty = new PtyPair(dir, 'rfid');
  const model = new FeigReaderModel({ baudRate: BAUD, timing: MODEL_TIMING });
  const setPty = new PtyPair(dir, 'rfid-set');
  const setModel = new FeigReaderModel({ baudRate: BAUD, timing: MODEL_TIMING });
  const tagSamples: number[] = [];
  const setSamples: number[] = [];
  const floorSamples: number[] = [];
  let proc: ReturnType<typeof spawnNode> | null = null;
  try {
    await pty.start();
    const served = await serveModel(model, pty.a);
    proc = spawnNode(
      [
        ...nodeFlags,
        stationScript,
        JSON.stringify({ serverUrl: url, station, tty: pty.b, stateDir: join(dir, 'rfid-state'), inventoryIntervalMs: INTERVAL_MS }),
      ],
      { node: node.path, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
    );
    await nextMessage(proc.child, isReadyMessage, 20_000, 'rfid station ready');
    for (let i = 0; i < warmup + iterations; i++) {
      const itemId = `31234${String(i).padStart(9, '0')}`;
      const tag = iso28560_3Tag({ itemId, afi: 0x07 });
      const afterSeq = server.lastSeq;
      const sent = server.waitForRequest((r: RequestRecord) => r.endpoint === 'item-identify' && hasValue(r.body, itemId), 10_000, { afterSeq });
      // Laid at a random point of the polling cycle, as a librarian lays it.
      await sleep(Math.random() * INTERVAL_MS);
      const t0 = performance.now();
      model.place(tag);
      const rec = await sent;
      if (i >= warmup) tagSamples.push(rec.at - t0);
      model.remove(tag.uid);
      // Gone after one missed inventory; a second one for the station's answer (a 404) to be shown and gone.
      const seen = model.seen.length;
      while (model.seen.length < seen + 3) await sleep(10);
    }
    await served.close();

    await setPty.start();
    const setServed = await serveModel(setModel, setPty.a);
    for (const t of iso28560_3Set({ itemId: 'SET-3', of: 3, afi: 0x07 })) setModel.place(t);
    let session: ReturnType<typeof feigIsoHost.session> | null = null;
    const link = await openSerialPort({ path: setPty.b, ...feigIsoHost.line }, { onData: (c) => session?.receive(c), lost: () => undefined });
    session = feigIsoHost.session(link, {
      device: 'bench',
      busAddress: 0xff,
      frame: 'advanced',
      answerTimeoutMs: 2_000,
      blockOrder: 'reversed',
      blocksPerRead: 16,
    });
    for (let i = 0; i < warmup + iterations; i++) {
      const floor0 = setModel.emulatedMs;
      const t0 = performance.now();
      const tags = await session.inventory();
      for (const t of tags) {
        const info = await session.tagInfo(t.uid);
        const count = info?.blockCounts?.[0];
        if (count === undefined) throw new Error(`tag ${t.uid} gave no block count`);
        await session.readBlocks(t.uid, 0, count);
      }
      if (tags.length !== 3) throw new Error(`inventory found ${tags.length} tags, 3 lie there`);
      if (i >= warmup) {
        setSamples.push(performance.now() - t0);
        floorSamples.push(setModel.emulatedMs - floor0);
      }
    }
    session.close('done');
    await link.close();
    await setServed.close();
  } finally {
    if (proc) {
      proc.child.disconnect?.();
      await stopChild(proc);
    }
    model.close();
    setModel.close();
    await pty.stop();
    await setPty.stop();
    await server.stop();
  }
  return {
    baudRate: BAUD,
    inventoryIntervalMs: INTERVAL_MS,
    tagToIdentify: summarize(tagSamples),
    setRead: summarize(setSamples),
    setReadFloor: summarize(floorSamples),
  };
}

function hasValue(body: unknown, value: string): boolean {
  return typeof body === 'object' && body !== null && 'identifierValue' in body && body.identifierValue === value;
}
