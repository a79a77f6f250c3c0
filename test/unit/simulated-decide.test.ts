import { describe, expect, it } from 'vitest';
import { decide, type DecideContext } from '../../src/reference-server/decide.js';
import { DEMO_STATION, SEED_BARCODES, SEED_PIN_MULTI, seedData } from '../../src/reference-server/seed.js';
import { initialStationState, type StationSimState } from '../../src/reference-server/state.js';
import type { SimRequest } from '../../src/reference-server/validate.js';

const S = DEMO_STATION;
const box = (n: number): string => S.boxes[n - 1]!;
const ctx: DecideContext = { now: 1000, absenceMs: 500 };
let n = 0;
const ev = (): string => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
const state = (open: number[] = []): SimRequest => ({
  endpoint: 'state',
  body: { station: S.id, st: 'UP', errorMessage: null, boxes: S.boxes.map((id, i) => ({ id, st: open.includes(i + 1) ? 'OPEN' : 'CLOSED' })), event: ev() },
});
const identify = (value: string): SimRequest => ({
  endpoint: 'item-identify',
  body: { station: S.id, identifierValue: value, identifierType: 'BAR_CODE', event: ev() },
});
const pin = (p: string): SimRequest => ({ endpoint: 'pin-enter', body: { station: S.id, pin: p, event: ev() } });
const cancel = (): SimRequest => ({ endpoint: 'cancel', body: { station: S.id, event: ev() } });

/** Runs requests in order at ctx.now, returning every answer and the final state. */
function run(start: StationSimState, ...reqs: SimRequest[]): { s: StationSimState; answers: unknown[] } {
  let s = start;
  const answers: unknown[] = [];
  for (const r of reqs) {
    const d = decide(s, r, ctx);
    s = d.state;
    answers.push(d.answer);
  }
  return { s, answers };
}

const seeded = (): StationSimState => {
  const { deposits, pickups } = seedData([S]);
  return initialStationState(S, deposits, pickups);
};

describe('decide (pure)', () => {
  it('never mutates the state it is given', () => {
    const s0 = run(seeded(), state()).s;
    const frozen = JSON.stringify(s0);
    const d = decide(s0, identify(SEED_BARCODES[0]), ctx);
    expect(JSON.stringify(s0)).toBe(frozen);
    expect(d.state.active).not.toBeNull();
  });

  it('refuses box actions until the first heartbeat and once it is absenceMs old', () => {
    expect(decide(seeded(), identify(SEED_BARCODES[0]), ctx).answer.status).toBe(409);
    const alive = run(seeded(), state()).s;
    expect(decide(alive, identify(SEED_BARCODES[0]), { ...ctx, now: ctx.now + 499 }).answer.status).toBe(200);
    expect(decide(alive, identify(SEED_BARCODES[0]), { ...ctx, now: ctx.now + 500 }).answer).toMatchObject({
      status: 409,
      body: { exceptionType: 'StationUnavailableException' },
    });
  });

  it('a multi-box pickup where one box never opened completes once the other closes, with a note', () => {
    const { s } = run(seeded(), state(), pin(SEED_PIN_MULTI), state([5]));
    const last = decide(s, state([]), ctx);
    expect(last.answer).toMatchObject({ status: 200, body: { type: 'wait-for-input' } });
    expect(last.notes).toEqual([`pickup done but never opened: ${box(6)}`]);
    expect(last.state.pickups.find((p) => p.pickup.pin === SEED_PIN_MULTI)?.used).toBe(true);
  });

  it('a deposit box reopened after closing is a new (forced) opening, not the finished deposit', () => {
    const { s } = run(seeded(), state(), identify(SEED_BARCODES[0]), state([1]), state([]));
    const d = decide(s, state([1]), ctx);
    expect(d.answer.body).toMatchObject({ type: 'wait-for-input' });
    expect(d.state.history.at(-1)).toMatchObject({ kind: 'forced-open', boxId: box(1) });
  });

  it('cancel right after box-open (before the door reported OPEN) is allowed', () => {
    const { answers, s } = run(seeded(), state(), identify(SEED_BARCODES[1]), cancel(), state([2]), state([]));
    expect(answers[2]).toMatchObject({ status: 200, body: { type: 'wait-for-closing', cancellable: false, displayMessages: ['Cancelled', 'close box 2'] } });
    expect(answers[3]).toMatchObject({ body: { type: 'wait-for-closing', cancellable: false } });
    expect(s.deposits.every((d) => !d.stored)).toBe(true);
  });
});
