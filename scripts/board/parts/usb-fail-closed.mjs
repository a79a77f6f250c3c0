// USB fails closed, on the running board (record 0145):
//  1. install.sh put usbcore.authorized_default=0 into the boot partition's cmdline.txt; with
//     usbguard.service masked, the board is powered on with a usb-kbd and a usb-storage already
//     plugged in: the kernel (from cmdline.txt) keeps both unauthorised — no driver, no input node,
//     no block device; the station is out of service and says why (/state DOWN at the server,
//     `stationctl status`, the technician status, the metric), and the alert rule fires on the series
//     the station exported (promtool, on the host).
//  2. USBGuard unmasked and started: it judges both (not in the profile: kept out), the station is
//     back in service.
//  3. USBGuard killed (kill -9) with its restart held off: the station says so; a keyboard plugged in
//     then stays unauthorised and is counted. Started again: in service. Killed with the shipped
//     Restart=on-failure: back by itself.
//  4. A built-in device pinned to its port: the profile names usb-kbd on the port it is plugged into,
//     with its exact interface; it is authorised there, and the same keyboard on another port is not.
// Its own boot (a masked unit and devices from power-on): the part powers the board off and on once.
import { Buffer } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const ci =
  'its own power-off and power-on (USBGuard masked, devices present from boot) and four USBGuard restarts: more than the CI budget leaves the board (docs/development.md#the-ci-budget); --full and --parts';
export const title = 'USB fails closed: devices unauthorised before and without USBGuard, the station out of service and saying why';

const KBD = { vendor: '0627', product: '0001' };
const STICK = { vendor: '46f4', product: '0001' };
const RULES = join(import.meta.dirname, '../../../ops/prometheus/rules/pickup-station.rules.yml');

/** USB devices with these ids in the guest's sysfs: [{ port, authorized, interfaces }]. */
async function sysfs(board, ids) {
  const out = await board.g(
    `for d in /sys/bus/usb/devices/*-*; do case $d in *:*) continue;; esac; [ "$(cat $d/idVendor 2>/dev/null)" = ${ids.vendor} ] && [ "$(cat $d/idProduct)" = ${ids.product} ] && echo "$(basename $d) $(cat $d/authorized) $(ls -d $d/*:* 2>/dev/null | wc -l)"; done; true`,
  );
  return out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [port, authorized, interfaces] = l.split(' ');
      return { port, authorized, interfaces: Number(interfaces) };
    });
}

/** The metric's value in the station's /metrics (its only series), or null. */
function value(text, name) {
  const m = new RegExp(`^pickup_station_${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : null;
}

/** The alert's annotations as the rules file writes them, for this station (promtool compares them too). */
function annotations(alert, station) {
  const text = readFileSync(RULES, 'utf8');
  const block = text.slice(text.indexOf(`- alert: ${alert}\n`));
  const field = (name) => new RegExp(`\\n\\s+${name}: '([^']*)'`).exec(block)?.[1]?.replaceAll('{{ $labels.station }}', station);
  return { summary: field('summary'), description: field('description') };
}

