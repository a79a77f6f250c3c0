/**
 * A HID device's input event nodes as the station finds them (src/devices/hid/input-nodes.ts): read
 * from a sysfs tree and udev database laid out as the kernel and systemd 252 lay them out, in a
 * temporary folder; what the station says about each (kept from logind and libinput, a keyboard
 * beyond the station, no event node at all); and the drivers saying it in the log and the
 * technician status, at the open and when it changes (HidBackend faked at its last boundary).
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { describeInputNodes, inputNodesOf, type InputNode } from '../../src/devices/hid/input-nodes.js';
import type { HidBackend, HidDeviceInfo, HidHandle } from '../../src/devices/hid/link.js';
import { HidKeypad } from '../../src/devices/hid/keypad.js';

/** A HID device with a hidraw node and input devices with event nodes, and udev's records of them. */
function tree(events: { input: string; event: string; minor: number; db: string | null }[]): { sys: string; udevData: string } {
  const root = mkdtempSync(join(tmpdir(), 'input-nodes-'));
  const sys = join(root, 'sys');
  const udevData = join(root, 'run/udev/data');
  const hid = join(sys, 'devices/virtual/misc/uhid/0003:04D9:1203.0002');
  mkdirSync(join(hid, 'hidraw/hidraw2'), { recursive: true });
  mkdirSync(join(sys, 'class/hidraw/hidraw2'), { recursive: true });
  symlinkSync(hid, join(sys, 'class/hidraw/hidraw2/device'));
  mkdirSync(udevData, { recursive: true });
  for (const e of events) {
    mkdirSync(join(hid, 'input', e.input, e.event), { recursive: true });
    writeFileSync(join(hid, 'input', e.input, e.event, 'dev'), `13:${e.minor}\n`);
    if (e.db !== null) writeFileSync(join(udevData, `c13:${e.minor}`), e.db);
  }
  // What a keyboard's input device has beside its event node.
  if (events.length > 0) mkdirSync(join(hid, 'input', events[0]!.input, 'capabilities'), { recursive: true });
  return { sys, udevData };
}

/** udev's record of an event node (systemd 252: `V:1`, `G:` every tag it had, `Q:` current ones). */
const record = (props: string[], tags: string[], current: string[]) =>
  ['I:123', ...props.map((p) => `E:${p}`), ...tags.map((t) => `G:${t}`), ...current.map((t) => `Q:${t}`), 'V:1', ''].join('\n');
const KEYBOARD = ['ID_INPUT=1', 'ID_INPUT_KEY=1', 'ID_INPUT_KEYBOARD=1'];

describe("a HID device's input nodes", () => {
  it('kept: LIBINPUT_IGNORE_DEVICE and the power-switch tag taken away (still in G:, no longer in Q:)', () => {
    const t = tree([
      { input: 'input7', event: 'event5', minor: 69, db: record([...KEYBOARD, 'LIBINPUT_IGNORE_DEVICE=1'], ['power-switch', 'seat'], ['seat']) },
    ]);
    const nodes = inputNodesOf('/dev/hidraw2', t);
    expect(nodes).toEqual([{ name: 'event5', known: true, libinputIgnored: true, powerSwitch: false }]);
    expect(describeInputNodes(nodes)).toEqual({ nodes: ['event5'], problem: null, text: 'event5 kept from logind and libinput' });
  });

  it('a keyboard to both when the rules are not in force; to one when half of them are; unknown to udev', () => {
    const t = tree([
      { input: 'input7', event: 'event5', minor: 69, db: record(KEYBOARD, ['power-switch'], ['power-switch']) },
      { input: 'input8', event: 'event10', minor: 74, db: record([...KEYBOARD, 'LIBINPUT_IGNORE_DEVICE=1'], ['power-switch'], ['power-switch']) },
      { input: 'input8', event: 'event6', minor: 70, db: null },
    ]);
    const view = describeInputNodes(inputNodesOf('/dev/hidraw2', t));
    expect(view.nodes).toEqual(['event5', 'event6', 'event10']);
    expect(view.problem).toBe(
      "a keyboard beyond the station: /dev/input/event5 to libinput and logind (power-switch); /dev/input/event6 (no udev record); /dev/input/event10 to logind (power-switch) (the profile's input rules are not in force: pickup-station usb-policy writes them; then udevadm trigger --subsystem-match=input)",
    );
    expect(view.text).toBe(view.problem);
  });

  it('an older udev database without current tags: G: is all there is', () => {
    const t = tree([{ input: 'input7', event: 'event5', minor: 69, db: 'E:ID_INPUT_KEYBOARD=1\nE:LIBINPUT_IGNORE_DEVICE=1\nG:power-switch\n' }]);
    expect(inputNodesOf('/dev/hidraw2', t)[0]!.powerSwitch).toBe(true);
  });

  it('no event node (a HID device the kernel made no input device of), and a hidraw node not there', () => {
    expect(describeInputNodes(inputNodesOf('/dev/hidraw2', tree([])))).toEqual({
      nodes: [],
      problem: null,
      text: 'no input event node: its keys reach only the station (through hidraw)',
    });
    expect(inputNodesOf('/dev/hidraw9', tree([]))).toEqual([]);
  });
});

