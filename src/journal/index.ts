/** Picks the journal a config asks for: a file in `storage.directory`, or memory when it is null. */
import { FileJournal } from './file.js';
import { MemoryJournal } from './memory.js';
import type { Journal } from './types.js';

export type { Journal, JournalEntry, JournalHealth, JournalReadBack, JournalState } from './types.js';
export { maskIdentifier, previousRun } from './types.js';
export { FileJournal, JOURNAL_FILE } from './file.js';
export { MemoryJournal } from './memory.js';

export function openJournal(directory: string | null): Journal {
  return directory === null ? new MemoryJournal() : new FileJournal(directory);
}
