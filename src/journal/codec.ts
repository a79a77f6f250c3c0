/**
 * The journal file's format: a header line, then one record per line, each with its own checksum:
 *
 *     # pickup-station journal 1
 *     1c291ca3 {"t":"snapshot","state":{...}}
 *     0f4d5e6a {"t":"event","endpoint":"pin-enter","eventId":"…","preview":null}
 *
 * A line is `<crc32 of the JSON, 8 hex digits> <JSON>\n`. Appending a line is one write(2); a power
 * cut can leave the last line incomplete, a failing SD card can flip bits anywhere: decoding keeps
 * the records before the first bad one and says what was wrong.
 */
import { crc32 } from 'node:zlib';
import * as z from '../schema.js';
import type { JournalEntry, JournalState } from './types.js';

export const JOURNAL_HEADER = '# pickup-station journal 1';

const boxStatus = z.enum(['OPEN', 'CLOSED']);
const doors = z.record(z.string(), boxStatus);
const userEndpoint = z.enum(['item-identify', 'pin-enter', 'cancel']);
const actionSource = z.enum(['item-identify', 'pin-enter', 'technician']);
const event = z.object({ endpoint: userEndpoint, eventId: z.string(), attempts: z.number().check(z.int(), z.minimum(0)), preview: z.nullable(z.string()) });
const action = z.object({ by: actionSource, eventId: z.nullable(z.string()), boxes: z.array(z.string()), pulsed: z.array(z.string()) });
const state: z.ZodMiniType<JournalState> = z.object({
  inFlight: z.nullable(event),
  action: z.nullable(action),
  reported: z.nullable(doors),
  previous: z.nullable(z.object({ inFlight: z.nullable(event), action: z.nullable(action) })),
  notes: z.optional(z.array(z.string())),
});
const entrySchema: z.ZodMiniType<JournalEntry> = z.discriminatedUnion('t', [
  z.object({ t: z.literal('start'), at: z.string() }),
  z.object({ t: z.literal('event'), endpoint: userEndpoint, eventId: z.string(), preview: z.nullable(z.string()) }),
  z.object({ t: z.literal('attempt'), eventId: z.string(), attempt: z.number().check(z.int(), z.minimum(1)) }),
  z.object({ t: z.literal('outcome'), eventId: z.string(), outcome: z.string() }),
  z.object({ t: z.literal('action'), by: actionSource, eventId: z.nullable(z.string()), boxes: z.array(z.string()) }),
  z.object({ t: z.literal('pulse'), boxId: z.string(), at: z.string() }),
  z.object({ t: z.literal('note'), at: z.string(), note: z.string() }),
  z.object({ t: z.literal('reported'), boxes: doors }),
  z.object({ t: z.literal('snapshot'), state }),
]);

function checksum(json: string): string {
  return crc32(json).toString(16).padStart(8, '0');
}

export function encodeRecord(entry: JournalEntry): string {
  const json = JSON.stringify(entry);
  return `${checksum(json)} ${json}\n`;
}

export interface Decoded {
  /** The records that can be trusted: every one before the first bad line. */
  readonly entries: JournalEntry[];
  /** What was wrong, or null. */
  readonly problem: string | null;
}

/** Why one line is not a good record, or the record. */
function decodeLine(line: string): JournalEntry | string {
  const m = /^([0-9a-f]{8}) (.*)$/s.exec(line);
  if (m === null) return 'not a record line';
  const [, sum, json] = m;
  if (json === undefined || checksum(json) !== sum) return 'checksum mismatch';
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return 'not JSON';
  }
  const parsed = entrySchema.safeParse(value);
  return parsed.success ? parsed.data : 'not a known record';
}

export function decodeJournal(text: string): Decoded {
  if (text === '') return { entries: [], problem: null };
  const lines = text.split('\n');
  // After the final newline: '' when the last record is whole.
  const tail = lines.pop() ?? '';
  if (lines[0] !== JOURNAL_HEADER) {
    const first = (lines[0] ?? tail).slice(0, 40);
    return { entries: [], problem: `not a pickup-station journal (first line ${JSON.stringify(first)})` };
  }
  const entries: JournalEntry[] = [];
  for (let i = 1; i < lines.length; i++) {
    const r = decodeLine(lines[i] ?? '');
    if (typeof r === 'string') {
      return { entries, problem: `record ${i} of ${lines.length - 1}: ${r}; the ${entries.length} records before it were used` };
    }
    entries.push(r);
  }
  if (tail !== '') return { entries, problem: `the last record is incomplete (a power cut while writing?); the ${entries.length} records before it were used` };
  return { entries, problem: null };
}
