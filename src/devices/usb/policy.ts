/**
 * The USB policy of a board profile, pure: which devices the kernel may authorise (the profile's
 * HID scanners and keypad by their ids, `usb.devices`, hubs), and the USBGuard rules file that says
 * so. Anything no rule allows is blocked by USBGuard's implicit target: it stays unauthorised, no
 * driver binds to it.
 *
 * The file carries the SHA-256 of its rules in its header, so a later run can tell a file it wrote
 * from one an administrator edited (policy-file.ts keeps an edited one).
 */
import { createHash } from 'node:crypto';
import type { UsbProfile } from './schema.js';

/** One device the policy allows. */
export interface AllowedUsbDevice {
  readonly vendorId: number;
  readonly productId: number;
  readonly serialNumber: string | null;
  /** Interface patterns "cc:ss:pp" the device may offer (every one of its interfaces must match one). */
  readonly interfaces: readonly string[];
  /** The port it is wired to ("1-1.3"): allowed there only, offering exactly `interfaces`. null: any port. */
  readonly port: string | null;
  /** Where the profile names it ("scanners.0", "keypad", "usb.devices.1"). */
  readonly sources: readonly string[];
  readonly name: string;
  /** The station reads it through its hidraw node (a HID scanner or keypad): its udev rule gives the node to the station's group. */
  readonly hidraw: boolean;
}

export interface UsbPolicy {
  readonly devices: readonly AllowedUsbDevice[];
  readonly hubs: boolean;
}

/** A profile naming one device twice: the path of the second naming and why. */
export interface UsbPolicyProblem {
  readonly path: (string | number)[];
  readonly message: string;
  /** The device as named: "0403:6001" or "0403:6001 serial FT4RFID1". */
  readonly device: string;
}

/** The parts of a board profile the policy reads. */
export interface UsbPolicySource {
  readonly scanners: readonly (
    | {
        readonly kind: 'hid';
        readonly vendorId: number;
        readonly productId: number;
        readonly serialNumber: string | null;
        readonly identifierType: string;
        readonly usbPort?: string | null;
        readonly usbInterfaces?: readonly string[] | null;
      }
    | { readonly kind: string }
  )[];
  readonly keypad: unknown;
  readonly usb: UsbProfile;
}

/** HID scanners and keypads offer HID interfaces only (a wedge scanner is a keyboard). */
const HID_INTERFACES = ['03:*:*'] as const;

export function usbIdText(id: number): string {
  return id.toString(16).padStart(4, '0');
}

function key(d: { vendorId: number; productId: number }): string {
  return `${usbIdText(d.vendorId)}:${usbIdText(d.productId)}`;
}

/**
 * The allowed devices, and the problems of a profile that names a device twice. Two HID scanners
 * with the same ids (told apart by serial number or hidraw path) are one USB identity and one rule;
 * an entry of `usb.devices` naming a device that another section or entry already allows is a
 * problem at its path — without a serial number it allows every unit with those ids.
 */
export function usbPolicyOf(p: UsbPolicySource): { policy: UsbPolicy; problems: UsbPolicyProblem[] } {
  const devices: AllowedUsbDevice[] = [];
  const problems: UsbPolicyProblem[] = [];
  const add = (d: Omit<AllowedUsbDevice, 'sources'>, source: string, path: (string | number)[], derived: boolean): void => {
    // Another port is another device (both pinned); an unpinned entry allows every port.
    const samePort = (o: { port: string | null }): boolean => o.port === d.port || o.port === null || d.port === null;
    const same = devices.findIndex(
      (o) => key(o) === key(d) && samePort(o) && (o.serialNumber === d.serialNumber || o.serialNumber === null || d.serialNumber === null),
    );
    const other = devices[same];
    if (other === undefined) {
      devices.push({ ...d, sources: [source] });
      return;
    }
    if (derived) {
      // One rule for both: the one without a serial number (or a port, or exact interfaces) allows every unit anyway.
      const serialNumber = other.serialNumber === d.serialNumber ? d.serialNumber : null;
      const port = other.port === d.port ? d.port : null;
      const interfaces = other.interfaces.join(' ') === d.interfaces.join(' ') ? d.interfaces : HID_INTERFACES;
      devices[same] = { ...other, serialNumber, port, interfaces, sources: [...other.sources, source] };
      return;
    }
    const unit = d.serialNumber === null || other.serialNumber === null ? '' : ` serial ${d.serialNumber}`;
    problems.push({ path, message: `names a USB device a second time: ${other.sources.join(', ')} already allows it`, device: `${key(d)}${unit}` });
  };
  p.scanners.forEach((s, i) => {
    if (!isHid(s)) return;
    add({ ...hid(s), name: `HID scanner (${s.identifierType})` }, `scanners.${i}`, ['scanners', i], true);
  });
  if (isHid(p.keypad)) add({ ...hid(p.keypad), name: 'HID keypad' }, 'keypad', ['keypad'], true);
  p.usb.devices.forEach((d, i) => add({ ...d, port: d.port ?? null, hidraw: false }, `usb.devices.${i}`, ['usb', 'devices', i], false));
  return { policy: { devices, hubs: p.usb.hubs }, problems };
}

