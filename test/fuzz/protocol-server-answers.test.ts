/**
 * Property (docs/decisions/0019, the server's answers): whatever the server answers — valid, near-valid or garbage, any
 * status, any content type — to whichever endpoint, through the station's real parse
 * (parseServerResponse) and core (transition):
 *
 * - a lock is pulsed if and only if the answer is a valid box-open to /item-identify or /pin-enter
 *   naming only this station's boxes, and then exactly those boxes;
 * - the request rate stays bounded: with every answer arriving at once, an input never sets off
 *   more than a few requests beyond the door changes kept unreported before it, and /state never goes out more than twice per heartbeat interval
 *   beyond what door changes and inputs cause.
 *
 * A case is a session: a sequence of what people do at the station (scan, PIN, cancel, close the
 * doors, force a door) and of time passing, while the server answers each endpoint with an arbitrary
 * response that changes from step to step.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { UnansweredError } from '../../src/errors.js';
import { parseServerResponse } from '../../src/protocol/parse.js';
import type { Endpoint, ServerAnswer } from '../../src/protocol/types.js';
import type { Input, OutboundRequest } from '../../src/station/core-types.js';
import { OWN_BOXES, rawResponse, type RawResponse } from '../support/fuzz-answers.js';
import { CoreDriver, DOOR_SPRING_MS, HEARTBEAT_MS, PROPERTY_CORE, type Server, type Step } from '../support/core-driver.js';
import { FUZZ_TIMEOUT_MS, check, must } from '../support/fuzz-runs.js';

/** The real parse: an answer, or the client's "unanswered" (it would have resent, then given up). */
function parsed(r: RawResponse): { kind: 'answer'; answer: ServerAnswer } | { kind: 'unanswered'; reason: string } {
  try {
    return { kind: 'answer', answer: parseServerResponse(r.status, r.contentType, r.body) };
  } catch (e) {
    if (e instanceof UnansweredError) return { kind: 'unanswered', reason: e.reason };
    throw e;
  }
}

/** The oracle: the boxes this answer must open, or null when it must open nothing. */
function mustOpen(endpoint: Endpoint, answer: ServerAnswer): readonly string[] | null {
  if (endpoint !== 'item-identify' && endpoint !== 'pin-enter') return null;
  if (answer.kind !== 'command' || answer.command.type !== 'box-open') return null;
  return answer.command.boxes.every((b) => OWN_BOXES.includes(b)) ? answer.command.boxes : null;
}

type Action = 'scan' | 'pin' | 'cancel' | 'close-doors' | 'force-door' | 'wait';
type Responses = Readonly<Record<Endpoint, RawResponse>>;
interface SessionStep {
  readonly action: Action;
  readonly ms: number;
  readonly box: number;
  readonly responses: Responses;
}

/** What the server answers during a step: one response for /state, one for the event endpoints. */
const responses: fc.Arbitrary<Responses> = fc
  .tuple(rawResponse, rawResponse)
  .map(([state, event]) => ({ state, 'item-identify': event, 'pin-enter': event, cancel: event }));
const session: fc.Arbitrary<SessionStep[]> = fc.array(
  fc.record({
    action: fc.constantFrom<Action>('scan', 'pin', 'cancel', 'close-doors', 'force-door', 'wait', 'wait'),
    ms: fc.integer({ min: 0, max: 2_500 }),
    box: fc.integer({ min: 0, max: OWN_BOXES.length - 1 }),
    responses,
  }),
  { minLength: 1, maxLength: 12 },
);

/** Requests one input may set off when every answer comes at once: the event, a /state, one more. */
const MAX_BURST = 3;

