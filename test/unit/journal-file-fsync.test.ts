/**
 * When the file journal fsyncs: never inside record() (a write before a pulse must not wait for
 * one), at the end of the event-loop turn that wrote the records, one fsync for all of that turn's
 * records. Real files in a temp dir; node:fs's fsync is wrapped only to count its calls.
 */
import type * as nodeFs from 'node:fs';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { FileJournal, JOURNAL_FILE } from '../../src/journal/file.js';

const fsyncs = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof nodeFs>();
  return {
    ...fs,
    fsync: (fd: number, cb: (e: NodeJS.ErrnoException | null) => void) => {
      fsyncs.count += 1;
      fs.fsync(fd, cb);
    },
  };
});

const EV = '5e0c2b7a-3d7e-4f7a-9b1c-2a4e6f8d0c11';
const B1 = '11111111-1111-4111-8111-111111111111';

describe('file journal fsync', () => {
  it('starts no fsync inside record(); the records of one turn share one fsync at its end', async () => {
    const j = new FileJournal(mkdtempSync(join(tmpdir(), 'journal-fsync-')));
    await j.flush();
    fsyncs.count = 0;
    // An answer's records, written in one turn as the runtime does before the pulse.
    j.record({ t: 'event', endpoint: 'pin-enter', eventId: EV, preview: null });
    j.record({ t: 'attempt', eventId: EV, attempt: 1 });
    j.record({ t: 'outcome', eventId: EV, outcome: 'box-open' });
    j.record({ t: 'action', by: 'pin-enter', eventId: EV, boxes: [B1] });
    j.record({ t: 'pulse', boxId: B1, at: '2025-01-01T00:00:00.000Z' });
    expect(fsyncs.count).toBe(0);
    // Written (in the page cache) already, before any fsync: what a kill -9 cannot lose.
    expect(readFileSync(j.location, 'utf8').trim().split('\n')).toHaveLength(2 + 5);
    await j.flush();
    expect(fsyncs.count).toBe(1);
    // A record in a later turn gets its own.
    j.record({ t: 'outcome', eventId: EV, outcome: 'box-open' });
    j.record({ t: 'reported', boxes: { [B1]: 'OPEN' } });
    await j.flush();
    expect(fsyncs.count).toBe(2);
    await j.close();
    expect(readFileSync(join(j.location, '..', JOURNAL_FILE), 'utf8')).toContain('"reported"');
  });
});
