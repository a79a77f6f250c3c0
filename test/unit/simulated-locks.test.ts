/** Simulated locks keep a bounded record of their pulses: a demo or a simulated fleet runs for days. */
import { describe, expect, it } from 'vitest';
import { MAX_PULSES_KEPT, SimDoors, SimLocks } from '../../src/devices/simulated/locks-doors.js';

describe('SimLocks pulse record', () => {
  it(`keeps the last ${MAX_PULSES_KEPT} pulses, oldest first, and counts them all`, async () => {
    const locks = new SimLocks([1, 2], new SimDoors([1, 2]), 60_000);
    locks.jammed.add(1).add(2); // no door springs open: no timers left behind
    const n = MAX_PULSES_KEPT + 25;
    for (let i = 0; i < n; i++) await locks.pulse(i % 2 === 0 ? 1 : 2, 0);
    expect(locks.pulseCount).toBe(n);
    expect(locks.pulses).toHaveLength(MAX_PULSES_KEPT);
    // The oldest kept is pulse 25 (0-based; odd: box 2), the newest pulse n - 1 = 1,024 (even: box 1).
    expect(locks.pulses[0]).toEqual({ box: 2, ms: 0 });
    expect(locks.pulses.at(-1)).toEqual({ box: 1, ms: 0 });
    await locks.close();
  });
});
