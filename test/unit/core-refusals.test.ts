/**
 * No storms on refused answers (docs/decisions/0006): the pure core driven on a virtual clock with a
 * server that refuses-answers every event the same way. At most one extra /state per heartbeat
 * interval, one log line per interval with a count, door changes still reported at once.
 */
import { describe, expect, it } from 'vitest';
import type { Effect } from '../../src/station/core-types.js';
import type { Endpoint, ServerAnswer } from '../../src/protocol/types.js';
import { B1, B2, coreConfig, CoreDriver, maxInWindow } from '../support/core-driver.js';

const FOREIGN = '99999999-9999-4999-8999-999999999999';
const HEARTBEAT = 3_000;
const RTT = 5;

const config = coreConfig({ timing: { heartbeatIntervalMs: HEARTBEAT, messageMs: 1_000 } });
const closed = { [B1]: 'CLOSED', [B2]: 'CLOSED' } as const;

/** The refused answers of the issue, as the protocol parser hands them to the core. */
const REFUSED: readonly [string, ServerAnswer][] = [
  ['unknown type {"type":"frobnicate"}', { kind: 'invalid', reason: 'malformed command: type: Invalid input' }],
  ['{"nonsense":1}', { kind: 'invalid', reason: 'malformed command: type: Invalid input' }],
  ['box-open to /state', { kind: 'command', command: { type: 'box-open', boxes: [B1], displayMessages: [] } }],
  ['wait-for-closing of a foreign box', { kind: 'command', command: { type: 'wait-for-closing', boxes: [FOREIGN], displayMessages: [], cancellable: false } }],
];

const isRejectLog = (e: Effect): boolean => e.type === 'log' && e.level === 'error' && e.msg.startsWith('server command rejected');
const countOf = (e: Effect): number => (e.type === 'log' && typeof e.data?.['count'] === 'number' ? e.data['count'] : 0);

/** Answer every event with `answer` (after RTT); when nothing is in flight, let time run to the next timer. */
function refuseRepeatedly(v: CoreDriver, answer: ServerAnswer, times: number): void {
  let refused = 0;
  while (refused < times) {
    const endpoint: Endpoint | null = v.state.inFlight;
    if (endpoint !== null) {
      v.advance(v.now + RTT);
      v.input({ type: 'answered', endpoint, answer });
      refused++;
    } else {
      const next = v.nextDue();
      if (next === null) throw new Error('the core went silent: no timer and nothing in flight');
      v.advance(next);
    }
  }
}

describe('a refused answer repeated 1,000 times', () => {
  it.each(REFUSED)('%s: at most one extra /state per heartbeat interval, one log line per interval with a count, no pulse', (_name, answer) => {
    const v = new CoreDriver(config, closed);
    v.input({ type: 'start' });
    refuseRepeatedly(v, answer, 1_000);

    const stateTimes = v.sendsOf('state').map((e) => e.at);
    const intervals = v.now / HEARTBEAT;
    // Without the fix 1,000 refusals take 1,000 × RTT = 5 s; now they take about 1,000 heartbeats.
    expect(intervals).toBeGreaterThan(900);
    // The heartbeat's /state plus at most one extra per interval.
    expect(maxInWindow(stateTimes, HEARTBEAT)).toBeLessThanOrEqual(2);
    expect(stateTimes.length).toBeLessThanOrEqual(intervals + 2);

    const rejectLogs = v.effects.filter((e) => isRejectLog(e.effect));
    expect(
      maxInWindow(
        rejectLogs.map((e) => e.at),
        HEARTBEAT,
      ),
    ).toBeLessThanOrEqual(2);
    expect(rejectLogs.length).toBeLessThanOrEqual(intervals + 2);
    // Every refusal is accounted for: logged on its own, counted in a summary, or counted in the open window.
    const logged = rejectLogs.reduce((n, e) => n + (countOf(e.effect) > 0 ? countOf(e.effect) : 1), 0);
    expect(logged + (v.state.refusals?.repeats ?? 0)).toBe(1_000);

    expect(v.effects.filter((e) => e.effect.type === 'pulse')).toEqual([]);
    // Every /state after the first reports the refusal (once, however often it was repeated).
    const last = v.sendsOf('state').at(-1)?.effect;
    expect(last?.type === 'send' && last.request.endpoint === 'state' ? last.request : null).toMatchObject({ st: 'DOWN' });
    expect(v.state.pendingErrors.length + v.state.reportingErrors.length).toBeLessThanOrEqual(1);
  });
});

/** A station told wait-for-input, at virtual time 0 + RTT. */
function idleStation(): CoreDriver {
  const v = new CoreDriver(config, closed);
  v.input({ type: 'start' });
  v.advance(RTT);
  v.input({ type: 'answered', endpoint: 'state', answer: { kind: 'command', command: { type: 'wait-for-input', displayMessages: [] } } });
  return v;
}
const frobnicate: ServerAnswer = { kind: 'invalid', reason: 'malformed command: type: Invalid input' };

