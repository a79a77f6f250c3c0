// No key of any keyboard turns the station off: what parts/power-keys.mjs (the base image, a text
// console on tty1 with no getty) and parts/power-keys-kiosk.mjs (cage and Chromium on tty1) both
// do, on the board's `board` object (scenario.mjs). Here, not in parts/: every file there is a part.
//
// The keyboards: QEMU's usb-kbd (0627:0001) on the xHCI, allowed by an administrator's USBGuard
// rule (as a keyboard that carries an allowed device's ids would be), its keys through QMP send-key;
// and, for the keys usb-kbd has not, board-io's "Virtual system keys" (a uhid device with a System
// Control collection: power, sleep, reboot), which the kernel makes a real input device and logind
// watches. Each key is judged on the guest: the same boot (boot id, uptime grown), QEMU still running
// (it runs with -no-reboot: a reboot or power-off ends it), the station's same MainPID, a /state
// after the key; and by the evidence that the key reached the one who would act on it (logind's
// "… key pressed" line, systemd's refusal of the masked ctrl-alt-del.target, the kernel's SysRq
// line with SysRq allowed for its log level only), without which a quiet station proves nothing.

/** The administrator's USBGuard line this test adds (and takes away again). */
const RULE_MARK = '# the power-keys test: a keyboard that carries the ids of an allowed device';
/**
 * After the evidence that a key arrived (or at once, for a key expected to reach no one), this long
 * for its effect to show: logind says "The system will power off now!" and systemd starts the
 * shutdown's units within a second of a key they act on; QEMU ends with the reboot itself.
 */
const SETTLE_MS = 10_000;
/** How long a key's evidence may take to reach the journal under TCG; a key only reported (one a keyboard may not send) is given less. */
const EVIDENCE_MS = 90_000;
const REPORTED_MS = 20_000;
/** The station's heartbeat while the keys are pressed (by a reload: the same process), so that each is followed by a /state within seconds. */
export const HEARTBEAT_MS = 5_000;

/** What no key may start: logind's and systemd's own words when they power off, reboot or suspend. */
const TURNED_OFF =
  /The system will (power off|reboot|suspend|hibernate)|Reached target .*(Reboot|Power-Off|Halt|Sleep|Suspend|Hibernat)|Entering sleep state|Ctrl-Alt-Del was pressed more than|reboot: Restarting|reboot: Power down|PM: suspend entry/;

export async function plugKeyboards(board, id) {
  const { g, qmp, until, check, io } = board;
  await g(`printf '%s\\n' '${RULE_MARK}' 'allow id 0627:0001' >> /etc/usbguard/pickup-station-local.conf; systemctl restart usbguard`);
  await qmp('device_add', { driver: 'usb-kbd', id, bus: 'xhci.0' });
  await io('syskeys plug');
  // logind opens each device it will act on and says so; the kernel, USBGuard and udev under TCG: seconds.
  const watching = await until(
    'logind watching the USB keyboard and the system keys',
    async () => {
      const j = await g('journalctl -b -u systemd-logind --no-pager -o cat | grep "Watching system buttons" || true');
      return /QEMU USB Keyboard/.test(j) && /Virtual system keys/.test(j) ? j : null;
    },
    { limitMs: 120_000, everyMs: 3000 },
  );
  check(true, `logind watches both keyboards: ${watching.trim().split('\n').slice(-2).join('; ')}`);
}

export async function unplugKeyboards(board, id) {
  const { g, qmp, io } = board;
  await qmp('device_del', { id }).catch(() => undefined);
  await io('syskeys unplug').catch(() => undefined);
  await g(`sed -i '/^${RULE_MARK}/,+1d' /etc/usbguard/pickup-station-local.conf; systemctl restart usbguard`, { ok: true });
}

