/**
 * The one sleep (src/time.ts) and the one bounded wait beside it, on fake timers: a wait of 0 ms or
 * less resolves without a timer (the protocol client's wait for the rest of an answer slot may
 * come out negative), an abort ends a sleep early, and a bounded wait leaves no timer behind.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { settlesWithin, sleep } from '../../src/time.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Whether `p` has settled once the microtasks queued so far have run. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe('sleep', () => {
  it('waits its time on the timers', async () => {
    const p = sleep(100);
    await vi.advanceTimersByTimeAsync(99);
    expect(await settled(p)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(p)).toBe(true);
  });

  it('resolves at once, with no timer, for 0 ms or less', async () => {
    const zero = sleep(0);
    const negative = sleep(-250);
    expect(vi.getTimerCount()).toBe(0);
    expect(await settled(Promise.all([zero, negative]))).toBe(true);
  });

  it('ends early, resolved, when its signal aborts, and clears its timer', async () => {
    const stop = new AbortController();
    const p = sleep(60_000, stop.signal);
    expect(vi.getTimerCount()).toBe(1);
    stop.abort();
    expect(await settled(p)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(await settled(sleep(60_000, stop.signal))).toBe(true);
  });
});

describe('settlesWithin', () => {
  it('answers true once the work settles, leaving no timer', async () => {
    let finish!: () => void;
    const p = settlesWithin(new Promise<void>((r) => (finish = r)), 5_000);
    await vi.advanceTimersByTimeAsync(10);
    expect(await settled(p)).toBe(false);
    finish();
    await expect(p).resolves.toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('answers false after its limit when the work never settles, leaving no timer', async () => {
    const p = settlesWithin(new Promise<void>(() => undefined), 5_000);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(await settled(p)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(p).resolves.toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('counts a rejection as settled: the caller only bounds how long it waits', async () => {
    await expect(settlesWithin(Promise.reject(new Error('gone')), 5_000)).resolves.toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});
