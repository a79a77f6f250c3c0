/**
 * What the metrics see of a station, with no prom-client in sight (this file is loaded at start-up;
 * prom-client is not): a read-only view of the running station, and the runtime events metrics
 * count. The daemon's view follows config reloads (the supervisor's current station); a fleet
 * has one view per virtual station.
 */
import type { Device, StationHardware } from '../devices/types.js';
import type { RuntimeEvent, StationRuntime } from '../station/runtime.js';

/** The running station as metrics read it at scrape time. */
export interface StationNow {
  readonly runtime: Pick<StationRuntime, 'snapshot' | 'lastPower' | 'journalHealth'>;
  readonly hardware: StationHardware;
  /** The configured boxes (a label value is a box *number*: bounded by the config, never a boxId). */
  readonly boxes: readonly { readonly id: string; readonly number: number }[];
}

export interface StationView {
  /** The stationId (the `station` label: one per configured station). */
  readonly stationId: string;
  /** The station as it runs now; null while it is being replaced (a config reload). */
  current(): StationNow | null;
  /** Config keys changed in the file that only a process restart applies (the daemon's; a fleet has none). */
  restartNeeded?(): readonly string[];
}

/** The runtime events metrics count; the others (display, box, event-sent) change nothing they keep. */
export type CountedEvent = Extract<RuntimeEvent, { type: 'event-done' | 'lock' | 'mode' | 'alarm' | 'rfid-security-failed' }>;

export function isCounted(e: { readonly type: string }): e is CountedEvent {
  return e.type === 'event-done' || e.type === 'lock' || e.type === 'mode' || e.type === 'alarm' || e.type === 'rfid-security-failed';
}

/** A device's role, for alert rules ("scanner or keypad missing") that must not match on names. */
export type DeviceRole = 'locks' | 'doors' | 'scanner' | 'rfid' | 'keypad' | 'button' | 'display' | 'tamper' | 'buzzer' | 'speech' | 'assist' | 'other';

export function deviceRoles(hw: StationHardware): { readonly device: Device; readonly role: DeviceRole }[] {
  return hw.devices().map((device) => {
    let role: DeviceRole = 'other';
    if (device === hw.locks) role = 'locks';
    else if (device === hw.doors) role = 'doors';
    else if ((hw.scanners as readonly Device[]).includes(device)) role = 'scanner';
    else if ((hw.rfidReaders as readonly Device[] | undefined)?.includes(device)) role = 'rfid';
    else if (device === hw.keypad) role = 'keypad';
    else if (device === hw.cancelButton) role = 'button';
    else if (device === hw.display) role = 'display';
    else if (device === hw.tamper) role = 'tamper';
    else if (device === hw.buzzer) role = 'buzzer';
    else if (device === hw.speech) role = 'speech';
    else if ((hw.assist as readonly Device[] | undefined)?.includes(device)) role = 'assist';
    return { device, role };
  });
}
