/**
 * What the display shows, derived from the state: the mode's lines, a temporary overlay over them,
 * the masked PIN. A `display` effect goes out only when the derived lines change, so no transition
 * can forget to restore the prompt.
 *
 * Transitions here: overlay shown (with the `message` timer) -> overlay cleared when the timer ends,
 * on a mode change, or when a PIN digit is typed.
 */
import type { CoreConfig, CoreState } from '../core-types.js';
import type { Ctx } from './context.js';

/** Whether lines have something to read: a server may send [] or blank lines, which must never blank the display. */
export function hasText(lines: readonly string[]): boolean {
  return lines.some((l) => l.trim() !== '');
}

export function showOverlay(ctx: Ctx, lines: readonly string[]): void {
  ctx.s.overlay = lines;
  ctx.fx.push({ type: 'start-timer', timer: 'message', ms: ctx.config.timing.messageMs });
}

export function onMessageTimer(ctx: Ctx): void {
  ctx.s.overlay = null;
}

/** The lines the display should show now (derived, never stored apart from `shown`). */
export function screen(config: CoreConfig, s: CoreState): readonly string[] {
  if (s.overlay && hasText(s.overlay)) return s.overlay;
  const m = config.messages;
  // Stopping: say so, except to someone at an open box (the mode's instructions still apply).
  if (s.drain !== 'off' && s.mode.kind !== 'opening' && s.mode.kind !== 'closing') return m.restarting;
  switch (s.mode.kind) {
    case 'starting':
      return m.starting;
    case 'idle': {
      const prompt = hasText(s.mode.lines) ? s.mode.lines : m.prompt;
      return s.pin === '' ? prompt : [prompt[0] ?? '', m.pinEntry.replace('{mask}', '*'.repeat(s.pin.length))];
    }
    case 'opening':
      return hasText(s.mode.lines) ? s.mode.lines : m.busy;
    case 'closing':
      return hasText(s.mode.lines) ? s.mode.lines : m.boxOpen;
    case 'disabled':
      return hasText(s.mode.lines) ? s.mode.lines : m.disabled;
    case 'deactivated':
      return m.stationOff;
  }
}

/** Emit a `display` effect when the derived lines differ from what is shown. */
export function render(ctx: Ctx): void {
  const lines = screen(ctx.config, ctx.s);
  if (lines.length === ctx.s.shown.length && lines.every((l, i) => l === ctx.s.shown[i])) return;
  ctx.s.shown = lines;
  ctx.fx.push({ type: 'display', lines });
}
