/**
 * What a reload does, decided from each changed key's class (src/supervisor/plan.ts), and the
 * reload queue (src/supervisor/coalesce.ts): one run at a time, a request while one runs joins the
 * single run queued behind it, which starts after it — none dropped, none answered by a run that
 * began before it was made.
 */
import { describe, expect, it } from 'vitest';
import type { ApplyOn } from '../../src/config/apply.js';
import { Coalescing } from '../../src/supervisor/coalesce.js';
import { planReload } from '../../src/supervisor/plan.js';

const classes = new Map<string, ApplyOn>([
  ['log.level', 'live'],
  ['debug.tokens', 'live'],
  ['locks.pulseMs', 'station'],
  ['timing.drainLimitMs', 'process'],
]);
const base = { log: { level: 'info' }, debug: { tokens: [] }, locks: { pulseMs: 600 }, timing: { drainLimitMs: 30_000 } };
const withValue = (path: string, value: unknown): typeof base => {
  const next = structuredClone(base) as Record<string, Record<string, unknown>>;
  const [section, key] = path.split('.') as [string, string];
  next[section]![key] = value;
  return next as unknown as typeof base;
};

describe('planReload', () => {
  it('no key changed: nothing', () => {
    expect(planReload(classes, { started: base, running: base }, structuredClone(base))).toEqual({
      kind: 'nothing',
      changed: { live: [], station: [], process: [] },
      restartNeeded: [],
    });
  });

  it('only live keys: live (the station keeps running)', () => {
    const next = withValue('log.level', 'debug');
    expect(planReload(classes, { started: base, running: base }, next)).toMatchObject({ kind: 'live', changed: { live: ['log.level'], station: [] } });
  });

  it('any station key: restart-station, whatever else changed', () => {
    const next = { ...withValue('log.level', 'debug'), locks: { pulseMs: 800 } };
    expect(planReload(classes, { started: base, running: base }, next)).toMatchObject({
      kind: 'restart-station',
      changed: { live: ['log.level'], station: ['locks.pulseMs'] },
    });
  });

  it('process keys: restartNeeded against the start config, not the running one; alone they plan nothing', () => {
    const changed = withValue('timing.drainLimitMs', 1_000);
    // Reloaded once already: running has it, the start does not — still said.
    expect(planReload(classes, { started: base, running: changed }, changed)).toEqual({
      kind: 'nothing',
      changed: { live: [], station: [], process: [] },
      restartNeeded: ['timing.drainLimitMs'],
    });
    // Changed back to what the process started with: nothing waits for a restart.
    expect(planReload(classes, { started: base, running: changed }, base).restartNeeded).toEqual([]);
  });
});

describe('Coalescing', () => {
  /** A task whose runs are counted and finished by hand. */
  function gated(): { runner: Coalescing<number>; runs: number[]; finish: () => void } {
    const runs: number[] = [];
    const gates: (() => void)[] = [];
    let n = 0;
    const runner = new Coalescing(async () => {
      const mine = ++n;
      runs.push(mine);
      await new Promise<void>((resolve) => gates.push(resolve));
      return mine;
    });
    return { runner, runs, finish: () => gates.shift()?.() };
  }

  it('a request while one runs is queued behind it; every later request joins that one; none is dropped', async () => {
    const { runner, runs, finish } = gated();
    const first = runner.request();
    await Promise.resolve();
    expect(runner.busy).toBe(true);
    const second = runner.request();
    const third = runner.request();
    expect(runs).toEqual([1]);
    finish();
    expect(await first).toBe(1);
    await new Promise((r) => setImmediate(r));
    // The queued run started only after the first settled, and answers both later requests.
    expect(runs).toEqual([1, 2]);
    finish();
    expect(await second).toBe(2);
    expect(await third).toBe(2);
    expect(runner.busy).toBe(false);
    // Idle again: the next request starts a run of its own.
    const fourth = runner.request();
    await new Promise((r) => setImmediate(r));
    finish();
    expect(await fourth).toBe(3);
  });

  it('a run that fails answers its requesters with the failure; the queued one still runs', async () => {
    let n = 0;
    let release: () => void = () => undefined;
    const runner = new Coalescing(async () => {
      n++;
      if (n === 1) {
        await new Promise<void>((r) => (release = r));
        throw new Error('refused');
      }
      return n;
    });
    const first = runner.request();
    await Promise.resolve();
    const second = runner.request();
    release();
    await expect(first).rejects.toThrow('refused');
    expect(await second).toBe(2);
  });
});
