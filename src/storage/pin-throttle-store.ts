/**
 * Where the PIN throttle (src/station/core/pin-throttle.ts) survives a restart: one small JSON file
 * in `storage.directory`, replaced atomically (atomicWrite), or memory when the directory is null
 * (demo, fleet). Modelled on serialport's binding interface: one narrow promise port, a file
 * adapter and an in-memory one.
 *
 * Contract:
 * - `load()` never rejects: it tells whether a record was saved, what it is, or that the file is
 *   there but cannot be trusted (`damaged`, with a reason a technician can act on). What a damaged
 *   file means is the core's decision (it locks the keypad as if the limit had been reached).
 * - `save()` resolves once the record is on disk (file + folder fsync'ed); it rejects with the
 *   reason when it could not be written. Saves are not concurrent: the runtime chains them.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from '../schema.js';
import { errorMessage } from '../errors.js';
import type { PinThrottleRecord } from '../station/core-types.js';
import { atomicWrite } from './atomic-write.js';

export type PinThrottleLoad =
  { readonly kind: 'none' } | { readonly kind: 'ok'; readonly record: PinThrottleRecord } | { readonly kind: 'damaged'; readonly reason: string };

export interface PinThrottleStore {
  /** Where it is kept, for logs ("memory" or the file). */
  readonly where: string;
  load(): Promise<PinThrottleLoad>;
  save(record: PinThrottleRecord): Promise<void>;
}

export const PIN_THROTTLE_FILE = 'pin-throttle.json';

const fileSchema = z.strictObject({
  version: z.literal(1),
  failures: z.number().check(z.int(), z.minimum(0), z.maximum(1_000_000)),
  lockoutMs: z.nullable(z.number().check(z.int(), z.minimum(1))),
});

export class FilePinThrottleStore implements PinThrottleStore {
  readonly where: string;

  constructor(directory: string) {
    this.where = join(directory, PIN_THROTTLE_FILE);
  }

  async load(): Promise<PinThrottleLoad> {
    let text: string;
    try {
      text = await readFile(this.where, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'none' };
      return { kind: 'damaged', reason: `cannot read ${this.where}: ${errorMessage(e)}` };
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { kind: 'damaged', reason: `${this.where} is not JSON` };
    }
    const parsed = fileSchema.safeParse(json);
    if (!parsed.success)
      return {
        kind: 'damaged',
        reason: `${this.where} is not a PIN throttle record (${parsed.error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`).join('; ')})`,
      };
    return { kind: 'ok', record: { failures: parsed.data.failures, lockoutMs: parsed.data.lockoutMs } };
  }

  save(record: PinThrottleRecord): Promise<void> {
    return atomicWrite(this.where, `${JSON.stringify({ version: 1, failures: record.failures, lockoutMs: record.lockoutMs })}\n`);
  }
}

/** Kept in memory: lost on restart (storage.directory null: the demo and fleet stations). */
export class MemoryPinThrottleStore implements PinThrottleStore {
  readonly where = 'memory';
  private record: PinThrottleRecord | null = null;
  /** Every save, oldest first (tests). */
  readonly saved: PinThrottleRecord[] = [];

  load(): Promise<PinThrottleLoad> {
    return Promise.resolve(this.record === null ? { kind: 'none' } : { kind: 'ok', record: this.record });
  }

  save(record: PinThrottleRecord): Promise<void> {
    this.record = record;
    this.saved.push(record);
    return Promise.resolve();
  }
}

/** The store `storage.directory` asks for. */
export function pinThrottleStoreFor(directory: string | null): PinThrottleStore {
  return directory === null ? new MemoryPinThrottleStore() : new FilePinThrottleStore(directory);
}
