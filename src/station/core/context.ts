/**
 * What every part of the core shares: the draft state a transition builds, the effects it emits,
 * and the small helpers on boxes, modes and the PIN buffer. Pure: no I/O, no timers, no clock.
 */
import type { CoreConfig, CoreState, Effect, LogLevel, Mode } from '../core-types.js';

export type Draft = { -readonly [K in keyof CoreState]: CoreState[K] };

/** One transition in progress: the config, the state being built and the effects so far. */
export interface Ctx {
  readonly config: CoreConfig;
  readonly s: Draft;
  readonly fx: Effect[];
  readonly log: (level: LogLevel, msg: string, data?: Record<string, unknown>) => void;
}

export function boxNumber(config: CoreConfig, boxId: string): number | undefined {
  return config.boxes.find((b) => b.id === boxId)?.number;
}

export function isKnownBox(config: CoreConfig, boxId: string): boolean {
  return config.boxes.some((b) => b.id === boxId);
}

export function anyBoxOpen(s: CoreState): boolean {
  return Object.values(s.boxes).some((st) => st === 'OPEN');
}

/** Switch mode; leaving a mode drops its overlay, its PIN buffer (unless idle) and its door timer. */
export function setMode(ctx: Ctx, mode: Mode): void {
  const { s, fx } = ctx;
  if (s.mode.kind !== mode.kind) {
    s.overlay = null;
    fx.push({ type: 'stop-timer', timer: 'message' });
    if (mode.kind !== 'idle' && s.pin !== '') clearPin(ctx);
  }
  if (s.mode.kind === 'opening' && mode.kind !== 'opening') fx.push({ type: 'stop-timer', timer: 'door-open' });
  s.mode = mode;
}

export function clearPin(ctx: Ctx): void {
  ctx.s.pin = '';
  ctx.fx.push({ type: 'stop-timer', timer: 'pin-idle' });
}
