/** The demo's terminal: commands that act on the simulated station, and how the station is drawn. */
import type { SimulatedStation } from '../devices/sim/station.js';
import type { KeypadKey } from '../devices/types.js';
import type { BoxStatus } from '../protocol/types.js';
import type { StationRuntime } from '../station/runtime.js';

export const HELP = `commands:
  scan <code>     a librarian scans a barcode
  rfid <uid>      an RFID tag is read
  pin <digits>    a reader types a PIN and presses Enter
  key <k>         one keypad key: 0-9, bs (backspace), clear, enter
  cancel          the cancel button
  speech          the speech button (speech on; again: the screen again)
  hold <k>        hold a keypad key down (held: speech on)
  louder|softer   the volume buttons
  more            the more-time button
  headphones in|out  plug headphones in or out
  close <box>     close a box door (<box> = number or id)
  open <box>      force a door open (no command: a forced-open alarm)
  tamper open|close  the cabinet's tamper switch
  status          mode, boxes, last events
  help            this text
  quit            stop`;

type Box = { readonly id: string; readonly number: number };

export function renderBoxes(states: Readonly<Record<string, BoxStatus>>, boxes: readonly Box[]): string {
  return `boxes: ${boxes.map((b) => `${b.number}:${states[b.id] === 'OPEN' ? 'OPEN' : '·'}`).join(' ')}`;
}

function findBox(arg: string | undefined, boxes: readonly Box[]): Box | undefined {
  if (arg === undefined) return undefined;
  return boxes.find((b) => b.id === arg || String(b.number) === arg);
}

function parseKey(arg: string | undefined): KeypadKey | undefined {
  if (arg === undefined) return undefined;
  if (/^[0-9]$/.test(arg)) return { kind: 'digit', digit: arg };
  if (arg === 'bs' || arg === 'backspace') return { kind: 'backspace' };
  if (arg === 'clear') return { kind: 'clear' };
  if (arg === 'enter') return { kind: 'enter' };
  return undefined;
}

/** Carry out one typed command; returns what to print (empty for nothing, 'bye' to quit). */
export function handleCommand(line: string, sim: SimulatedStation, boxes: readonly Box[], runtime: StationRuntime): string {
  const [cmd, arg] = line.trim().split(/\s+/);
  switch (cmd) {
    case undefined:
    case '':
      return '';
    case 'scan':
      if (!arg) return 'usage: scan <code>';
      sim.scanBarcode(arg);
      return '';
    case 'rfid':
      if (!arg) return 'usage: rfid <uid>';
      sim.scanRfid(arg);
      return '';
    case 'pin':
      if (!arg || !/^[0-9]+$/.test(arg)) return 'usage: pin <digits>';
      sim.typePin(arg);
      return '';
    case 'key': {
      const key = parseKey(arg);
      if (!key) return 'usage: key 0-9|bs|clear|enter';
      sim.pressKey(key);
      return '';
    }
    case 'cancel':
      sim.pressCancel();
      return '';
    case 'speech':
      sim.pressAssist('speech');
      return '';
    case 'louder':
    case 'softer':
      sim.pressAssist(cmd === 'louder' ? 'volume-up' : 'volume-down');
      return '';
    case 'more':
      sim.pressAssist('more-time');
      return '';
    case 'hold': {
      const key = parseKey(arg);
      if (!key) return 'usage: hold 0-9|bs|clear|enter';
      sim.holdKey(key);
      return '';
    }
    case 'headphones':
      if (arg !== 'in' && arg !== 'out') return 'usage: headphones in|out';
      sim.plugHeadphones(arg === 'in');
      return '';
    case 'close':
    case 'open': {
      const box = findBox(arg, boxes);
      if (!box) return `usage: ${cmd} <box number or id>`;
      if (cmd === 'close') sim.closeDoor(box.number);
      else sim.forceOpen(box.number);
      return '';
    }
    case 'tamper':
      if (arg !== 'open' && arg !== 'close') return 'usage: tamper open|close';
      if (arg === 'open') sim.openTamper();
      else sim.closeTamper();
      return '';
    case 'status': {
      const s = runtime.snapshot();
      const events = runtime
        .events()
        .slice(-5)
        .map((e) => `  /${e.endpoint} ${e.eventId} attempts=${e.attempts} -> ${e.outcome}`);
      const alarms = s.alarms.length > 0 ? s.alarms.map((a) => a.detail).join('; ') : 'none';
      return [
        `mode: ${s.mode.kind}${s.inFlight ? ` (/${s.inFlight} in flight)` : ''}`,
        renderBoxes(s.boxes, boxes),
        `alarms: ${alarms}`,
        'last events:',
        ...events,
      ].join('\n');
    }
    case 'help':
      return HELP;
    case 'quit':
    case 'exit':
      return 'bye';
    default:
      return `unknown command "${cmd}" (type help)`;
  }
}
