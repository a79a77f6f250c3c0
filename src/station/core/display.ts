/**
 * What the display shows, derived from the state: the mode's lines, a temporary overlay over them,
 * the masked PIN, and the alarm screens. A `display` effect goes out only when the derived lines
 * change, so no transition can forget to restore the prompt.
 *
 * What wins, first to last: a temporary overlay; the tamper screen (out of service); the door-ajar
 * reminder (naming the boxes); "put the item back on the reader" while a deposited item's security
 * bit waits to be cleared; the mode's screen — where idle shows the PIN lock-out countdown, or
 * "please wait" while a reader's or librarian's event is in flight, or how many parts of an item on
 * the RFID reader are missing, or the prompt.
 *
 * Transitions here: overlay shown (with the `message` timer) -> overlay cleared when the timer ends,
 * on a mode change, or when a PIN digit is typed.
 */
import type { CoreConfig, CoreState } from '../core-types.js';
import type { Ctx } from './context.js';
import { securityScreen, waitingSet } from './rfid-view.js';

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

/** "0:25", "14:59": a countdown in whole seconds, rounded up (it never shows 0:00 while locked). */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
}

function fill(lines: readonly string[], key: string, value: string): string[] {
  return lines.map((l) => l.split(`{${key}}`).join(value));
}

/** The lines the display should show now (derived, never stored apart from `shown`). */
export function screen(config: CoreConfig, s: CoreState): readonly string[] {
  if (s.overlay && hasText(s.overlay)) return s.overlay;
  const m = config.messages;
  // Stopping: say so, except to someone at an open box (the mode's instructions still apply).
  if (s.drain !== 'off' && s.mode.kind !== 'opening' && s.mode.kind !== 'closing') return m.restarting;
  if (s.alarms.some((a) => a.kind === 'tamper')) return m.tamper;
  const ajar = config.boxes.filter((b) => s.alarms.some((a) => a.kind === 'door-ajar' && a.boxId === b.id)).map((b) => b.number);
  if (ajar.length > 0) return fill(m.doorAjar, 'box', ajar.join(', '));
  // A deposited item whose security bit is not cleared yet must go back on the reader first.
  const putBack = securityScreen(config, s);
  if (putBack !== null) return putBack;
  switch (s.mode.kind) {
    case 'starting':
      return m.starting;
    case 'idle': {
      if (s.pinThrottle.lockout !== null) return fill(m.pinLockout, 'time', formatCountdown(s.pinThrottle.lockout.remainingMs));
      // The answer to a scan or PIN is on its way: "please wait", not the prompt again.
      if (s.inFlight !== null && s.inFlight !== 'state') return m.busy;
      const set = waitingSet(config, s);
      if (set !== null) return fill(fill(m.rfidSetIncomplete, 'missing', String(set.missing)), 'total', String(set.total));
      const prompt = hasText(s.mode.lines) ? s.mode.lines : m.prompt;
      return s.pin === '' ? prompt : [prompt[0] ?? '', m.pinEntry.replace('{mask}', '*'.repeat(s.pin.length))];
    }
    case 'opening':
      return hasText(s.mode.lines) ? s.mode.lines : m.busy;
    case 'closing':
      return s.inFlight === 'cancel' ? m.busy : hasText(s.mode.lines) ? s.mode.lines : m.boxOpen;
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
