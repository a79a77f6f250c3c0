// The virtual board's world, on the guest: the USB HID devices (an RFID reader ffff:0035 and a PIN
// keypad 04d9:1203, the ids hardware/99-pickup-station.rules names; boot keyboards made through
// /dev/uhid by uhid-keyboard.mjs, the driver rig's) and the person at the boxes (door switches on
// the gpio-sim chip "virt-board", driven through sim_gpioN/pull).
// It records every lock and buzzer output change with CLOCK_MONOTONIC ms to /run/board-io/events.log
// (sampled every 20 ms; it starts before the station, so a pulse at a start is seen).
// Commands, one per line into the FIFO /run/board-io/in:
//   rfid VALUE | keypad DIGITS        type it (+ Enter)
//   syskeys plug | syskeys unplug     a keyboard's system keys as a device of their own (below)
//   syskey power|sleep|restart [MS]   one of them pressed (150 ms, or held MS ms: a long press)
//   door N open | door N close        a person opens or shuts door N
//   spring N                          door N opens 50 ms after lock N is next energized
//   speech                            the speech button pressed (200 ms)
// Runs with the release's node (the board has no other).
import { appendFileSync, closeSync, constants, mkdirSync, openSync, readFileSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { Buffer } from 'node:buffer';
import { setInterval, setTimeout } from 'node:timers';
import { createInterface } from 'node:readline';
import { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { EVENT_SIZE, SYSTEM_CONTROL, SYSTEM_KEYS, create2Event, input2Event } from './uhid-keyboard.mjs';

const LOCKS = 12,
  DOOR0 = 12,
  BUZZER = 26,
  SPEECH = 27;
const LOG = '/run/board-io/events.log';
mkdirSync('/run/board-io', { recursive: true });
const now = () => (Number(process.hrtime.bigint() / 1000n) / 1000).toFixed(1);
const log = (line) => appendFileSync(LOG, `${now()} ${line}\n`);

// --- GPIO ----------------------------------------------------------------------------------------
const C = '/sys/kernel/config/gpio-sim/virt-board';
const dev = readFileSync(`${C}/dev_name`, 'utf8').trim();
const chip = readFileSync(`${C}/bank0/chip_name`, 'utf8').trim();
const attr = (o, a) => `/sys/devices/platform/${dev}/${chip}/sim_gpio${o}/${a}`;
const value = (o) => readFileSync(attr(o, 'value'), 'utf8').trim() === '1';
const door = (n, open) => {
  writeFileSync(attr(DOOR0 + n - 1, 'pull'), open ? 'pull-up' : 'pull-down');
  log(`door ${n} ${open ? 'open' : 'close'}`);
};
const outputs = [...Array.from({ length: LOCKS }, (_, i) => ({ name: `lock ${i + 1}`, o: i, box: i + 1 })), { name: 'buzzer', o: BUZZER }];
const level = new Map(outputs.map((x) => [x.o, value(x.o)]));
const springs = new Set();
for (const x of outputs) if (level.get(x.o)) log(`${x.name} on (at start)`);
setInterval(() => {
  for (const x of outputs) {
    const v = value(x.o);
    if (v === level.get(x.o)) continue;
    level.set(x.o, v);
    log(`${x.name} ${v ? 'on' : 'off'}`);
    if (v && x.box !== undefined && springs.delete(x.box)) setTimeout(() => door(x.box, true), 50);
  }
}, 20);

// --- HID -----------------------------------------------------------------------------------------
const DEVICES = {
  rfid: { vendor: 0xffff, product: 0x0035, name: 'Virtual RFID reader', uniq: 'RFID1' },
  keypad: { vendor: 0x04d9, product: 0x1203, name: 'Virtual PIN keypad', uniq: 'KP1' },
};
const fds = {};
for (const [name, d] of Object.entries(DEVICES)) {
  fds[name] = openSync('/dev/uhid', constants.O_RDWR | constants.O_NONBLOCK);
  writeSync(fds[name], create2Event(d));
}
process.on('exit', () => {
  for (const fd of Object.values(fds)) closeSync(fd);
});
// Answer the kernel's report requests (GET_REPORT 9 -> 10 with EIO, SET_REPORT 13 -> 14).
const buf = Buffer.alloc(EVENT_SIZE);
setInterval(() => {
  for (const fd of Object.values(fds)) {
    for (;;) {
      let n;
      try {
        n = readSync(fd, buf, 0, EVENT_SIZE, null);
      } catch {
        break;
      }
      if (n <= 0) break;
      const type = buf.readUInt32LE(0);
      if (type !== 9 && type !== 13) continue;
      const r = Buffer.alloc(EVENT_SIZE);
      r.writeUInt32LE(type + 1, 0);
      r.writeUInt32LE(buf.readUInt32LE(4), 4);
      if (type === 9) r.writeUInt16LE(5, 8);
      writeSync(fd, r);
    }
  }
}, 50);
// A keyboard's system keys: power, sleep and reboot (a System Control collection, made on demand),
// not one of the profile's devices (ids of its own): what a keyboard a person plugs in has and QEMU's
// usb-kbd has not (its boot report's usages end before Sleep). The kernel makes it an input device
// with KEY_POWER, KEY_SLEEP and KEY_RESTART, udev tags it power-switch, and logind watches it.
const SYSKEYS = { vendor: 0x0627, product: 0x0002, name: 'Virtual system keys', uniq: 'SK1', descriptor: SYSTEM_CONTROL };
function syskeys(plug) {
  if (plug && fds.syskeys === undefined) {
    fds.syskeys = openSync('/dev/uhid', constants.O_RDWR | constants.O_NONBLOCK);
    writeSync(fds.syskeys, create2Event(SYSKEYS));
  } else if (!plug && fds.syskeys !== undefined) {
    closeSync(fds.syskeys); // the kernel destroys the device with its last descriptor
    delete fds.syskeys;
  }
  log(`syskeys ${plug ? 'plugged' : 'unplugged'}`);
}
async function syskey(key, ms) {
  writeSync(fds.syskeys, input2Event([SYSTEM_KEYS[key]]));
  await sleep(ms);
  writeSync(fds.syskeys, input2Event([0]));
  log(`syskey ${key} pressed ${ms} ms`);
}

// US layout, main block: a-z 0x04.., 1-9 0x1e.., 0 0x27; Enter 0x28.
const usage = (ch) => (ch >= 'a' && ch <= 'z' ? 0x04 + ch.charCodeAt(0) - 97 : ch === '0' ? 0x27 : 0x1e + ch.charCodeAt(0) - 49);
// All reports in one burst, as a scanner sends them within milliseconds: paced by timers, a TCG
// hiccup of over 500 ms between two keys made the station drop the frame as incomplete
// (frameTimeoutMs). hidraw queues 64 reports per reader; a 16-character tag + Enter is 34.
async function type(name, text) {
  const UP = [0, 0, 0, 0, 0, 0, 0, 0];
  for (const u of [...[...text].map(usage), 0x28]) {
    writeSync(fds[name], input2Event([0, 0, u, 0, 0, 0, 0, 0]));
    writeSync(fds[name], input2Event(UP));
  }
  await sleep(0);
  log(`typed ${text.length} keys + Enter on ${name}`); // never the keys: a PIN is a secret
}

// --- commands ----------------------------------------------------------------------------------
// The FIFO is held open for reading and writing and read as a pipe (epoll): it never reaches EOF,
// so nothing reopens it between two writers. Reopened at each writer's EOF through a blocking open
// and read in libuv's thread pool, the first line written after a long idle was lost on a loaded
// board (no "typed" line, the writer's echo returned): the run waited 180 s for a scan never typed.
const FIFO = '/run/board-io/in';
rmSync(FIFO, { force: true });
execFileSync('mkfifo', ['-m', '0600', FIFO]);
const fifo = new Socket({ fd: openSync(FIFO, constants.O_RDWR | constants.O_NONBLOCK), readable: true, writable: false });
log('ready');
console.log(`board-io: ready (/dev/${chip}); FIFO ${FIFO}, log ${LOG}`);
for await (const line of createInterface({ input: fifo })) {
  const w = line.trim().split(/\s+/);
  try {
    if ((w[0] === 'rfid' || w[0] === 'keypad') && /^[0-9a-z]+$/.test(w[1] ?? '')) await type(w[0], w[1]);
    else if (w[0] === 'door' && Number(w[1]) >= 1 && Number(w[1]) <= LOCKS && (w[2] === 'open' || w[2] === 'close')) door(Number(w[1]), w[2] === 'open');
    else if (w[0] === 'spring' && Number(w[1]) >= 1 && Number(w[1]) <= LOCKS) springs.add(Number(w[1]));
    else if (w[0] === 'syskeys' && (w[1] === 'plug' || w[1] === 'unplug')) syskeys(w[1] === 'plug');
    else if (w[0] === 'syskey' && fds.syskeys !== undefined && Object.hasOwn(SYSTEM_KEYS, w[1] ?? '') && /^\d{0,5}$/.test(w[2] ?? ''))
      await syskey(w[1], Number(w[2] || 150));
    else if (w[0] === 'speech') {
      // Active low, released pulled up: pressed is pulled down.
      writeFileSync(attr(SPEECH, 'pull'), 'pull-down');
      await sleep(200);
      writeFileSync(attr(SPEECH, 'pull'), 'pull-up');
      log('speech button pressed');
    } else log(`ignored: ${w[0] ?? ''}`);
  } catch (e) {
    log(`error: ${e.message}`);
  }
}
