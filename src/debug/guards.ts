/**
 * When a technician action may touch the station. These checks come *before* an input reaches the
 * core (which refuses unsafe inputs on its own as well): a refused action must answer 409 with a
 * reason and leave the reader's screen alone, rather than flash a refusal at someone at the station.
 */
import { inServiceMode } from '../station/core.js';
import type { CoreConfig, CoreState } from '../station/core-types.js';

/**
 * Signs that a reader (or librarian) is using the station right now, or null. Reload, which
 * restarts the station, is refused while any holds.
 */
export function readerActivity(core: CoreConfig, s: CoreState): string | null {
  if (s.mode.kind === 'opening' || s.mode.kind === 'closing') return `a box action is in progress (${s.mode.kind})`;
  if (s.inFlight !== null && s.inFlight !== 'state') return `/${s.inFlight} in flight`;
  const open = core.boxes.filter((b) => s.boxes[b.id] === 'OPEN').map((b) => b.number);
  if (open.length > 0) return `box ${open.join(', ')} ${open.length === 1 ? 'is' : 'are'} open`;
  // Digits typed but not sent: someone is standing at the keypad.
  if (s.pin !== '') return 'a PIN is being typed at the station';
  return null;
}

/**
 * Why the station is not free for an action that opens a box or acts as a reader (open, inject),
 * or null: it must wait for input (mode idle), with nothing in flight and no sign of a reader.
 */
export function busyReason(core: CoreConfig, s: CoreState): string | null {
  const reader = readerActivity(core, s);
  if (reader !== null) return reader;
  switch (s.mode.kind) {
    case 'idle':
      break;
    case 'starting':
      return 'station starting (first /state not answered yet)';
    case 'disabled':
      return 'station disabled by the server';
    case 'deactivated':
      return 'station deactivated (server unanswered)';
    case 'opening':
    case 'closing':
      return `a box action is in progress (${s.mode.kind})`;
  }
  if (s.inFlight !== null) return `/${s.inFlight} in flight`;
  return null;
}

/** Service mode is the core's `service` fault (/state DOWN with errorMessage "service"). */
export { inServiceMode, SERVICE_FAULT } from '../station/core.js';

/**
 * A technician's opening is a rescue open: service mode is on and the server cannot be asked
 * (starting, deactivated, disabled). The core decides the same way (core/input.ts).
 */
export function isRescue(s: CoreState): boolean {
  return inServiceMode(s) && (s.mode.kind === 'starting' || s.mode.kind === 'deactivated' || s.mode.kind === 'disabled');
}
