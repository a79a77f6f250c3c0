/**
 * The soak's server side, in a process of its own so that its memory and its event loop are not
 * counted as the station's: the reference server behind the fault gateway and TLS terminators
 * (test/support/fault-catalogue.ts), steered by the soak over IPC (soak/ipc.ts). It hands out new
 * deposits and pickup PINs as the scripted people use them up, and counts the door transitions it
 * sees in the /state bodies it receives.
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { StateRequest } from '../src/protocol/types.js';
import type { SimulatedStation } from '../src/reference-server/types.js';
import { faultCatalogue, FaultyServer, makeFaultCerts } from '../test/support/fault-catalogue.js';
import type { Envelope, ServerReport, SoakReply, SoakRequest } from './ipc.js';

let faulty: FaultyServer | null = null;
let station: SimulatedStation | null = null;
let answerTimeoutMs = 500;
const pins = new Set<string>();
let items = 0;

// Door transitions seen, counted from the /state bodies received (each eventId once), in order.
let seenSeq = 0;
let stateRequests = 0;
const seenEvents = new Set<string>();
const lastState = new Map<string, string>();
const transitions = new Map<string, number>();

function scan(): void {
  if (faulty === null || station === null) return;
  for (const r of faulty.server.requests) {
    if (r.seq <= seenSeq) continue;
    seenSeq = r.seq;
    if (r.endpoint !== 'state') continue;
    stateRequests++;
    const body = r.body as Partial<StateRequest> | null;
    if (r.eventId === null || seenEvents.has(r.eventId) || !Array.isArray(body?.boxes)) continue;
    seenEvents.add(r.eventId);
    for (const b of body.boxes as StateRequest['boxes']) {
      const before = lastState.get(b.id) ?? 'CLOSED';
      if (b.st !== before) transitions.set(b.id, (transitions.get(b.id) ?? 0) + 1);
      lastState.set(b.id, b.st);
    }
  }
}

function boxId(n: number): string {
  const id = station?.boxes[n - 1];
  if (id === undefined) throw new Error(`no box ${n}`);
  return id;
}

function report(): ServerReport {
  scan();
  if (faulty === null || station === null) throw new Error('not started');
  const number = (id: string): string => String(station!.boxes.indexOf(id) + 1);
  const snap = faulty.server.stationState(station.id);
  return {
    stateRequests,
    distinctStates: seenEvents.size,
    transitionsSeen: Object.fromEntries([...transitions].map(([id, n]) => [number(id), n])),
    lastReported: Object.fromEntries([...lastState].map(([id, st]) => [number(id), st])),
    requests: faulty.server.lastSeq,
    depositsStored: snap.storedDeposits.length,
    pickupsDone: snap.usedPickups.length,
    rssMiB: Math.round((process.memoryUsage.rss() / 1048576) * 10) / 10,
  };
}

async function handle(req: SoakRequest): Promise<SoakReply> {
  switch (req.op) {
    case 'start': {
      const input = JSON.parse(readFileSync(req.stationFile, 'utf8')) as { station: SimulatedStation; answerTimeoutMs: number };
      station = input.station;
      answerTimeoutMs = input.answerTimeoutMs;
      const certs = makeFaultCerts();
      faulty = new FaultyServer(certs, { stations: [station], maxRecords: 1_000_000 });
      const baseUrl = await faulty.start();
      setInterval(scan, 500).unref();
      return { op: 'start', baseUrl, caFile: certs.ca.certFile };
    }
    case 'apply': {
      const def = faultCatalogue(answerTimeoutMs).find((f) => f.name === req.fault);
      if (def === undefined || faulty === null) throw new Error(`no fault ${req.fault}`);
      await faulty.apply(def, '*');
      return { op: 'ok' };
    }
    case 'heal':
      await faulty?.heal();
      return { op: 'ok' };
    case 'deposit': {
      if (faulty === null || station === null) throw new Error('not started');
      const identifierValue = `SOAK${String(++items).padStart(8, '0')}`;
      faulty.server.addDeposit({ identifierValue, identifierType: 'BAR_CODE', stationId: station.id, boxId: boxId(req.box) });
      return { op: 'deposit', identifierValue };
    }
    case 'pickup': {
      if (faulty === null || station === null) throw new Error('not started');
      let pin: string;
      do pin = String(randomInt(0, 1_000_000)).padStart(6, '0');
      while (pins.has(pin));
      pins.add(pin);
      faulty.server.addPickup({ pin, stationId: station.id, boxIds: [boxId(req.box)] });
      return { op: 'pickup', pin };
    }
    case 'report':
      return { op: 'report', report: report() };
  }
}

process.on('message', (m: Envelope<SoakRequest>) => {
  handle(m.body).then(
    (body) => process.send?.({ id: m.id, body } satisfies Envelope<SoakReply>),
    (e: unknown) => process.send?.({ id: m.id, body: { op: 'ok' }, error: e instanceof Error ? e.message : String(e) } satisfies Envelope<SoakReply>),
  );
});
process.on('disconnect', () => {
  void faulty?.stop().finally(() => process.exit(0));
});