function runSession(steps: readonly SessionStep[]): void {
  let current: Responses | null = null;
  const server: Server = (request: OutboundRequest): Input => {
    const r = current?.[request.endpoint];
    if (r === undefined) return { type: 'unanswered', endpoint: request.endpoint, reason: 'no server yet' };
    const p = parsed(r);
    return p.kind === 'answer'
      ? { type: 'answered', endpoint: request.endpoint, answer: p.answer }
      : { type: 'unanswered', endpoint: request.endpoint, reason: p.reason };
  };
  let doorChanges = 0;
  let actions = 0;
  const pulseCheck = (step: Step): void => {
    const pulses = step.effects.flatMap((e) => (e.type === 'pulse' ? [e.boxIds] : []));
    const input = step.input;
    const expected = input.type === 'answered' && step.before.inFlight === input.endpoint ? mustOpen(input.endpoint, input.answer) : null;
    if (expected === null) must(pulses.length === 0, () => `pulse ${JSON.stringify(pulses)} on ${JSON.stringify(input)}`);
    else
      must(
        pulses.length === 1 && JSON.stringify(pulses[0]) === JSON.stringify(expected),
        () => `pulses ${JSON.stringify(pulses)}, not exactly ${JSON.stringify(expected)}, on ${JSON.stringify(input)}`,
      );
    if (input.type === 'door' && step.before.boxes[input.boxId] !== input.state) doorChanges++;
  };
  const world = new CoreDriver(PROPERTY_CORE, Object.fromEntries(OWN_BOXES.map((b) => [b, 'CLOSED'])), { check: pulseCheck, doorSpringMs: DOOR_SPRING_MS });
  current = steps[0]?.responses ?? null;
  const atStart = world.run({ type: 'start' }, server);
  must(atStart <= MAX_BURST, () => `${atStart} requests at start`);

  for (const step of steps) {
    current = step.responses;
    // Door changes kept while the server did not answer go out first, one /state each, as soon as a
    // /state is answered (core/door-reports.ts): they belong to the earlier changes, not this input.
    const keptDoorChanges = world.state.doorReports.queued.length + (world.state.doorReports.sending === null ? 0 : 1);
    let sends = 0;
    switch (step.action) {
      case 'scan':
        actions++;
        sends = world.run({ type: 'scan', identifierType: 'BAR_CODE', value: `ITEM-${step.box}`, at: world.now }, server);
        break;
      case 'pin':
        actions++;
        for (const d of '123456') sends += world.run({ type: 'key', key: { kind: 'digit', digit: d } }, server);
        sends += world.run({ type: 'key', key: { kind: 'enter' } }, server);
        break;
      case 'cancel':
        actions++;
        sends = world.run({ type: 'cancel-pressed' }, server);
        break;
      case 'close-doors':
        for (const b of OWN_BOXES) if (world.state.boxes[b] === 'OPEN') sends += world.run({ type: 'door', boxId: b, state: 'CLOSED' }, server);
        break;
      case 'force-door':
        sends = world.run({ type: 'door', boxId: OWN_BOXES[step.box] ?? '', state: 'OPEN' }, server);
        break;
      case 'wait':
        world.advance(world.now + step.ms, server);
        break;
    }
    // Zero time passes in a user action: its requests are bounded by what it does, not by the answers.
    if (step.action !== 'wait' && step.action !== 'close-doors')
      must(sends <= MAX_BURST + keptDoorChanges, () => `${sends} requests set off by ${step.action} (${keptDoorChanges} door changes kept before it)`);
    if (step.action === 'close-doors')
      must(
        sends <= MAX_BURST * OWN_BOXES.length + keptDoorChanges,
        () => `${sends} requests set off by closing doors (${keptDoorChanges} door changes kept before)`,
      );
  }
  // Over the session: /state at most twice per heartbeat interval, plus what doors and people caused.
  const states = world.sent.filter((s) => s.request.endpoint === 'state').length;
  const bound = 2 * (Math.ceil(world.now / HEARTBEAT_MS) + 1) + 2 * doorChanges + 2 * actions;
  must(states <= bound, () => `/state ${states} > ${bound} in ${world.now} ms with ${doorChanges} door changes, ${actions} actions`);
}

describe('arbitrary server answers through parse + core', () => {
  it(
    'pulse iff a valid box-open to /item-identify or /pin-enter of own boxes; request rate bounded',
    () => {
      check(
        '8a server answers (sessions)',
        20_000,
        fc.property(session, (steps) => runSession(steps)),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'every single answer to every endpoint, straight after its request',
    () => {
      // One request, one answer: the densest cover of the parse -> core decision per endpoint.
      const endpoint = fc.constantFrom<'scan' | 'pin'>('scan', 'pin');
      check(
        '8a server answers (single)',
        30_000,
        fc.property(endpoint, rawResponse, (what, r) => {
          const responses = {
            state: { status: 200, contentType: 'application/json', body: '{"type":"wait-for-input"}' },
            'item-identify': r,
            'pin-enter': r,
            cancel: r,
          };
          runSession([
            { action: 'wait', ms: 0, box: 0, responses },
            { action: what, ms: 0, box: 0, responses },
          ]);
        }),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});
