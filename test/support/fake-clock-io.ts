/**
 * Real I/O beside a fake clock: the fake timers (vi.useFakeTimers) stand still while sockets and
 * files do their work on the real event loop. A round is one step of the fake clock's due timers
 * at its current time and 10 ms of real time (on the real timer, kept before the fake ones are
 * installed); a test moves the fake clock itself, and asks what happened between, in order.
 */
import { expect, vi } from 'vitest';

const realSetTimeout = globalThis.setTimeout;

/** One round of real I/O (10 ms), the fake clock standing still. */
export async function ioRound(): Promise<void> {
  await vi.advanceTimersByTimeAsync(0);
  await new Promise((r) => realSetTimeout(r, 10));
}

/** Rounds of real I/O until `done()`; failing after 200 (2 s). */
export async function ioUntil(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    await vi.advanceTimersByTimeAsync(0);
    if (done()) return;
    await ioRound();
  }
  expect.fail('not reached within 200 rounds of real I/O');
}

/** Some real I/O, to show that nothing else happens until the fake clock moves. */
export async function ioSettle(): Promise<void> {
  for (let i = 0; i < 5; i++) await ioRound();
}
