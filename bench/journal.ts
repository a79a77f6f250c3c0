/**
 * The journal's cost on the box-open path: a record is written synchronously (one write(2) into the
 * page cache) before the lock is pulsed, and fsync'ed right after, batched. Measured beside bare
 * Node doing the same write, and beside the fsync a "wait for the disk before the pulse" design would
 * put on the path (ARCHITECTURE.md: the journal).
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { encodeRecord } from '../src/journal/codec.js';
import { FileJournal } from '../src/journal/file.js';
import type { JournalEntry } from '../src/journal/types.js';
import { summarize, type Summary } from './lib/stats.js';

export interface JournalResult {
  /** FileJournal.record() of a pulse record: what stands between a box-open answer and its pulse. */
  readonly record: Summary;
  /** Bare Node: writeSync of the same line to an open file. */
  readonly bareWrite: Summary;
  /** fsync of one record: what waiting for stable storage before the pulse would add. */
  readonly fsync: Summary;
}

const BOX = 'a1b2c3d4-0000-4000-8000-000000000001';

export async function benchJournal(dir: string, iterations: number): Promise<JournalResult> {
  const journal = new FileJournal(join(dir, 'journal-bench'), { compactBytes: 1 << 30 });
  journal.record({ t: 'action', by: 'pin-enter', eventId: 'e', boxes: [BOX] });
  const record: number[] = [];
  for (let i = 0; i < iterations; i++) {
    // A pulse record per round: an action then its pulse, as the runtime writes them.
    journal.record({ t: 'action', by: 'pin-enter', eventId: `e${i}`, boxes: [BOX] });
    const entry: JournalEntry = { t: 'pulse', boxId: BOX, at: new Date().toISOString() };
    const t0 = performance.now();
    journal.record(entry);
    record.push(performance.now() - t0);
    await journal.flush();
  }
  await journal.close();

  const fd = openSync(join(dir, 'bare-write'), 'a', 0o600);
  const line = encodeRecord({ t: 'pulse', boxId: BOX, at: new Date().toISOString() });
  const bareWrite: number[] = [];
  const fsync: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    writeSync(fd, line);
    const t1 = performance.now();
    fsyncSync(fd);
    bareWrite.push(t1 - t0);
    fsync.push(performance.now() - t1);
  }
  closeSync(fd);
  return { record: summarize(record), bareWrite: summarize(bareWrite), fsync: summarize(fsync) };
}
