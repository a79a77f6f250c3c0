// Only the board profile's USB devices, on the running board: a QEMU usb-kbd and a usb-storage
// plugged into the xHCI controller through QMP stay unauthorised (no driver, no input node, no
// block device) and are reported (journal line, technician status, metric); a profile naming
// usb-kbd's ids (0627:0001) takes it as its HID scanner — USBGuard authorises it, and the udev rules
// written from the same profile give its hidraw node to the station — and a barcode typed on it deposits;
// unplugged and plugged in again it works without a restart.
import { Buffer } from 'node:buffer';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ci =
  'two station restarts and two devices hot-plugged: more than the CI budget leaves the board (docs/development.md#the-ci-budget); --full and --parts';
export const title = "only the profile's USB devices (usb-kbd, usb-storage through QMP)";

const KBD = { vendor: '0627', product: '0001' };
/** The barcodes typed on the keyboard, and the boxes the server answers them with. */
const CODES = [
  { code: '12345', box: 5 },
  { code: '67890', box: 6 },
];

export function serverData(station, boxId) {
  return { deposits: CODES.map((c) => ({ identifierValue: c.code, identifierType: 'BAR_CODE', stationId: station.id, boxId: boxId(c.box) })), pickups: [] };
}

/** A deposit whose scan is typed by `type`: the box answered, opened, its door closed, the item recorded. */
async function depositTyped(board, type, { code, box }) {
  const { io, waitReq, isState, boxSt, boxId, sim, check, STATION } = board;
  const seq = await board.lastSeq();
  await io(`spring ${box}`);
  await type(code);
  const id = await waitReq((r) => r.endpoint === 'item-identify' && r.status === 200, `/item-identify of ${code} from the keyboard scanner`, seq);
  check(JSON.stringify(id.response).includes(boxId(box)), `the barcode ${code} typed on the keyboard reached /item-identify, answered with box ${box}`);
  await waitReq((r) => isState(r) && boxSt(r, box) === 'OPEN', `/state box ${box} OPEN`, id.seq);
  await io(`door ${box} close`);
  await waitReq((r) => isState(r) && boxSt(r, box) === 'CLOSED' && r.seq > id.seq + 1, `/state box ${box} CLOSED`, id.seq);
  const snap = await sim(`/stations/${STATION.id}`);
  check(snap.boxes[box - 1].contents.includes(code), `deposit: the server records ${code} in box ${box}`);
}
const UDEV_RULES = '/etc/udev/rules.d/70-pickup-station-profile.rules';

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

  const s = await board.until('both devices on the technician status', async () => {
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
  await g('install -d -m 0755 /etc/pickup-station/hardware');
  await board.writeGuest('/etc/pickup-station/hardware/usb-kbd.json', JSON.stringify(profile, null, 2));
  await board.putConfig({ hardware: { kind: 'board', profile: '/etc/pickup-station/hardware/usb-kbd.json' } });
  await board.until('the keyboard authorised by the new profile', async () => (await sysfsDevice(board, KBD))?.authorized === '1');
  const rules = await g(`cat ${UDEV_RULES}`);
  check(rules.includes('KERNELS=="*:0627:0001.*", GROUP="pickup-hid"'), `the profile's udev rules name the keyboard's hidraw node (${UDEV_RULES})`);
  const node = await board.until("the keyboard's hidraw node, the station's group's", async () => {
    const out = (
      await g(`for h in /sys/class/hidraw/*; do grep -q 'HID_ID=.*0627.*0001' $h/device/uevent && stat -c '%n %G %a' /dev/$(basename $h); done; true`)
    ).trim();
    return /pickup-hid 660/.test(out) ? out : null;
  });
  check(/pickup-hid 660/.test(node), `the keyboard's hidraw node: ${node}`);
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
  await depositTyped(board, typeBarcode, CODES[0]);

  // Unplugged and plugged in again: authorised again, scans again, no restart.
  const pid = (await board.show('MainPID')).trim();
  await qmp('device_del', { id: 'kbd0' });
  await board.until('the keyboard gone', async () => (await sysfsDevice(board, KBD)) === null);
  await qmp('device_add', { driver: 'usb-kbd', id: 'kbd0', bus: 'xhci.0' });
  await board.until('the keyboard back, authorised', async () => (await sysfsDevice(board, KBD))?.authorized === '1');
  await depositTyped(board, typeBarcode, CODES[1]);
  check((await board.show('MainPID')).trim() === pid, 'without a restart of the station');
  await qmp('device_del', { id: 'stick0' });
  await board.putConfig();
  await board.restartStation('with the shipped profile again');
}
