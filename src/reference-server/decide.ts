/**
 * The reference server's behaviour as one pure function: (station state, validated request, now)
 * -> (next state, answer, notes). No I/O, no clock, no idempotency: server.ts answers resends
 * from its cache before calling this, so everything here acts exactly once per event.
 */
import type { CancelRequest, ItemIdentifyRequest, PinEnterRequest, ServerCommand, StateRequest } from '../protocol/types.js';
import { exceptionBody, SERVER_TEXTS, type ExceptionType, type ServerLanguage, type ServerTexts } from './messages.js';
import { boxNumber, isStationAvailable, withHistory, type ActiveAction, type StationSimState } from './state.js';
import type { HistoryEntry, SimAnswer } from './types.js';
import type { SimRequest } from './validate.js';

export interface DecideContext {
  readonly now: number;
  readonly absenceMs: number;
  /** The language of the texts in the answer (from the request's Accept-Language); default English. */
  readonly language?: ServerLanguage;
}

export interface Decision {
  readonly state: StationSimState;
  readonly answer: SimAnswer;
  readonly notes: readonly string[];
}

export function decide(state: StationSimState, request: SimRequest, ctx: DecideContext): Decision {
  switch (request.endpoint) {
    case 'state':
      return onState(state, request.body, ctx);
    case 'item-identify':
      return onItemIdentify(state, request.body, ctx);
    case 'pin-enter':
      return onPinEnter(state, request.body, ctx);
    case 'cancel':
      return onCancel(state, request.body, ctx);
  }
}

const ok = (body: ServerCommand): SimAnswer => ({ status: 200, body });
const textsOf = (ctx: DecideContext): ServerTexts => SERVER_TEXTS[ctx.language ?? 'en'];
const fail = (ctx: DecideContext, status: number, type: ExceptionType, message: string, displayMessages?: readonly string[]): SimAnswer => ({
  status,
  body: exceptionBody(type, message, displayMessages, ctx.language ?? 'en'),
});
const waitForInput = (ctx: DecideContext): ServerCommand => ({ type: 'wait-for-input', displayMessages: textsOf(ctx).prompt });

/** Box actions need an enabled station that sent /state within absenceMs; null when allowed. */
function refuseBoxAction(state: StationSimState, ctx: DecideContext): SimAnswer | null {
  if (state.disabled !== null) return fail(ctx, 409, 'StationDisabledException', 'station is disabled', state.disabled);
  if (!isStationAvailable(state, ctx.now, ctx.absenceMs)) {
    const seen = state.lastHeartbeatAt === null ? 'never sent /state' : `no /state for ${Math.round(ctx.now - state.lastHeartbeatAt)} ms`;
    return fail(ctx, 409, 'StationUnavailableException', `station unavailable: ${seen} (limit ${ctx.absenceMs} ms)`);
  }
  if (state.active !== null) return fail(ctx, 409, 'ActionInProgressException', `a ${state.active.kind} is still in progress`);
  return null;
}

function onItemIdentify(state: StationSimState, body: ItemIdentifyRequest, ctx: DecideContext): Decision {
  const refused = refuseBoxAction(state, ctx);
  if (refused !== null) return { state, answer: refused, notes: [] };
  const matches = state.deposits.filter(
    (d) => d.deposit.identifierValue === body.identifierValue && (d.deposit.identifierType ?? body.identifierType) === body.identifierType,
  );
  const entry = matches.find((d) => !d.stored) ?? matches[0];
  if (entry === undefined) {
    return { state, answer: fail(ctx, 404, 'ItemNotFoundException', `no deposit for ${body.identifierType} ${body.identifierValue}`), notes: [] };
  }
  if (entry.stored) {
    return {
      state,
      answer: fail(ctx, 409, 'ItemAlreadyDepositedException', `${body.identifierValue} is already in box ${boxNumber(state.station, entry.deposit.boxId)}`),
      notes: [],
    };
  }
  const { boxId } = entry.deposit;
  const active: ActiveAction = { kind: 'deposit', deposit: entry.deposit, boxes: [boxId], seenOpen: [], cancellable: true, cancelled: false };
  return {
    state: { ...state, active },
    answer: ok({ type: 'box-open', boxes: [boxId], displayMessages: textsOf(ctx).depositBoxOpen(boxNumber(state.station, boxId)) }),
    notes: [],
  };
}

function onPinEnter(state: StationSimState, body: PinEnterRequest, ctx: DecideContext): Decision {
  const refused = refuseBoxAction(state, ctx);
  if (refused !== null) return { state, answer: refused, notes: [] };
  // Unknown and already used PINs get the same answer: telling them apart would help a PIN guesser.
  const entry = state.pickups.find((p) => p.pickup.pin === body.pin && !p.used);
  if (entry === undefined) return { state, answer: fail(ctx, 404, 'InvalidPinException', 'unknown or used PIN'), notes: [] };
  const boxes = sortByBoxNumber(state, entry.pickup.boxIds);
  const active: ActiveAction = { kind: 'pickup', pickup: entry.pickup, boxes, seenOpen: [] };
  return {
    state: { ...state, active },
    answer: ok({ type: 'box-open', boxes, displayMessages: textsOf(ctx).pickupBoxOpen(numbers(state, boxes)) }),
    notes: [],
  };
}

function onCancel(state: StationSimState, _body: CancelRequest, ctx: DecideContext): Decision {
  const a = state.active;
  // Only a deposit can be cancelled, once, before its box is closed (closing it completes the action).
  if (a?.kind !== 'deposit' || !a.cancellable || a.cancelled) {
    const why = a === null ? 'nothing in progress' : a.kind === 'pickup' ? 'a pickup cannot be cancelled' : 'already cancelled';
    return { state, answer: fail(ctx, 400, 'CannotCancelException', why), notes: [] };
  }
  const next: ActiveAction = { ...a, cancellable: false, cancelled: true };
  return {
    state: { ...state, active: next },
    answer: ok({
      type: 'wait-for-closing',
      boxes: a.boxes,
      displayMessages: textsOf(ctx).cancelled(boxNumber(state.station, a.deposit.boxId)),
      cancellable: false,
    }),
    notes: ['deposit cancelled'],
  };
}

