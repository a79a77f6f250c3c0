// Only the board profile's USB devices, on the running board: a QEMU usb-kbd and a usb-storage
// plugged into the xHCI controller through QMP stay unauthorised (no driver, no input node, no
// block device) and are reported (journal line, technician status, metric); a profile naming
// usb-kbd's ids (0627:0001), with its udev line, takes it as its HID scanner and a barcode typed on it deposits;
// unplugged and plugged in again it works without a restart.
import { Buffer } from 'node:buffer';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const title = "only the profile's USB devices (usb-kbd, usb-storage through QMP)";

const KBD = { vendor: '0627', product: '0001' };
const UDEV_RULE = '/etc/udev/rules.d/99-board-usb-kbd.rules';

async function until(board, what, test, limitMs = 120_000) {
  const t = performance.now();
  for (;;) {
    const v = await test();
    if (v) return v;
    if (performance.now() - t > limitMs) throw new board.Fail(`timed out waiting for ${what}`);
    await board.sleep(500);
  }
}

/** The port of a USB device with these ids in the guest's sysfs, and its `authorized`. */
async function sysfsDevice(board, ids) {
  const out = await board.g(
    `for d in /sys/bus/usb/devices/*-*; do case $d in *:*) continue;; esac; [ "$(cat $d/idVendor 2>/dev/null)" = ${ids.vendor} ] && [ "$(cat $d/idProduct)" = ${ids.product} ] && echo "$(basename $d) $(cat $d/authorized)"; done; true`,
  );
  const [port, authorized] = out.trim().split(/\s+/);
  return port ? { port, authorized } : null;
}

export default async function usb(board) {
  const { g, qmp, check, status, figure } = board;
  check((await g('systemctl is-active usbguard')).trim() === 'active', 'usbguard.service runs with the station settings');
  check(
    (await g('cat /etc/usbguard/pickup-station.d/50-profile.conf')).includes('allow with-interface match-all { 09:00:* }'),
    "the profile's rules are in place",
  );

  const stick = join(board.RUN, 'usb-stick.raw');
  writeFileSync(stick, Buffer.alloc(8 << 20));
  await qmp('blockdev-add', { 'node-name': 'stick0', driver: 'raw', file: { driver: 'file', filename: stick } });
  const inputsBefore = (await g('ls /dev/input/ 2>/dev/null; true')).trim();
  await qmp('device_add', { driver: 'usb-kbd', id: 'kbd0', bus: 'xhci.0' });
  await qmp('device_add', { driver: 'usb-storage', id: 'stick0', drive: 'stick0', bus: 'xhci.0' });

  const s = await until(board, 'both devices on the technician status', async () => {
    const st = await status();
    return st.usb?.unknown?.length === 2 ? st : null;
  });
  check(
    s.usb.unknown.some((d) => d.vendorId === KBD.vendor && d.productId === KBD.product),
    'technician status: the keyboard is listed as unknown',
  );
  const kbd = await sysfsDevice(board, KBD);
  check(kbd?.authorized === '0', `the keyboard stays unauthorised (authorized=${kbd?.authorized})`);
  check((await g(`ls /sys/bus/usb/devices/${kbd.port}/ | grep -c ':' || true`)).trim() === '0', 'no interface, so no driver bound to the keyboard');
  check((await g('ls /dev/input/ 2>/dev/null; true')).trim() === inputsBefore, 'no new input node');
  check((await g('ls /dev/sd* 2>/dev/null; true')).trim() === '', 'no block device for the stick');
  const journal = await g('journalctl --namespace=+pickup-station -u pickup-station -b --no-pager -o cat | grep "unknown USB device kept out" || true');
  check(journal.includes(`${KBD.vendor}:${KBD.product} on port`), 'journal: the warning line names the keyboard');
  const metrics = await board.metrics();
  check(/pickup_station_usb_unknown_devices\{[^}]*\} 2/.test(metrics), 'metric: two unknown devices present');
  figure('unknown USB devices reported', s.usb.unknown.map((d) => `${d.vendorId}:${d.productId}@${d.port}`).join(', '));

  // A profile naming usb-kbd as its HID scanner: the path unit writes the rules again, USBGuard authorises it.
  const profile = JSON.parse(await g(`cat ${board.PROFILE}`));
  profile.scanners = [{ kind: 'hid', identifierType: 'BAR_CODE', vendorId: `0x${KBD.vendor}`, productId: `0x${KBD.product}` }, ...profile.scanners];
  // Its hidraw node for the station's group, as hardware/RFID.md has a technician add a device's
  // udev line (the shipped rules name the board's reader and keypad only).
  await board.writeGuest(UDEV_RULE, `SUBSYSTEM=="hidraw", KERNELS=="0003:0627:0001.*", GROUP="pickup-hid", MODE="0660"\n`, '0644');
  await g('udevadm control --reload');
  await g('install -d -m 0755 /etc/pickup-station/hardware');
  await board.writeGuest('/etc/pickup-station/hardware/usb-kbd.json', JSON.stringify(profile, null, 2));
  await board.putConfig({ hardware: { kind: 'board', profile: '/etc/pickup-station/hardware/usb-kbd.json' } });
  await until(board, 'the keyboard authorised by the new profile', async () => (await sysfsDevice(board, KBD))?.authorized === '1');
  await board.restartStation('with the profile naming usb-kbd');
  check((await status()).usb.unknown.length === 1, 'only the stick is unknown now');

  // A barcode typed on the keyboard is a scan: /item-identify. Every key down and up in one QMP
  // input-send-event (to the machine's keyboard: kbd0 is its only one, and a device not bound to
  // a display cannot be named), as a scanner sends a code within milliseconds: a QMP round
  // trip per key is slower than any scanner under TCG, and a gap over the wedge's frameTimeoutMs
  // drops the frame. usb-kbd queues 16 key events; a 5-digit code and Enter are 12.
  const typeBarcode = async (text) => {
    const key = (data, down) => ({ type: 'key', data: { down, key: { type: 'qcode', data } } });
    const events = [...text, 'ret'].flatMap((k) => [key(k, true), key(k, false)]);
    await qmp('input-send-event', { events });
  };
  let seq = await board.lastSeq();
  await typeBarcode('12345');
  const id = await board.waitReq((r) => r.endpoint === 'item-identify', '/item-identify from the keyboard scanner', seq);
  check(JSON.stringify(id.body).includes('12345'), 'a barcode typed on the allowed keyboard reached /item-identify');

  // Unplugged and plugged in again: authorised again, scans again, no restart.
  const pid = (await board.show('MainPID')).trim();
  await qmp('device_del', { id: 'kbd0' });
  await until(board, 'the keyboard gone', async () => (await sysfsDevice(board, KBD)) === null);
  await qmp('device_add', { driver: 'usb-kbd', id: 'kbd0', bus: 'xhci.0' });
  await until(board, 'the keyboard back, authorised', async () => (await sysfsDevice(board, KBD))?.authorized === '1');
  seq = await board.lastSeq();
  await typeBarcode('67890');
  const again = await board.waitReq((r) => r.endpoint === 'item-identify', '/item-identify after the replug', seq);
  check(JSON.stringify(again.body).includes('67890'), 'after unplug and replug the keyboard scans again');
  check((await board.show('MainPID')).trim() === pid, 'without a restart of the station');
  await qmp('device_del', { id: 'stick0' });
  await g(`rm -f ${UDEV_RULE}; udevadm control --reload`);
  await board.putConfig();
  await board.restartStation('with the shipped profile again');
}
