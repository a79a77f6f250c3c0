/**
 * What the display shows, derived from the state: the mode's lines, a temporary overlay over them,
 * the masked PIN, and the alarm screens. A `display` effect goes out only when the derived lines
 * change, so no transition can forget to restore the prompt.
 *
 * What wins, first to last: a time limit's warning (core/time-to-act.ts: "more time?" above what it
 * concerns); a temporary overlay; the out-of-service screen (tamper, unknown USB device); the door-ajar reminder (naming
 * the boxes); "put the item back on the reader" while a deposited item's security bit waits to be
 * cleared; the mode's screen — where idle shows the PIN lock-out countdown, or "please wait" while a
 * reader's or librarian's event is in flight, or how many parts of an item on the RFID reader are
 * missing, or the prompt.
 *
 * Each screen has three forms from the same texts: as shown; as spoken (core/assist.ts: the PIN's
 * mask as the number of digits typed, a countdown in words), and its key, which names the screen
 * without what ticks or counts in it (a countdown's second, the digits typed), so that speech
 * announces a new screen and not every tick of the same one.
 *
 * Transitions here: overlay shown (with the `message` timer, unless the visit is untimed) -> overlay
 * cleared when the timer ends, on a mode change, or when a PIN digit is typed (and, on an untimed
 * visit, at the patron's next input: core/assist.ts).
 */
import type { Locale } from '../../config/messages.js';
import type { CoreConfig, CoreState } from '../core-types.js';
import type { Ctx } from './context.js';
import { outOfService } from './alarms.js';
import { handlingLine, securityScreen, waitingSet } from './rfid-view.js';

/** Whether lines have something to read: a server may send [] or blank lines, which must never blank the display. */
export function hasText(lines: readonly string[]): boolean {
  return lines.some((l) => l.trim() !== '');
}

export function showOverlay(ctx: Ctx, lines: readonly string[]): void {
  ctx.s.overlay = lines;
  // An assisted visit's messages wait for the patron (their next input clears them: assist.ts).
  if (ctx.s.assist.untimed) ctx.fx.push({ type: 'stop-timer', timer: 'message' });
  else ctx.fx.push({ type: 'start-timer', timer: 'message', ms: ctx.config.timing.messageMs });
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

/** How the parts of a screen that count or tick are written in each of its forms. */
interface Form {
  /** The PIN's line with `digits` typed. */
  pin(digits: number): string;
  /** A countdown of `ms`. */
  time(ms: number): string;
}

const SHOWN = (config: CoreConfig): Form => ({
  pin: (digits) => config.messages.pinEntry.replace('{mask}', '*'.repeat(digits)),
  time: formatCountdown,
});

const SPOKEN = (config: CoreConfig): Form => ({
  pin: (digits) => config.messages.assist.pinTyped.split('{count}').join(String(digits)),
  time: (ms) => spokenCountdown(config, ms),
});

const KEY: Form = { pin: () => '{pin}', time: () => '{time}' };

/**
 * Which plural form of `forms` a number takes: English one/other; Czech one (1), few (2–4), many
 * (0, 5 and up), as the accusative after "za" / "in" needs.
 */
export function pluralForm(locale: Locale, n: number, forms: readonly string[]): string {
  const index = locale === 'cs' ? (n === 1 ? 0 : n >= 2 && n <= 4 ? 1 : 2) : n === 1 ? 0 : 1;
  return (forms[index] ?? forms[forms.length - 1] ?? '{n}').split('{n}').join(String(n));
}

/** A countdown in words, whole seconds below a minute, else whole minutes (rounded up, like the display). */
export function spokenCountdown(config: CoreConfig, ms: number): string {
  const { locale, assist } = config.messages;
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  return seconds < 60 ? pluralForm(locale, seconds, assist.seconds) : pluralForm(locale, Math.ceil(seconds / 60), assist.minutes);
}

/** The lines the display should show now (derived, never stored apart from `shown`). */
export function screen(config: CoreConfig, s: CoreState): readonly string[] {
  return compose(config, s, SHOWN(config));
}

/** The same screen as speech says it (core/assist.ts). */
export function spokenScreen(config: CoreConfig, s: CoreState): readonly string[] {
  return compose(config, s, SPOKEN(config));
}

/** Which screen this is, without what counts or ticks in it: speech announces a new key, not a tick. */
export function screenKey(config: CoreConfig, s: CoreState): string {
  return JSON.stringify(compose(config, s, KEY));
}

/** The warning of the limits about to run out: "more time?" above what each concerns. */
function warningLines(config: CoreConfig, s: CoreState, f: Form): readonly string[] | null {
  const warned = s.assist.warnings;
  if (warned.length === 0) return null;
  const m = config.messages;
  const context: string[] = [];
  if (warned.includes('pin-idle') && s.pin !== '') context.push(f.pin(s.pin.length));
  const boxes = config.boxes.filter((b) => warned.includes(`door-ajar:${b.id}`)).map((b) => b.number);
  if (boxes.length > 0) context.push(...fill(m.doorAjar, 'box', boxes.join(', ')));
  return [...m.moreTime, ...context];
}

/**
 * The deposit's screens with the item's handling note as their last line, for the librarian who
 * carries it to the box (a display with fewer rows cuts it first: the box comes before the note).
 */
function withHandling(config: CoreConfig, s: CoreState, lines: readonly string[]): readonly string[] {
  const note = handlingLine(config, s);
  return note === null ? lines : [...lines, note];
}

function compose(config: CoreConfig, s: CoreState, f: Form): readonly string[] {
  const stopping = s.drain !== 'off' && s.mode.kind !== 'opening' && s.mode.kind !== 'closing';
  if (!stopping && !outOfService(s)) {
    const warning = warningLines(config, s, f);
    if (warning) return warning;
  }
  if (s.overlay && hasText(s.overlay)) return s.overlay;
  const m = config.messages;
  // Stopping: say so, except to someone at an open box (the mode's instructions still apply).
  if (stopping) return m.restarting;
  if (outOfService(s)) return m.tamper;
  const ajar = config.boxes.filter((b) => s.alarms.some((a) => a.kind === 'door-ajar' && a.boxId === b.id)).map((b) => b.number);
  if (ajar.length > 0) return fill(m.doorAjar, 'box', ajar.join(', '));
  // A deposited item whose security bit is not cleared yet must go back on the reader first.
  const putBack = securityScreen(config, s);
  if (putBack !== null) return putBack;
  switch (s.mode.kind) {
    case 'starting':
      return m.starting;
    case 'idle': {
      if (s.pinThrottle.lockout !== null) return fill(m.pinLockout, 'time', f.time(s.pinThrottle.lockout.remainingMs));
      // The answer to a scan or PIN is on its way: "please wait", not the prompt again.
      if (s.inFlight !== null && s.inFlight !== 'state') return withHandling(config, s, m.busy);
      const set = waitingSet(config, s);
      if (set !== null) return fill(fill(m.rfidSetIncomplete, 'missing', String(set.missing)), 'total', String(set.total));
      const prompt = hasText(s.mode.lines) ? s.mode.lines : m.prompt;
      return s.pin === '' ? prompt : [prompt[0] ?? '', f.pin(s.pin.length)];
    }
    case 'opening':
      return withHandling(config, s, hasText(s.mode.lines) ? s.mode.lines : m.busy);
    case 'closing':
      return withHandling(config, s, s.inFlight === 'cancel' ? m.busy : hasText(s.mode.lines) ? s.mode.lines : m.boxOpen);
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
