/**
 * What an idle station logs: an answered heartbeat that changes nothing is at debug (an SD card
 * wears by writes, and journald keeps every info line); a change of what the station shows, a
 * box opening and a failure stay at info or above.
 */
import { describe, expect, it } from 'vitest';
import type { ServerAnswer } from '../../src/protocol/types.js';
import { B1, coreConfig, CoreDriver } from '../support/core-driver.js';

const HEARTBEAT = 30_000;
const config = coreConfig({ boxes: [{ id: B1, number: 1 }], timing: { heartbeatIntervalMs: HEARTBEAT, messageMs: 1_000 } });
const waitForInput = (lines: string[]): ServerAnswer => ({ kind: 'command', command: { type: 'wait-for-input', displayMessages: lines } });

/** Answer each heartbeat with `answerFor(n)` for `count` heartbeats; returns the core. */
function heartbeats(count: number, answerFor: (n: number) => ServerAnswer): CoreDriver {
  const v = new CoreDriver(config, { [B1]: 'CLOSED' });
  v.input({ type: 'start' });
  for (let n = 0; n < count; n++) {
    if (v.state.inFlight === null) v.advance(v.nextDue() ?? v.now);
    expect(v.state.inFlight).toBe('state');
    v.advance(v.now + 5);
    v.input({ type: 'answered', endpoint: 'state', answer: answerFor(n) });
  }
  return v;
}
const commandLogs = (v: CoreDriver, level: string): number =>
  v.logs(level).filter((e) => e.effect.type === 'log' && e.effect.msg.startsWith('server command')).length;

describe('an idle station', () => {
  it('logs the first wait-for-input at info and the 99 identical ones after it at debug', () => {
    const v = heartbeats(100, () => waitForInput(['Scan an item']));
    expect(commandLogs(v, 'info')).toBe(1);
    expect(commandLogs(v, 'debug')).toBe(99);
    expect(v.now).toBeGreaterThan(98 * HEARTBEAT);
  });

  it('logs a changed prompt at info again', () => {
    const v = heartbeats(10, (n) => waitForInput(n < 5 ? ['Scan an item'] : ['Closed for holidays']));
    expect(commandLogs(v, 'info')).toBe(2);
    expect(commandLogs(v, 'debug')).toBe(8);
  });

  it('logs a station-disable at info every time (not idle)', () => {
    const disable: ServerAnswer = { kind: 'command', command: { type: 'station-disable', displayMessages: ['Out of order'] } };
    const v = heartbeats(3, () => disable);
    expect(commandLogs(v, 'info')).toBe(3);
  });
});
