/**
 * The file journal: `journal.log` in `storage.directory` (the unit's StateDirectory=), an
 * append-only log with a checksum per record (codec.ts).
 *
 * Why this shape (figures: `npm run bench`, "journal"):
 * - A record is appended with one synchronous write(2) before the effect it records: the page cache
 *   survives a kill -9, and the write costs microseconds, so a lock is still energized well under a
 *   millisecond after its box-open answer.
 * - fsync follows asynchronously at the end of the event-loop turn that wrote the record, batched
 *   (the records of one turn share it; records written while one fsync runs share the next). Waiting for it before the pulse would cost milliseconds to tens of milliseconds on an
 *   SD card per action; a power cut inside that window loses at most the last records — and a power
 *   cut also cuts the lock's power, while the sensors tell the restarted station where the doors are.
 * - Compaction replaces the file with one `snapshot` record by atomicWrite (temp file + fsync +
 *   rename + folder fsync): at every start, and when the log passes `compactBytes`.
 * - Damaged (bad checksum, torn last line, not a journal) or unreadable: the trusted records before
 *   the damage are used, the file is set aside as `journal.log.damaged-<time>` (the newest few are
 *   kept), the problem is reported, and the station starts anyway. If even that fails, the journal
 *   is kept in memory for this run and `health()` says so.
 */
