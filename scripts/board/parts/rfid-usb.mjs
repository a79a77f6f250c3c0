// The library's RFID reader in the board's USB port, plugged after the station started. The model
// FEIG reader (src/devices/simulated/feig-reader-model.ts, from this checkout's `npm run build`) runs on
// the host behind QEMU's `usb-serial` device: an FTDI FT232 (0403:6001, serial FT4RFID1 as the
// shipped udev rule pins it), driven by the guest's own ftdi_sio/usbserial, /dev/ttyUSB0 and the
// rule's /dev/pickup-rfid-reader. Its chardev is a unix socket QEMU serves; the part is its only
// client. QEMU attaches the USB device only while the chardev is connected, so the host connects
// first and `device_add` is the plug.
//
// What it proves: the unit's DeviceAllow=char-ttyUSB is resolved when the unit starts, from
// /proc/devices, so the usbserial class must be registered by then (systemd/modules-load.conf,
// installed by install.sh); with it a reader plugged later is opened without a restart. Health is
// DOWN with its text while unplugged, UP after the plug; a tag's item number deposits into its box
// at the reference server; the AFI the station writes after box-open is on the model's tag; unplug
// and plug again come back UP with the same main process.
import { Buffer } from 'node:buffer';
import { existsSync, rmSync, statSync } from 'node:fs';
import { createConnection } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ci = 'three station restarts and a USB-serial adapter plugged three times: more than the CI budget leaves the board; --full and --parts';
export const title = 'the RFID reader on the USB port (FTDI usb-serial), plugged after start, unplugged and plugged again';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const ITEM = '31234000000019';
const BOX = 1;
const SECURED = 0x07;
const UNSECURED = 0xc2;
const PATH = '/dev/pickup-rfid-reader';
const LOCAL_PROFILE = '/etc/pickup-station/virt-board-rfid-usb.json';

export function serverData(station, boxId) {
  return { deposits: [{ identifierValue: ITEM, identifierType: 'RFID', stationId: station.id, boxId: boxId(BOX) }], pickups: [] };
}

/** The model reader and the tag encoders from this checkout's build (plain JS, no native parts). */
async function model() {
  const built = (f) => join(ROOT, 'dist/src/devices/simulated', `${f}.js`);
  for (const f of ['feig-reader-model', 'tag-images']) {
    const src = join(ROOT, 'src/devices/simulated', `${f}.ts`);
    if (!existsSync(built(f)) || statSync(built(f)).mtimeMs < statSync(src).mtimeMs)
      throw new Error(`${built(f)} is missing or older than its source: npm run build`);
  }
  const { FeigReaderModel } = await import(built('feig-reader-model'));
  const tags = await import(built('tag-images'));
  return { reader: new FeigReaderModel(), tags };
}

