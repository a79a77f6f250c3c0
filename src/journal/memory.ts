/**
 * The in-memory journal: unit tests, the demo and fleet mode (`storage.directory: null`). It keeps
 * every record, so a test can start a second runtime from what the first one wrote (`after()`), the
 * way a restarted daemon reads its file.
 */
import { EMPTY_JOURNAL, reduceJournal } from './reduce.js';
import type { Journal, JournalEntry, JournalHealth, JournalReadBack, JournalState } from './types.js';

export class MemoryJournal implements Journal {
  readonly location = 'memory';
  readonly readBack: JournalReadBack;
  /** Every record kept, oldest first (records that changed nothing are not kept). */
  readonly records: JournalEntry[] = [];
  private state: JournalState;
  private closed = false;

  constructor(earlier: readonly JournalEntry[] = [], problem: string | null = null) {
    this.state = earlier.reduce(reduceJournal, EMPTY_JOURNAL);
    this.readBack = { state: this.state, problem };
    this.records.push(...earlier);
  }

  /** A journal for the next run, holding what this one wrote. */
  after(): MemoryJournal {
    return new MemoryJournal(this.records);
  }

  current(): JournalState {
    return this.state;
  }

  record(entry: JournalEntry): void {
    if (this.closed) return;
    const next = reduceJournal(this.state, entry);
    if (next === this.state) return;
    this.state = next;
    this.records.push(entry);
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }

  health(): JournalHealth {
    return { ok: true, problem: this.readBack.problem };
  }

  onProblem(): () => void {
    return () => undefined;
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}
