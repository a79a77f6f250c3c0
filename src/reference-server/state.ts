/**
 * What the reference server knows about one station. Immutable values: decide.ts returns a new
 * state per request, so a test can keep an old one and compare, and nothing half-applies.
 */
import type { BoxStatus } from '../protocol/types.js';
import type { HistoryEntry, ReportedHealth, SimDeposit, SimPickup, SimulatedStation, StationSnapshot } from './types.js';

interface ActionBase {
  /** boxIds the box-open command listed, in box order. */
  readonly boxes: readonly string[];
  /** Boxes a /state has reported OPEN since then: the action completes when they are all CLOSED again. */
  readonly seenOpen: readonly string[];
}
export type ActiveAction =
  | (ActionBase & { readonly kind: 'deposit'; readonly deposit: SimDeposit; readonly cancellable: boolean; readonly cancelled: boolean })
  | (ActionBase & { readonly kind: 'pickup'; readonly pickup: SimPickup });

export interface StationSimState {
  readonly station: SimulatedStation;
  readonly deposits: readonly { readonly deposit: SimDeposit; readonly stored: boolean }[];
  readonly pickups: readonly { readonly pickup: SimPickup; readonly used: boolean }[];
  /** boxId -> identifierValues deposited there. */
  readonly contents: Readonly<Record<string, readonly string[]>>;
  /** boxId -> status in the last /state. */
  readonly reported: Readonly<Record<string, BoxStatus>>;
  readonly lastHeartbeatAt: number | null;
  readonly health: ReportedHealth | null;
  /** Display messages of station-disable, null while enabled. */
  readonly disabled: readonly string[] | null;
  readonly active: ActiveAction | null;
  readonly history: readonly HistoryEntry[];
}

export const HISTORY_LIMIT = 200;

export function initialStationState(station: SimulatedStation, deposits: readonly SimDeposit[], pickups: readonly SimPickup[]): StationSimState {
  return {
    station,
    deposits: deposits.filter((d) => d.stationId === station.id).map((deposit) => ({ deposit, stored: false })),
    pickups: pickups.filter((p) => p.stationId === station.id).map((pickup) => ({ pickup, used: false })),
    contents: {},
    reported: {},
    lastHeartbeatAt: null,
    health: null,
    disabled: null,
    active: null,
    history: [],
  };
}

export function withHistory(state: StationSimState, ...entries: HistoryEntry[]): StationSimState {
  if (entries.length === 0) return state;
  return { ...state, history: [...state.history, ...entries].slice(-HISTORY_LIMIT) };
}

/** Spec: a station without /state for `absenceMs` (2 minutes) is off or unavailable; never seen counts as absent. */
export function isStationAvailable(state: StationSimState, now: number, absenceMs: number): boolean {
  return state.lastHeartbeatAt !== null && now - state.lastHeartbeatAt < absenceMs;
}

/** 1-based box number of a boxId (0 when the box is not the station's: callers validated it). */
export function boxNumber(station: SimulatedStation, boxId: string): number {
  return station.boxes.indexOf(boxId) + 1;
}

export function snapshot(state: StationSimState, now: number, absenceMs: number): StationSnapshot {
  const a = state.active;
  return {
    stationId: state.station.id,
    available: isStationAvailable(state, now, absenceMs),
    disabled: state.disabled,
    lastHeartbeatAt: state.lastHeartbeatAt,
    health: state.health,
    boxes: state.station.boxes.map((id, i) => ({ number: i + 1, id, reported: state.reported[id] ?? null, contents: state.contents[id] ?? [] })),
    active:
      a === null
        ? null
        : a.kind === 'deposit'
          ? {
              kind: a.kind,
              boxes: a.boxes,
              seenOpen: a.seenOpen,
              cancellable: a.cancellable,
              cancelled: a.cancelled,
              identifierValue: a.deposit.identifierValue,
            }
          : { kind: a.kind, boxes: a.boxes, seenOpen: a.seenOpen, cancellable: false, cancelled: false, pin: a.pickup.pin },
    pendingDeposits: state.deposits.filter((d) => !d.stored).map((d) => d.deposit),
    storedDeposits: state.deposits.filter((d) => d.stored).map((d) => d.deposit),
    pendingPickups: state.pickups.filter((p) => !p.used).map((p) => p.pickup),
    usedPickups: state.pickups.filter((p) => p.used).map((p) => p.pickup),
    history: state.history,
  };
}
