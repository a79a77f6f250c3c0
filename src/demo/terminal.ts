/** The demo's terminal: commands that act on the simulated station, and how the station is drawn. */
import type { SimulatedHardware } from '../devices/simulated/hardware.js';
import { blankTag, iso28560_2Tag, iso28560_3Set, iso28560_3Tag } from '../devices/simulated/tag-images.js';
import { DEMO_AFI, DEMO_RFID_ITEMS } from './config.js';
import type { KeypadKey } from '../devices/types.js';
import type { BoxStatus } from '../protocol/types.js';
import type { StationRuntime } from '../station/runtime.js';

export const HELP = `commands:
  scan <code>     a librarian scans a barcode
  rfid <item>     lay a library tag (ISO 28560-3, the Danish model) with this item number on the RFID reader
  rfid iso <item> lay an ISO 28560-2 tag
  rfid set <item> <n>  lay the n parts of an item in a set (all at once)
  rfid part <item> <k> <n>  lay part k of n
  rfid blank      lay a blank (unwritten) tag
  rfid off        take every tag off the reader
  rfid uid <uid>  a keyboard-wedge RFID reader types a tag's UID
  (RFID items of the demo: ${DEMO_RFID_ITEMS.danish}, iso ${DEMO_RFID_ITEMS.iso}, set ${DEMO_RFID_ITEMS.set} 3)
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
export function handleCommand(line: string, sim: SimulatedHardware, boxes: readonly Box[], runtime: StationRuntime): string {
  const [cmd, arg, ...more] = line.trim().split(/\s+/);
  const rest = [arg, ...more].filter((w): w is string => w !== undefined);
  switch (cmd) {
    case undefined:
    case '':
      return '';
    case 'scan':
      if (!arg) return 'usage: scan <code>';
      sim.scanBarcode(arg);
      return '';
    case 'rfid':
      return rfidCommand(rest, sim);
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

const RFID_USAGE = 'usage: rfid <item> | rfid iso <item> | rfid set <item> <n> | rfid part <item> <k> <n> | rfid blank | rfid off | rfid uid <uid>';

/** The librarian at the RFID reader: tags laid on the model reader (or a UID typed by a wedge reader). */
function rfidCommand(words: readonly string[], sim: SimulatedHardware): string {
  const [what, a, b, c] = words;
  const lay = (tags: readonly Parameters<SimulatedHardware['placeTag']>[0][]): string => {
    for (const t of tags) if (!sim.placeTag(t)) return 'this station has no host-mode RFID reader (hardware.rfidReader)';
    return `on the reader: ${tags.map((t) => t.uid).join(', ')}`;
  };
  const count = (v: string | undefined): number | null => (v !== undefined && /^[1-9][0-9]?$/.test(v) ? Number(v) : null);
  const afi = DEMO_AFI.secured;
  switch (what) {
    case undefined:
      return RFID_USAGE;
    case 'off':
      sim.clearReader();
      return 'the reader is empty';
    case 'blank':
      return lay([blankTag()]);
    case 'uid':
      if (!a) return RFID_USAGE;
      sim.scanRfid(a);
      return '';
    case 'iso':
      return a ? lay([iso28560_2Tag({ itemId: a, afi, owner: 'CZ-PrNK' })]) : RFID_USAGE;
    case 'set': {
      const n = count(b);
      return a && n !== null && n > 1 ? lay(iso28560_3Set({ itemId: a, of: n, afi })) : RFID_USAGE;
    }
    case 'part': {
      const k = count(b);
      const n = count(c);
      return a && k !== null && n !== null && k <= n ? lay([iso28560_3Tag({ itemId: a, part: k, of: n, afi })]) : RFID_USAGE;
    }
    default:
      return lay([iso28560_3Tag({ itemId: what, afi, country: 'CZ', library: 'ABA001' })]);
  }
}
