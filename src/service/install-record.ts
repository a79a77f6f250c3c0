/**
 * The installer's record of the releases, as the station shows it (the technician status,
 * `stationctl status`, metrics). systemd/install.sh keeps `/opt/pickup-station/install-status.json`
 * (temp file + fsync + rename; `metrics.installStatusFile`):
 *
 *     {"installed":"1.2.0","running":"1.1.0","proof":"proven","proven":"1.1.0","pending":"",
 *      "switching":"","knownBad":"1.2.0","knownBadReason":"it exited ...","attempts":0,
 *      "result":"rolled-back","reason":"...","at":"..."}
 *
 * - proof: whether the release that runs has proven itself healthy after its switch (`unproven`
 *   while its proof is under way or was cut off; the installer's repair settles it);
 * - pending: a release installed and waiting for its switch (the station was in use, or the unit is
 *   masked or stopped): "upgrade pending";
 * - knownBad: a release that failed its proof and is not tried again until a newer one arrives.
 *
 * Read on demand (a status request, a scrape): the installer rewrites it at any time, and it is
 * small. Every value is checked: the file is root's, but a damaged one must not reach a metric
 * label or the status as anything but a sane version.
 */
import { readFileSync } from 'node:fs';

export type Proof = 'proven' | 'unproven' | 'failed';

export interface InstallRecord {
  /** The version handed to the installer last; null: none recorded. */
  readonly installed: string | null;
  /** The version `current` points at. */
  readonly running: string | null;
  readonly proof: Proof | null;
  /** An upgrade installed and waiting for its switch. */
  readonly pending: string | null;
  /** A release that failed its proof and is not tried again, and why. */
  readonly knownBad: { readonly version: string; readonly reason: string } | null;
  /** The installer's last outcome: ok, pending, rolled-back, rollback-failed, known-bad, repaired, failed. */
  readonly result: string | null;
}

const VERSION_LABEL = /^[A-Za-z0-9][A-Za-z0-9.+~_-]{0,63}$/;
const PROOFS: readonly string[] = ['proven', 'unproven', 'failed'];

const version = (v: unknown): string | null => (typeof v === 'string' && VERSION_LABEL.test(v) ? v : null);
/** A free text of the installer's (a reason): one line, bounded. */
const text = (v: unknown): string => (typeof v === 'string' ? v.replace(/\p{Cc}/gu, ' ').slice(0, 300) : '');

/** The record in `file`, or null when there is none or it is not a record. */
export function readInstallRecord(file: string): InstallRecord | null {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const r = raw as Record<string, unknown>;
  const bad = version(r['knownBad']);
  const result = text(r['result']);
  return {
    installed: version(r['installed']),
    running: version(r['running']),
    proof: typeof r['proof'] === 'string' && PROOFS.includes(r['proof']) ? (r['proof'] as Proof) : null,
    pending: version(r['pending']),
    knownBad: bad === null ? null : { version: bad, reason: text(r['knownBadReason']) },
    result: /^[a-z-]{1,32}$/.test(result) ? result : null,
  };
}

/** The releases as the status shows them, for the process running `running`. */
export interface ReleaseView {
  readonly running: string;
  readonly installed: string | null;
  /**
   * Whether this release has proven itself healthy since its switch: false while its proof is
   * under way (or was cut off); null when the record is about another release (a checkout, a test).
   */
  readonly proven: boolean | null;
  /** "upgrade pending": the release waiting for its switch (the station in use, the unit masked). */
  readonly pending: string | null;
  /** A release that failed its proof, not tried again until a newer one arrives. */
  readonly knownBad: { readonly version: string; readonly reason: string } | null;
  readonly result: string | null;
}

export function releaseView(record: InstallRecord | null, running: string): ReleaseView | null {
  if (record === null) return null;
  return {
    running,
    installed: record.installed,
    proven: record.running === running && record.proof !== null ? record.proof === 'proven' : null,
    pending: record.pending !== null && record.pending !== running ? record.pending : null,
    knownBad: record.knownBad,
    result: record.result,
  };
}