describe('refusal window', () => {
  it('the first refusal is reported by a /state DOWN at once; a repeat inside the window waits for the heartbeat', () => {
    const v = idleStation();
    v.input({ type: 'scan', identifierType: 'BAR_CODE', value: 'A1', at: v.now });
    v.advance(v.now + RTT);
    const first = v.input({ type: 'answered', endpoint: 'item-identify', answer: frobnicate });
    expect(first).toContainEqual({ type: 'send', request: expect.objectContaining({ endpoint: 'state', st: 'DOWN' }) });
    v.advance(v.now + RTT);
    v.input({ type: 'answered', endpoint: 'state', answer: { kind: 'command', command: { type: 'wait-for-input', displayMessages: [] } } });

    // A second scan, refused again within the same interval: no /state at once.
    v.advance(v.now + 2_000);
    v.input({ type: 'scan', identifierType: 'BAR_CODE', value: 'A2', at: v.now });
    v.advance(v.now + RTT);
    const second = v.input({ type: 'answered', endpoint: 'item-identify', answer: frobnicate });
    expect(second.filter((e) => e.type === 'send')).toEqual([]);
    expect(second.filter(isRejectLog)).toEqual([]);
    // The next heartbeat carries it.
    const heartbeatAt = v.nextDue();
    v.advance(v.now + HEARTBEAT);
    const hb = v.sendsOf('state').at(-1);
    expect(hb?.at).toBeLessThanOrEqual((heartbeatAt ?? 0) + HEARTBEAT);
    expect(hb?.effect).toMatchObject({ request: { st: 'DOWN', errorMessage: expect.stringContaining('rejected command to /item-identify') } });
    // The window's end logged the repeat with its count.
    expect(v.effects.filter((e) => isRejectLog(e.effect) && countOf(e.effect) === 1)).toHaveLength(1);
  });

  it('a door change inside the window still goes out at once', () => {
    const v = idleStation();
    v.input({ type: 'timer', timer: 'heartbeat' });
    v.advance(v.now + RTT);
    v.input({ type: 'answered', endpoint: 'state', answer: frobnicate });
    v.advance(v.now + RTT);
    v.input({ type: 'answered', endpoint: 'state', answer: frobnicate });
    expect(v.state.inFlight).toBeNull();
    expect(v.state.refusals).not.toBeNull();
    const fx = v.input({ type: 'door', boxId: B2, state: 'OPEN' });
    expect(fx).toContainEqual({
      type: 'send',
      request: expect.objectContaining({ endpoint: 'state', boxes: expect.arrayContaining([{ id: B2, st: 'OPEN' }]) }),
    });
  });

  it('a quiet interval closes the window: the next refusal is logged and reported at once again', () => {
    const v = idleStation();
    v.input({ type: 'timer', timer: 'heartbeat' });
    v.advance(v.now + RTT);
    v.input({ type: 'answered', endpoint: 'state', answer: frobnicate });
    v.advance(v.now + RTT);
    v.input({ type: 'answered', endpoint: 'state', answer: { kind: 'command', command: { type: 'wait-for-input', displayMessages: [] } } });
    v.advance(v.now + HEARTBEAT + 1);
    expect(v.state.refusals).toBeNull();
    if (v.state.inFlight === 'state')
      v.input({ type: 'answered', endpoint: 'state', answer: { kind: 'command', command: { type: 'wait-for-input', displayMessages: [] } } });
    v.input({ type: 'scan', identifierType: 'BAR_CODE', value: 'B1', at: v.now });
    v.advance(v.now + RTT);
    const fx = v.input({ type: 'answered', endpoint: 'item-identify', answer: frobnicate });
    expect(fx.filter(isRejectLog)).toHaveLength(1);
    expect(fx).toContainEqual({ type: 'send', request: expect.objectContaining({ endpoint: 'state', st: 'DOWN' }) });
  });

  it('varying reasons keep a bounded list for the log line and one errorMessage each', () => {
    const v = idleStation();
    v.input({ type: 'timer', timer: 'heartbeat' });
    for (let i = 0; i < 50; i++) {
      if (v.state.inFlight === null) v.input({ type: 'timer', timer: 'heartbeat' });
      v.input({ type: 'answered', endpoint: 'state', answer: { kind: 'invalid', reason: `reason ${i}` } });
    }
    expect(v.state.refusals?.reasons.length).toBeLessThanOrEqual(5);
    expect(new Set(v.state.pendingErrors).size).toBe(v.state.pendingErrors.length);
    expect(v.state.pendingErrors.length).toBeLessThanOrEqual(5);
  });
});
