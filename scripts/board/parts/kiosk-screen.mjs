// The patron's screen is seen and heals (docs/decisions/0137, 0138), on the kiosk image: cage and
// Chromium under systemd as hardware/DISPLAYS.md sets them up, the screen read back with QMP's
// screendump, the station's own record at the reference server.
//
// 1. The page on the screen: the station says so (its heartbeat), /state UP with no error.
// 2. Chromium's renderer killed (SIGKILL): no page for pageTimeoutMs is the display's fault —
//    /state (UP: the virtual board's HID keypad takes PINs beside the screen), device_up 0 — the
//    station restarts the kiosk unit through polkit, the page is back on the screen (the same
//    picture as before) and the fault cleared. Then the same with the network service.
// 3. Chromium's binary made unstartable: the kiosk unit's own restarts end in its start limit, the
//    station's after `restartLimit`; the fault stays, a PIN typed on the HID keypad is still served,
//    and the alert fires in a Prometheus rule test of the board's own samples (promtool, on the host).
// 4. The same board without its keypad (the kiosk the only way to enter a PIN): /state DOWN.
//
// A browser start under TCG takes 40-140 s before the page is drawn (scripts/board/README.md), so
// browser.startMs is 240 s here (a Pi: the default 120 s); before each kill the browser's last start
// is let grow startMs old, as a page that dies in the field does so long after its start.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
/** Needs the image with cage and Chromium (scripts/board/image.sh). */
export const image = 'kiosk';
export const ci =
  "needs the kiosk image, whose cold build (Chromium's few hundred packages under qemu-user) does not fit the CI budget; the page's heartbeat and the browser's restart run in CI against a real Chromium (test/e2e); --full and --parts";
export const title =
  "the patron's screen is seen and heals: the renderer and the network service killed, Chromium made unstartable, a kiosk without a keypad (screendump, /state, metrics, promtool)";

const KIOSK_DROPIN_DIR = '/etc/systemd/system/pickup-station-kiosk.service.d';
const KIOSK_PROFILE = '/etc/pickup-station/kiosk-screen-profile.json';
const CHROMIUM_BINARY = '/usr/lib/chromium/chromium';
const PAGE_TIMEOUT_MS = 20_000;
const START_MS = 240_000;
const PIN = '246813';
const BOX = 1;

export function serverData(station, boxId) {
  return { deposits: [], pickups: [{ pin: PIN, stationId: station.id, boxIds: [boxId(BOX)] }] };
}

