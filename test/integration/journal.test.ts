/**
 * The runtime writes its journal before it acts, through the same path as in the field (the real
 * runtime and HTTP client against the reference server; an in-memory journal port).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryJournal } from '../../src/journal/memory.js';
import type { JournalEntry } from '../../src/journal/types.js';
import { SEED_BARCODES, SEED_PIN_MULTI } from '../../src/reference-server/index.js';
import { box, waitFor } from '../support/shared.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});
const idle = (h: Harness) => waitFor('idle', () => h.station.runtime.snapshot().mode.kind === 'idle' && h.station.runtime.snapshot().inFlight === null);

/** Notes, for every record, whether any lock was energized when it was written. */
class WatchingJournal extends MemoryJournal {
  readonly seen: { entry: JournalEntry; energized: number[] }[] = [];
  energized: () => number[] = () => [];
  override record(entry: JournalEntry): void {
    this.seen.push({ entry, energized: this.energized() });
    super.record(entry);
  }
}

describe('journal written by the runtime', () => {
  it('deposit: event before the request, attempt, outcome, action and pulse before the lock is energized, doors of each answered /state', async () => {
    const journal = new WatchingJournal();
    h = await startHarness({ journal });
    const sim = h.sim;
    journal.energized = () => [1, 2, 3, 4, 5, 6, 7, 8].filter((n) => sim.locks.isEnergized(n));
    await idle(h);
    h.sim.scanBarcode(SEED_BARCODES[0]);
    await waitFor('waiting for closing', () => h!.station.runtime.snapshot().mode.kind === 'closing');
    h.sim.closeDoor(1);
    await waitFor('action finished', () => journal.current().action === null && journal.current().reported?.[box(1)] === 'CLOSED');

    const kinds = journal.seen.map((s) => s.entry.t);
    expect(kinds.slice(0, 2)).toEqual(['start', 'reported']);
    const from = kinds.indexOf('event');
    expect(kinds.slice(from, from + 5)).toEqual(['event', 'attempt', 'outcome', 'action', 'pulse']);
    const identify = h.server.requests.find((r) => r.endpoint === 'item-identify');
    expect(journal.seen[from]?.entry).toEqual({ t: 'event', endpoint: 'item-identify', eventId: identify?.eventId, preview: '***017 (14)' });
    // Write, then pulse: no lock was energized when the action and its pulse were written.
    for (const s of journal.seen.slice(from, from + 5)) expect(s.energized).toEqual([]);
    expect(sim.locks.pulses).toEqual([{ box: 1, ms: 50 }]);
    // Never the identifier itself.
    expect(JSON.stringify(journal.records)).not.toContain(SEED_BARCODES[0]);
  });

  it('pickup: no PIN in the journal; each box of a multi-box pickup journaled before its own pulse', async () => {
    const journal = new WatchingJournal();
    h = await startHarness({ journal });
    const sim = h.sim;
    journal.energized = () => [1, 2, 3, 4, 5, 6, 7, 8].filter((n) => sim.locks.isEnergized(n));
    await idle(h);
    h.sim.typePin(SEED_PIN_MULTI);
    await waitFor('both pulsed', () => sim.locks.pulses.length === 2 && !sim.locks.isEnergized(6));
    const pulses = journal.seen.filter((s) => s.entry.t === 'pulse');
    expect(pulses.map((p) => p.entry)).toEqual([expect.objectContaining({ boxId: box(5) }), expect.objectContaining({ boxId: box(6) })]);
    // Box 6's record was written after box 5's pulse ended, before box 6's began.
    expect(pulses.map((p) => p.energized)).toEqual([[], []]);
    expect(JSON.stringify(journal.records)).not.toContain(SEED_PIN_MULTI);
  });

  it('a technician open is journaled like a box-open', async () => {
    const journal = new MemoryJournal();
    h = await startHarness({ journal });
    await idle(h);
    h.station.runtime.dispatch({ type: 'technician-open', boxId: box(3) });
    await waitFor('pulsed', () => h!.sim.locks.pulses.length === 1);
    expect(journal.records).toContainEqual({ t: 'action', by: 'technician', eventId: null, boxes: [box(3)] });
    expect(journal.records).toContainEqual(expect.objectContaining({ t: 'pulse', boxId: box(3) }));
  });

  it('the next run reads back an unanswered event and reports it; it is never resent', async () => {
    const journal = new MemoryJournal();
    h = await startHarness({ journal, server: { answerTimeoutMs: 5_000 } });
    await idle(h);
    h.server.setFault('item-identify', { kind: 'delay', ms: 60_000 });
    h.sim.scanBarcode(SEED_BARCODES[0]);
    const sent = await h.server.waitForRequest((r) => r.endpoint === 'item-identify');
    // The station goes away with the event in flight (stop() aborts it; no outcome is journaled).
    await h.stop();
    h = await startHarness({ journal: journal.after() });
    const first = await h.server.waitForRequest((r) => r.endpoint === 'state');
    expect(first.body).toMatchObject({
      st: 'DOWN',
      errorMessage: expect.stringContaining(`/item-identify for ***017 (14) (event ${sent.eventId}, 1 attempt) not answered, not resent`),
    });
    const second = await h.server.waitForRequest((r) => r.endpoint === 'state' && r.seq > first.seq);
    expect(second.body).toMatchObject({ st: 'UP', errorMessage: null });
    expect(h.server.requests.filter((r) => r.eventId === sent.eventId)).toEqual([]);
  });
});
