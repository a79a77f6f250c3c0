// The station's own HID reader and PIN keypad are the station's alone. The station reads them
// through hidraw; the kernel also makes each an input device. On the board as installed: their
// event nodes carry LIBINPUT_IGNORE_DEVICE and no power-switch tag (the lines `pickup-station
// usb-policy` wrote from the profile, 90-pickup-station-input.rules), the station's technician
// status says so, and no VT has a getty (getty@tty1 masked; logind starts none on another). Then a
// deposit scanned on board-io's reader (a 14-digit card UID) and two PINs typed on its keypad, as a
// patron does: the station served all three, and neither the card nor a PIN is on any VT's screen
// (/dev/vcs*: a line written to tty1 first is the control that the screens are read), in btmp or the
// station's count of failed console logins, or anywhere outside the station's journal namespace
// (journalctl of the system's journal, and its files byte for byte: a `logger` line is the control).
export const ci = true;
export const title =
  "the station's HID reader and keypad are the station's alone: no getty on a VT, their input nodes no keyboard to logind or libinput; a card and two PINs on no screen, in no failed login, in no journal but the station's";

/** A patron's card UID as a wedge reader types it (the issue's), deposited in box 1; then two PINs. */
const CARD = '04a7b1c2d3e4f5';
const PINS = ['482915', '730264'];

export function serverData(station, boxId) {
  return {
    deposits: [{ identifierValue: CARD, identifierType: 'RFID', stationId: station.id, boxId: boxId(1) }],
    pickups: [
      { pin: PINS[0], stationId: station.id, boxIds: [boxId(1)] },
      { pin: PINS[1], stationId: station.id, boxIds: [boxId(2)] },
    ],
  };
}

/** The reader's and the keypad's event nodes (board-io's uhid devices, the ids the profile names). */
async function eventNodes(board) {
  const out = await board.g(
    `for e in /sys/class/input/event*; do n=$(cat $e/device/name 2>/dev/null); case "$n" in "Virtual RFID reader"|"Virtual PIN keypad") echo "$(basename $e) $n";; esac; done; true`,
  );
  return out
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => ({ node: l.split(' ')[0], name: l.split(' ').slice(1).join(' ') }));
}

