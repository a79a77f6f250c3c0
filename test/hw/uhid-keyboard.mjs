#!/usr/bin/env node
// A fake USB boot keyboard (a keyboard-wedge scanner or a PIN keypad) made through /dev/uhid.
//
// Runs as its own process: in the same process as node-hid, closing a hidraw handle can block in
// the kernel while a report request waits for the fake device's answer (shared/notes/driver-rig.md).
//
// Commands, one JSON object per line on stdin; each is answered with "ok <cmd>" (or
// "error <cmd> <message>") on stdout once done:
//   {"cmd":"create","vendor":4660,"product":22136,"name":"Fake Scanner","uniq":"SN1"}
//   {"cmd":"input","reports":[[0,0,30,0,0,0,0,0],[0,0,0,0,0,0,0,0]],"gapMs":2}
//   {"cmd":"destroy"}
//   {"cmd":"exit"}
// Usage: node uhid-keyboard.mjs [device]   (default /dev/uhid; a plain file records the events)
//
// struct uhid_event { __u32 type; union { … } } __attribute__((packed)), 4380 bytes in all:
//   UHID_CREATE2 (11): name[128] phys[64] uniq[64] rd_size u16 bus u16 vendor u32 product u32
//                      version u32 country u32 rd_data[4096]      (offsets from 4: 0,128,192,256,…)
//   UHID_INPUT2 (12):  size u16, data[4096]
//   UHID_DESTROY (1):  no payload
//   UHID_GET_REPORT (9) → UHID_GET_REPORT_REPLY (10): id u32, err u16, size u16, data[4096]
//   UHID_SET_REPORT (13) → UHID_SET_REPORT_REPLY (14): id u32, err u16
import { Buffer } from 'node:buffer';
import { closeSync, constants, openSync, readSync, writeSync } from 'node:fs';
import process from 'node:process';
import { createInterface } from 'node:readline';
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * @typedef {{ vendor: number, product: number, name?: string, phys?: string, uniq?: string, version?: number, country?: number }} CreateArgs
 * @typedef {{ cmd: 'create' } & CreateArgs | { cmd: 'input', reports: number[][], gapMs?: number } | { cmd: 'destroy' } | { cmd: 'exit' }} Command
 */

export const EVENT_SIZE = 4380;
const UHID = {
  DESTROY: 1,
  START: 2,
  STOP: 3,
  OPEN: 4,
  CLOSE: 5,
  OUTPUT: 6,
  GET_REPORT: 9,
  GET_REPORT_REPLY: 10,
  CREATE2: 11,
  INPUT2: 12,
  SET_REPORT: 13,
  SET_REPORT_REPLY: 14,
};
const BUS_USB = 0x03;
const EIO = 5;

// The boot keyboard report descriptor of the HID spec (Device Class Definition, appendix B.1):
// 8 modifier bits, a reserved byte, 6 key usages 0..0x65; 5 LED bits out.
const BOOT_KEYBOARD = [
  0x05, 0x01, 0x09, 0x06, 0xa1, 0x01, 0x05, 0x07, 0x19, 0xe0, 0x29, 0xe7, 0x15, 0x00, 0x25, 0x01, 0x75, 0x01, 0x95, 0x08, 0x81, 0x02, 0x95, 0x01, 0x75, 0x08,
  0x81, 0x01, 0x95, 0x05, 0x75, 0x01, 0x05, 0x08, 0x19, 0x01, 0x29, 0x05, 0x91, 0x02, 0x95, 0x01, 0x75, 0x03, 0x91, 0x01, 0x95, 0x06, 0x75, 0x08, 0x15, 0x00,
  0x25, 0x65, 0x05, 0x07, 0x19, 0x00, 0x29, 0x65, 0x81, 0x00, 0xc0,
];

/** @param {number} type */
function event(type) {
  const b = Buffer.alloc(EVENT_SIZE);
  b.writeUInt32LE(type, 0);
  return b;
}

/**
 * A keyboard's System Control collection (HID Usage Tables, Generic Desktop 0x80): Power Down 0x81,
 * Sleep 0x82 and Warm Restart 0x8f as the first three bits of a one-byte report (the rest padding).
 * The kernel maps them to KEY_POWER, KEY_SLEEP and KEY_RESTART: logind's power, suspend and reboot keys.
 */
export const SYSTEM_CONTROL = [
  0x05, 0x01, 0x09, 0x80, 0xa1, 0x01, 0x09, 0x81, 0x09, 0x82, 0x09, 0x8f, 0x15, 0x00, 0x25, 0x01, 0x75, 0x01, 0x95, 0x03, 0x81, 0x02, 0x95, 0x05, 0x81, 0x01,
  0xc0,
];
/** The bit of each key in a SYSTEM_CONTROL report. */
export const SYSTEM_KEYS = { power: 0x01, sleep: 0x02, restart: 0x04 };

