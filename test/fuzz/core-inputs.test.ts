/**
 * Property (docs/decisions/0019, the core's inputs): any sequence of core inputs — scans of any text, keypad keys (odd
 * ones too), the cancel button, door changes of known and unknown boxes, answers of any shape to
 * any endpoint (in flight or not), unanswered events, every timer, faults, failed pulses,
 * technician opens — keeps the station's rules:
 *
 * - never two events in flight;
 * - no pulse without a box-open answering /item-identify or /pin-enter in flight, or a technician
 *   open, and only of this station's boxes;
 * - the display is never empty (some line with something on it);
 * - no PIN digit reaches a log effect: no log on a keypad key carries what was typed, no log ever
 *   carries a PIN that was sent, and no log has a field named pin;
 * - a PIN goes out only with the Enter that follows its digits: digits typed before an earlier
 *   Enter (refused or not) never go out with a later one — another reader's Enter must not send them.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { screen } from '../../src/station/core.js';
import type { CoreConfig, Effect, Input, TimerName } from '../../src/station/core-types.js';
import type { ActionSource, PreviousRun } from '../../src/journal/types.js';
import type { Endpoint, ServerAnswer } from '../../src/protocol/types.js';
import { CoreDriver, DOOR_SPRING_MS, PROPERTY_CORE, type Step } from '../support/core-driver.js';
import { FUZZ_TIMEOUT_MS, check, must } from '../support/fuzz-runs.js';

/** Box ids with no run of two digits, so a PIN can never hide in one (see the PIN rule). */
const BOXES = ['a', 'b', 'c'].map((c, i) => `${c.repeat(8)}-${c.repeat(4)}-4${c.repeat(3)}-a${c.repeat(3)}-${c.repeat(11)}${i + 1}`);
const UNKNOWN_BOX = 'dddddddd-dddd-4ddd-addd-dddddddddddd';
const CONFIG: CoreConfig = { ...PROPERTY_CORE, boxes: BOXES.map((id, i) => ({ id, number: i + 1 })) };

const ENDPOINTS: readonly Endpoint[] = ['state', 'item-identify', 'pin-enter', 'cancel'];
const TIMERS: readonly TimerName[] = ['heartbeat', 'pin-idle', 'message', 'door-open', 'refusal'];
/** Text without digits (scans, server texts): a PIN found in a log line can only have come from the keypad. */
const text = (maxLength: number): fc.Arbitrary<string> => fc.string({ maxLength, unit: 'binary' }).map((s) => s.replace(/[0-9]/g, 'x'));
const box = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...BOXES) }, { weight: 1, arbitrary: fc.constant(UNKNOWN_BOX) });
const lines = fc.array(fc.oneof(text(20), fc.constant(''), fc.constant('   ')), { maxLength: 3 });

const answer: fc.Arbitrary<ServerAnswer> = fc.oneof(
  fc.record({
    kind: fc.constant('command' as const),
    command: fc.record({ type: fc.constantFrom('wait-for-input' as const, 'station-disable' as const), displayMessages: lines }),
  }),
  fc.record({
    kind: fc.constant('command' as const),
    command: fc.record({ type: fc.constant('box-open' as const), boxes: fc.uniqueArray(box, { minLength: 1, maxLength: 3 }), displayMessages: lines }),
  }),
  fc.record({
    kind: fc.constant('command' as const),
    command: fc.record({
      type: fc.constant('wait-for-closing' as const),
      boxes: fc.uniqueArray(box, { minLength: 1, maxLength: 3 }),
      displayMessages: lines,
      cancellable: fc.boolean(),
    }),
  }),
  fc.record({ kind: fc.constant('exception' as const), status: fc.integer({ min: 200, max: 599 }), exceptionType: text(20), displayMessages: lines }),
  fc.record({ kind: fc.constant('invalid' as const), reason: text(30) }),
);

/** What a journal could hand back at start: an event cut short, a box action cut short, doors. */
const previousRun: fc.Arbitrary<PreviousRun | null> = fc.option(
  fc.record({
    inFlight: fc.option(
      fc.record({
        endpoint: fc.constantFrom('item-identify' as const, 'pin-enter' as const, 'cancel' as const),
        eventId: fc.uuid(),
        attempts: fc.nat({ max: 3 }),
        preview: fc.option(text(8), { nil: null }),
      }),
      { nil: null },
    ),
    action: fc.option(
      fc.record({
        by: fc.constantFrom<ActionSource>('item-identify', 'pin-enter', 'technician'),
        eventId: fc.option(fc.uuid(), { nil: null }),
        boxes: fc.uniqueArray(box, { minLength: 1, maxLength: 2 }),
        pulsed: fc.uniqueArray(box, { maxLength: 2 }),
      }),
      { nil: null },
    ),
    reported: fc.option(fc.dictionary(fc.constantFrom(...BOXES), fc.constantFrom('OPEN' as const, 'CLOSED' as const)), { nil: null }),
    problem: fc.option(text(20), { nil: null }),
  }),
  { nil: null },
);