import { closeSync, fsync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../errors.js';
import { atomicWriteSync } from '../storage/atomic-write.js';
import { decodeJournal, encodeRecord, JOURNAL_HEADER } from './codec.js';
import { EMPTY_JOURNAL, reduceJournal } from './reduce.js';
import type { Journal, JournalEntry, JournalHealth, JournalReadBack, JournalState } from './types.js';

export const JOURNAL_FILE = 'journal.log';

export interface FileJournalOptions {
  /** Compact once the log has grown by this many bytes (default 64 KiB). */
  readonly compactBytes?: number;
  /** Damaged files set aside that are kept (default 3; older ones are deleted). */
  readonly keepDamaged?: number;
  /** Wall clock for record times and set-aside names. */
  readonly now?: () => Date;
}

function code(e: unknown): string {
  return e && typeof e === 'object' && 'code' in e && typeof e.code === 'string' ? e.code : errorMessage(e);
}

export class FileJournal implements Journal {
  readonly location: string;
  readonly readBack: JournalReadBack;
  private state: JournalState;
  private fd: number | null = null;
  private bytes = 0;
  private problem: string | null;
  private writing = true;
  private syncing: Promise<void> | null = null;
  private dirty = false;
  private compactWanted = false;
  private closed = false;
  private readonly listeners = new Set<(problem: string) => void>();
  private readonly compactBytes: number;
  private readonly now: () => Date;

  /** Read what earlier runs left (never throws), then start this run's file with it compacted. */
  constructor(
    private readonly directory: string,
    opts: FileJournalOptions = {},
  ) {
    this.location = join(directory, JOURNAL_FILE);
    this.compactBytes = opts.compactBytes ?? 65_536;
    this.now = opts.now ?? (() => new Date());
    const { state, problem } = this.readPrevious(opts.keepDamaged ?? 3);
    this.state = state;
    this.problem = problem;
    this.readBack = { state, problem };
    try {
      this.rewrite();
    } catch (e) {
      this.fail(`cannot write ${this.location}: ${code(e)}; the journal is kept in memory for this run`);
    }
  }

  private readPrevious(keepDamaged: number): { state: JournalState; problem: string | null } {
    let text: string;
    try {
      mkdirSync(this.directory, { recursive: true, mode: 0o700 });
      text = readFileSync(this.location, 'utf8');
    } catch (e) {
      if (code(e) === 'ENOENT') return { state: EMPTY_JOURNAL, problem: null };
      return { state: EMPTY_JOURNAL, problem: `${this.location} unreadable (${code(e)})${this.setAside(keepDamaged)}` };
    }
    const decoded = decodeJournal(text);
    const state = decoded.entries.reduce(reduceJournal, EMPTY_JOURNAL);
    if (decoded.problem === null) return { state, problem: null };
    return { state, problem: `${this.location} damaged: ${decoded.problem}${this.setAside(keepDamaged)}` };
  }

  /** Move the bad file out of the way (keeping the newest few); says where, or why not. */
  private setAside(keep: number): string {
    const stamp = this.now().toISOString().replace(/[:.]/g, '-');
    const name = `${JOURNAL_FILE}.damaged-${stamp}`;
    try {
      renameSync(this.location, join(this.directory, name));
    } catch (e) {
      return `; could not set it aside (${code(e)})`;
    }
    try {
      const old = readdirSync(this.directory)
        .filter((f) => f.startsWith(`${JOURNAL_FILE}.damaged-`))
        .sort()
        .slice(0, -keep);
      for (const f of old) unlinkSync(join(this.directory, f));
    } catch {
      // Pruning is housekeeping; the set-aside file is what matters.
    }
    return `; set aside as ${name}`;
  }

  /** Replace the file with the header and one snapshot (atomicWrite), and append to it from now on. */
  private rewrite(): void {
    const content = `${JOURNAL_HEADER}\n${encodeRecord({ t: 'snapshot', state: this.state })}`;
    atomicWriteSync(this.location, content);
    const old = this.fd;
    this.fd = openSync(this.location, 'a', 0o600);
    if (old !== null) closeSync(old);
    this.bytes = 0;
  }

  record(entry: JournalEntry): void {
    if (this.closed) return;
    const next = reduceJournal(this.state, entry);
    if (next === this.state) return;
    this.state = next;
    if (this.fd === null) return;
    const line = encodeRecord(entry);
    try {
      writeSync(this.fd, line);
    } catch (e) {
      this.fail(`cannot write ${this.location}: ${code(e)}`);
      return;
    }
    if (!this.writing) {
      this.writing = true;
      this.problem = null;
    }
    this.bytes += line.length;
    if (this.bytes > this.compactBytes) this.compactWanted = true;
    this.scheduleSync();
  }

  private fail(problem: string): void {
    this.writing = false;
    if (problem === this.problem) return;
    this.problem = problem;
    for (const l of this.listeners) l(problem);
  }

  private scheduleSync(): void {
    if (this.syncing !== null) {
      this.dirty = true;
      return;
    }
    this.syncing = this.syncLoop();
  }

  /** fsync until no record came in meanwhile; then compact if due (never while an fsync holds the fd). */
  private async syncLoop(): Promise<void> {
    // The first fsync starts at the end of this event-loop turn, not inside record(): the records
    // of one turn (a scan's event and attempt; an answer's outcome, action and pulse) share it, and
    // none of their write(2)s runs while an fsync started by the one before it holds the file (such
    // a write can stall for milliseconds; seen in the box-open -> lock tail).
    await new Promise<void>((resolve) => setImmediate(resolve));
    do {
      this.dirty = false;
      const fd = this.fd;
      if (fd === null) break;
      await new Promise<void>((resolve) =>
        fsync(fd, (e) => {
          if (e) this.fail(`cannot fsync ${this.location}: ${code(e)}`);
          resolve();
        }),
      );
    } while (this.dirty);
    this.syncing = null;
    if (this.compactWanted && !this.closed) {
      this.compactWanted = false;
      try {
        this.rewrite();
      } catch (e) {
        this.fail(`cannot compact ${this.location}: ${code(e)}`);
      }
    }
  }

  async flush(): Promise<void> {
    while (this.syncing !== null) await this.syncing;
  }

  health(): JournalHealth {
    return { ok: this.writing, problem: this.problem };
  }

  onProblem(listener: (problem: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The reduced state now (for tests and the technician status). */
  current(): JournalState {
    return this.state;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.closed = true;
    this.listeners.clear();
    if (this.fd !== null) {
      const fd = this.fd;
      this.fd = null;
      await new Promise<void>((resolve) => fsync(fd, () => resolve()));
      closeSync(fd);
    }
  }
}