/** @param {CreateArgs & { descriptor?: number[] }} args  descriptor: the report descriptor (default: a boot keyboard) */
export function create2Event({
  vendor,
  product,
  name = 'Fake HID keyboard',
  phys = 'uhid/fake',
  uniq = '',
  version = 1,
  country = 0,
  descriptor = BOOT_KEYBOARD,
}) {
  const b = event(UHID.CREATE2);
  const p = 4;
  b.write(name.slice(0, 127), p, 'utf8');
  b.write(phys.slice(0, 63), p + 128, 'utf8');
  b.write(uniq.slice(0, 63), p + 192, 'utf8');
  b.writeUInt16LE(descriptor.length, p + 256);
  b.writeUInt16LE(BUS_USB, p + 258);
  b.writeUInt32LE(vendor, p + 260);
  b.writeUInt32LE(product, p + 264);
  b.writeUInt32LE(version, p + 268);
  b.writeUInt32LE(country, p + 272);
  Buffer.from(descriptor).copy(b, p + 276);
  return b;
}

/** @param {number[]} report */
export function input2Event(report) {
  const b = event(UHID.INPUT2);
  b.writeUInt16LE(report.length, 4);
  Buffer.from(report).copy(b, 6);
  return b;
}

async function main() {
  const path = process.argv[2] ?? '/dev/uhid';
  // Non-blocking, polled from the main thread: a blocking read() sits in a libuv pool thread that
  // process.exit() then waits for (joins) until the kernel sends another event, which after the
  // driver has closed its handle may be never: the child hung on exit and the test's afterEach
  // timed out.
  const fd = openSync(path, constants.O_RDWR | constants.O_NONBLOCK);
  let alive = true;
  let created = false;

  // Answer the kernel's requests so that no hidraw ioctl waits 5 s for a reply.
  const buf = Buffer.alloc(EVENT_SIZE);
  /** @type {NodeJS.Timeout | undefined} */
  let poller;
  const poll = () => {
    for (;;) {
      if (!alive) return;
      let n;
      try {
        n = readSync(fd, buf, 0, EVENT_SIZE, null);
      } catch (e) {
        const code = /** @type {NodeJS.ErrnoException} */ (e).code;
        if (code === 'EAGAIN' || code === 'EWOULDBLOCK' || code === 'EINTR') break;
        throw e;
      }
      if (n === 0) return; // a plain file (encoding check): nothing to answer
      const type = buf.readUInt32LE(0);
      // UHID_OPEN/UHID_CLOSE say nothing about the driver: in the rig no UHID_CLOSE came within 5 s
      // of the driver closing its hidraw handle (something else, presumably the console's keyboard
      // handler on the input node, keeps the device open). The test checks /proc/self/fd instead.
      if (type === UHID.GET_REPORT) {
        const r = event(UHID.GET_REPORT_REPLY);
        r.writeUInt32LE(buf.readUInt32LE(4), 4);
        r.writeUInt16LE(EIO, 8);
        writeSync(fd, r);
      } else if (type === UHID.SET_REPORT) {
        const r = event(UHID.SET_REPORT_REPLY);
        r.writeUInt32LE(buf.readUInt32LE(4), 4);
        writeSync(fd, r);
      }
    }
    poller = setTimeout(poll, 2);
  };
  poll();

  const shutdown = () => {
    alive = false;
    clearTimeout(poller);
    if (created) writeSync(fd, event(UHID.DESTROY));
    closeSync(fd);
  };

  const rl = createInterface({ input: process.stdin });
  for await (const line of rl) {
    if (!line.trim()) continue;
    let cmd = '?';
    try {
      const m = /** @type {Command} */ (JSON.parse(line));
      cmd = m.cmd;
      switch (m.cmd) {
        case 'create':
          writeSync(fd, create2Event(m));
          created = true;
          break;
        case 'input':
          for (const rep of m.reports) {
            writeSync(fd, input2Event(rep));
            // Pace reports: hidraw keeps 64 per reader, and the reader is slow under emulation.
            await sleep(m.gapMs ?? 2);
          }
          break;
        case 'destroy':
          writeSync(fd, event(UHID.DESTROY));
          created = false;
          break;
        case 'exit':
          shutdown();
          process.stdout.write('ok exit\n', () => process.exit(0));
          return;
        default:
          throw new Error(`unknown command ${String(/** @type {{ cmd: unknown }} */ (m).cmd)}`);
      }
      process.stdout.write(`ok ${cmd}\n`);
    } catch (e) {
      process.stdout.write(`error ${cmd} ${e instanceof Error ? e.message : String(e)}\n`);
    }
  }
  shutdown();
  process.exit(0);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e) => {
    process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  });
}