/** What the installed station has: logind's handlers, systemd's Ctrl+Alt+Del, SysRq, as running now. */
export async function settingsInForce(board) {
  const { g, check } = board;
  const props = [
    'HandlePowerKey',
    'HandlePowerKeyLongPress',
    'HandleRebootKey',
    'HandleRebootKeyLongPress',
    'HandleSuspendKey',
    'HandleSuspendKeyLongPress',
    'HandleHibernateKey',
    'HandleHibernateKeyLongPress',
    'HandleLidSwitch',
  ];
  const logind = (
    await g(props.map((p) => `busctl get-property org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager ${p}`).join('; '))
  )
    .trim()
    .split('\n');
  check(
    logind.length === props.length && logind.every((l) => l === 's "ignore"'),
    `logind, running: ${props.map((p, i) => `${p} ${logind[i]?.replace(/^s /, '')}`).join(', ')}`,
  );
  const cad = (await g('systemctl show -p CtrlAltDelBurstAction --value; systemctl show -p LoadState --value ctrl-alt-del.target; cat /proc/sys/kernel/sysrq'))
    .trim()
    .split('\n');
  check(
    cad[0] === 'none' && cad[1] === 'masked' && cad[2] === '0',
    `systemd: CtrlAltDelBurstAction ${cad[0]}, ctrl-alt-del.target ${cad[1]}; kernel.sysrq ${cad[2]}`,
  );
}

/** The board as it stands: boot id, uptime, the station's main process, the last /state the server has. */
async function snapshot(board) {
  const { g, show, requests } = board;
  const [bootId, uptime] = (await g('cat /proc/sys/kernel/random/boot_id; cut -d" " -f1 /proc/uptime')).trim().split('\n');
  const states = (await requests(0)).filter((r) => r.endpoint === 'state');
  return { bootId, uptime: Number(uptime), pid: await show('MainPID'), stateSeq: states.at(-1)?.seq ?? 0, at: (await g('date +%s')).trim() };
}

/** The station's heartbeat set by a reload (the same process; a /state within seconds of each key), or put back. */
export async function heartbeat(board, fast) {
  const { g, putConfig, config, waitReq, lastSeq } = board;
  const timing = config().timing;
  await putConfig(fast ? { timing: { ...timing, heartbeatIntervalMs: HEARTBEAT_MS } } : undefined);
  const seq = await lastSeq();
  await g('systemctl reload pickup-station', { timeoutMs: 300_000 });
  await waitReq((r) => r.endpoint === 'state', '/state after the reload', seq, 300_000);
}

/**
 * Each key of `tries` pressed, then judged: its evidence awaited (`reached`, a journal pattern: the
 * line that shows the key got to the one who would act on it; `must`: without it the quiet proves
 * nothing; else only reported — a key a keyboard may not send, a chord cage keeps), SETTLE_MS more,
 * a /state after the key; then the same boot (boot id, uptime grown), QEMU alive, the same station
 * process, nothing of TURNED_OFF in the journal. `burst` asks that many evidence lines within that
 * many seconds of the guest's clock; `absent`, a pattern no line may match. `extra(before)` adds the
 * variant's checks (the kiosk's browser). Returns one row per key for the figures.
 */
export async function pressEach(board, tries, extra = async () => null) {
  const { g, check, sleep, alive, waitReq, say, until } = board;
  const rows = [];
  for (const { what, act, reached = null, must = false, burst = null, absent = null } of tries) {
    const before = await snapshot(board);
    const t = performance.now();
    const journal = async () => (await g(`journalctl -b --no-pager -o short-monotonic --since @${before.at} || true`, { timeoutMs: 120_000 })).split('\n');
    await act();
    let seen = [];
    if (reached !== null) {
      const want = burst?.count ?? 1;
      await until(`${what}: a line like ${reached}`, async () => (seen = (await journal()).filter((l) => reached.test(l))).length >= want || !alive(), {
        limitMs: must ? EVIDENCE_MS : REPORTED_MS,
        everyMs: 3000,
      }).catch(() => undefined);
    }
    await sleep(SETTLE_MS);
    check(alive(), `${what}: QEMU still running (a reboot or power-off ends it: -no-reboot)`);
    await waitReq((r) => r.endpoint === 'state' && r.seq > before.stateSeq, `a /state after ${what}`, before.stateSeq, 180_000);
    const after = await snapshot(board);
    const lines = await journal();
    if (reached !== null) seen = lines.filter((l) => reached.test(l));
    const off = lines.filter((l) => TURNED_OFF.test(l));
    const note = await extra(before);
    check(
      after.bootId === before.bootId && after.uptime > before.uptime && after.pid === before.pid && off.length === 0,
      `${what}: the same boot (uptime ${before.uptime.toFixed(0)} -> ${after.uptime.toFixed(0)} s), the same MainPID ${after.pid}, a /state since; nothing powering off, rebooting or suspending${off.length ? ` (${off.slice(0, 3).join(' | ')})` : ''}${note ? `; ${note}` : ''}`,
    );
    const last = seen.length ? `"${seen.at(-1).replace(/^\[\s*[\d.]+\]\s*/, '')}"` : 'nothing';
    if (must)
      check(
        seen.length > 0,
        `${what}: it reached the one who would act: ${seen.length ? `${last} (${seen.length} line(s))` : `no line like ${reached} (a quiet board would prove nothing)`}`,
      );
    else if (reached !== null)
      say(`${what}: ${seen.length ? `reached: ${last} (${seen.length} line(s))` : `reached no one who acts on it (no line like ${reached})`}`);
    if (burst !== null) {
      const at = seen.map((l) => Number(/^\[\s*([\d.]+)\]/.exec(l)?.[1]));
      const inWindow = at.some((a) => at.filter((b) => b >= a && b - a <= burst.seconds).length >= burst.count);
      check(
        inWindow,
        `${what}: ${burst.count} of them within ${burst.seconds} s on the guest's clock (at ${at.map((a) => (a - at[0]).toFixed(2)).join(', ')} s)`,
      );
    }
    if (absent !== null) {
      const bad = lines.filter((l) => absent.test(l));
      check(bad.length === 0, `${what}: no line like ${absent}${bad.length ? `: ${bad.slice(0, 2).join(' | ')}` : ''}`);
    }
    rows.push({ what, took: ((performance.now() - t) / 1000).toFixed(0), reached: seen.length });
  }
  return rows;
}

