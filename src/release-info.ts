/**
 * The vendor's statements about the running release, from the files its build wrote beside
 * package.json (scripts/release/inputs.sh): who to tell about a security flaw and until when the
 * release line gets security fixes (vendor.json), and its SBOM (sbom.cdx.json). A checkout has
 * neither: a development build, shown as such, never as a release with a made-up contact.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './version.js';

export interface VendorInfo {
  /** mailto:, https: or tel: URI (RFC 9116 Contact:). */
  readonly securityContact: string;
  /** YYYY-MM-DD: the last day of security fixes for this release line (UTC). */
  readonly supportUntil: string;
}

/** What the release says of itself: its vendor statements, or why there are none. */
export type VendorView =
  ({ readonly kind: 'release' } & VendorInfo) | { readonly kind: 'development' } | { readonly kind: 'unreadable'; readonly problem: string };

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const CONTACT = /^(mailto:[^@\s]+@[^@\s]+\.[^@\s]+|https:\/\/\S+|tel:\+[0-9][0-9-]*)$/;

/** vendor.json of the release at `root`; a file that is there but not what the build writes is `unreadable` (the SD card may have been edited elsewhere). */
export function readVendor(root: string = PACKAGE_ROOT): VendorView {
  let text: string;
  try {
    text = readFileSync(join(root, 'vendor.json'), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'development' };
    return { kind: 'unreadable', problem: `vendor.json: ${(e as Error).message}` };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { kind: 'unreadable', problem: 'vendor.json is not JSON' };
  }
  const d = doc as Partial<Record<keyof VendorInfo, unknown>> | null;
  const contact = d?.securityContact;
  const until = d?.supportUntil;
  if (typeof contact !== 'string' || !CONTACT.test(contact))
    return { kind: 'unreadable', problem: 'vendor.json: securityContact is not a mailto:, https: or tel: URI' };
  if (typeof until !== 'string' || !DATE.test(until) || Number.isNaN(Date.parse(`${until}T00:00:00Z`)))
    return { kind: 'unreadable', problem: 'vendor.json: supportUntil is not a date YYYY-MM-DD' };
  return { kind: 'release', securityContact: contact, supportUntil: until };
}

const DAY_MS = 86_400_000;

/**
 * Whole days of security support left at wall-clock time `nowMs`: 0 on the last day, negative
 * once it has passed (-1 the day after). A calendar date, so the wall clock, not the monotonic one.
 */
export function supportDaysLeft(supportUntil: string, nowMs: number): number {
  const endOfLastDay = Date.parse(`${supportUntil}T00:00:00Z`) + DAY_MS;
  return Math.ceil((endOfLastDay - nowMs) / DAY_MS) - 1;
}

/** The release's SBOM (CycloneDX JSON text), or null in a development build. */
export function readSbom(root: string = PACKAGE_ROOT): string | null {
  try {
    return readFileSync(join(root, 'sbom.cdx.json'), 'utf8');
  } catch {
    return null;
  }
}

/** The vendor block of the status API: what `stationctl status` and the technician page show. */
export interface VendorStatus {
  readonly securityContact: string | null;
  readonly supportUntil: string | null;
  /** Whole days left (negative: ended); null without a support period. */
  readonly supportDaysLeft: number | null;
  /** 'release', 'development' build, or the vendor file 'unreadable' (problem says why). */
  readonly kind: VendorView['kind'];
  readonly problem: string | null;
}

export function vendorStatus(v: VendorView, nowMs: number): VendorStatus {
  if (v.kind === 'release')
    return {
      kind: v.kind,
      securityContact: v.securityContact,
      supportUntil: v.supportUntil,
      supportDaysLeft: supportDaysLeft(v.supportUntil, nowMs),
      problem: null,
    };
  return { kind: v.kind, securityContact: null, supportUntil: null, supportDaysLeft: null, problem: v.kind === 'unreadable' ? v.problem : null };
}

/** One line for a technician: until when, how long left, or that support has ended. */
export function describeSupport(s: VendorStatus): string {
  if (s.kind === 'development') return 'development build: no security contact, no support period (not a release)';
  if (s.kind === 'unreadable' || s.supportUntil === null || s.supportDaysLeft === null) return `UNKNOWN: ${s.problem ?? 'no vendor.json'}`;
  if (s.supportDaysLeft < 0) return `ENDED on ${s.supportUntil}: no more security fixes for this release line; upgrade to a supported one`;
  return `until ${s.supportUntil} (${s.supportDaysLeft} day${s.supportDaysLeft === 1 ? '' : 's'} left)${s.supportDaysLeft <= 90 ? ': ENDS SOON, plan the upgrade to a supported line' : ''}`;
}
