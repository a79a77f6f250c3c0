/** RefusalLog's windows (src/edge/refusals.ts, with the technician port's kinds) under fake timers: first at once, then one count per interval. */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/log.js';
import { RefusalLog } from '../../src/edge/refusals.js';
import { TECHNICIAN_REFUSALS } from '../../src/technician/refusals.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function logged() {
  const lines: { msg: string; refusal: string; count?: number; from?: string | null; level: number }[] = [];
  const log = createLogger('info', new Writable({ write: (c: Buffer, _e, cb) => (lines.push(JSON.parse(c.toString()) as (typeof lines)[number]), cb()) }));
  return { lines, log };
}

describe('RefusalLog', () => {
  it('logs the first refusal of a kind at once, counts the rest, and writes one summary per interval while they go on', () => {
    const { lines, log } = logged();
    const r = new RefusalLog(log, 10_000, TECHNICIAN_REFUSALS);
    r.refused('wrong-token', '192.0.2.7');
    for (let i = 0; i < 999; i++) r.refused('wrong-token', '192.0.2.7');
    r.refused('no-token', '192.0.2.8');
    expect(lines.map((l) => [l.refusal, l.count, l.from])).toEqual([
      ['wrong-token', undefined, '192.0.2.7'],
      ['no-token', undefined, '192.0.2.8'],
    ]);
    vi.advanceTimersByTime(10_000);
    expect(lines.slice(2).map((l) => [l.refusal, l.count])).toEqual([['wrong-token', 999]]);
    expect(lines[2]?.msg).toMatch(/: 999 more in the last 10 s$/);
    // Still coming: one more summary next interval; then quiet: nothing, and the next one is logged at once again.
    r.refused('wrong-token', '192.0.2.7');
    vi.advanceTimersByTime(10_000);
    vi.advanceTimersByTime(10_000);
    expect(lines.slice(3).map((l) => [l.refusal, l.count])).toEqual([['wrong-token', 1]]);
    r.refused('wrong-token', '192.0.2.9');
    expect(lines.at(-1)).toMatchObject({ refusal: 'wrong-token', from: '192.0.2.9' });
    expect(lines.at(-1)?.count).toBeUndefined();
  });

  it('close(): no timer left, nothing logged afterwards', () => {
    const { lines, log } = logged();
    const r = new RefusalLog(log, 1_000, TECHNICIAN_REFUSALS);
    r.refused('evicted', '192.0.2.1');
    r.refused('evicted', '192.0.2.1');
    r.close();
    expect(vi.getTimerCount()).toBe(0);
    r.refused('evicted', '192.0.2.1');
    vi.advanceTimersByTime(5_000);
    expect(lines).toHaveLength(1);
  });
});