/**
 * The keys, as a person presses them (QMP send-key holds a chord 100 ms) or a keyboard's system keys
 * send them. `kiosk`: cage holds tty1's keyboard (K_OFF), so the kernel passes Ctrl+Alt+Del to no one;
 * on a text console it reaches systemd, which refuses the masked target.
 */
export function keyTries(board, { kiosk = false } = {}) {
  const { qmp, io, sleep, g } = board;
  const press = (...keys) => qmp('send-key', { keys: keys.map((k) => ({ type: 'qcode', data: k })) });
  // PID1's refusal of the masked target, one per Ctrl+Alt+Del it got.
  const cadRefused = /ctrl-alt-del\.target.*masked|masked.*ctrl-alt-del\.target/i;
  return [
    { what: 'Ctrl+Alt+Del', act: () => press('ctrl', 'alt', 'delete'), reached: cadRefused, must: !kiosk },
    {
      what: 'Ctrl+Alt+Del eight times within two seconds (more than 7 in 2 s: the burst)',
      act: async () => {
        for (let i = 0; i < 8; i++) {
          await press('ctrl', 'alt', 'delete');
          await sleep(120);
        }
      },
      reached: cadRefused,
      must: !kiosk,
      burst: kiosk ? null : { count: 8, seconds: 2 },
    },
    { what: "the power key (usb-kbd's Keyboard Power usage)", act: () => press('power'), reached: /Power key pressed/ },
    { what: "the sleep key (usb-kbd's)", act: () => press('sleep'), reached: /Suspend key pressed/ },
    { what: 'the power key (system keys)', act: () => io('syskey power'), reached: /Power key pressed short/, must: true },
    // With the long press `ignore` too, logind has no long press to tell: a held key is "pressed short" at once.
    { what: 'the power key held 6 s (system keys)', act: () => io('syskey power 6000'), reached: /Power key pressed (short|long)/, must: true },
    { what: 'the sleep key (system keys)', act: () => io('syskey sleep'), reached: /Suspend key pressed short/, must: true },
    { what: 'the reboot key (system keys)', act: () => io('syskey restart'), reached: /Reboot key pressed short/, must: true },
    {
      what: 'the reboot key held 6 s (system keys; by default logind powers off)',
      act: () => io('syskey restart 6000'),
      reached: /Reboot key pressed (short|long)/,
      must: true,
    },
    {
      what: 'Alt+SysRq+B with SysRq allowed for its log level only (the control: the chord reaches the kernel)',
      act: async () => {
        await g('sysctl -q kernel.sysrq=2');
        await press('alt', 'sysrq', 'b');
        await sleep(5000);
        await g('sysctl -q kernel.sysrq=0');
      },
      reached: /sysrq: This sysrq operation is disabled/,
      must: true,
    },
    { what: 'Alt+SysRq+B (kernel.sysrq 0, as installed)', act: () => press('alt', 'sysrq', 'b'), absent: /sysrq/i },
  ];
}
