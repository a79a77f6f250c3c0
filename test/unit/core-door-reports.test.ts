/**
 * No door change lost on the way to the server (core/door-reports.ts): a door that opens and closes
 * while a /state is in flight, or while /state goes unanswered, is still reported in order — and an
 * unreachable server never makes /state go out faster than the heartbeat.
 */
import { describe, expect, it } from 'vitest';
import { messagesSchema, pinSchema, timingSchema } from '../../src/config/schema.js';
import { MAX_KEPT } from '../../src/station/core/door-reports.js';
import type { CoreConfig, Effect, OutboundRequest } from '../../src/station/core-types.js';
import { CoreDriver, SPEECH_DEFAULTS } from '../support/core-driver.js';

const A = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000001';
const B = 'aaaaaaaa-aaaa-4aaa-8aaa-000000000002';
const CONFIG: CoreConfig = {
  boxes: [
    { id: A, number: 1 },
    { id: B, number: 2 },
  ],
  timing: timingSchema.parse({ heartbeatIntervalMs: 1_000, pinIdleMs: 20_000, messageMs: 500, duplicateScanWindowMs: 0, doorOpenTimeoutMs: 400 }),
  pin: pinSchema.parse({}),
  messages: messagesSchema.parse({}),
  speech: SPEECH_DEFAULTS,
};
const idle = { kind: 'command', command: { type: 'wait-for-input', displayMessages: [] } } as const;

type StateSent = Extract<OutboundRequest, { endpoint: 'state' }>;
const states = (fx: readonly Effect[]): StateSent[] => fx.flatMap((e) => (e.type === 'send' && e.request.endpoint === 'state' ? [e.request] : []));
const doorsOf = (r: StateSent | undefined): string => (r ? r.boxes.map((b) => b.st[0]).join('') : '-');

function started(): CoreDriver {
  const c = new CoreDriver(CONFIG, { [A]: 'CLOSED', [B]: 'CLOSED' });
  c.input({ type: 'start' });
  c.input({ type: 'answered', endpoint: 'state', answer: idle });
  return c;
}

describe('door changes while a /state is in flight', () => {
  it('open and closed again before the answer: reported OPEN, then CLOSED', () => {
    const c = started();
    c.input({ type: 'timer', timer: 'heartbeat' }); // a /state (CC) in flight
    c.input({ type: 'door', boxId: A, state: 'OPEN' });
    c.input({ type: 'door', boxId: A, state: 'CLOSED' });
    const reported: string[] = [];
    for (let i = 0; i < 3 && c.state.inFlight === 'state'; i++)
      reported.push(doorsOf(states(c.input({ type: 'answered', endpoint: 'state', answer: idle }))[0]));
    expect(reported).toEqual(['OC', 'CC', '-']);
  });

  it('without a hidden change nothing extra goes out (one /state with the doors as they are)', () => {
    const c = started();
    c.input({ type: 'timer', timer: 'heartbeat' });
    c.input({ type: 'door', boxId: A, state: 'OPEN' });
    c.input({ type: 'door', boxId: B, state: 'OPEN' });
    expect(doorsOf(states(c.input({ type: 'answered', endpoint: 'state', answer: idle }))[0])).toBe('OO');
    expect(states(c.input({ type: 'answered', endpoint: 'state', answer: idle }))).toEqual([]);
  });

  it('an exception answer counts as received (never re-sent: no storm on a failing server)', () => {
    const c = started();
    c.input({ type: 'timer', timer: 'heartbeat' });
    c.input({ type: 'door', boxId: A, state: 'OPEN' });
    c.input({ type: 'door', boxId: A, state: 'CLOSED' });
    const exception = { kind: 'exception', status: 500, exceptionType: 'X', displayMessages: ['x'] } as const;
    expect(doorsOf(states(c.input({ type: 'answered', endpoint: 'state', answer: exception }))[0])).toBe('OC');
    expect(doorsOf(states(c.input({ type: 'answered', endpoint: 'state', answer: exception }))[0])).toBe('CC');
    expect(states(c.input({ type: 'answered', endpoint: 'state', answer: exception }))).toEqual([]);
  });
});

describe('door changes while the server does not answer', () => {
  it('a /state reporting OPEN goes unanswered and the door has closed: OPEN is reported again before CLOSED', () => {
    const c = started();
    c.input({ type: 'door', boxId: A, state: 'OPEN' }); // /state OC in flight
    c.input({ type: 'door', boxId: A, state: 'CLOSED' }); // a /state owed
    // The owed /state goes out at once (a door change), reporting the kept OPEN first.
    expect(doorsOf(states(c.input({ type: 'unanswered', endpoint: 'state', reason: 'refused' }))[0])).toBe('OC');
    expect(c.state.mode.kind).toBe('deactivated');
    // Unanswered again: nothing owed now, so it waits for the heartbeat (no storm)...
    expect(states(c.input({ type: 'unanswered', endpoint: 'state', reason: 'refused' }))).toEqual([]);
    c.advance(c.now + 999);
    expect(c.state.inFlight).toBeNull();
    c.advance(c.now + 1);
    // ... and reports the kept OPEN again, then the doors as they are.
    expect(c.sendsOf('state').at(-1)?.effect).toMatchObject({
      request: {
        boxes: [
          { id: A, st: 'OPEN' },
          { id: B, st: 'CLOSED' },
        ],
      },
    });
    expect(doorsOf(states(c.input({ type: 'answered', endpoint: 'state', answer: idle }))[0])).toBe('CC');
    expect(states(c.input({ type: 'answered', endpoint: 'state', answer: idle }))).toEqual([]);
  });

  it('a server that never answers: /state no faster than the heartbeat, however many changes are kept', () => {
    const c = started();
    for (let t = 0; t < 20_000; t += 100) {
      c.advance(t);
      c.input({ type: 'door', boxId: A, state: c.state.boxes[A] === 'OPEN' ? 'CLOSED' : 'OPEN' });
      if (c.state.inFlight === 'state') c.input({ type: 'unanswered', endpoint: 'state', reason: 'refused' });
    }
    // One /state per door change at most while nothing is in flight... but no burst: each needs an
    // input (a door change or the heartbeat) to go out.
    const perInput = c.effects.filter((e) => e.effect.type === 'send').length;
    expect(perInput).toBeLessThanOrEqual(200 + 20);
    expect(c.state.doorReports.queued.length).toBeLessThanOrEqual(MAX_KEPT);
    expect(c.logs('error').some((l) => l.effect.type === 'log' && l.effect.msg.startsWith('door changes not reported'))).toBe(true);
  });
});
