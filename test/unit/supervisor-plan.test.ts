/**
 * What a reload does, decided from each changed key's class (src/supervisor/plan.ts). How reloads
 * are queued is the runner's (test/unit/supervisor-runner.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { ApplyOn } from '../../src/config/apply.js';
import { planReload } from '../../src/supervisor/plan.js';

const classes = new Map<string, ApplyOn>([
  ['log.level', 'live'],
  ['technician.tokens', 'live'],
  ['locks.pulseMs', 'station'],
  ['timing.drainLimitMs', 'process'],
]);
const base = { log: { level: 'info' }, technician: { tokens: [] }, locks: { pulseMs: 600 }, timing: { drainLimitMs: 30_000 } };
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
