/**
 * The runtime's drain (real runtime and HTTP client against the reference server): the event in
 * flight is not resent, an answered box-open is carried out, and what the drain cut short stays in
 * the journal for the next run to report.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryJournal } from '../../src/journal/memory.js';
import { SEED_BARCODES } from '../../src/reference-server/index.js';
import { waitFor } from '../support/shared.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});
const idle = (h: Harness) => waitFor('idle', () => h.station.runtime.snapshot().mode.kind === 'idle' && h.station.runtime.snapshot().inFlight === null);

describe('StationRuntime.drain', () => {
  it('an event whose answer was lost is not resent: drained at once, and the journal keeps it for the next run', async () => {
    const journal = new MemoryJournal();
    h = await startHarness({ journal, server: { answerTimeoutMs: 5_000 } });
    await idle(h);
    h.server.setFault('item-identify', 'drop');
    h.sim.scanBarcode(SEED_BARCODES[0]);
    const sent = await h.server.waitForRequest((r) => r.endpoint === 'item-identify' && r.fault === 'drop');
    // The answer timeout is 5 s: a resend would come then. 'drained' rather than 'limit' says the
    // drain ended before its 4 s limit, so before any resend was due; and none was sent after.
    expect(await h.station.drain(4_000)).toBe('drained');
    expect(h.server.requests.filter((r) => r.endpoint === 'item-identify')).toHaveLength(1);
    expect(h.logs.some((l) => l.includes('not resent: station stopping'))).toBe(true);
    expect(journal.current().inFlight?.eventId).toBe(sent.eventId);
    expect(h.sim.locks.pulses).toEqual([]);
  });

  it('an answered box-open is pulsed and reported before drained; input meanwhile is refused', async () => {
    h = await startHarness();
    await idle(h);
    h.server.setFault('item-identify', { kind: 'delay', ms: 300 }, { times: 1 });
    h.sim.scanBarcode(SEED_BARCODES[0]);
    await h.server.waitForRequest((r) => r.endpoint === 'item-identify');
    const drained = h.station.drain(5_000);
    h.sim.typePin('123456');
    expect(await drained).toBe('drained');
    expect(h.sim.locks.pulses).toEqual([{ box: 1, ms: 50 }]);
    const opened = h.server.requests.find((r) => r.endpoint === 'state' && JSON.stringify(r.body).includes('"OPEN"'));
    expect(opened?.status).toBe(200);
    expect(h.server.requests.filter((r) => r.endpoint === 'pin-enter')).toEqual([]);
  });

  it('the limit: an answer that takes longer ends the drain with "limit"', async () => {
    h = await startHarness({ server: { answerTimeoutMs: 5_000 } });
    await idle(h);
    h.server.setFault('item-identify', { kind: 'delay', ms: 3_000 }, { times: 1 });
    h.sim.scanBarcode(SEED_BARCODES[0]);
    await h.server.waitForRequest((r) => r.endpoint === 'item-identify');
    expect(await h.station.drain(200)).toBe('limit');
  });
});
