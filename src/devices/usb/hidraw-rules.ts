/**
 * The udev rules that give the station's group the hidraw nodes of the board profile's HID scanners
 * and keypad, pure: one line per device, matched on the HID device's kernel name
 * BUS:VENDOR:PRODUCT.N (any bus: USB 0003, Bluetooth 0005, uhid), so that a device the profile
 * names is readable by the station the moment USBGuard authorises it — no hand-written udev line
 * per scanner model. Without a rule the node is root's (0600) and the station says "cannot open".
 * The same header and hash as the USBGuard rules (policy.ts): an edited file is kept.
 */
import { isUnchangedGeneratedFile, renderGeneratedFile, usbIdText, type UsbPolicy } from './policy.js';

/** The group the station's service user reads HID devices through (hardware/99-pickup-station.rules). */
export const HID_GROUP = 'pickup-hid';

const TITLE = "# udev rules of pickup-station for the board profile's HID devices, written by `pickup-station usb-policy`";

/** The rule lines, one comment line naming each rule's sources before it. */
export function hidrawRules(policy: UsbPolicy): string {
  const lines: string[] = [];
  for (const d of policy.devices.filter((x) => x.hidraw)) {
    const ids = `${usbIdText(d.vendorId)}:${usbIdText(d.productId)}`.toUpperCase();
    lines.push(`# ${d.sources.join(', ')}: ${d.name}`, `SUBSYSTEM=="hidraw", KERNELS=="*:${ids}.*", GROUP="${HID_GROUP}", MODE="0660"`);
  }
  return lines.map((l) => `${l}\n`).join('');
}

export function renderHidrawRulesFile(policy: UsbPolicy, profile: { file: string; name: string }): string {
  return renderGeneratedFile(
    TITLE,
    profile,
    [
      '# Not to be edited: an edited file is kept as it is and no longer replaced. HID devices go into the',
      "# profile's scanners and keypad; a device the station does not read, into a rules file of its own.",
    ],
    hidrawRules(policy),
  );
}

export function isUnchangedHidrawRulesFile(text: string): boolean {
  return isUnchangedGeneratedFile(text, TITLE);
}
