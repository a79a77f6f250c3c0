/** The faults a technician's status shows, as lines: the API's own list, which `stationctl status` prints. */
import type { StatusBody } from './status.js';

/**
 * Every fault the status shows, one line each: the station's own faults, the journal's problem,
 * a device that is not ok, a HID device whose input node is a keyboard beyond the station. What
 * `stationctl status` prints as its faults, so the two never differ.
 */
export function statusFaults(s: Pick<StatusBody, 'faults' | 'journal' | 'devices'>): string[] {
  const out = Object.entries(s.faults).map(([k, v]) => `${k}: ${v}`);
  if (!s.journal.ok || s.journal.problem !== null)
    out.push(`journal${s.journal.ok ? '' : ' NOT WRITING'}: ${s.journal.problem ?? 'records cannot be written'}`);
  for (const d of s.devices) if (!d.ok) out.push(`device ${d.name}: ${d.detail ?? 'not ok'}`);
  for (const d of s.devices) if (d.input?.problem != null) out.push(`device ${d.name}: ${d.input.problem}`);
  return out;
}