function onState(state: StationSimState, body: StateRequest, ctx: DecideContext): Decision {
  const reported = Object.fromEntries(body.boxes.map((b) => [b.id, b.st]));
  const notes: string[] = [];
  const history: HistoryEntry[] = [];
  if (body.st === 'DOWN' && (state.health?.st !== 'DOWN' || state.health.errorMessage !== body.errorMessage)) {
    history.push({ at: ctx.now, kind: 'station-down', errorMessage: body.errorMessage });
    notes.push(`station DOWN: ${body.errorMessage ?? '(no message)'}`);
  }
  const actionBoxes = state.active?.boxes ?? [];
  for (const b of body.boxes) {
    if (b.st === 'OPEN' && state.reported[b.id] !== 'OPEN' && !actionBoxes.includes(b.id)) {
      history.push({ at: ctx.now, kind: 'forced-open', boxId: b.id });
      notes.push(`box ${boxNumber(state.station, b.id)} OPEN without an action (forced door?)`);
    }
  }
  let next: StationSimState = {
    ...state,
    reported,
    lastHeartbeatAt: ctx.now,
    health: {
      st: body.st,
      errorMessage: body.errorMessage,
      inputVoltage: body.inputVoltage ?? null,
      internetSignalStrength: body.internetSignalStrength ?? null,
    },
  };
  let command: ServerCommand = waitForInput(ctx);
  const a = state.active;
  if (a !== null) {
    const openNow = a.boxes.filter((id) => reported[id] === 'OPEN');
    const seenOpen = a.boxes.filter((id) => openNow.includes(id) || a.seenOpen.includes(id));
    if (openNow.length > 0) {
      next = { ...next, active: { ...a, seenOpen } };
      command = waitForClosing(state, a, openNow, textsOf(ctx));
    } else if (seenOpen.length > 0) {
      const done = complete(next, a, seenOpen, ctx.now);
      next = done.state;
      history.push(done.entry);
      notes.push(...done.notes);
    } else {
      // box-open was answered but no door ever opened (lock failure, or the answer never arrived).
      // Keeping the action would block the station for good; the item or PIN stays usable.
      next = { ...next, active: null };
      history.push({ at: ctx.now, kind: 'not-opened', action: a.kind, boxIds: a.boxes });
      notes.push(`${a.kind}: no box of ${a.boxes.join(', ')} reported OPEN after box-open; action dropped`);
    }
  }
  if (next.disabled !== null) command = { type: 'station-disable', displayMessages: next.disabled };
  return { state: withHistory(next, ...history), answer: ok(command), notes };
}

function waitForClosing(state: StationSimState, a: ActiveAction, openNow: readonly string[], t: ServerTexts): ServerCommand {
  if (a.kind === 'pickup') {
    return { type: 'wait-for-closing', boxes: openNow, displayMessages: t.pickupClosing(numbers(state, openNow)), cancellable: false };
  }
  const n = boxNumber(state.station, a.deposit.boxId);
  return {
    type: 'wait-for-closing',
    boxes: openNow,
    displayMessages: a.cancelled ? t.cancelled(n) : t.depositClosing(n),
    cancellable: a.cancellable,
  };
}

/** Every box the action opened is closed again: the deposit is stored (unless cancelled), the PIN is used. */
function complete(
  state: StationSimState,
  a: ActiveAction,
  seenOpen: readonly string[],
  now: number,
): { state: StationSimState; entry: HistoryEntry; notes: string[] } {
  if (a.kind === 'deposit') {
    const { deposit } = a;
    if (a.cancelled) {
      return {
        state: { ...state, active: null },
        entry: { at: now, kind: 'deposit-cancelled', identifierValue: deposit.identifierValue, boxId: deposit.boxId },
        notes: [],
      };
    }
    return {
      state: {
        ...state,
        active: null,
        deposits: state.deposits.map((d) => (d.deposit === deposit ? { ...d, stored: true } : d)),
        contents: { ...state.contents, [deposit.boxId]: [...(state.contents[deposit.boxId] ?? []), deposit.identifierValue] },
      },
      entry: { at: now, kind: 'deposit-stored', identifierValue: deposit.identifierValue, boxId: deposit.boxId },
      notes: [`deposit of ${deposit.identifierValue} stored in box ${boxNumber(state.station, deposit.boxId)}`],
    };
  }
  const { pickup } = a;
  const contents = { ...state.contents };
  for (const id of seenOpen) delete contents[id];
  const neverOpened = a.boxes.filter((id) => !seenOpen.includes(id));
  return {
    state: { ...state, active: null, contents, pickups: state.pickups.map((p) => (p.pickup === pickup ? { ...p, used: true } : p)) },
    entry: { at: now, kind: 'pickup-done', pin: pickup.pin, boxIds: seenOpen },
    notes: neverOpened.length > 0 ? [`pickup done but never opened: ${neverOpened.join(', ')}`] : [`pickup ${pickup.pin} done`],
  };
}

function numbers(state: StationSimState, boxIds: readonly string[]): number[] {
  return boxIds.map((id) => boxNumber(state.station, id));
}

function sortByBoxNumber(state: StationSimState, boxIds: readonly string[]): string[] {
  return [...boxIds].sort((x, y) => boxNumber(state.station, x) - boxNumber(state.station, y));
}
