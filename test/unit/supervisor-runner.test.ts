/**
 * The supervisor's exclusive runner (src/supervisor/runner.ts) and its waits on the station's
 * state (until.ts), under fake timers: one job at a time; a reload asked while one waits joins it
 * (none dropped, none answered by a run that began before it was asked); a job that must start now
 * is refused while anything runs or waits; close() aborts the running job's signal, refuses the
 * waiting and later ones and waits for the running one at most its grace; a wait on the state ends
 * on the transition that makes it true, at its limit, or on abort — never by polling.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CoreState } from '../../src/station/core-types.js';
import type { StationRuntime } from '../../src/station/runtime.js';
import { SupervisorRefusal } from '../../src/supervisor/refusal.js';
import { ExclusiveRunner } from '../../src/supervisor/runner.js';
import { untilState } from '../../src/supervisor/until.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A job whose runs are counted and finished by hand; it sees its signal. */
function gated(): { job: (signal: AbortSignal) => Promise<number>; runs: number[]; signals: AbortSignal[]; finish: () => void; fail: () => void } {
  const runs: number[] = [];
  const signals: AbortSignal[] = [];
  const gates: { resolve: () => void; reject: (e: Error) => void }[] = [];
  let n = 0;
  const job = async (signal: AbortSignal): Promise<number> => {
    const mine = ++n;
    runs.push(mine);
    signals.push(signal);
    await new Promise<void>((resolve, reject) => gates.push({ resolve, reject }));
    return mine;
  };
  return { job, runs, signals, finish: () => gates.shift()?.resolve(), fail: () => gates.shift()?.reject(new Error('refused')) };
}

const refusal = (message: RegExp): unknown =>
  expect.objectContaining({ name: 'SupervisorRefusal', code: 'busy', message: expect.stringMatching(message) as unknown }) as unknown;

describe('ExclusiveRunner', () => {
  it('a request while one runs waits behind it; every later request of that name joins it; none is dropped', async () => {
    const runner = new ExclusiveRunner();
    const { job, runs, finish } = gated();
    const first = runner.enqueue('reload', job);
    await vi.advanceTimersByTimeAsync(0);
    expect(runner.busyWith).toBe('reload');
    const second = runner.enqueue('reload', job);
    const third = runner.enqueue('reload', job);
    expect(runs).toEqual([1]);
    finish();
    expect(await first).toBe(1);
    await vi.advanceTimersByTimeAsync(0);
    // The queued run started only after the first settled, and answers both later requests.
    expect(runs).toEqual([1, 2]);
    finish();
    expect(await second).toBe(2);
    expect(await third).toBe(2);
    expect(runner.busyWith).toBeNull();
    const fourth = runner.enqueue('reload', job);
    await vi.advanceTimersByTimeAsync(0);
    finish();
    expect(await fourth).toBe(3);
  });

  it('a job that throws answers its callers with the failure and frees the slot; the waiting one runs', async () => {
    const runner = new ExclusiveRunner();
    const { job, runs, finish, fail } = gated();
    const first = runner.enqueue('reload', job);
    await vi.advanceTimersByTimeAsync(0);
    const second = runner.enqueue('reload', job);
    fail();
    await expect(first).rejects.toThrow('refused');
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toEqual([1, 2]);
    finish();
    expect(await second).toBe(2);
  });

  it('a job that must start now is refused while another runs or waits, and takes no turn from the waiting one', async () => {
    const runner = new ExclusiveRunner();
    const reload = gated();
    const test = gated();
    const running = runner.startNow('self-test', test.job);
    await vi.advanceTimersByTimeAsync(0);
    await expect(runner.startNow('self-test', test.job)).rejects.toEqual(refusal(/^self-test in progress$/));
    // A reload waits for the self-test (it is not refused).
    const reload1 = runner.enqueue('reload', reload.job);
    test.finish();
    expect(await running).toBe(1);
    // The slot passed to the waiting reload in the same tick: nothing slips in between.
    await expect(runner.startNow('self-test', test.job)).rejects.toEqual(refusal(/^reload in progress$/));
    await vi.advanceTimersByTimeAsync(0);
    expect(reload.runs).toEqual([1]);
    reload.finish();
    expect(await reload1).toBe(1);
  });

  it('close(): the running job’s signal aborts, the waiting and later ones are refused; it waits for the running one at most its grace', async () => {
    const runner = new ExclusiveRunner();
    const { job, signals, finish } = gated();
    const first = runner.enqueue('reload', job);
    await vi.advanceTimersByTimeAsync(0);
    const second = runner.enqueue('reload', job);
    const closed = runner.close('the station is stopping', 5_000);
    expect(signals[0]?.aborted).toBe(true);
    await expect(second).rejects.toEqual(refusal(/^the station is stopping$/));
    await expect(runner.enqueue('reload', job)).rejects.toBeInstanceOf(SupervisorRefusal);
    await expect(runner.startNow('self-test', job)).rejects.toBeInstanceOf(SupervisorRefusal);
    // A job that ignores its signal costs the grace, no more.
    let ended: boolean | undefined;
    void closed.then((v) => (ended = v));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(ended).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(ended).toBe(false);
    finish();
    expect(await first).toBe(1);
    // Nothing runs: a second close resolves at once.
    expect(await runner.close('again', 5_000)).toBe(true);
  });
});

/** A runtime reduced to what untilState reads: its state and its transitions. */
function fakeRuntime(initial: Partial<CoreState>): { runtime: StationRuntime; become: (s: Partial<CoreState>) => void; listeners: () => number } {
  let state = initial as CoreState;
  const listeners = new Set<(s: CoreState) => void>();
  const runtime = {
    snapshot: () => state,
    onTransition: (l: (s: CoreState) => void) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
  } as unknown as StationRuntime;
  return {
    runtime,
    become: (s) => {
      state = s as CoreState;
      for (const l of listeners) l(state);
    },
    listeners: () => listeners.size,
  };
}

describe('untilState', () => {
  it('true at once when it holds now; true on the transition that makes it hold, with no timer left', async () => {
    const f = fakeRuntime({ inFlight: 'state' });
    expect(await untilState(f.runtime, (s) => s.inFlight === 'state', 1_000)).toBe(true);
    const waiting = untilState(f.runtime, (s) => s.inFlight === null, 3_000);
    f.become({ inFlight: 'item-identify' });
    f.become({ inFlight: null });
    expect(await waiting).toBe(true);
    expect(f.listeners()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('false at its limit, and false at once on abort; nothing left listening', async () => {
    const f = fakeRuntime({ inFlight: 'state' });
    let result: boolean | undefined;
    void untilState(f.runtime, (s) => s.inFlight === null, 3_000).then((v) => (result = v));
    await vi.advanceTimersByTimeAsync(2_999);
    expect(result).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(result).toBe(false);
    const abort = new AbortController();
    const aborted = untilState(f.runtime, (s) => s.inFlight === null, 60_000, abort.signal);
    abort.abort();
    expect(await aborted).toBe(false);
    expect(f.listeners()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
