/**
 * The PIN throttle's store (src/station/core/pin-throttle.ts decides, this port keeps its record
 * across a restart; pin-throttle-store.ts has the file and the in-memory adapter). Modelled on
 * serialport's binding interface: one narrow promise port, a file adapter and an in-memory one.
 *
 * Contract:
 * - `load()` never rejects: it tells whether a record was saved, what it is, or that the file is
 *   there but cannot be trusted (`damaged`, with a reason a technician can act on). What a damaged
 *   file means is the core's decision (it locks the keypad as if the limit had been reached).
 * - `save()` resolves once the record is on disk (file + folder fsync'ed); it rejects with the
 *   reason when it could not be written. Saves are not concurrent: the runtime chains them.
 */

/**
 * The PIN throttle as kept on disk (PinThrottleStore): consecutive exception answers to
 * /pin-enter, and the lock-out in force (its whole length), if any. A restart restores it.
 */
export interface PinThrottleRecord {
  readonly failures: number;
  readonly lockoutMs: number | null;
}

export type PinThrottleLoad =
  { readonly kind: 'none' } | { readonly kind: 'ok'; readonly record: PinThrottleRecord } | { readonly kind: 'damaged'; readonly reason: string };

export interface PinThrottleStore {
  /** Where it is kept, for logs ("memory" or the file). */
  readonly where: string;
  load(): Promise<PinThrottleLoad>;
  save(record: PinThrottleRecord): Promise<void>;
}
