/**
 * The one wait for a condition (src/time.ts waitUntil), on fake timers: asked at once and at every
 * wake, never on a timer of its own but its limit; ended by its limit or its signal; nothing left
 * subscribed, listening or timed after it ends. And the retry schedule's pause, which a loop that
 * tries again awaits.
 */
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Backoff, settlesWithin, waitUntil, type Waited } from '../../src/time.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A condition on a value that changes only when told, and the event that tells. */
function source<T>(initial: T | undefined) {
  const events = new EventEmitter();
  let value = initial;
  let asked = 0;
  return {
    set(v: T | undefined, announce = true) {
      value = v;
      if (announce) events.emit('change');
    },
    spec: {
      check: () => {
        asked++;
        return value;
      },
      wake: (wake: () => void) => {
        events.on('change', wake);
        return () => void events.off('change', wake);
      },
    },
    get asked() {
      return asked;
    },
    listeners: () => events.listenerCount('change'),
  };
}

/** The outcome once the microtasks queued so far have run, or undefined while it waits. */
async function outcome<T>(p: Promise<Waited<T>>): Promise<Waited<T> | undefined> {
  let got: Waited<T> | undefined;
  void p.then((w) => (got = w));
  await vi.advanceTimersByTimeAsync(0);
  return got;
}

describe('waitUntil', () => {
  it('a condition that holds now is met at once, with no timer and nothing subscribed', async () => {
    const s = source('ready');
    expect(await waitUntil({ ...s.spec, limitMs: 5_000 })).toEqual({ kind: 'met', value: 'ready' });
    expect(vi.getTimerCount()).toBe(0);
    expect(s.listeners()).toBe(0);
  });

  it('is asked again at each wake and never otherwise: no polling while nothing happens', async () => {
    const s = source<string>(undefined);
    const p = waitUntil({ ...s.spec, limitMs: 60_000 });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(s.asked).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
    s.set(undefined);
    expect(s.asked).toBe(2);
    s.set('open');
    expect(await outcome(p)).toEqual({ kind: 'met', value: 'open' });
    expect(vi.getTimerCount()).toBe(0);
    expect(s.listeners()).toBe(0);
  });

  it('ends with "limit" once the limit passes, and leaves nothing behind', async () => {
    const s = source<string>(undefined);
    const p = waitUntil({ ...s.spec, limitMs: 5_000 });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(await outcome(p)).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome(p)).toEqual({ kind: 'limit' });
    expect(s.listeners()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a condition that came to hold without a wake is still seen when the limit passes (it wins over the limit)', async () => {
    const s = source<string>(undefined);
    const p = waitUntil({ ...s.spec, limitMs: 1_000 });
    s.set('quietly', false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await outcome(p)).toEqual({ kind: 'met', value: 'quietly' });
  });

  it('ends with "aborted" when its signal aborts, at once, and leaves nothing behind', async () => {
    const s = source<string>(undefined);
    const stop = new AbortController();
    const p = waitUntil({ ...s.spec, limitMs: 60_000, signal: stop.signal });
    stop.abort();
    expect(await outcome(p)).toEqual({ kind: 'aborted' });
    expect(s.listeners()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(await waitUntil({ ...s.spec, limitMs: 60_000, signal: stop.signal })).toEqual({ kind: 'aborted' });
  });

  it('a limit of 0 asks once and ends', async () => {
    const s = source<string>(undefined);
    expect(await waitUntil({ ...s.spec, limitMs: 0 })).toEqual({ kind: 'limit' });
    expect(s.listeners()).toBe(0);
  });

  it('a check that throws rejects the wait, and leaves nothing behind', async () => {
    const events = new EventEmitter();
    let calls = 0;
    const p = waitUntil({
      check: () => {
        if (++calls > 1) throw new Error('bad state');
        return undefined;
      },
      wake: (wake) => {
        events.on('change', wake);
        return () => void events.off('change', wake);
      },
      limitMs: 5_000,
    });
    events.emit('change');
    await expect(p).rejects.toThrow('bad state');
    expect(events.listenerCount('change')).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('settlesWithin, on the one wait', () => {
  it('ends early, false, when its signal aborts', async () => {
    const stop = new AbortController();
    const p = settlesWithin(new Promise<void>(() => undefined), 60_000, stop.signal);
    stop.abort();
    await expect(p).resolves.toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('Backoff.pause', () => {
  it('waits the schedule, one failure at a time; a reset starts it again; a signal ends a pause', async () => {
    const b = new Backoff({ initialMs: 50, factor: 2, maxMs: 150 });
    for (const expected of [50, 100, 150, 150]) {
      let done = false;
      void b.pause().then(() => (done = true));
      await vi.advanceTimersByTimeAsync(expected - 1);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(done).toBe(true);
    }
    expect(b.failures).toBe(4);
    b.reset();
    expect(b.nextDelay()).toBe(50);
    const stop = new AbortController();
    const p = b.pause(stop.signal);
    stop.abort();
    await p;
    expect(vi.getTimerCount()).toBe(0);
  });
});
