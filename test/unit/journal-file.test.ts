/**
 * The file journal against real files in a temp dir: what one run writes the next one reads back,
 * compaction, and every way the file can be bad — truncated mid-record, a flipped bit, not a
 * journal at all, unreadable, a folder that cannot be written. A bad journal is reported and set
 * aside, never a throw.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeJournal, encodeRecord, JOURNAL_HEADER } from '../../src/journal/codec.js';
import { FileJournal, JOURNAL_FILE } from '../../src/journal/file.js';
import { previousRun, type JournalEntry } from '../../src/journal/types.js';

const B1 = '11111111-1111-4111-8111-111111111111';
const B2 = '22222222-2222-4222-8222-222222222222';
const EV = '5e0c2b7a-3d7e-4f7a-9b1c-2a4e6f8d0c11';
const tmp = (): string => mkdtempSync(join(tmpdir(), 'journal-'));
const at = '2025-01-01T00:00:00.000Z';

/** A pickup cut short mid-pulse: event answered box-open, box 1 pulsed, box 2 not yet. */
const midPickup: JournalEntry[] = [
  { t: 'start', at },
  { t: 'reported', boxes: { [B1]: 'CLOSED', [B2]: 'CLOSED' } },
  { t: 'event', endpoint: 'pin-enter', eventId: EV, preview: null },
  { t: 'attempt', eventId: EV, attempt: 1 },
  { t: 'outcome', eventId: EV, outcome: 'box-open' },
  { t: 'action', by: 'pin-enter', eventId: EV, boxes: [B1, B2] },
  { t: 'pulse', boxId: B1, at },
];

function writeRun(dir: string, entries: readonly JournalEntry[]): void {
  const j = new FileJournal(dir);
  for (const e of entries) j.record(e);
  // No close(): a killed process does not close its journal either.
}

