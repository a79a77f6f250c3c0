/**
 * The input event nodes the kernel made for a HID device the station reads through hidraw, and
 * whether each is kept from logind and libinput, as udev recorded it: `LIBINPUT_IGNORE_DEVICE` set
 * and no current `power-switch` tag (the rules `pickup-station usb-policy` writes from the profile:
 * src/devices/usb/input-rules.ts). Read from sysfs (the hidraw node's HID device, its input devices'
 * `eventN`) and udev's database (`/run/udev/data/c13:N`: `E:` properties, `Q:` current tags, `G:`
 * every tag it ever had). What the station says about it is `describeInputNodes`, pure.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { InputNodesView } from '../types.js';

export interface InputNode {
  /** The node's name under /dev/input: "event5". */
  readonly name: string;
  /** udev has a record of it (none: not processed yet, or udev not running). */
  readonly known: boolean;
  readonly libinputIgnored: boolean;
  readonly powerSwitch: boolean;
}

/** Where sysfs and udev's database are (tests: a tree in a temporary folder). */
export interface InputNodeRoots {
  readonly sys: string;
  readonly udevData: string;
}

export const SYSTEM_ROOTS: InputNodeRoots = { sys: '/sys', udevData: '/run/udev/data' };

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function read(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** The event nodes of the HID device behind `hidrawPath` ("/dev/hidraw2"), in name order. */
export function inputNodesOf(hidrawPath: string, roots: InputNodeRoots = SYSTEM_ROOTS): InputNode[] {
  const inputs = join(roots.sys, 'class/hidraw', basename(hidrawPath), 'device/input');
  const nodes: InputNode[] = [];
  for (const input of entries(inputs)) {
    for (const name of entries(join(inputs, input)).filter((e) => /^event\d+$/.test(e))) {
      const dev = read(join(inputs, input, name, 'dev'))?.trim() ?? '';
      const db = /^\d+:\d+$/.test(dev) ? read(join(roots.udevData, `c${dev}`)) : null;
      const lines = db?.split('\n') ?? [];
      // Since systemd 247 (the `V:` line) `Q:` holds the current tags and `G:` keeps every tag the
      // device ever had: a tag a rule took away stays in `G:`.
      const tags = lines.some((l) => l.startsWith('V:')) ? 'Q:' : 'G:';
      nodes.push({
        name,
        known: db !== null,
        libinputIgnored: lines.includes('E:LIBINPUT_IGNORE_DEVICE=1'),
        powerSwitch: lines.includes(`${tags}power-switch`),
      });
    }
  }
  return nodes.sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
}

export function describeInputNodes(nodes: readonly InputNode[]): InputNodesView {
  const names = nodes.map((n) => n.name);
  if (nodes.length === 0) return { nodes: names, problem: null, text: 'no input event node: its keys reach only the station (through hidraw)' };
  const open = nodes.flatMap((n) => {
    if (!n.known) return [`/dev/input/${n.name} (no udev record)`];
    const to = [...(n.libinputIgnored ? [] : ['libinput']), ...(n.powerSwitch ? ['logind (power-switch)'] : [])];
    return to.length === 0 ? [] : [`/dev/input/${n.name} to ${to.join(' and ')}`];
  });
  if (open.length === 0) return { nodes: names, problem: null, text: `${names.join(', ')} kept from logind and libinput` };
  const problem = `a keyboard beyond the station: ${open.join('; ')} (the profile's input rules are not in force: pickup-station usb-policy writes them; then udevadm trigger --subsystem-match=input)`;
  return { nodes: names, problem, text: problem };
}