export default async function rfidUsb(board) {
  const { g, qmp, check, figure, say, sleep, status, waitReq, lastSeq, isState, boxSt, boxId, io, sim, STATION, PROFILE, QMP_SOCK } = board;
  const { reader, tags } = await model();
  const sock = join(dirname(QMP_SOCK), 'rfid.sock');
  rmSync(sock, { force: true });
  let line = null;
  let plugged = false;
  const readerView = async () => (await status()).devices.find((d) => d.name.includes(PATH)) ?? null;
  const until = async (what, ok, limitMs = 180_000) => {
    const t = performance.now();
    for (;;) {
      const v = await ok();
      if (v) return { v, s: (performance.now() - t) / 1000 };
      if (performance.now() - t > limitMs) throw new board.Fail(`${what}: not within ${limitMs / 1000} s`);
      await sleep(1_000);
    }
  };
  const mainPid = async () => (await g('systemctl show -p MainPID --value pickup-station')).trim();
  const plug = async () => {
    await qmp('device_add', { driver: 'usb-serial', id: 'rfidusb', bus: 'xhci.0', chardev: 'rfid0', serial: 'FT4RFID1' });
    plugged = true;
    // USBGuard authorises it by the profile's rule (its ids, serial and vendor-class interface):
    // no hand-made allow-device, as in the field.
    const verdict = await until(
      'usbguard sees 0403:6001',
      async () => (await g("usbguard list-devices | awk '/id 0403:6001/ {print $2; exit}'")).trim(),
      120_000,
    );
    check(verdict.v === 'allow', `USBGuard's verdict on the adapter from the profile's rule: ${verdict.v}`);
    return until(`${PATH} after the plug`, async () => (await g(`test -e ${PATH} && readlink -f ${PATH} || true`)).trim(), 120_000);
  };
  const unplug = async () => {
    await qmp('device_del', { id: 'rfidusb' });
    await until(`${PATH} gone`, async () => (await g(`test -e ${PATH} && echo here || echo gone`)).trim() === 'gone', 60_000);
    // device_del completes when the guest lets go; the id is free for the next plug once QEMU dropped it.
    await until(
      'QEMU dropped the adapter',
      async () => !(await qmp('qom-list', { path: '/machine/peripheral' })).some((p) => p.name === 'rfidusb') || null,
      60_000,
    );
    plugged = false;
  };

  try {
    // The class the unit's DeviceAllow=char-ttyUSB names is registered before the unit starts.
    const conf = (await g('cat /usr/local/lib/modules-load.d/pickup-station.conf 2>/dev/null || echo none')).trim();
    const major = (await g('awk \'$2=="ttyUSB" {print $1}\' /proc/devices')).trim();
    check(/^usbserial$/m.test(conf) && major !== '', `modules-load.d from the release lists usbserial; /proc/devices ttyUSB major ${major || 'none'}`);
    figure(
      'rfid-usb: class modules loaded at boot (lsmod: name size)',
      (await g('lsmod | awk \'$1=="usbserial" || $1=="cdc_acm" {print $1, $2}\'')).trim().replace(/\n/g, ', '),
    );

    // The board profile with the reader among its scanners, as a technician's local copy.
    const profile = JSON.parse(await g(`cat ${PROFILE}`));
    profile.name += ' (FEIG reader on USB-serial)';
    // answerTimeoutMs: TCG runs the guest's USB and the station 10-20x slower than a Pi.
    profile.scanners.push({ kind: 'rfid-reader', path: PATH, answerTimeoutMs: 2_000, inventoryIntervalMs: 200 });
    // Its USB-serial adapter named, as a profile with a USB reader does: the USB policy allows it.
    profile.usb = {
      devices: [{ name: "RFID reader's FT232R adapter", vendorId: '0x0403', productId: '0x6001', serialNumber: 'FT4RFID1', interfaces: ['ff:*:*'] }],
    };
    await board.writeGuest('/root/rfid-usb.json', JSON.stringify(profile, null, 2));
    await g(`install -m 0644 -o root -g root /root/rfid-usb.json ${LOCAL_PROFILE} && rm /root/rfid-usb.json`);
    await board.putConfig({
      hardware: { kind: 'board', profile: LOCAL_PROFILE },
      rfid: { security: { kind: 'afi', secured: SECURED, unsecured: UNSECURED } },
    });
    const seqStart = await lastSeq();
    await board.restartStation('with the RFID reader in the profile, nothing plugged');
    const rule = await until(
      "the profile's USB policy names the adapter",
      async () => (await g('grep -h "0403:6001" /etc/usbguard/pickup-station.d/50-profile.conf 2>/dev/null || true')).trim(),
      120_000,
    );
    say(`USBGuard rule from the profile: ${rule.v}`);
    const pid0 = await mainPid();

    // Unplugged: DOWN, with its text, at the technician's status and in /state.
    const down = await until('the reader DOWN while unplugged', async () => {
      const d = await readerView();
      return d && !d.ok ? d : null;
    });
    const st = await waitReq((r) => isState(r) && r.body.st === 'DOWN', '/state DOWN while unplugged', seqStart);
    check(
      down.v.detail !== null && String(st.body.errorMessage ?? '').includes(PATH),
      `unplugged: ${down.v.name} DOWN "${down.v.detail}"; /state DOWN "${st.body.errorMessage ?? ''}"`,
    );

    // The host end of the adapter's line, then the plug.
    await qmp('chardev-add', { id: 'rfid0', backend: { type: 'socket', data: { addr: { type: 'unix', data: { path: sock } }, server: true, wait: false } } });
    line = createConnection(sock);
    await new Promise((res, rej) => line.once('connect', res).once('error', rej));
    line.on('data', (b) => reader.receive(b));
    line.on('error', () => undefined);
    reader.attach((bytes) => line.writable && line.write(Buffer.from(bytes)));
    const t0 = performance.now();
    const dev = await plug();
    const up = await until('the reader UP after the plug', async () => ((await readerView())?.ok ? true : null));
    figure('rfid-usb: device_add -> reader UP at /api/status, s', ((performance.now() - t0) / 1000).toFixed(1));
    const driver = (await g(`basename $(readlink /sys/class/tty/$(basename ${dev.v})/device/driver) 2>/dev/null || true`)).trim();
    check(up.v === true, `plugged after start: ${PATH} -> ${dev.v} (driver ${driver || '?'}), reader UP, no restart`);

    // A deposit by tag: the item's number from its tag's memory, the box, the AFI written.
    const seq = await lastSeq();
    await io(`spring ${BOX}`);
    const tag = tags.iso28560_3Tag({ itemId: ITEM, afi: SECURED, library: '710100' });
    const tPlace = performance.now();
    reader.place(tag);
    const id = await waitReq((r) => r.endpoint === 'item-identify' && r.status === 200, 'item-identify answered', seq);
    figure('rfid-usb: tag placed -> /item-identify at the server (emulated), s', ((performance.now() - tPlace) / 1000).toFixed(1));
    check(
      id.body.identifierType === 'RFID' && id.body.identifierValue === ITEM && JSON.stringify(id.response).includes(boxId(BOX)),
      `deposit by tag: /item-identify RFID ${id.body.identifierValue}, answered with box ${BOX}`,
    );
    await waitReq((r) => isState(r) && boxSt(r, BOX) === 'OPEN', `/state box ${BOX} OPEN`, id.seq);
    const afi = await until('the AFI written', async () => (reader.tag(tag.uid)?.afi === UNSECURED ? true : null), 120_000);
    const verified = await until(
      '"security bit cleared and verified"',
      async () =>
        (
          await g('journalctl --namespace=+pickup-station -u pickup-station -b --no-pager -o cat | grep -c "security bit cleared and verified" || true')
        ).trim() !== '0' || null,
      60_000,
    );
    check(
      afi.v && verified.v,
      `the AFI on the model's tag 0x${reader.tag(tag.uid).afi.toString(16)} (secured 0x07 -> unsecured 0xc2), the station's "verified" line`,
    );
    reader.remove(tag.uid);
    await io(`door ${BOX} close`);
    await waitReq((r) => isState(r) && boxSt(r, BOX) === 'CLOSED' && r.seq > id.seq + 1, `/state box ${BOX} CLOSED`, id.seq);
    const snap = await sim(`/stations/${STATION.id}`);
    check(snap.boxes[BOX - 1].contents.includes(ITEM), `the server records item ${ITEM} in box ${BOX}`);

    // Unplugged and plugged again: DOWN, then UP, the same process.
    const tUn = performance.now();
    await unplug();
    const down2 = await until('the reader DOWN after device_del', async () => {
      const d = await readerView();
      return d && !d.ok ? d : null;
    });
    figure('rfid-usb: device_del -> reader DOWN, s', ((performance.now() - tUn) / 1000).toFixed(1));
    const t1 = performance.now();
    await plug();
    await until('the reader UP after the second plug', async () => ((await readerView())?.ok ? true : null));
    figure('rfid-usb: device_add again -> reader UP, s', ((performance.now() - t1) / 1000).toFixed(1));
    const pid1 = await mainPid();
    check(pid0 === pid1 && pid0 !== '0', `unplug: DOWN "${down2.v.detail}"; plugged again: UP, MainPID ${pid0} -> ${pid1} (no restart)`);
    const st2 = await status();
    say(`rfid at the technician's status: ${JSON.stringify(st2.rfid ?? null).slice(0, 300)}`);
  } finally {
    if (plugged) await qmp('device_del', { id: 'rfidusb' }).catch(() => undefined);
    reader.detach();
    line?.destroy();
    await sleep(2_000);
    await qmp('chardev-remove', { id: 'rfid0' }).catch(() => undefined);
    rmSync(sock, { force: true });
    await board.putConfig();
    await board.restartStation('back on the board profile');
  }
}