/** The alert rule, evaluated by promtool on the series the station exported: fires after its `for:`. */
function alertFires(board, enforcing) {
  const file = join(board.RUN, 'usb-fail-closed.rules.test.yml');
  const station = board.STATION.id;
  const { summary, description } = annotations('PickupStationUsbPolicyNotEnforced', station);
  writeFileSync(
    file,
    [
      'rule_files:',
      `  - ${RULES}`,
      'evaluation_interval: 30s',
      'tests:',
      '  - interval: 30s',
      '    input_series:',
      `      - series: 'pickup_station_usb_guard_enforcing{job="pickup-station", station="${station}"}'`,
      `        values: '${Array(6).fill(enforcing).join(' ')}'`,
      '    alert_rule_test:',
      '      - eval_time: 2m',
      '        alertname: PickupStationUsbPolicyNotEnforced',
      '        exp_alerts:',
      `          - exp_labels: { severity: page, job: pickup-station, station: '${station}' }`,
      '            exp_annotations:',
      `              summary: '${summary}'`,
      `              description: '${description}'`,
      '',
    ].join('\n'),
  );
  try {
    execFileSync('promtool', ['test', 'rules', file], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}

export default async function usbFailClosed(board) {
  const { g, qmp, check, figure, status, until, waitReq, isState, lastSeq, say } = board;

  // The virtual board's own profile leaves USBGuard unwatched (scripts/board/README.md); this part's
  // copy of it watches USBGuard as every station's profile does, from the boot below on.
  const guarded = '/etc/pickup-station/usb-fail-closed-profile.json';
  const shipped = JSON.parse(await g(`cat ${board.PROFILE}`));
  await board.writeGuest(guarded, JSON.stringify({ ...shipped, usb: { ...shipped.usb, guard: {} } }, null, 2));
  await board.putConfig({ hardware: { kind: 'board', profile: guarded } });

  // --- 1. masked, and devices present from power-on -------------------------------------------
  const cmdline = (await g('cat /boot/firmware/cmdline.txt')).trim();
  check(
    /(^| )usbcore\.authorized_default=0( |$)/.test(cmdline),
    `install.sh put usbcore.authorized_default=0 into the boot partition's cmdline.txt: "${cmdline}"`,
  );
  await g('systemctl mask usbguard.service && sync');
  const stick = join(board.RUN, 'usb-boot-stick.raw');
  writeFileSync(stick, Buffer.alloc(8 << 20));
  const seq = await lastSeq();
  await board.powerCut();
  const t0 = performance.now();
  const bootS = await board.boot(
    [],
    [
      '-device',
      'usb-kbd,bus=xhci.0,id=bootkbd',
      '-drive',
      `file=${stick},if=none,id=bootstick,format=raw`,
      '-device',
      'usb-storage,bus=xhci.0,drive=bootstick,id=bootstickdev',
    ],
  );
  figure('boot with usbguard masked and two USB devices from power-on -> ssh, s', bootS.toFixed(1));
  check((await g('cat /proc/cmdline')).includes('usbcore.authorized_default=0'), "the kernel booted with cmdline.txt's usbcore.authorized_default=0");
  check((await g('cat /sys/module/usbcore/parameters/authorized_default')).trim() === '0', 'usbcore.authorized_default is 0 in the running kernel');
  check((await g('systemctl is-enabled usbguard.service; true')).trim() === 'masked', 'usbguard.service is masked');
  const down = await waitReq(
    (r) => isState(r) && r.body.st === 'DOWN' && /USB policy not enforced/.test(r.body.errorMessage ?? ''),
    '/state DOWN naming the USB policy',
    seq,
    900_000,
  );
  figure('power-on -> /state DOWN "USB policy not enforced" at the server, s', ((performance.now() - t0) / 1000).toFixed(1));
  check(true, `/state at the server: ${down.body.st} "${down.body.errorMessage}"`);
  const kbd = await sysfs(board, KBD);
  const usbStick = await sysfs(board, STICK);
  check(
    kbd.length === 1 && kbd[0].authorized === '0' && kbd[0].interfaces === 0,
    `the keyboard present from power-on is unauthorised, no interface, no driver (${JSON.stringify(kbd)})`,
  );
  check(
    usbStick.length === 1 && usbStick[0].authorized === '0' && usbStick[0].interfaces === 0,
    `the stick present from power-on is unauthorised, no driver (${JSON.stringify(usbStick)})`,
  );
  check(!(await g('cat /proc/bus/input/devices')).includes('QEMU USB Keyboard'), 'no input device for the keyboard');
  check((await g('ls /dev/sd* 2>/dev/null; true')).trim() === '', 'no block device for the stick');
  const st = await status();
  check(
    st.usb?.guard?.enforcing === false && /has not run since the board booted/.test(st.usb.guard.problem ?? ''),
    `technician status: ${st.usb?.guard?.problem}`,
  );
  check(st.usb.guard.bootDefault === '0', 'technician status: the kernel kept devices out until USBGuard (bootDefault 0)');
  const ctl = await g(`STATIONCTL_TOKEN=${board.TOKEN} stationctl status 2>&1; true`);
  const line = ctl.split('\n').find((l) => l.startsWith('USB policy'));
  check(line !== undefined && line.includes('OUT OF SERVICE'), `stationctl status: ${line}`);
  const metrics = await board.metrics();
  check(
    value(metrics, 'usb_guard_enforcing') === 0 && value(metrics, 'usb_authorized_default') === 0,
    'metrics: usb_guard_enforcing 0, usb_authorized_default 0',
  );
  check(alertFires(board, value(metrics, 'usb_guard_enforcing')), 'PickupStationUsbPolicyNotEnforced fires on the series the station exported (promtool)');
  check(!alertFires(board, 1), '... and not on enforcing 1 (the check can fail)');

  // --- 2. USBGuard back: judges both, the station back in service -------------------------------
  let seqUp = await lastSeq();
  let t = performance.now();
  await g('systemctl unmask usbguard.service && systemctl start usbguard.service');
  await waitReq((r) => isState(r) && r.body.st === 'UP', '/state UP once USBGuard runs', seqUp, 300_000);
  figure('usbguard.service started -> /state UP, s', ((performance.now() - t) / 1000).toFixed(1));
  check(
    (await sysfs(board, KBD))[0]?.authorized === '0' && (await sysfs(board, STICK))[0]?.authorized === '0',
    'USBGuard judged both: not in the profile, kept out',
  );
  const both = await until('both reported unknown', async () => ((await status()).usb?.unknown?.length === 2 ? true : null));
  check(both, 'the technician status lists both as unknown USB devices');
  await qmp('device_del', { id: 'bootkbd' });
  await qmp('device_del', { id: 'bootstickdev' });
  await until('both unplugged', async () => (await sysfs(board, KBD)).length === 0 && (await sysfs(board, STICK)).length === 0);

  // --- 3. killed: held off, then with the shipped restart ----------------------------------------
  await g(
    `mkdir -p /run/systemd/system/usbguard.service.d && printf '[Service]\\nRestart=no\\n' > /run/systemd/system/usbguard.service.d/50-board-no-restart.conf && systemctl daemon-reload`,
  );
  const before = (await status()).usb.seenTotal;
  const seqKill = await lastSeq();
  await g('kill -9 "$(systemctl show -p MainPID --value usbguard.service)"');
  const killed = await waitReq(
    (r) => isState(r) && r.body.st === 'DOWN' && /usbguard\.service stopped/.test(r.body.errorMessage ?? ''),
    '/state DOWN: USBGuard stopped',
    seqKill,
    300_000,
  );
  check(/killed KILL|signal/.test(killed.body.errorMessage), `/state after kill -9: "${killed.body.errorMessage}"`);
  await qmp('device_add', { driver: 'usb-kbd', id: 'kbdhot', bus: 'xhci.0' });
  const hot = await until('the keyboard plugged in while USBGuard is dead', async () => {
    const k = await sysfs(board, KBD);
    return k.length === 1 ? k[0] : null;
  });
  const counted = await until('the keyboard counted', async () => {
    const s = await status();
    return s.usb.seenTotal === before + 1 ? s : null;
  });
  check(hot.authorized === '0' && hot.interfaces === 0, `plugged in while USBGuard is dead: unauthorised, no driver (port ${hot.port})`);
  check(
    counted.usb.unknown.some((d) => d.vendorId === KBD.vendor && d.port === hot.port),
    `counted and listed as unknown (seen ${before} -> ${counted.usb.seenTotal})`,
  );
  await g('rm /run/systemd/system/usbguard.service.d/50-board-no-restart.conf && systemctl daemon-reload');
  seqUp = await lastSeq();
  await g('systemctl start usbguard.service');
  await waitReq((r) => isState(r) && r.body.st === 'UP', '/state UP once USBGuard runs again', seqUp, 300_000);
  check((await sysfs(board, KBD))[0]?.authorized === '0', 'USBGuard back: the keyboard stays out (not in the profile)');
  const pid0 = (await g('systemctl show -p MainPID --value usbguard.service')).trim();
  t = performance.now();
  await g(`kill -9 ${pid0}`);
  const pid1 = await until('USBGuard started again by systemd', async () => {
    const p = (await g('systemctl is-active usbguard.service >/dev/null && systemctl show -p MainPID --value usbguard.service; true')).trim();
    return p !== '' && p !== '0' && p !== pid0 ? p : null;
  });
  figure('kill -9 with Restart=on-failure -> usbguard.service running again, s', ((performance.now() - t) / 1000).toFixed(1));
  check(true, `killed with the shipped Restart=on-failure: running again by itself (pid ${pid0} -> ${pid1})`);
  await until('the station enforcing again', async () => ((await status()).usb.guard.enforcing ? true : null));

  // --- 4. pinned to its port, with its exact interface --------------------------------------------
  const profile = JSON.parse(await g(`cat ${board.PROFILE}`));
  profile.usb = {
    ...(profile.usb ?? {}),
    guard: {},
    devices: [{ name: 'built-in keyboard (usb-kbd)', vendorId: `0x${KBD.vendor}`, productId: `0x${KBD.product}`, interfaces: ['03:01:01'], port: hot.port }],
  };
  await g('install -d -m 0755 /etc/pickup-station/hardware');
  await board.writeGuest('/etc/pickup-station/hardware/usb-pinned.json', JSON.stringify(profile, null, 2));
  await board.putConfig({ hardware: { kind: 'board', profile: '/etc/pickup-station/hardware/usb-pinned.json' } });
  await until('the keyboard on its own port authorised', async () => (await sysfs(board, KBD)).find((k) => k.port === hot.port)?.authorized === '1', {
    limitMs: 300_000,
  });
  const rule = (await g('grep "^allow id 0627" /etc/usbguard/pickup-station.d/50-profile.conf; true')).trim();
  check(rule === `allow id 0627:0001 via-port "${hot.port}" with-interface 03:01:01`, `the rule: ${rule}`);
  await qmp('device_add', { driver: 'usb-kbd', id: 'kbdother', bus: 'xhci.0' });
  const other = await until('the same keyboard on another port', async () => (await sysfs(board, KBD)).find((k) => k.port !== hot.port) ?? null);
  // USBGuard's verdict comes after the kernel's arrival event: the other one must stay out for good.
  await until('USBGuard has judged it', async () =>
    (await g('usbguard list-devices 2>/dev/null | grep -c "^[0-9]*: block id 0627:0001"; true')).trim() === '1' ? true : null,
  );
  check(
    (await sysfs(board, KBD)).find((k) => k.port === other.port)?.authorized === '0',
    `the same ids on port ${other.port}: unauthorised (pinned to ${hot.port})`,
  );
  say(`usb-fail-closed: ${(await g('usbguard list-devices 2>/dev/null | grep 0627; true')).trim()}`);

  await qmp('device_del', { id: 'kbdother' });
  await qmp('device_del', { id: 'kbdhot' });
  await board.putConfig();
  await board.restartStation('with the shipped profile again');
}
