/**
 * The udev rules that keep the board profile's HID scanners and keypad from being anyone's keyboard
 * but the station's, pure. The station reads them through hidraw; the kernel also makes each an
 * input device, and its event node is a keyboard to whoever reads input: libinput (the kiosk's
 * compositor would type a card number into the page) and logind (which watches every node tagged
 * `power-switch` for power, sleep and reboot keys). Each line gives the node `LIBINPUT_IGNORE_DEVICE`
 * and takes the `power-switch` tag away, matched as the hidraw rules are, on the HID device's kernel
 * name BUS:VENDOR:PRODUCT.N (any bus). The kernel's own VT keyboard still gets the keys: no getty
 * reads a VT of a station (record 0135). The file sorts after systemd's 70-power-switch.rules, which
 * adds the tag this removes.
 */
import { isUnchangedGeneratedFile, renderGeneratedFile, usbIdText, type UsbPolicy } from './policy.js';

/** After systemd's 70-power-switch.rules, whose `power-switch` tag these rules take away again. */
export const DEFAULT_INPUT_RULES_FILE = '/etc/udev/rules.d/90-pickup-station-input.rules';
/** Outside rules.d, so udev does not load it. */
export const DEFAULT_INPUT_PROPOSAL_FILE = '/etc/udev/pickup-station-input.rules.proposed';

const TITLE = "# udev rules of pickup-station keeping the board profile's HID devices from logind and libinput, written by `pickup-station usb-policy`";

/** The rule lines, one comment line naming each rule's sources before it. */
export function inputRules(policy: UsbPolicy): string {
  const lines: string[] = [];
  for (const d of policy.devices.filter((x) => x.hidraw)) {
    const ids = `${usbIdText(d.vendorId)}:${usbIdText(d.productId)}`.toUpperCase();
    lines.push(
      `# ${d.sources.join(', ')}: ${d.name}`,
      `SUBSYSTEM=="input", KERNEL=="event*", KERNELS=="*:${ids}.*", ENV{LIBINPUT_IGNORE_DEVICE}="1", TAG-="power-switch"`,
    );
  }
  return lines.map((l) => `${l}\n`).join('');
}

export function renderInputRulesFile(policy: UsbPolicy, profile: { file: string; name: string }): string {
  return renderGeneratedFile(
    TITLE,
    profile,
    [
      '# Not to be edited: an edited file is kept as it is and no longer replaced. HID devices go into the',
      "# profile's scanners and keypad; the station checks their event nodes at each open (technician status).",
    ],
    inputRules(policy),
  );
}

export function isUnchangedInputRulesFile(text: string): boolean {
  return isUnchangedGeneratedFile(text, TITLE);
}
