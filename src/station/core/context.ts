/**
 * What every part of the core shares: the draft state a transition builds, the effects it emits,
 * and the small helpers on boxes, modes and the PIN buffer. Pure: no I/O, no timers, no clock.
 */
import type { CoreConfig, CoreState, Effect, LogLevel, Mode, SoundName, TimeLimit, TimerName, ToneName } from '../core-types.js';

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

/**
 * Switch mode; leaving a mode drops its overlay and its PIN buffer (unless idle). The door-open
 * window outlives the mode (doors.ts): a pulsed door must still be judged when its time is up.
 */
export function setMode(ctx: Ctx, mode: Mode): void {
  const { s, fx } = ctx;
  if (s.mode.kind !== mode.kind) {
    s.overlay = null;
    fx.push({ type: 'stop-timer', timer: 'message' });
    if (mode.kind !== 'idle' && s.pin !== '') clearPin(ctx);
  }
  s.mode = mode;
  // The deposit is over once the station waits for input again: its handling note goes with it.
  if (mode.kind !== 'opening' && mode.kind !== 'closing' && s.rfid.handling !== null) s.rfid = { ...s.rfid, handling: null };
}

export function sound(ctx: Ctx, name: SoundName): void {
  ctx.fx.push({ type: 'sound', sound: name });
}

/** Whether the station speaks now: always, or since a patron asked for it, or while headphones are in. */
export function speechOn(config: CoreConfig, s: CoreState): boolean {
  const mode = config.speech.mode;
  return mode === 'always' || (mode === 'patron' && (s.assist.requested || s.assist.headphones));
}

/** The volume speech and tones play at now, in percent. */
export function volumeOf(config: CoreConfig, s: CoreState): number {
  return s.assist.volume ?? config.speech.volume.initial;
}

/** A tone on the audio output, when the station speaks (a PIN's keys are heard, never spoken). */
export function tone(ctx: Ctx, name: ToneName): void {
  if (speechOn(ctx.config, ctx.s)) ctx.fx.push({ type: 'tone', tone: name, volume: volumeOf(ctx.config, ctx.s) });
}

/** The fault key of service mode (the technician port sets it): /state DOWN "service". */
export const SERVICE_FAULT = 'service';

export function inServiceMode(s: CoreState): boolean {
  return s.faults[SERVICE_FAULT] !== undefined;
}

const AJAR_PREFIX = 'door-ajar:';

/** The door-ajar timer of one box (also the name of its time limit: time-to-act.ts). */
export function doorAjarTimer(boxId: string): `door-ajar:${string}` {
  return `${AJAR_PREFIX}${boxId}`;
}

/** The box of a door-ajar timer, or null for another timer. */
export function boxOfAjarTimer(timer: TimerName): string | null {
  return timer.startsWith(AJAR_PREFIX) ? timer.slice(AJAR_PREFIX.length) : null;
}

export function clearPin(ctx: Ctx): void {
  ctx.s.pin = '';
  ctx.fx.push({ type: 'stop-timer', timer: 'pin-idle' });
  withdrawLimit(ctx, 'pin-idle');
}

/**
 * A time limit no longer runs (the PIN cleared, the door closed): its warning timer stopped and its
 * warning withdrawn (core/time-to-act.ts owns the rest).
 */
export function withdrawLimit(ctx: Ctx, limit: TimeLimit): void {
  ctx.fx.push({ type: 'stop-timer', timer: `warn:${limit}` });
  dropWarning(ctx, limit);
}

/** The warning of `limit` no longer shows (its timer is the caller's). */
export function dropWarning(ctx: Ctx, limit: TimeLimit): void {
  const { s, fx } = ctx;
  if (!s.assist.warnings.includes(limit)) return;
  const warnings = s.assist.warnings.filter((l) => l !== limit);
  s.assist = { ...s.assist, warnings };
  if (warnings.length === 0) fx.push({ type: 'more-time-offered', offered: false });
}