const input: fc.Arbitrary<Input> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ type: fc.constant('start' as const), previous: previousRun }) },
  { weight: 1, arbitrary: fc.constantFrom<Input>({ type: 'drain' }, { type: 'problem', message: 'journal write failed' }) },
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('scan' as const),
      identifierType: fc.constantFrom('BAR_CODE' as const, 'RFID' as const),
      value: text(140),
      at: fc.nat({ max: 100_000 }),
    }),
  },
  {
    weight: 8,
    arbitrary: fc.record({
      type: fc.constant('key' as const),
      key: fc.oneof(
        { weight: 8, arbitrary: fc.record({ kind: fc.constant('digit' as const), digit: fc.constantFrom(...'0123456789') }) },
        { weight: 1, arbitrary: fc.record({ kind: fc.constant('digit' as const), digit: fc.constantFrom('a', '', '12', '٣') }) },
        { weight: 2, arbitrary: fc.constantFrom({ kind: 'enter' as const }, { kind: 'backspace' as const }, { kind: 'clear' as const }) },
      ),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ type: 'cancel-pressed' as const }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('door' as const), boxId: box, state: fc.constantFrom('OPEN' as const, 'CLOSED' as const) }) },
  { weight: 6, arbitrary: fc.record({ type: fc.constant('answered' as const), endpoint: fc.constantFrom(...ENDPOINTS), answer }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('unanswered' as const), endpoint: fc.constantFrom(...ENDPOINTS), reason: text(20) }) },
  { weight: 3, arbitrary: fc.record({ type: fc.constant('timer' as const), timer: fc.constantFrom(...TIMERS) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      type: fc.constant('fault' as const),
      key: fc.constantFrom('device:scanner', 'service'),
      message: fc.option(text(20), { nil: null }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('pulse-failed' as const), boxId: box, message: text(20) }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('technician-open' as const), boxId: box }) },
);

/** Inputs that may pulse: a box-open answering an in-flight /item-identify or /pin-enter, a technician open. */
function mayPulse(step: Step): boolean {
  const i = step.input;
  if (i.type === 'technician-open') return true;
  return (
    i.type === 'answered' &&
    (i.endpoint === 'item-identify' || i.endpoint === 'pin-enter') &&
    step.before.inFlight === i.endpoint &&
    i.answer.kind === 'command' &&
    i.answer.command.type === 'box-open'
  );
}

const SECRET_KEYS: ReadonlySet<string> = new Set(['pin', 'digit', 'digits', 'key']);
const logsOf = (effects: readonly Effect[]): string => JSON.stringify(effects.filter((e) => e.type === 'log'));

function hasKey(v: unknown, names: ReadonlySet<string>): boolean {
  if (Array.isArray(v)) return v.some((x) => hasKey(x, names));
  if (v === null || typeof v !== 'object') return false;
  return Object.entries(v).some(([k, x]) => names.has(k.toLowerCase()) || hasKey(x, names));
}

function isSubsequence(needle: string, hay: string): boolean {
  let at = 0;
  for (const ch of hay) if (ch === needle[at]) at++;
  return at === needle.length;
}