interface HidSection {
  vendorId: number;
  productId: number;
  serialNumber: string | null;
  identifierType?: string;
  usbPort?: string | null;
  usbInterfaces?: readonly string[] | null;
}

function isHid(d: unknown): d is HidSection {
  return typeof d === 'object' && d !== null && (d as { kind?: unknown }).kind === 'hid';
}

/** A HID scanner's or keypad's rule: its ids (and serial), any HID interface, or its port and exact interfaces. */
function hid(d: HidSection): Omit<AllowedUsbDevice, 'sources' | 'name'> {
  return {
    vendorId: d.vendorId,
    productId: d.productId,
    serialNumber: d.serialNumber,
    interfaces: d.usbInterfaces ?? HID_INTERFACES,
    port: d.usbPort ?? null,
    hidraw: true,
  };
}

/** The rule lines, one comment line naming each rule's sources before it. */
export function policyRules(policy: UsbPolicy): string {
  const lines: string[] = [];
  if (policy.hubs) lines.push('# usb.hubs', 'allow with-interface match-all { 09:00:* }');
  for (const d of policy.devices) {
    const serial = d.serialNumber === null ? '' : ` serial "${d.serialNumber}"`;
    const port = d.port === null ? '' : ` via-port "${d.port}"`;
    // Exact interfaces are the device's whole set: written as USBGuard writes a set it must equal
    // (no operator; one alone bare). Patterns are what each interface may be (match-all).
    const exact = d.interfaces.every((i) => !i.includes('*'));
    const set = !exact ? `match-all { ${d.interfaces.join(' ')} }` : d.interfaces.length === 1 ? (d.interfaces[0] ?? '') : `{ ${d.interfaces.join(' ')} }`;
    lines.push(
      `# ${d.sources.join(', ')}: ${d.name}${d.port === null ? '' : `, on port ${d.port}`}`,
      `allow id ${key(d)}${serial}${port} with-interface ${set}`,
    );
  }
  return lines.map((l) => `${l}\n`).join('');
}

const HASH_LINE = /^# sha256 of the rules below: ([0-9a-f]{64})\n/m;

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * A file this command generates: its title line, the profile it came from, a note, the hash of the
 * rules, then the rules. The hash lets a later run tell its own unchanged file from an edited one.
 */
export function renderGeneratedFile(title: string, profile: { file: string; name: string }, note: readonly string[], rules: string): string {
  const name = profile.name.replace(/[\r\n]+/g, ' ');
  return [title, `#   ${profile.file} (${name})`, ...note, `# sha256 of the rules below: ${sha256(rules)}`].map((l) => `${l}\n`).join('') + rules;
}

/** Whether `text` is a file renderGeneratedFile wrote with `title`, unchanged since. */
export function isUnchangedGeneratedFile(text: string, title: string): boolean {
  const m = HASH_LINE.exec(text);
  if (m === null || !text.startsWith(`${title}\n`)) return false;
  return sha256(text.slice(m.index + m[0].length)) === m[1];
}

const POLICY_TITLE = '# USBGuard rules of pickup-station, written by `pickup-station usb-policy` from the board profile';

/** The whole rules file: a header naming the profile and carrying the rules' hash, then the rules. */
export function renderPolicyFile(policy: UsbPolicy, profile: { file: string; name: string }): string {
  return renderGeneratedFile(
    POLICY_TITLE,
    profile,
    [
      '# Not to be edited: an edited file is kept as it is and no longer replaced. Devices go into the',
      "# profile's usb.devices; a site's own rules into the local rules file (docs/security.md).",
    ],
    policyRules(policy),
  );
}

/**
 * Whether `text` is a rules file as renderPolicyFile wrote it, unchanged since: its header's hash
 * matches the rules after it. False for an edited file and for one of someone else's.
 */
export function isUnchangedPolicyFile(text: string): boolean {
  return isUnchangedGeneratedFile(text, POLICY_TITLE);
}