async function screen(board) {
  const { g, qmp, check, say, sleep, writeGuest, putConfig, restartStation, figure, requests, lastSeq, until, metrics, status, pickup, RUN, PROFILE } = board;
  const T = () => performance.now();
  const secs = (ms) => (ms / 1000).toFixed(1);
  const shot = async (name) => {
    const file = join(RUN, `kiosk-screen-${name}.ppm`);
    await qmp('screendump', { filename: file });
    return readFileSync(file);
  };
  // Something drawn: more than one colour across the screen (cage's background alone is one).
  const drawn = (ppm) => {
    const seen = new Set();
    for (let i = ppm.length - 1; i > 64 && seen.size < 2; i -= 997) seen.add(ppm[i]);
    return seen.size > 1;
  };
  const cagePid = async () => (await g('systemctl show -p MainPID --value pickup-station-kiosk')).trim();
  /** The kiosk user's Chromium processes: pid and type (renderer, the network service, ...). */
  const chromium = async () =>
    (await g('ps -u pickup-kiosk -o pid=,args= 2>/dev/null || true'))
      .split('\n')
      .map((l) => /^\s*(\d+)\s+(.*)$/.exec(l))
      .filter((m) => m !== null && m[2].includes('chromium'))
      .map((m) => ({
        pid: m[1],
        type: /--utility-sub-type=(\S+)/.exec(m[2])?.[1] ?? /--type=(\S+)/.exec(m[2])?.[1] ?? 'browser',
      }));
  /** The station's log lines (its own journal namespace) since `epoch`, parsed. */
  const stationSaid = async (epoch) =>
    (await g(`journalctl --namespace=pickup-station -u pickup-station --no-pager -o cat --since @${epoch} || true`, { ok: true })).split('\n').flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
  const said = async (epoch, msg) => (await stationSaid(epoch)).filter((l) => l.msg === msg);
  const displayUp = async () => {
    const m = /^pickup_station_device_up\{[^}]*role="display"[^}]*\} (\S+)$/m.exec(await metrics());
    return m === null ? null : Number(m[1]);
  };
  const displayDetail = async () => (await status()).devices.find((d) => d.name.startsWith('display (kiosk page'))?.detail ?? null;
  const lastState = async (after) => (await requests(after)).filter((r) => r.endpoint === 'state').at(-1) ?? null;
  const stateWith = (what, after, pred, limitMs) =>
    until(what, async () => (await requests(after)).find((r) => r.endpoint === 'state' && pred(r.body)), { limitMs, everyMs: 1000 });
  /** The page on the screen: the station hears its heartbeat, and two screenshots 4 s apart are equal and drawn. */
  const pageOnScreen = (what, limitMs) =>
    until(
      what,
      async () => {
        if ((await displayDetail()) !== null) return null;
        const a = await shot('settle-a');
        await sleep(4000);
        const b = await shot('settle-b');
        return a.equals(b) && drawn(a) ? b : null;
      },
      { limitMs, everyMs: 3000 },
    );
  const guestNow = async () => Number((await g('date +%s')).trim());

  // --- a kiosk station, as hardware/DISPLAYS.md sets one up -------------------------------------
  await g('id pickup-kiosk >/dev/null 2>&1 || useradd --system --create-home --home-dir /var/lib/pickup-kiosk --shell /usr/sbin/nologin pickup-kiosk');
  const profile = JSON.parse(await g(`cat ${PROFILE}`));
  const kioskProfile = (browser, keypad = profile.keypad) =>
    writeGuest(KIOSK_PROFILE, JSON.stringify({ ...profile, keypad, display: { kind: 'kiosk', pageTimeoutMs: PAGE_TIMEOUT_MS, browser } }, null, 2));
  await kioskProfile({ startMs: START_MS });
  await putConfig({ hardware: { kind: 'board', profile: KIOSK_PROFILE } });
  await g('systemctl enable pickup-station-kiosk.socket');
  // The virtual board's virtio-gpu has no GLES: wlroots' pixman renderer (hardware/DISPLAYS.md).
  await g(`mkdir -p ${KIOSK_DROPIN_DIR}`);
  await writeGuest(`${KIOSK_DROPIN_DIR}/virtual-board.conf`, '[Service]\nEnvironment=WLR_RENDERER=pixman\n');
  await g('systemctl daemon-reload; systemctl disable --now getty@tty1 2>/dev/null; systemctl enable pickup-station-kiosk');
  const epoch0 = await guestNow();
  let seq = await lastSeq();
  // The station's restart starts the socket unit, and with it the kiosk unit (bound to it).
  const tStart = T();
  await restartStation('kiosk profile');
  await g('systemctl start --no-block pickup-station-kiosk');

  // --- 1. the page on the screen -------------------------------------------------------------------
  const before = await pageOnScreen('the kiosk page on the screen', 15 * 60_000);
  const tShown = T();
  writeFileSync(join(RUN, 'kiosk-screen-before.ppm'), before);
  const restartsAtStart = (await said(epoch0, 'kiosk page not on the screen: starting the kiosk browser again')).length;
  figure('kiosk screen: station restart -> the page on the screen (emulated), s', secs(T() - tStart));
  const shownLine = await said(epoch0, 'kiosk page on the screen');
  check(
    shownLine.length >= 1,
    `the station hears the page's heartbeat ("kiosk page on the screen"); the station's restarts of the browser at the start: ${restartsAtStart}`,
  );
  await stateWith('/state UP with no error', seq, (b) => b.st === 'UP' && b.errorMessage === null, 120_000);
  check((await displayUp()) === 1, 'pickup_station_device_up{role="display"} 1 while the page is on the screen');

  /**
   * Kill the processes `pick` chooses; then the fault, the station's restart, the page back.
   * Returns when the page was back (host time): the browser's last start was before it.
   */
  const killAndHeal = async (name, pick) => {
    const epoch = await guestNow();
    const cage0 = await cagePid();
    const victims = pick(await chromium());
    check(victims.length > 0, `${name}: Chromium's ${victims.map((v) => `${v.type} ${v.pid}`).join(', ')}`);
    seq = await lastSeq();
    const t0 = T();
    await g(`kill -9 ${victims.map((v) => v.pid).join(' ')}`);
    const fault = await stateWith(
      `${name}: the display fault in /state`,
      seq,
      (b) => (b.errorMessage ?? '').includes('no page on the screen'),
      10 * 60_000,
    ).catch(() => null);
    if (fault === null) {
      // The page came back by itself before pageTimeoutMs (Chromium's new network service; the page reconnects).
      const back = await pageOnScreen(`${name}: the page on the screen`, 5 * 60_000);
      check(back.equals(before), `${name}: no display fault — the page came back by itself within pageTimeoutMs, the same picture as before`);
      figure(`kiosk screen: ${name} -> page on the screen (no fault due), s`, secs(T() - t0));
      return T();
    }
    const tFault = T();
    const during = await shot(`${name.replace(/\W+/g, '-')}-during`);
    check(
      fault.body.st === 'UP' && /^display \(kiosk page 127\.0\.0\.1:8091\): no page on the screen for 20 s: /.test(fault.body.errorMessage),
      `${name}: /state ${fault.body.st} "${fault.body.errorMessage}" ${secs(tFault - t0)} s after the kill; the screen then ${during.equals(before) ? 'STILL THE PAGE' : 'not the page'}`,
    );
    check((await displayUp()) === 0, `${name}: pickup_station_device_up{role="display"} 0`);
    const back = await pageOnScreen(`${name}: the page back on the screen`, PAGE_TIMEOUT_MS + START_MS + 5 * 60_000);
    const tBack = T();
    writeFileSync(join(RUN, `kiosk-screen-${name.replace(/\W+/g, '-')}-back.ppm`), back);
    const cleared = await stateWith(`${name}: the fault cleared in /state`, fault.seq, (b) => b.errorMessage === null && b.st === 'UP', 120_000);
    const starts = await said(epoch, 'kiosk page not on the screen: starting the kiosk browser again');
    const startedAgain = await said(epoch, 'kiosk browser started again');
    const failed = await said(epoch, 'starting the kiosk browser again failed');
    const cage = await cagePid();
    check(
      back.equals(before) && cleared !== null && (await displayUp()) === 1,
      `${name}: the page back on the screen (the same picture as before) ${secs(tBack - t0)} s after the kill, the fault cleared in /state, device_up 1; ` +
        `the station started the browser ${starts.length} time(s) (systemctl through polkit: ${startedAgain.length} ok, ${failed.map((f) => f.error).join('; ') || 'none failed'}); cage ${cage0} -> ${cage}`,
    );
    figure(`kiosk screen: ${name} -> display fault in /state, s`, secs(tFault - t0));
    figure(`kiosk screen: ${name} -> page back on the screen (screendump), s`, secs(tBack - t0));
    return tBack;
  };

  const settle = async (since) => {
    const wait = START_MS - (T() - since);
    if (wait > 0) {
      say(`kiosk screen: waiting ${secs(wait)} s until the browser's start is startMs old`);
      await sleep(wait);
    }
  };

  // --- 2. the renderer, then the network service ---------------------------------------------------
  // The browser's last start grown startMs old first: the station's restart, or, when the station
  // started the browser again meanwhile, the moment the page came (its start was before that).
  await settle(restartsAtStart === 0 ? tStart : tShown);
  const tRenderer = await killAndHeal('renderer killed', (ps) => ps.filter((p) => p.type === 'renderer'));
  await settle(tRenderer);
  await killAndHeal('network service killed', (ps) => ps.filter((p) => p.type === 'network.mojom.NetworkService'));

  // --- 3. Chromium's binary made unstartable -------------------------------------------------------
  // startMs 60 s: nothing can start now, so nothing is killed by a restart; the station's three
  // restarts come sooner. The station restart starts the kiosk unit again with the new secret.
  const mode = (await g(`stat -c %a ${CHROMIUM_BINARY}`)).trim();
  await g(`chmod 000 ${CHROMIUM_BINARY}`);
  try {
    await kioskProfile({ startMs: 60_000 });
    const epoch = await guestNow();
    seq = await lastSeq();
    const t0 = T();
    await restartStation('kiosk with Chromium unstartable');
    const samples = [];
    const sample = async () => samples.push((await displayUp()) ?? 1);
    // Every 30 s, as a Prometheus scrape would, until the station has given up and 6 min have passed.
    let gaveUp = null;
    let servedPin = false;
    while (T() - t0 < 15 * 60_000) {
      await sample();
      gaveUp ??= (await requests(seq)).find((r) => r.endpoint === 'state' && (r.body.errorMessage ?? '').includes('no more restarts')) ?? null;
      if (gaveUp !== null && !servedPin) {
        // The station keeps serving the keypad beside the dark screen.
        await pickup(PIN, [BOX]);
        servedPin = true;
      }
      if (gaveUp !== null && samples.length >= 14) break;
      await sleep(30_000);
    }
    check(gaveUp !== null, `Chromium unstartable: the station gave up after its restarts: /state ${gaveUp?.body.st} "${gaveUp?.body.errorMessage}"`);
    check(gaveUp.body.st === 'UP' && servedPin, 'Chromium unstartable: /state UP, and a PIN typed on the HID keypad opened its box meanwhile');
    const starts = await said(epoch, 'kiosk page not on the screen: starting the kiosk browser again');
    const failed = await said(epoch, 'starting the kiosk browser again failed');
    const unit = (await g('systemctl show -p ActiveState,SubState,Result,NRestarts pickup-station-kiosk')).trim().replace(/\n/g, ' ');
    // No loop: a start period later, nothing more.
    await sleep(90_000);
    const startsLater = await said(epoch, 'kiosk page not on the screen: starting the kiosk browser again');
    const last = await lastState(seq);
    check(
      starts.length === 3 && startsLater.length === 3 && (last.body.errorMessage ?? '').includes('no more restarts'),
      `Chromium unstartable: 3 restarts by the station (failed: ${failed.map((f) => f.error).join('; ') || 'none'}), none more 90 s later, the fault stays; the kiosk unit ${unit}`,
    );
    figure('kiosk screen: Chromium unstartable -> the station gives up (emulated), s', secs(T() - t0));
    // The alert, from the board's own samples, in a Prometheus rule test.
    const series = `pickup_station_device_up{job="pickup-station", station="${board.STATION.id}", role="display", device="display (kiosk page 127.0.0.1:8091)"}`;
    const evalAt = `${(samples.length - 1) * 30}s`;
    const test = [
      'rule_files:',
      `  - ${join(HERE, '../../../ops/prometheus/rules/pickup-station.rules.yml')}`,
      'evaluation_interval: 30s',
      'tests:',
      '  - interval: 30s',
      '    input_series:',
      `      - series: '${series}'`,
      `        values: '${samples.join(' ')}'`,
      '    alert_rule_test:',
      `      - eval_time: ${evalAt}`,
      '        alertname: PickupStationDisplayDown',
      '        exp_alerts:',
      `          - exp_labels: { severity: page, job: pickup-station, station: '${board.STATION.id}', role: display, device: 'display (kiosk page 127.0.0.1:8091)' }`,
      '            exp_annotations:',
      "              summary: 'Station " + board.STATION.id + ": display (kiosk page 127.0.0.1:8091) is not working'",
      "              description: 'Patrons see no screen at this station (the technician status says why: a kiosk also says whether its browser was started again).'",
      '',
    ].join('\n');
    const file = join(RUN, 'kiosk-screen-alert.test.yml');
    writeFileSync(file, test);
    const promtool = spawnSync('promtool', ['test', 'rules', file], { encoding: 'utf8' });
    check(
      promtool.status === 0,
      `PickupStationDisplayDown fires on the board's samples (${samples.join(' ')}, every 30 s) at ${evalAt}: promtool ${(promtool.stdout + promtool.stderr).trim().split('\n').pop()}`,
    );

    // --- 4. the kiosk the only way to enter a PIN ----------------------------------------------------
    await kioskProfile({ startMs: 60_000 }, null);
    seq = await lastSeq();
    await restartStation('kiosk without a keypad');
    const down = await stateWith(
      '/state DOWN with the display fault',
      seq,
      (b) => b.st === 'DOWN' && (b.errorMessage ?? '').includes('no page on the screen'),
      300_000,
    );
    check(
      down.body.st === 'DOWN' && (await displayUp()) === 0,
      `a kiosk without a keypad beside it (the only way to enter a PIN): /state DOWN "${down.body.errorMessage}", device_up 0`,
    );
  } finally {
    await g(`chmod ${mode} ${CHROMIUM_BINARY}`, { ok: true });
  }
}

export default async function kioskScreen(board) {
  try {
    await screen(board);
  } finally {
    // The station as it was for the next parts, whatever failed: no kiosk.
    const { g, putConfig, restartStation } = board;
    await g(
      `systemctl disable --now pickup-station-kiosk; systemctl reset-failed pickup-station-kiosk; systemctl disable pickup-station-kiosk.socket; rm -rf ${KIOSK_DROPIN_DIR} ${KIOSK_PROFILE}; systemctl daemon-reload`,
      { ok: true, timeoutMs: 120_000 },
    );
    await putConfig();
    await restartStation('after the kiosk screen part');
  }
}