function runInputs(inputs: readonly Input[]): void {
  let inFlight: Endpoint | null = null;
  const pinsSent: string[] = [];
  /** Digits typed since the last Enter key (whatever the core made of them). */
  let sinceEnter = '';
  const allLogs: string[] = [];
  const check = (step: Step): void => {
    const { input: i, before, after, effects } = step;
    // One event in flight: an answer frees the queue, then at most one send.
    if ((i.type === 'answered' || i.type === 'unanswered') && inFlight === i.endpoint) inFlight = null;
    if (i.type === 'key' && i.key.kind === 'digit') sinceEnter += i.key.digit;
    for (const e of effects) {
      if (e.type === 'send' && e.request.endpoint === 'pin-enter') {
        const pin = e.request.pin;
        must(
          i.type === 'key' && i.key.kind === 'enter' && isSubsequence(pin, sinceEnter),
          () => `PIN ${pin} sent on ${JSON.stringify(i)}; digits typed since the last Enter: "${sinceEnter}"`,
        );
      }
      if (e.type !== 'send') continue;
      must(inFlight === null, () => `a second event /${e.request.endpoint} while /${inFlight} is in flight`);
      inFlight = e.request.endpoint;
      if (e.request.endpoint === 'pin-enter') pinsSent.push(e.request.pin);
    }
    must(after.inFlight === inFlight, () => `core says ${after.inFlight} in flight, the effects say ${inFlight}`);

    // Pulses only when allowed, only of this station's boxes.
    const pulses = effects.filter((e) => e.type === 'pulse');
    if (pulses.length > 0) {
      must(mayPulse(step), () => `pulse on ${JSON.stringify(i)} in mode ${before.mode.kind}`);
      for (const p of pulses) for (const b of p.boxIds) must(BOXES.includes(b), () => `pulse of a foreign box ${b}`);
      // Write, then pulse: the journal hears of every box action before its lock is energized.
      for (const p of pulses) {
        const at = effects.indexOf(p);
        must(
          effects.slice(0, at).some((e) => e.type === 'journal-action' && JSON.stringify(e.boxIds) === JSON.stringify(p.boxIds)),
          () => `pulse of ${JSON.stringify(p.boxIds)} without a journal-action before it: ${JSON.stringify(effects)}`,
        );
      }
    }

    // Never an empty display.
    const shown = screen(CONFIG, after);
    must(
      shown.some((l) => l.trim() !== ''),
      () => `empty display ${JSON.stringify(shown)} in mode ${after.mode.kind} after ${JSON.stringify(i)}`,
    );

    // No PIN digit in a log effect.
    const logs = effects.filter((e) => e.type === 'log');
    must(!hasKey(logs, SECRET_KEYS), () => `a log field naming a PIN or key: ${JSON.stringify(logs)}`);
    if (i.type === 'key') {
      // (A one-digit buffer would match the logged length of a wrong-length PIN, which is fine to log.)
      const typed = [before.pin, after.pin].filter((p) => p.length >= 2);
      const text = logsOf(effects);
      for (const p of typed) must(!text.includes(p), () => `typed PIN digits ${p} in a log: ${text}`);
      const key = i.key;
      if (key.kind === 'digit') must(!text.includes(JSON.stringify(key.digit)), () => `the digit typed in a log: ${text}`);
    }
    allLogs.push(logsOf(effects));
    if (i.type === 'key' && i.key.kind === 'enter') sinceEnter = '';
  };
  const world = new CoreDriver(CONFIG, Object.fromEntries(BOXES.map((b) => [b, 'CLOSED'])), { check, doorSpringMs: DOOR_SPRING_MS });

  world.input({ type: 'start' });
  for (const i of inputs) world.input(i);
  const everything = allLogs.join('\n');
  for (const p of pinsSent) must(!everything.includes(p), () => `a sent PIN ${p} in a log`);
}

describe('arbitrary sequences of core inputs', () => {
  it(
    'one event in flight, no unasked pulse, never an empty display, no PIN in a log',
    () => {
      check(
        '8b core input sequences',
        40_000,
        fc.property(fc.array(input, { maxLength: 40 }), (inputs) => runInputs(inputs)),
      );
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'the same with PIN entry dense: digits and Enter between answers',
    () => {
      // Readers at the keypad: whole PINs (digits, then Enter), partial ones, heartbeats and their
      // answers coming and going in between, and anything else now and then.
      const digit = fc.constantFrom(...'0123456789').map((d): Input => ({ type: 'key', key: { kind: 'digit', digit: d } }));
      const enter: Input = { type: 'key', key: { kind: 'enter' } };
      const chunk = fc.oneof(
        { weight: 4, arbitrary: fc.array(digit, { minLength: 6, maxLength: 6 }).map((ds) => [...ds, enter]) },
        { weight: 2, arbitrary: fc.array(digit, { minLength: 1, maxLength: 7 }) },
        { weight: 2, arbitrary: fc.constant([{ type: 'timer', timer: 'heartbeat' }]) },
        {
          weight: 2,
          arbitrary: fc.constant([
            { type: 'answered', endpoint: 'state', answer: { kind: 'command', command: { type: 'wait-for-input', displayMessages: [] } } },
          ]),
        },
        { weight: 1, arbitrary: fc.constant([enter]) },
        { weight: 2, arbitrary: input.map((i) => [i]) },
      );
      const pinHeavy = fc.array(chunk, { maxLength: 14 }).map((chunks) => chunks.flat());
      check(
        '8b core input sequences (PIN entry)',
        10_000,
        fc.property(pinHeavy, (inputs) => runInputs(inputs)),
      );
    },
    FUZZ_TIMEOUT_MS,
  );
});
