/**
 * What a reload does, decided from the keys that changed and the class each declares
 * (config/apply.ts) — pure, so the rule is stated once and tested without a station:
 *
 * | changed keys (running config → new file)    | plan              | what the supervisor does            |
 * |---------------------------------------------|-------------------|-------------------------------------|
 * | none                                        | `nothing`         | records the file's version          |
 * | only `live` (and `process`) keys            | `live`            | swaps the config under the running  |
 * |                                             |                   | station: no lock OFF, no device     |
 * |                                             |                   | reopened, not refused while in use  |
 * | any `station` key                           | `restart-station` | waits until no reader uses the      |
 * |                                             |                   | station, then stops it (every lock  |
 * |                                             |                   | OFF) and starts it with the file    |
 *
 * `process` keys never change the running process: `restartNeeded` lists those whose value in the
 * new file differs from the config the process *started* with (so one changed back says nothing,
 * and one changed by an earlier reload is still said).
 */
import { changedKeys, type ApplyOn } from '../config/apply.js';

import type { ReloadPlanKind } from './reload-words.js';

export type { ReloadPlanKind };

export interface ReloadPlan {
  readonly kind: ReloadPlanKind;
  /** Keys whose value differs between the running config and the new one, by class. */
  readonly changed: Readonly<Record<ApplyOn, readonly string[]>>;
  /** `process` keys whose new value differs from the one the process started with. */
  readonly restartNeeded: readonly string[];
}

export interface ReloadConfigs {
  /** The config the process started from (what `process` keys still use). */
  readonly started: unknown;
  /** The config the station runs now. */
  readonly running: unknown;
}

export function planReload(classes: ReadonlyMap<string, ApplyOn>, configs: ReloadConfigs, next: unknown): ReloadPlan {
  const changed = changedKeys(classes, configs.running, next);
  const restartNeeded = changedKeys(classes, configs.started, next).process;
  const kind: ReloadPlanKind = changed.station.length > 0 ? 'restart-station' : changed.live.length > 0 ? 'live' : 'nothing';
  return { kind, changed, restartNeeded };
}
