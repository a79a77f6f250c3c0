/**
 * The daemon's stop (src/supervised.ts): every lock OFF first — before the technician port closes
 * and before the metrics' last write — and a stop that always ends: a step that never settles is
 * named in the log and the stop goes on within timing.stopLimitMs. Real station, reference server
 * and technician port on 127.0.0.1; the metrics stop replaced by one that never resolves (a hung
 * textfile folder), the last hardware boundary the test can reach.
 */
import { afterEach, expect, it } from 'vitest';
import { waitFor } from '../support/shared.js';
import { idle, startDebugHarness, type DebugHarness } from '../support/technician-harness.js';

let d: DebugHarness | undefined;
afterEach(async () => {
  await d?.h.stop();
  d = undefined;
});

it('a lock energized when the stop begins is OFF before the port closes; a metrics stop that never resolves costs the stop limit, not the lock', async () => {
  d = await startDebugHarness({ locks: { pulseMs: 3_000 }, timing: { stopLimitMs: 1_000 } });
  await idle(d);
  const { h, wp } = d;
  const order: string[] = [];
  const allOff = h.sim.locks.allOff.bind(h.sim.locks);
  h.sim.locks.allOff = () => {
    order.push('locks OFF');
    return allOff();
  };
  const port = wp.port!;
  const closePort = port.close.bind(port);
  (port as { close: () => Promise<void> }).close = () => {
    order.push(`port closed, lock 1 ${h.sim.locks.isEnergized(1) ? 'ON' : 'off'}`);
    return closePort();
  };
  const metrics = wp.metrics!;
  metrics.stop = () => {
    order.push(`metrics stop, lock 1 ${h.sim.locks.isEnergized(1) ? 'ON' : 'off'}`);
    return new Promise<void>(() => undefined);
  };
  // A technician's opening: lock 1 energized for 3 s.
  void d.call('POST', '/api/boxes/1/open').catch(() => undefined);
  await waitFor('lock 1 energized', () => h.sim.locks.isEnergized(1));

  await wp.stop();
  expect(order[0]).toBe('locks OFF');
  expect(order).toContain('port closed, lock 1 off');
  expect(order).toContain('metrics stop, lock 1 off');
  expect(h.sim.locks.isEnergized(1)).toBe(false);
  const lines = h.logs.map((l) => JSON.parse(l) as { msg: string; step?: string });
  expect(lines.find((l) => l.msg === 'stop: metrics written and stopped: did not end in time; going on')).toBeDefined();
  expect(lines.filter((l) => l.msg.startsWith('stop: ')).map((l) => l.step)).toEqual([
    'every lock OFF, the station stopped',
    'technician port closed',
    'metrics written and stopped',
  ]);
});
