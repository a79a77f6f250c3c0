/**
 * Graceful stop as a core mode: new input refused with the "restarting" text, the event in flight
 * answered, an answered box-open carried out through its pulse and the /state reporting the doors,
 * then `drained` — once.
 */
import { describe, expect, it } from 'vitest';
import { initialState, screen } from '../../src/station/core.js';
import type { CoreState, Effect, Input } from '../../src/station/core-types.js';
import { B1, coreConfig, runCore, sends } from '../support/core-driver.js';

const config = coreConfig({ boxes: [{ id: B1, number: 1 }] });
const run = (state: CoreState, ...inputs: Input[]) => runCore(config, state, ...inputs);
const drained = (fx: readonly Effect[]) => fx.filter((e) => e.type === 'drained');
const cmd = (endpoint: 'state' | 'item-identify', command: object): Input => ({
  type: 'answered',
  endpoint,
  answer: { kind: 'command', command: command as never },
});
const idle = (): CoreState => run(initialState({ [B1]: 'CLOSED' }), { type: 'start' }, cmd('state', { type: 'wait-for-input', displayMessages: [] })).state;

describe('drain', () => {
  it('idle: drained at once; the screen says restarting; a scan, a PIN, a cancel and a technician open are refused', () => {
    const r = run(idle(), { type: 'drain' });
    expect(drained(r.fx)).toHaveLength(1);
    expect(screen(config, r.state)).toEqual(config.messages.restarting);
    const after = run(
      r.state,
      { type: 'scan', identifierType: 'BAR_CODE', value: 'A', at: 0 },
      { type: 'key', key: { kind: 'digit', digit: '1' } },
      { type: 'cancel-pressed' },
      { type: 'technician-open', boxId: B1 },
      { type: 'timer', timer: 'heartbeat' },
    );
    expect(sends(after.fx)).toEqual([]);
    expect(after.fx.filter((e) => e.type === 'pulse')).toEqual([]);
    expect(drained(after.fx)).toEqual([]);
    expect(after.state.pin).toBe('');
  });

  it('an answered box-open is carried out through its pulse and the /state reporting the door, then drained', () => {
    let s = run(idle(), { type: 'scan', identifierType: 'BAR_CODE', value: 'A', at: 0 }).state;
    let r = run(s, { type: 'drain' });
    expect(drained(r.fx)).toEqual([]);
    r = run(r.state, cmd('item-identify', { type: 'box-open', boxes: [B1], displayMessages: ['Box 1'] }));
    expect(r.fx.filter((e) => e.type === 'pulse')).toEqual([{ type: 'pulse', boxIds: [B1] }]);
    expect(screen(config, r.state)).toEqual(['Box 1']);
    expect(drained(r.fx)).toEqual([]);
    r = run(r.state, { type: 'door', boxId: B1, state: 'OPEN' });
    expect(sends(r.fx)).toEqual([expect.objectContaining({ endpoint: 'state', boxes: [{ id: B1, st: 'OPEN' }] })]);
    expect(drained(r.fx)).toEqual([]);
    s = r.state;
    r = run(s, cmd('state', { type: 'wait-for-closing', boxes: [B1], displayMessages: ['Close box 1'] }));
    // Not waiting for the door to be closed: the restarted station reports it from the journal.
    expect(drained(r.fx)).toHaveLength(1);
    expect(run(r.state, { type: 'door', boxId: B1, state: 'CLOSED' }).fx.filter((e) => e.type === 'drained')).toEqual([]);
  });

  it('an unanswered event ends the drain too (it is never resent)', () => {
    const s = run(idle(), { type: 'scan', identifierType: 'BAR_CODE', value: 'A', at: 0 }, { type: 'drain' }).state;
    const r = run(s, { type: 'unanswered', endpoint: 'item-identify', reason: 'not resent: station stopping' });
    expect(sends(r.fx)).toEqual([]);
    expect(drained(r.fx)).toHaveLength(1);
  });

  it('a box that does not open: drained after the door-open time and the /state that reports it', () => {
    let r = run(
      idle(),
      { type: 'scan', identifierType: 'BAR_CODE', value: 'A', at: 0 },
      { type: 'drain' },
      cmd('item-identify', { type: 'box-open', boxes: [B1], displayMessages: [] }),
    );
    r = run(r.state, { type: 'timer', timer: 'door-open' });
    expect(sends(r.fx)).toEqual([expect.objectContaining({ endpoint: 'state', st: 'DOWN' })]);
    expect(drained(r.fx)).toEqual([]);
    expect(drained(run(r.state, cmd('state', { type: 'wait-for-input', displayMessages: [] })).fx)).toHaveLength(1);
  });

  it('a second drain input changes nothing', () => {
    const s = run(idle(), { type: 'drain' }).state;
    expect(run(s, { type: 'drain' }).fx).toEqual([]);
  });
});
