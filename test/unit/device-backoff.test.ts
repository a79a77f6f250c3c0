/**
 * The one retry schedule of the device layer (src/devices/reconnect.ts Backoff), under fake timers:
 * the Reconnector, the kiosk page's listener and the audio output's probe all retry with it — each
 * failure waits initialMs × factor^n up to maxMs, a success starts again from initialMs, a retry
 * replaces one pending, and cancel() leaves no timer behind.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { Backoff } from '../../src/devices/reconnect.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

it('delays grow by the factor up to the cap; a reset starts again; one retry pending at a time; cancel leaves no timer', async () => {
  const b = new Backoff({ initialMs: 100, maxMs: 1_000, factor: 3 });
  let runs = 0;
  const delays: number[] = [];
  for (let i = 0; i < 4; i++) {
    delays.push(b.retry(() => runs++));
    expect(b.pending).toBe(true);
    await vi.advanceTimersByTimeAsync(delays.at(-1)! - 1);
    expect(runs).toBe(i);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(i + 1);
    expect(b.pending).toBe(false);
  }
  expect(delays).toEqual([100, 300, 900, 1_000]);
  b.reset();
  expect(b.nextDelay()).toBe(100);
  b.retry(() => runs++);
  b.retry(() => runs++);
  expect(vi.getTimerCount()).toBe(1);
  b.cancel();
  expect(vi.getTimerCount()).toBe(0);
  await vi.advanceTimersByTimeAsync(10_000);
  expect(runs).toBe(4);
});
