// A failed login on one of the station's consoles is seen by the fleet: login(1) (Debian's, shadow) on a
// pseudo-terminal of the running board (as on the serial console inside the cabinet, or a
// keyboard at a text console), a user name and a wrong password typed at its prompts. login
// appends the failure to /var/log/btmp; the station counts it (pickup_station_console_login_failures_total,
// its time for the alert rule) and shows it on the technician status with the terminal. The
// password typed never reaches a file (btmp holds no password, and not even the name typed).
export const title = 'a failed console login: counted, on the technician status and the metric (login(1) on a pty)';

const WRONG = 'not-the-password-7Q';

export default async function consoleLogin(board) {
  const { g, check, status, figure } = board;
  const metric = async () => {
    const text = await board.metrics();
    const m = /^pickup_station_console_login_failures_total(?:\{[^}]*\})? (\d+)$/m.exec(text);
    return { failures: m ? Number(m[1]) : null, watchOk: /^pickup_station_console_login_watch_ok(?:\{[^}]*\})? 1$/m.test(text) };
  };
  const before = await metric();
  check(before.watchOk && before.failures !== null, `the console-login watch runs (failures so far ${before.failures})`);
  const statusBefore = (await status()).consoleLogins;
  check(statusBefore !== null && statusBefore.problem === null, `technician status watches btmp (${JSON.stringify(statusBefore)})`);

  const btmpBefore = Number((await g("lastb -w 2>/dev/null | grep -c ' pts/' || true")).trim());
  // login(1) in a pty made by script(1): prompts read from the pty, answers written to it. A
  // user that exists (root) with a wrong password, and a user that does not.
  for (const user of ['root', 'intruder']) {
    await g(
      `( sleep 3; printf '%s\\n' ${user}; sleep 3; printf '%s\\n' '${WRONG}'; sleep 6 ) | timeout 40 script -qfec 'login' /dev/null >/run/console-login.out 2>&1 || true`,
      { timeoutMs: 90_000 },
    );
  }
  const said = await g('cat /run/console-login.out; rm -f /run/console-login.out');
  check(/incorrect/i.test(said), `login refused the wrong password (${JSON.stringify(said.trim().split('\n').pop())})`);
  // login(1) writes a failure as user UNKNOWN unless LOG_UNKFAIL_ENAB (off): a password typed into
  // the name prompt by mistake is not kept either.
  const btmpAfter = Number((await g("lastb -w 2>/dev/null | grep -c ' pts/' || true")).trim());
  const btmp = await g('lastb -w 2>/dev/null | head -2 || true');
  // A session whose input ends at the next prompt is one failure more: login counts what it saw.
  check(btmpAfter - btmpBefore >= 2, `btmp holds both failures: ${btmpBefore} -> ${btmpAfter} (lastb: ${JSON.stringify(btmp.trim().split('\n'))})`);

  const t = performance.now();
  let after = before;
  while (performance.now() - t < 120_000) {
    after = await metric();
    if ((after.failures ?? 0) >= (before.failures ?? 0) + (btmpAfter - btmpBefore)) break;
    await board.sleep(1000);
  }
  check(
    (after.failures ?? 0) - (before.failures ?? 0) === btmpAfter - btmpBefore,
    `pickup_station_console_login_failures_total ${before.failures} -> ${after.failures}: each btmp record counted once`,
  );
  const seen = (await status()).consoleLogins;
  check(seen !== null && seen.failed >= 2 && seen.last !== null && seen.last.line.startsWith('pts/'), `technician status: ${JSON.stringify(seen)}`);
  const disk = await g(`grep -rl --binary-files=text -F '${WRONG}' /var/log /var/lib/pickup-station /run/pickup-station 2>/dev/null | head -3; true`);
  check(disk.trim() === '', `the typed password is in no log or state file (${disk.trim() || 'none'})`);
  figure('failed console logins seen (btmp -> metric)', `${after.failures} (from ${before.failures})`);
}
