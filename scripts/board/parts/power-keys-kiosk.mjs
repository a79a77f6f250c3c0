// No key of any keyboard turns the station off, on the kiosk image: cage and Chromium on tty1 showing
// the station's page (set up as hardware/DISPLAYS.md says, as parts/kiosk-lockdown.mjs does), the
// same keyboards and keys as parts/power-keys.mjs (scripts/board/power-keys.mjs). After each key
// also the same cage and the same browser process, the page still connected: a key that ends the
// browser fails this part (its unit starting it again is reported, not passed). And what libinput
// gets: cage holds the USB keyboard's event node, never the station's reader's or keypad's.
import { HEARTBEAT_MS, keyTries, plugKeyboards, pressEach, settingsInForce, unplugKeyboards } from '../power-keys.mjs';

/** Needs the image with cage and Chromium (scripts/board/image.sh). */
export const image = 'kiosk';
export const ci = "needs the kiosk image, whose cold build (Chromium's few hundred packages under qemu-user) does not fit the CI budget; --full and --parts";
export const title =
  'no key of any keyboard turns the kiosk station off or ends its browser: Ctrl+Alt+Del, its burst, power, sleep, reboot, Alt+SysRq+B; libinput gets the USB keyboard, not the reader or keypad';

const KBD = 'keys-kbd';
const KIOSK_DROPIN_DIR = '/etc/systemd/system/pickup-station-kiosk.service.d';

/** cage's and Chromium's main processes, and the page's connections to the kiosk port. */
async function kiosk(board) {
  const { g } = board;
  const [cage, chromium, conns] = (
    await g(
      `systemctl show -p MainPID --value pickup-station-kiosk; pgrep -o -u pickup-kiosk -x chromium || echo 0; ss -Htn state established '( sport = :8091 )' | wc -l`,
    )
  )
    .trim()
    .split('\n');
  return { cage, chromium, conns: Number(conns) };
}

/** The kiosk as a technician sets one up (hardware/DISPLAYS.md), started; the page connected. */
async function startKiosk(board) {
  const { g, say, sleep, writeGuest, putConfig, restartStation, config, PROFILE, figure } = board;
  await g('id pickup-kiosk >/dev/null 2>&1 || useradd --system --create-home --home-dir /var/lib/pickup-kiosk --shell /usr/sbin/nologin pickup-kiosk');
  const profile = JSON.parse(await g(`cat ${PROFILE}`));
  await writeGuest('/etc/pickup-station/kiosk-profile.json', JSON.stringify({ ...profile, display: { kind: 'kiosk' } }, null, 2));
  // With the keys' heartbeat (scripts/board/power-keys.mjs): a /state within seconds of each key.
  await putConfig({
    hardware: { kind: 'board', profile: '/etc/pickup-station/kiosk-profile.json' },
    timing: { ...config().timing, heartbeatIntervalMs: HEARTBEAT_MS },
  });
  await g('systemctl enable pickup-station-kiosk.socket');
  await restartStation('kiosk profile');
  // virtio-gpu has no 3D: wlroots' pixman renderer (parts/kiosk-lockdown.mjs says why).
  await g(`mkdir -p ${KIOSK_DROPIN_DIR}`);
  await writeGuest(`${KIOSK_DROPIN_DIR}/virtual-board.conf`, '[Service]\nEnvironment=WLR_RENDERER=pixman\n');
  await g('systemctl daemon-reload; systemctl enable pickup-station-kiosk; systemctl start --no-block pickup-station-kiosk');
  // Chromium's network service dies at about one start in three under TCG and the page never comes
  // (scripts/board/README.md): the unit is started again, at most three times, each said and counted.
  const t0 = performance.now();
  let since = t0;
  let restarts = 0;
  for (;;) {
    await sleep(5000);
    const k = await kiosk(board);
    if (k.conns > 0 && k.chromium !== '0') break;
    const waited = performance.now() - since;
    const crashed =
      waited > 60_000 && Number((await g('journalctl -b --no-pager _UID=$(id -u pickup-kiosk) | grep -c "Network service crashed" || true')).trim()) > restarts;
    if ((crashed || waited > 300_000) && restarts < 3) {
      say(`kiosk: no page connected ${(waited / 1000).toFixed(0)} s after its start; starting the kiosk unit again`);
      await g('systemctl restart --no-block pickup-station-kiosk');
      restarts++;
      since = performance.now();
    } else if (performance.now() - t0 > 20 * 60_000) throw new board.Fail(`kiosk: no page connected in 20 min (${restarts} restarts)`);
  }
  figure('kiosk unit start -> page connected (emulated), s', ((performance.now() - t0) / 1000).toFixed(0));
  say(`the kiosk runs: cage and Chromium on tty1, the page connected (kiosk unit restarts before it: ${restarts})`);
}

async function stopKiosk(board) {
  const { g, putConfig, restartStation } = board;
  await g(`systemctl disable --now pickup-station-kiosk; systemctl disable pickup-station-kiosk.socket; rm -rf ${KIOSK_DROPIN_DIR}; systemctl daemon-reload`, {
    ok: true,
    timeoutMs: 120_000,
  });
  await putConfig();
  await restartStation('after the kiosk keys part');
}

export default async function powerKeysKiosk(board) {
  const { g, check, figure, say } = board;
  const t0 = performance.now();
  try {
    await settingsInForce(board);
    await startKiosk(board);
    await plugKeyboards(board, KBD);
    // libinput (cage) opens what it takes as input through logind: the USB keyboard, not the station's devices.
    const held = await board.until('cage holding the USB keyboard', async () => {
      const out = await g(
        `cage=$(systemctl show -p MainPID --value pickup-station-kiosk); for e in /sys/class/input/event*; do n=$(cat $e/device/name); ls -l /proc/$cage/fd 2>/dev/null | grep -q "/dev/input/$(basename $e)$" && echo "$n"; done; true`,
      );
      return out.includes('QEMU USB Keyboard') ? out.trim().split('\n') : null;
    });
    check(
      !held.includes('Virtual RFID reader') && !held.includes('Virtual PIN keypad'),
      `cage (libinput) holds ${held.join(', ')}: not the station's reader or keypad`,
    );
    const before = await kiosk(board);
    const rows = await pressEach(board, keyTries(board, { kiosk: true }), async () => {
      const now = await kiosk(board);
      check(
        now.cage === before.cage && now.chromium === before.chromium && now.conns > 0,
        `the same browser: cage ${before.cage} -> ${now.cage}, Chromium ${before.chromium} -> ${now.chromium}, the page connected (${now.conns})`,
      );
      return `cage ${now.cage}, Chromium ${now.chromium}`;
    });
    for (const r of rows) say(`key row (kiosk): ${r.what}: ${r.reached} line(s) of evidence, judged over ${r.took} s`);
  } finally {
    await unplugKeyboards(board, KBD);
    await stopKiosk(board);
  }
  figure('power-keys-kiosk part (kiosk image), s', ((performance.now() - t0) / 1000).toFixed(0));
}
