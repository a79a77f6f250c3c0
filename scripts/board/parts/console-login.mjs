// A failed login at one of the station's consoles is seen by the fleet. A station has no getty on a
// VT (record 0135: tty1 included, a keyboard at the screen gets no login prompt); its one console is
// the serial one inside the cabinet. There (the board's ttyAMA0: its getty, which the board image
// keeps off, started for the part; QEMU's serial port is a socket the part types into, as a
// technician's serial cable would) a user name and a wrong password, twice: login(1) appends each
// failure to /var/log/btmp; the station counts it (pickup_station_console_login_failures_total, its
// time for the alert rule) and shows it on the technician status with the terminal. A failed login
// on a pseudo-terminal (a network login's terminal) is the negative control: ssh's business, not
// counted. Nothing typed reaches a file: btmp keeps neither the password nor, by login's default, the name.
import { createConnection } from 'node:net';

export const ci =
  'two logins typed at the serial console and a pty login for the control (124 s alone on 5 Dec 2026): more than the CI budget leaves the board (docs/development.md#the-ci-budget); --full and --parts';
export const title = 'a failed console login: two at the serial console counted (metric, technician status); a pty login not';

const WRONG = 'notthepassword7q';
const SERIAL = 'ttyAMA0';
const GETTY = `serial-getty@${SERIAL}.service`;

/** The serial console's other end: what the guest wrote since the last `clear()`, and typing. */
function serialConsole(sock) {
  return new Promise((resolve, reject) => {
    let text = '';
    const c = createConnection(sock, () =>
      resolve({
        text: () => text.replace(/\r/g, '').trimEnd(),
        clear: () => {
          text = '';
        },
        type: (line) => c.write(`${line}\r`),
        close: () => c.destroy(),
      }),
    );
    c.on('data', (d) => {
      text += d.toString('latin1');
    });
    c.on('error', reject);
  });
}

export default async function consoleLogin(board) {
  const { g, check, status, figure, sleep } = board;
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

  let serial = null;
  try {
    // The board image keeps the serial console's getty off (its control is ssh); a station's has one.
    await g(`rm -f /etc/systemd/system/${GETTY}; systemctl daemon-reload; systemctl start ${GETTY}`);
    serial = await serialConsole(board.SERIAL_SOCK);
    const ttyBefore = await btmpOn(` ${SERIAL} `);
    let ttyAfter = ttyBefore;
    // Each answer typed when its prompt is what the console shows last: an Enter first (the getty's
    // prompt came before the part connected); login(1) waits FAIL_DELAY after a wrong password, then
    // asks again.
    serial.type('');
    for (let i = 1; i <= 2; i++) {
      const t = performance.now();
      let quiet = 0;
      while (ttyAfter < ttyBefore + i) {
        const text = serial.text();
        if (performance.now() - t > 180_000)
          throw new board.Fail(`failed login ${i} at ${SERIAL} not in btmp after 180 s; the console ends "${text.slice(-80)}"`);
        if (/Password:$/.test(text)) {
          serial.clear();
          serial.type(WRONG);
          for (let waited = 0; waited < 30_000 && ttyAfter < ttyBefore + i; waited += 2000) {
            await sleep(2000);
            ttyAfter = await btmpOn(` ${SERIAL} `);
          }
        } else if (/login:$/.test(text)) {
          serial.clear();
          serial.type('intruder');
          quiet = 0;
        } else if (++quiet > 15) {
          // Nothing asked for 15 s: an Enter for a new prompt.
          serial.type('');
          quiet = 0;
        }
        await sleep(1000);
      }
    }
    const lastb = await g('lastb -w 2>/dev/null | head -3 || true');
    check(
      ttyAfter - ttyBefore === 2,
      `two failed logins at ${SERIAL} in btmp (${ttyBefore} -> ${ttyAfter}; lastb: ${JSON.stringify(lastb.trim().split('\n'))})`,
    );

    const after = await counted(before, ttyAfter - ttyBefore);
    check(
      (after.failures ?? 0) - (before.failures ?? 0) === ttyAfter - ttyBefore,
      `pickup_station_console_login_failures_total ${before.failures} -> ${after.failures}: the two at ${SERIAL} counted, the pty's not`,
    );
    const seen = (await status()).consoleLogins;
    check(seen !== null && seen.failed === 2 && seen.last?.line === SERIAL, `technician status: ${JSON.stringify(seen)}`);
    const disk = await g(`grep -rlaF '${WRONG}' /var/log /var/lib/pickup-station /run/pickup-station 2>/dev/null | head -3; true`);
    check(disk.trim() === '', `the typed password is in no log or state file (${disk.trim() || 'none'})`);
    figure(`failed console logins counted (${SERIAL}, the serial console; a pty login not)`, `${after.failures} (from ${before.failures})`);
  } finally {
    serial?.close();
    await g(`systemctl stop ${GETTY}; ln -sf /dev/null /etc/systemd/system/${GETTY}; systemctl daemon-reload`, { ok: true });
  }
}
