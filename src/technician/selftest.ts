/**
 * Hardware self-test: each lock pulsed and its door read, one box at a time.
 *
 * It pulses through the LockBank itself (the core would refuse a second opening while the first
 * door stands open), so it is only ever started in service mode (the server sends the station no
 * readers) on an idle station; see actions.ts. Before every box it checks again and stops if that
 * no longer holds. Each pulse is the configured pulse length (the LockBank clamps it again), and
 * the doors it opens reach the core like any door change, so /state reports them.
 */
import type { DoorState, StationHardware } from '../devices/types.js';
import { errorMessage } from '../errors.js';
import type { StationObserver } from '../supervisor/observe.js';
import { waitUntil } from '../time.js';

export interface BoxTestResult {
  readonly box: number;
  readonly id: string;
  /** The pulse was carried out (the driver resolved); false with `error` when it rejected. */
  readonly pulsed: boolean;
  readonly error?: string;
  readonly doorBefore: DoorState;
  /** opened: reported OPEN within doorOpenTimeoutMs; was-open: open before the pulse, so it tells nothing. */
  readonly door: 'opened' | 'not opened' | 'was open';
  /** From the start of the pulse to OPEN; null unless opened. */
  readonly openedAfterMs: number | null;
}

export interface SelfTestReport {
  readonly ok: boolean;
  readonly results: readonly BoxTestResult[];
  /** Boxes not tested because the station stopped being safe to test, with why. */
  readonly skipped: readonly { readonly box: number; readonly reason: string }[];
}

export interface SelfTestOptions {
  readonly hardware: StationHardware;
  readonly boxes: readonly { readonly number: number; readonly id: string }[];
  readonly pulseMs: number;
  readonly doorOpenTimeoutMs: number;
  readonly observer: StationObserver;
  /** Why the next box must not be tested now, or null (checked before every box). */
  readonly unsafe: () => string | null;
  /** Aborted when the supervisor stops: the door watch ends at once, and no further box is tested. */
  readonly signal: AbortSignal;
}

/**
 * Watches `box` for OPEN from `started` on (subscribed before the pulse, so a fast door is not
 * missed): resolves with the ms from `started` to OPEN, or null after `ms`, on cancel() or when
 * `signal` aborts.
 */
function watchDoor(hw: StationHardware, box: number, ms: number, started: number, signal: AbortSignal): { result: Promise<number | null>; cancel: () => void } {
  const cancelled = new AbortController();
  let openedAt: number | undefined;
  const waited = waitUntil({
    check: () => openedAt,
    wake: (wake) =>
      hw.doors.onChange((n, st) => {
        if (n !== box || st !== 'OPEN') return;
        openedAt ??= Math.round(performance.now() - started);
        wake();
      }),
    limitMs: ms,
    signal: AbortSignal.any([signal, cancelled.signal]),
  });
  return { result: waited.then((w) => (w.kind === 'met' ? w.value : null)), cancel: () => cancelled.abort() };
}

async function testBox(o: SelfTestOptions, box: { number: number; id: string }): Promise<BoxTestResult> {
  const { hardware: hw, observer } = o;
  const doorBefore = await hw.doors.read(box.number);
  const watch = watchDoor(hw, box.number, o.doorOpenTimeoutMs, performance.now(), o.signal);
  let error: string | undefined;
  observer.expectPulse(box.id, 'self-test');
  observer.publish({ type: 'lock', boxId: box.id, number: box.number, energized: true });
  try {
    await hw.locks.pulse(box.number, o.pulseMs);
  } catch (e) {
    error = errorMessage(e);
  } finally {
    observer.publish({ type: 'lock', boxId: box.id, number: box.number, energized: false });
  }
  if (error !== undefined || doorBefore === 'OPEN') watch.cancel();
  const openedAfterMs = await watch.result;
  const door = doorBefore === 'OPEN' ? 'was open' : openedAfterMs === null ? 'not opened' : 'opened';
  const result: BoxTestResult = { box: box.number, id: box.id, pulsed: error === undefined, doorBefore, door, openedAfterMs };
  return error === undefined ? result : { ...result, error };
}

export async function runSelfTest(o: SelfTestOptions): Promise<SelfTestReport> {
  const results: BoxTestResult[] = [];
  const skipped: { box: number; reason: string }[] = [];
  for (const box of o.boxes) {
    const unsafe = o.unsafe();
    if (unsafe !== null) {
      skipped.push({ box: box.number, reason: unsafe });
      continue;
    }
    const r = await testBox(o, box);
    results.push(r);
    o.observer.publish({ type: 'technician', action: 'self-test box', by: 'self-test', detail: { ...r } });
  }
  const ok = skipped.length === 0 && results.every((r) => r.pulsed && r.door !== 'not opened');
  return { ok, results, skipped };
}