describe('file journal', () => {
  it('what one run records, the next reads back (without close: the page cache is what a kill -9 leaves)', async () => {
    const dir = tmp();
    writeRun(dir, midPickup);
    const next = new FileJournal(dir);
    expect(next.readBack.problem).toBeNull();
    expect(previousRun(next.readBack)).toEqual({
      inFlight: null,
      action: { by: 'pin-enter', eventId: EV, boxes: [B1, B2], pulsed: [B1] },
      reported: { [B1]: 'CLOSED', [B2]: 'CLOSED' },
      problem: null,
    });
    expect(statSync(join(dir, JOURNAL_FILE)).mode & 0o777).toBe(0o600);
    await next.close();
  });

  it('an event in flight comes back with its attempts, and no PIN or identifier beyond the masked preview', async () => {
    const dir = tmp();
    writeRun(dir, [
      { t: 'event', endpoint: 'item-identify', eventId: EV, preview: '***017 (14)' },
      { t: 'attempt', eventId: EV, attempt: 1 },
      { t: 'attempt', eventId: EV, attempt: 2 },
    ]);
    const next = new FileJournal(dir);
    expect(previousRun(next.readBack).inFlight).toEqual({ endpoint: 'item-identify', eventId: EV, attempts: 2, preview: '***017 (14)' });
    await next.close();
  });

  it('starts every run with the file compacted to one snapshot, and compacts again past compactBytes', async () => {
    const dir = tmp();
    writeRun(dir, midPickup);
    const j = new FileJournal(dir, { compactBytes: 2_000 });
    const file = join(dir, JOURNAL_FILE);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
    for (let i = 0; i < 100; i++) {
      j.record({ t: 'reported', boxes: { [B1]: i % 2 === 0 ? 'OPEN' : 'CLOSED', [B2]: 'CLOSED' } });
      await j.flush();
    }
    expect(statSync(file).size).toBeLessThan(4_000);
    await j.close();
    const again = new FileJournal(dir);
    expect(again.readBack.state.reported).toEqual({ [B1]: 'CLOSED', [B2]: 'CLOSED' });
    expect(again.readBack.problem).toBeNull();
    await again.close();
  });

  it('records that change nothing are not written (the same doors reported every heartbeat)', async () => {
    const dir = tmp();
    const j = new FileJournal(dir);
    const size = (): number => statSync(join(dir, JOURNAL_FILE)).size;
    j.record({ t: 'reported', boxes: { [B1]: 'CLOSED' } });
    const once = size();
    for (let i = 0; i < 10; i++) j.record({ t: 'reported', boxes: { [B1]: 'CLOSED' } });
    expect(size()).toBe(once);
    await j.close();
  });

  it.each([
    ['truncated mid-record (a power cut while writing)', (text: string) => text.slice(0, -20), /last record is incomplete/],
    ['a flipped bit in a record', (text: string) => text.replace('"pulse"', '"pulsf"'), /record \d+ of \d+: checksum mismatch/],
    ['not a journal at all', () => '{"hello":"world"}\n', /not a pickup-station journal/],
    ['a record line without a checksum', (text: string) => `${text}{"t":"start"}\n`, /not a record line/],
  ])('%s: reported, set aside, the trusted records before the damage used, started anyway', async (_name, damage, why) => {
    const dir = tmp();
    const file = join(dir, JOURNAL_FILE);
    // Uncompacted, as a run leaves it: header + snapshot + the records appended one by one.
    writeRun(dir, midPickup);
    writeFileSync(file, damage(readFileSync(file, 'utf8')));
    const j = new FileJournal(dir, { now: () => new Date('2025-02-03T04:05:06Z') });
    expect(j.readBack.problem).toMatch(why);
    expect(j.readBack.problem).toContain('set aside as journal.log.damaged-2025-02-03T04-05-06-000Z');
    expect(readdirSync(dir).sort()).toEqual([JOURNAL_FILE, 'journal.log.damaged-2025-02-03T04-05-06-000Z']);
    expect(j.health()).toEqual({ ok: true, problem: j.readBack.problem });
    // The new file is whole again and starts from what could be trusted.
    j.record({ t: 'start', at });
    await j.close();
    expect(new FileJournal(dir).readBack.problem).toBeNull();
  });

  it('a damaged journal keeps what came before the damage (the pulse before a torn last line)', () => {
    const dir = tmp();
    const file = join(dir, JOURNAL_FILE);
    writeRun(dir, midPickup);
    writeFileSync(file, `${readFileSync(file, 'utf8')}0000abcd {"t":"pul`);
    const j = new FileJournal(dir);
    expect(previousRun(j.readBack).action?.pulsed).toEqual([B1]);
  });

  it('keeps only the newest damaged files', () => {
    const dir = tmp();
    for (let i = 0; i < 5; i++) {
      writeFileSync(join(dir, JOURNAL_FILE), 'garbage\n');
      new FileJournal(dir, { keepDamaged: 2, now: () => new Date(Date.UTC(2025, 0, 1, 0, 0, i)) });
    }
    expect(
      readdirSync(dir)
        .filter((f) => f.includes('damaged'))
        .sort(),
    ).toEqual(['journal.log.damaged-2025-01-01T00-00-03-000Z', 'journal.log.damaged-2025-01-01T00-00-04-000Z']);
  });

  it('unreadable (a folder where the file should be): reported, set aside, started anyway', async () => {
    const dir = tmp();
    mkdirSync(join(dir, JOURNAL_FILE));
    const j = new FileJournal(dir);
    expect(j.readBack.problem).toMatch(/unreadable \(EISDIR\); set aside as journal\.log\.damaged-/);
    j.record({ t: 'start', at });
    await j.close();
    expect(new FileJournal(dir).readBack.problem).toBeNull();
  });

  it('a storage folder that cannot be created: kept in memory, health says so, never a throw', () => {
    const dir = tmp();
    const blocker = join(dir, 'not-a-dir');
    writeFileSync(blocker, '');
    const j = new FileJournal(join(blocker, 'state'));
    expect(j.readBack.problem).toMatch(/unreadable \(ENOTDIR\)/);
    expect(j.health()).toMatchObject({ ok: false, problem: expect.stringContaining('kept in memory') });
    j.record({ t: 'event', endpoint: 'cancel', eventId: EV, preview: null });
    expect(j.current().inFlight?.eventId).toBe(EV);
  });

  it('a write that fails is reported once through onProblem and health, not thrown', () => {
    const dir = tmp();
    const j = new FileJournal(dir);
    const problems: string[] = [];
    j.onProblem((p) => problems.push(p));
    // A read-only folder does not stop root (the tests may run as root); a descriptor that is not
    // open fails for anyone, the way a dying SD card fails a write (EIO) or a full one (ENOSPC).
    (j as unknown as { fd: number }).fd = 2 ** 30;
    j.record({ t: 'event', endpoint: 'cancel', eventId: EV, preview: null });
    j.record({ t: 'attempt', eventId: EV, attempt: 1 });
    expect(problems).toEqual([expect.stringMatching(/cannot write .*journal\.log: EBADF/)]);
    expect(j.health().ok).toBe(false);
  });
});

describe('codec', () => {
  it('round-trips every record kind and checks each line', () => {
    const text = `${JOURNAL_HEADER}\n${midPickup.map(encodeRecord).join('')}`;
    expect(decodeJournal(text)).toEqual({ entries: midPickup, problem: null });
  });

  it('an empty file is a new journal, not a damaged one', () => {
    expect(decodeJournal('')).toEqual({ entries: [], problem: null });
  });
});
