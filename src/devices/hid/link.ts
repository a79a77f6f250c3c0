/**
 * The hardware boundary of the HID drivers: node-hid 3 on Linux hidraw, behind a small interface
 * so that decoding and reconnection are tested without a device (test/unit/hid-*), and the real
 * thing on /dev/uhid devices inside the VM rig (test/hw/hid.test.ts).
 *
 * Facts this relies on (shared/notes/driver-rig.md): node-hid's default Linux build needs
 * libusb, so the hidraw build is selected explicitly; on unplug the sync `HID` class emits
 * `error`, while HIDAsync emits nothing, so a link also re-checks the device list periodically.
 */
import { createRequire } from 'node:module';
import type * as NodeHid from 'node-hid';
import { DeviceError, errorMessage } from '../../errors.js';
import { releaseAtExit } from '../../exit.js';
import type { Link } from '../reconnect.js';
import { inputNodesOf, type InputNode } from './input-nodes.js';

export interface HidDeviceInfo {
  readonly path: string;
  readonly vendorId: number;
  readonly productId: number;
  readonly serialNumber?: string | undefined;
  readonly product?: string | undefined;
  readonly interface: number;
  readonly usagePage?: number | undefined;
  readonly usage?: number | undefined;
}

/** An open HID device: input reports in, errors out. */
export interface HidHandle {
  onData(listener: (report: Buffer) => void): void;
  onError(listener: (e: Error) => void): void;
  close(): void;
}

export interface HidBackend {
  devices(): Promise<readonly HidDeviceInfo[]>;
  /** Open by hidraw path; throws when it cannot. */
  open(path: string): HidHandle;
  /** The input event nodes of the device behind a hidraw path, as udev keeps them (input-nodes.ts); absent: not known. */
  inputNodes?(path: string): readonly InputNode[];
}

let nodeHid: typeof NodeHid | null = null;
/** node-hid is CommonJS with a native addon: load it (hidraw build) only when a HID device is configured. */
function loadNodeHid(): typeof NodeHid {
  if (!nodeHid) {
    const require = createRequire(import.meta.url);
    nodeHid = require('node-hid') as typeof NodeHid;
    nodeHid.setDriverType('hidraw');
  }
  return nodeHid;
}

export const nodeHidBackend: HidBackend = {
  async devices() {
    const list = await loadNodeHid().devicesAsync();
    return list.flatMap((d) => (d.path ? [{ ...d, path: d.path }] : []));
  },
  open(path) {
    const dev = new (loadNodeHid().HID)(path);
    // An open device's read holds a libuv pool thread until it is interrupted: the process cannot
    // exit before that (src/exit.ts), so an exit closes the devices nobody closed.
    const unregister = releaseAtExit(() => dev.close());
    return {
      onData: (l) => dev.on('data', l),
      onError: (l) => dev.on('error', l),
      close: () => {
        unregister();
        dev.close();
      },
    };
  },
  inputNodes: (path) => inputNodesOf(path),
};

export interface HidMatch {
  readonly vendorId: number;
  readonly productId: number;
  readonly serialNumber?: string | null | undefined;
  /** A hidraw path, to pick one of several identical devices. */
  readonly path?: string | null | undefined;
}

/**
 * The device to open: vendor/product (and serial/path when given). Of a composite device's
 * interfaces, the keyboard one (usage page 1, usage 6) is preferred; ties go to the lowest path
 * so the choice is stable.
 */
export function selectDevice(list: readonly HidDeviceInfo[], m: HidMatch): HidDeviceInfo | null {
  const matching = list
    .filter((d) => d.vendorId === m.vendorId && d.productId === m.productId)
    .filter((d) => !m.serialNumber || d.serialNumber === m.serialNumber)
    .filter((d) => !m.path || d.path === m.path)
    .sort((a, b) => a.path.localeCompare(b.path));
  return matching.find((d) => d.usagePage === 0x01 && d.usage === 0x06) ?? matching[0] ?? null;
}

export function describeMatch(m: HidMatch): string {
  const hex = (n: number) => n.toString(16).padStart(4, '0');
  return `${hex(m.vendorId)}:${hex(m.productId)}${m.serialNumber ? ` serial ${m.serialNumber}` : ''}${m.path ? ` at ${m.path}` : ''}`;
}

export interface HidLinkOptions {
  readonly backend: HidBackend;
  readonly match: HidMatch;
  /** How often the device list is re-checked to notice an unplug that raised no error. */
  readonly presenceCheckMs: number;
  readonly onReport: (report: Buffer) => void;
  readonly lost: (reason: string) => void;
  /**
   * The device's input nodes changed since the open (udev processed one late, its rules were
   * written or taken away): looked at with each device-list re-check.
   */
  readonly inputNodesChanged?: (nodes: readonly InputNode[]) => void;
}

export interface HidLink extends Link {
  readonly info: HidDeviceInfo;
  /** Its input nodes at the open; null when the backend cannot tell. */
  readonly inputNodes: readonly InputNode[] | null;
}

export async function openHidLink(o: HidLinkOptions): Promise<HidLink> {
  const info = selectDevice(await o.backend.devices(), o.match);
  if (!info) throw new DeviceError(describeMatch(o.match), 'not connected');
  let handle: HidHandle;
  try {
    handle = o.backend.open(info.path);
  } catch (e) {
    throw new DeviceError(info.path, `cannot open: ${errorMessage(e)}`, { cause: e });
  }
  const inputNodes = o.backend.inputNodes?.(info.path) ?? null;
  let inputNodesSeen = JSON.stringify(inputNodes);
  let gone = false;
  let checking = false;
  const lose = (reason: string): void => {
    if (gone) return;
    gone = true;
    clearInterval(timer);
    o.lost(reason);
  };
  handle.onData((r) => {
    if (!gone) o.onReport(r);
  });
  handle.onError((e) => lose(`I/O error: ${e.message}`));
  const timer = setInterval(() => {
    if (checking || gone) return;
    checking = true;
    o.backend.devices().then(
      (list) => {
        checking = false;
        if (!list.some((d) => d.path === info.path)) return lose('unplugged');
        const now = o.backend.inputNodes?.(info.path) ?? null;
        const seen = JSON.stringify(now);
        if (now !== null && seen !== inputNodesSeen) {
          inputNodesSeen = seen;
          o.inputNodesChanged?.(now);
        }
      },
      (e: unknown) => {
        checking = false;
        lose(`device list failed: ${errorMessage(e)}`);
      },
    );
  }, o.presenceCheckMs);
  return {
    info,
    inputNodes,
    close: () => {
      gone = true;
      clearInterval(timer);
      try {
        handle.close();
      } catch {
        // Already closed by an unplug: nothing left to release.
      }
      return Promise.resolve();
    },
  };
}