describe('the HID drivers say it', () => {
  const info: HidDeviceInfo = { path: '/dev/hidraw2', vendorId: 0x04d9, productId: 0x1203, interface: 0, usagePage: 1, usage: 6 };
  const kept: InputNode = { name: 'event5', known: true, libinputIgnored: true, powerSwitch: false };
  let nodes: InputNode[] = [];
  const backend: HidBackend = {
    devices: () => Promise.resolve([info]),
    open: (): HidHandle => ({ onData: () => undefined, onError: () => undefined, close: () => undefined }),
    inputNodes: () => nodes,
  };
  const lines: { level: number; msg: string; input?: string }[] = [];
  const log = pino({ level: 'trace' }, { write: (s: string) => lines.push(JSON.parse(s) as (typeof lines)[number]) });
  const keypad = () =>
    new HidKeypad({
      match: { vendorId: 0x04d9, productId: 0x1203 },
      reportId: null,
      presenceCheckMs: 1000,
      reconnect: { initialMs: 200, maxMs: 2000, factor: 2 },
      openTimeoutMs: 1000,
      clearKeys: [],
      log,
      backend,
    });
  beforeEach(() => {
    vi.useFakeTimers();
    lines.length = 0;
  });
  afterEach(() => vi.useRealTimers());

  it('at the open (in its "open" line, the status), and a node that turns into a keyboard beyond it as a warning at the next re-check', async () => {
    nodes = [kept];
    const k = keypad();
    expect(k.inputNodes()).toBeNull();
    await k.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(k.health().ok).toBe(true);
    expect(k.inputNodes()).toEqual({ nodes: ['event5'], problem: null, text: 'event5 kept from logind and libinput' });
    expect(lines.find((l) => l.msg === 'HID device open')?.input).toBe('event5 kept from logind and libinput');
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);

    // The rules file removed and udev triggered: the node tagged again.
    nodes = [{ ...kept, libinputIgnored: false, powerSwitch: true }];
    await vi.advanceTimersByTimeAsync(1000);
    expect(k.inputNodes()?.problem).toContain('/dev/input/event5 to libinput and logind (power-switch)');
    expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([`HID device input nodes changed: ${k.inputNodes()?.problem}`]);
    expect(k.health().ok).toBe(true);
    // Unchanged at the next re-check: said once.
    await vi.advanceTimersByTimeAsync(1000);
    expect(lines.filter((l) => l.level === 40)).toHaveLength(1);
    await k.close();
  });

  it('a device with no event node: said plainly at the open, no warning, the keypad works', async () => {
    nodes = [];
    const k = keypad();
    await k.start();
    await vi.advanceTimersByTimeAsync(10);
    expect(k.health().ok).toBe(true);
    expect(k.inputNodes()?.text).toBe('no input event node: its keys reach only the station (through hidraw)');
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    await k.close();
  });
});