export default async function inputIsolation(board) {
  const { g, check, figure, status, metrics, deposit, pickup, until, say } = board;
  const t0 = performance.now();

  // --- as installed: no getty on a VT; the two devices' input nodes kept from logind and libinput ---
  const gettys = (
    await g('systemctl show -p LoadState -p ActiveState --value getty@tty1.service; systemctl list-units --no-legend --plain "getty@*" "autovt@*" | wc -l')
  )
    .trim()
    .split('\n');
  // getty@'s agetty has its VT as standard input, not on its command line.
  const agetty = (await g("for p in $(pgrep -x agetty); do readlink /proc/$p/fd/0; done | grep -E '^/dev/tty[0-9]+$' || true")).trim();
  check(
    gettys[0] === 'masked' && gettys[1] === 'inactive' && gettys[2] === '0' && agetty === '',
    `no getty on a VT: getty@tty1 ${gettys[0]}/${gettys[1]}, ${gettys[2]} getty or autovt unit(s), agetty on a VT: ${agetty || 'none'}`,
  );
  const rules = await g('cat /etc/udev/rules.d/90-pickup-station-input.rules');
  check(
    rules.includes('KERNELS=="*:FFFF:0035.*", ENV{LIBINPUT_IGNORE_DEVICE}="1", TAG-="power-switch"') && rules.includes('KERNELS=="*:04D9:1203.*"'),
    "the profile's input lines, written by pickup-station usb-policy (no hand-written udev line): the reader's and the keypad's",
  );
  const nodes = await until('the reader and the keypad as input devices', async () => ((await eventNodes(board)).length === 2 ? eventNodes(board) : null));
  for (const { node, name } of nodes) {
    const props = await until(`${name}'s ${node} kept from logind and libinput`, async () => {
      const p = await g(`udevadm info -q property -n /dev/input/${node}`);
      return /^LIBINPUT_IGNORE_DEVICE=1$/m.test(p) && !/^CURRENT_TAGS=.*:power-switch:/m.test(p) ? p : null;
    });
    const keyboard = /^ID_INPUT_KEYBOARD=1$/m.test(props);
    const held = (await g(`ls -l /proc/$(pidof systemd-logind)/fd 2>/dev/null | grep -c '/dev/input/${node}$' || true`)).trim();
    check(
      held === '0',
      `${name} (${node}; a keyboard to the kernel: ${keyboard}): LIBINPUT_IGNORE_DEVICE=1, not tagged power-switch (${/^CURRENT_TAGS=.*$/m.exec(props)?.[0] ?? 'no CURRENT_TAGS'}), logind holds it open: ${held === '0' ? 'no' : 'yes'}`,
    );
  }
  const hid = (await status()).devices.filter((d) => d.input !== null);
  check(
    hid.length === 2 && hid.every((d) => d.input.problem === null && d.input.nodes.length === 1),
    `the station's technician status: ${hid.map((d) => `${d.name}: ${d.input?.text}`).join('; ')}`,
  );

  // --- a patron: a card deposited on the reader, two PINs typed on the keypad ---------------------
  const loginsBefore = (await status()).consoleLogins;
  const btmpBefore = Number((await g('lastb -w 2>/dev/null | grep -c " tty" || true')).trim());
  await deposit(CARD, 1);
  await pickup(PINS[0], [1]);
  await pickup(PINS[1], [2]);
  say('the station served the card and both PINs');

  // --- where they are not --------------------------------------------------------------------------
  const marker = `vt-control-${Date.now()}`;
  await g(`printf '%s\\n' ${marker} > /dev/tty1`);
  const screens = await g('for f in /dev/vcs[0-9]*; do printf "\\n== %s\\n" "$f"; tr -s " " < "$f"; done');
  const vts = screens.split('\n').filter((l) => l.startsWith('== ')).length;
  check(screens.includes(marker), `the control: a line written to tty1 is on /dev/vcs1 (${vts} screens read)`);
  const onScreen = [CARD, ...PINS].filter((x) => screens.includes(x));
  check(onScreen.length === 0, `the card and the PINs are on no VT's screen (${vts} screens; found: ${onScreen.length ? 'yes' : 'none'})`);

  const btmpAfter = Number((await g('lastb -w 2>/dev/null | grep -c " tty" || true')).trim());
  const loginsAfter = (await status()).consoleLogins;
  const failures = /^pickup_station_console_login_failures_total(?:\{[^}]*\})? (\d+)$/m.exec(await metrics())?.[1];
  check(
    btmpAfter === btmpBefore && loginsAfter?.failed === loginsBefore?.failed,
    `no failed console login: btmp's console lines ${btmpBefore} -> ${btmpAfter}, the station's count ${loginsBefore?.failed} -> ${loginsAfter?.failed} (metric ${failures})`,
  );

  const control = `input-isolation-control-${Date.now()}`;
  await g(`logger -t input-isolation ${control}; journalctl --sync`);
  const pattern = [CARD, ...PINS, control].map((x) => `-e ${x}`).join(' ');
  // Whole words: a PIN's six digits occur inside the journal files' own long numbers (timestamps).
  const system = await g(`journalctl -b --no-pager -o cat | grep -o -w -F ${pattern} | sort | uniq -c || true`);
  const files = await g(
    `grep -r -a -o -w -F ${pattern} /var/log /run/log --exclude-dir='*.pickup-station' 2>/dev/null | sed 's/^[^:]*://' | sort | uniq -c || true`,
  );
  check(
    system.includes(control) && files.includes(control),
    `the control: the logger line is in the system's journal and its files (${system.trim().replace(/\s+/g, ' ')})`,
  );
  const named = [CARD, ...PINS].filter((x) => system.includes(x) || files.includes(x));
  check(
    named.length === 0,
    `nothing outside the station's journal namespace names the card or a PIN (the system's journal of this boot, /var/log and /run/log byte for byte): ${named.length ? `found ${named.length}` : 'none'}`,
  );

  figure('input-isolation part, s', ((performance.now() - t0) / 1000).toFixed(0));
}
