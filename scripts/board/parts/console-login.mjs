// A failed login at one of the station's consoles is seen by the fleet. A USB keyboard on the
// board's xHCI (allowed by a line in USBGuard's local rules file, as a keyboard that carries an
// allowed device's ids would be), and at tty1's login prompt — the text console a person with a
// keyboard reaches when no kiosk holds the screen — a user name and a wrong password typed through
// QEMU (QMP send-key: the guest's kernel sees a real usb-kbd). login(1) appends each failure to
// /var/log/btmp; the station counts it (pickup_station_console_login_failures_total, its time for
// the alert rule) and shows it on the technician status with the terminal. A failed login on a
// pseudo-terminal (a network login's terminal) is the negative control: ssh's business, not counted.
// Nothing typed reaches a file: btmp keeps neither the password nor, by login's default, the name.
export const ci = 'typed at a console getty through a USB keyboard, key by key under TCG: more than the CI budget leaves the board; --full and --parts';
export const title = 'a failed console login: a USB keyboard at tty1 counted (metric, technician status); a pty login not';

const WRONG = 'notthepassword7q';
const RULE_MARK = '# the console-login test: a keyboard that carries the ids of an allowed device';

export default async function consoleLogin(board) {
  const { g, qmp, check, status, figure, sleep } = board;
  const metric = async () => {
    const text = await board.metrics();
    const m = /^pickup_station_console_login_failures_total(?:\{[^}]*\})? (\d+)$/m.exec(text);
    return { failures: m ? Number(m[1]) : null, watchOk: /^pickup_station_console_login_watch_ok(?:\{[^}]*\})? 1$/m.test(text) };
  };
  const btmpOn = async (pattern) => Number((await g(`lastb -w 2>/dev/null | grep -c '${pattern}' || true`)).trim());
  // The metric once it has counted `expected` more, or as it is after 120 s (the check says which).
  const counted = async (before, expected) => {
    let now = await metric();
    await board
      .until('the failures counted', async () => (now = await metric()).failures >= (before.failures ?? 0) + expected, { limitMs: 120_000, everyMs: 1000 })
      .catch(() => undefined);
    return now;
  };

  const before = await metric();
  check(before.watchOk && before.failures !== null, `the console-login watch runs (failures so far ${before.failures})`);
  const statusBefore = (await status()).consoleLogins;
  check(statusBefore !== null && statusBefore.problem === null, `technician status watches btmp (${JSON.stringify(statusBefore)})`);

  // The negative control: login(1) in a pty made by script(1), a wrong password. btmp has it on pts/N.
  const ptsBefore = await btmpOn(' pts/');
  await g(
    `( sleep 3; printf '%s\\n' intruder; sleep 3; printf '%s\\n' '${WRONG}'; sleep 6 ) | timeout 40 script -qfec 'login' /dev/null >/dev/null 2>&1 || true`,
    { timeoutMs: 90_000 },
  );
  const ptsAfter = await btmpOn(' pts/');
  check(ptsAfter > ptsBefore, `a failed login on a pty is in btmp (${ptsBefore} -> ${ptsAfter} on pts/)`);

  try {
    await g(`printf '%s\\n' '${RULE_MARK}' 'allow id 0627:0001' >> /etc/usbguard/pickup-station-local.conf; systemctl restart usbguard`);
    await g('systemctl start getty@tty1; chvt 1 2>/dev/null || true');
    await qmp('device_add', { driver: 'usb-kbd', id: 'console-kbd', bus: 'xhci.0' });
    const inputs = await board.until(
      'the USB keyboard as an input device',
      async () => Number((await g('grep -l "QEMU USB Keyboard" /sys/class/input/*/name 2>/dev/null | wc -l')).trim()),
      { limitMs: 90_000, everyMs: 3000 },
    );
    check(inputs > 0, 'the USB keyboard is an input device in the guest');
    // One key at a time, each after the last one's release (send-key holds it 100 ms): usb-kbd
    // queues 16 events and drops the rest while a slow guest has not polled them.
    const key = async (k) => {
      await qmp('send-key', { keys: [{ type: 'qcode', data: k }] });
      await sleep(200);
    };
    const type = async (text) => {
      for (const ch of text) await key(ch);
      await key('ret');
    };
    // Each answer typed when its prompt is what tty1's screen (/dev/vcs1, the VT's text) ends with:
    // login(1) waits FAIL_DELAY after a wrong password, and a getty started again shows a new
    // prompt and drops what was typed before it.
    const screen = async () => (await g('tr -s " " < /dev/vcs1')).trimEnd();
    const ttyBefore = await btmpOn(' tty1 ');
    let ttyAfter = ttyBefore;
    let typedAt = 0;
    for (let i = 1; i <= 2; i++) {
      const t = performance.now();
      while (ttyAfter < ttyBefore + i) {
        const text = await screen();
        if (performance.now() - t > 180_000) throw new board.Fail(`failed login ${i} at tty1 not in btmp after 180 s; the screen ends "${text.slice(-80)}"`);
        if (/Password:$/.test(text)) {
          await type(WRONG);
          for (let waited = 0; waited < 30_000 && ttyAfter < ttyBefore + i; waited += 2000) {
            await sleep(2000);
            ttyAfter = await btmpOn(' tty1 ');
          }
        } else if (/login:$/.test(text)) {
          await type('intruder');
          typedAt = performance.now();
          await sleep(3000);
        } else if (/login: intruder$/.test(text) && performance.now() - typedAt > 15_000) {
          // The name on the screen for 15 s and no prompt after it: the Enter never reached the guest.
          await key('ret');
          typedAt = performance.now();
        } else await sleep(1000);
      }
    }
    const lastb = await g('lastb -w 2>/dev/null | head -3 || true');
    check(ttyAfter - ttyBefore === 2, `two failed logins at tty1 in btmp (${ttyBefore} -> ${ttyAfter}; lastb: ${JSON.stringify(lastb.trim().split('\n'))})`);

    const after = await counted(before, ttyAfter - ttyBefore);
    check(
      (after.failures ?? 0) - (before.failures ?? 0) === ttyAfter - ttyBefore,
      `pickup_station_console_login_failures_total ${before.failures} -> ${after.failures}: the two at tty1 counted, the pty's not`,
    );
    const seen = (await status()).consoleLogins;
    check(seen !== null && seen.failed === 2 && seen.last?.line === 'tty1', `technician status: ${JSON.stringify(seen)}`);
    const disk = await g(`grep -rlaF '${WRONG}' /var/log /var/lib/pickup-station /run/pickup-station 2>/dev/null | head -3; true`);
    check(disk.trim() === '', `the typed password is in no log or state file (${disk.trim() || 'none'})`);
    figure('failed console logins counted (tty1 via a USB keyboard; a pty login not)', `${after.failures} (from ${before.failures})`);
  } finally {
    await qmp('device_del', { id: 'console-kbd' }).catch(() => undefined);
    await g(`sed -i '/^# the console-login test: /,+1d' /etc/usbguard/pickup-station-local.conf; systemctl restart usbguard`, { ok: true });
  }
}
