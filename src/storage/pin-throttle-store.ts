/**
 * Where the PIN throttle survives a restart: one small JSON file in `storage.directory`, replaced
 * atomically (atomicWrite), or memory when the directory is null (demo, fleet). The port they
 * implement, PinThrottleStore, is in types.ts.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from '../schema.js';
import { errorMessage } from '../errors.js';
import type { PinThrottleLoad, PinThrottleRecord, PinThrottleStore } from './types.js';
import { atomicWrite } from './atomic-write.js';

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
