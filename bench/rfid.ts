/**
 * Library RFID, as the wire allows it at 115200 baud:
 *
 * - tag placed → /item-identify received at the reference server: a tag image is laid on the model
 *   reader (in this process, on one end of a socat pty, answering with its processing time and the
 *   line time of 115200 baud 8E1); the station in its own process (bench/children/rfid-station.ts,
 *   bundled like the release) polls it with the real driver, reads and decodes the tag, and its
 *   core sends the item number. The inventory interval (`inventoryIntervalMs`, default 200) is in
 *   the figure: a tag waits on average half of it for the next inventory.
 * - a set of 10 tags placed at once → /item-identify (the station reports an item of several parts
 *   once all its parts lie on the reader), in two kinds measured in turns in the same run: ISO
 *   28560-3 tags with the 34-byte basic block, a library and a title extension block (71 bytes of
 *   data) on an ICODE SLIX2 (80 blocks of 4 bytes), and the Danish 32-byte block alone on an ICODE
 *   SLIX (28 blocks): what the longer data costs, the driver reading as far as the data needs. Beside each, the model's own account of its answers over the same
 *   interval (processing + line time, idle inventories included): what any host would wait.
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
  /** 10 tags, ISO 28560-3 34-byte block + library and title blocks, ICODE SLIX2: placed → /item-identify. */
  readonly set10Full: Summary;
  readonly set10FullFloor: Summary;
  /** The same with the Danish 32-byte block alone on an ICODE SLIX. */
  readonly set10Danish: Summary;
  readonly set10DanishFloor: Summary;
  readonly setRead: Summary;
  readonly setReadFloor: Summary;
}

const BAUD = 115_200;
const INTERVAL_MS = 200;
const SET_PARTS = 10;
/** An ICODE SLIX2's user memory in blocks of 4 bytes. */
const SLIX2_BLOCKS = 80;
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
  const set10: Record<'full' | 'danish', { samples: number[]; floor: number[] }> = { full: { samples: [], floor: [] }, danish: { samples: [], floor: [] } };
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
      // Generous: on a shared machine a stall of seconds happens; a lost report still fails the run.
      const sent = server.waitForRequest((r: RequestRecord) => r.endpoint === 'item-identify' && hasValue(r.body, itemId), 30_000, { afterSeq });
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
    // Sets of 10, the two kinds in turns so that both see the same load.
    const setRuns = Math.max(3, Math.round(iterations / 5));
    for (let i = 0; i < warmup + setRuns; i++) {
      for (const kind of ['full', 'danish'] as const) {
        const itemId = `S10${kind === 'full' ? 'F' : 'D'}-${String(i).padStart(6, '0')}`;
        const tags = Array.from({ length: SET_PARTS }, (_, n) =>
          kind === 'full'
            ? iso28560_3Tag({
                itemId,
                afi: 0x07,
                of: SET_PARTS,
                part: n + 1,
                form: 'full',
                country: 'DE',
                library: 'MUS-815718',
                mediaFormat: 1,
                title: 'Atlas of the world, 2nd ed.',
                blocks: SLIX2_BLOCKS,
              })
            : iso28560_3Tag({ itemId, afi: 0x07, of: SET_PARTS, part: n + 1, library: '710100' }),
        );
        const afterSeq = server.lastSeq;
        const sent = server.waitForRequest((r: RequestRecord) => r.endpoint === 'item-identify' && hasValue(r.body, itemId), 30_000, { afterSeq });
        await sleep(Math.random() * INTERVAL_MS);
        const floor0 = model.emulatedMs;
        const t0 = performance.now();
        for (const t of tags) model.place(t);
        const rec = await sent;
        if (i >= warmup) {
          set10[kind].samples.push(rec.at - t0);
          set10[kind].floor.push(model.emulatedMs - floor0);
        }
        for (const t of tags) model.remove(t.uid);
        const seen = model.seen.length;
        while (model.seen.length < seen + 3) await sleep(10);
      }
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
    set10Full: summarize(set10.full.samples),
    set10FullFloor: summarize(set10.full.floor),
    set10Danish: summarize(set10.danish.samples),
    set10DanishFloor: summarize(set10.danish.floor),
    setRead: summarize(setSamples),
    setReadFloor: summarize(floorSamples),
  };
}

function hasValue(body: unknown, value: string): boolean {
  return typeof body === 'object' && body !== null && 'identifierValue' in body && body.identifierValue === value;
}
