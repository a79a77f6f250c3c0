/**
 * The pure core driven on a virtual clock: `start-timer` / `stop-timer` effects are kept as due
 * times, `advance()` fires them in order, and every effect is recorded with the virtual time it was
 * emitted at. No real timers, no runtime: what the core asks for is all there is.
 */
import { initialState, transition } from '../../src/station/core.js';
import type { CoreConfig, CoreState, Effect, Input, TimerName } from '../../src/station/core-types.js';
import type { DoorState } from '../../src/devices/types.js';

export interface TimedEffect {
  readonly at: number;
  readonly effect: Effect;
}

export class VirtualCore {
  state: CoreState;
  now = 0;
  readonly effects: TimedEffect[] = [];
  private readonly due = new Map<TimerName, number>();

  constructor(
    readonly config: CoreConfig,
    doors: Readonly<Record<string, DoorState>>,
  ) {
    this.state = initialState(doors);
  }

  input(input: Input): readonly Effect[] {
    const { state, effects } = transition(this.config, this.state, input);
    this.state = state;
    for (const effect of effects) {
      this.effects.push({ at: this.now, effect });
      if (effect.type === 'start-timer') this.due.set(effect.timer, this.now + effect.ms);
      if (effect.type === 'stop-timer') this.due.delete(effect.timer);
    }
    return effects;
  }

  /** Move the clock to `to`, firing every timer due until then in order. */
  advance(to: number): void {
    for (;;) {
      const next = [...this.due].sort((a, b) => a[1] - b[1])[0];
      if (next === undefined || next[1] > to) break;
      this.due.delete(next[0]);
      this.now = next[1];
      this.input({ type: 'timer', timer: next[0] });
    }
    this.now = to;
  }

  /** When the next timer is due, or null. */
  nextDue(): number | null {
    const times = [...this.due.values()];
    return times.length === 0 ? null : Math.min(...times);
  }

  sendsOf(endpoint: string): TimedEffect[] {
    return this.effects.filter((e) => e.effect.type === 'send' && e.effect.request.endpoint === endpoint);
  }

  logs(level?: string): TimedEffect[] {
    return this.effects.filter((e) => e.effect.type === 'log' && (level === undefined || e.effect.level === level));
  }
}

/** The most items of `times` inside any half-open window [t, t + width). */
export function maxInWindow(times: readonly number[], width: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while ((sorted[hi] ?? 0) - (sorted[lo] ?? 0) >= width) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}
