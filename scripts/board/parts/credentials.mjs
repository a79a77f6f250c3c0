// The station's credentials sealed to the board's TPM (docs/operating.md, "Credentials sealed to the
// board"): commissioned by install.sh --password-file on a board with a TPM, the password's
// credential names the TPM in its header and the station runs; the disk holds the password nowhere
// (the host reads the guest's qcow2 overlay and the raw image under it); the same disk booted with
// another TPM (another swtpm state folder) does not start the station: the unit's credential check
// skips the start (no restart loop), says why in the journal, `stationctl status` and its metric
// file, and every lock stays OFF. Then the board's own TPM again, and the station runs.
import { Buffer } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export const ci =
  'two boots more than the compact run (224 s of the part alone on 2026-11-28): more than the CI budget leaves the board (docs/development.md#the-ci-budget); --full and --parts';
export const title = 'credentials sealed to the TPM: no password on the disk, another TPM does not start the station';

const CREDS = '/etc/pickup-station/credentials';
// systemd's credential header starts with the id of the key it was encrypted with (src/shared/creds-util.h).
const KEY_IDS = {
  '5a1c6a86df9d4096b1d5a65e0862f19a': 'host',
  '0c7cc07b117645919c4b0bea08bc20fe': 'tpm2',
  faf7eb9341e3412ca1a436f95a29362f: 'tpm2-with-public-key',
  '93a894094874449090caf2fc93cab553': 'host+tpm2',
  af4950a849134eb1a73846304ff30c05: 'host+tpm2-with-public-key',
  '058469daf6f54324800549da0f8ea2fb': 'null',
};

/** How often each needle occurs in FILE, read in chunks that overlap by the longest needle. */
function occurrences(file, needles) {
  const counts = needles.map(() => 0);
  const keep = Math.max(...needles.map((n) => n.length)) - 1;
  const buf = Buffer.alloc((16 << 20) + keep);
  const fd = openSync(file, 'r');
  try {
    let carried = 0;
    for (let pos = 0; ;) {
      const got = readSync(fd, buf, carried, buf.length - carried, pos);
      if (got === 0) break;
      pos += got;
      const view = buf.subarray(0, carried + got);
      needles.forEach((n, i) => {
        // A hit wholly inside the carried tail was counted in the chunk before.
        for (let at = view.indexOf(n); at >= 0; at = view.indexOf(n, at + 1)) if (at + n.length > carried) counts[i]++;
      });
      carried = Math.min(keep, view.length);
      view.copy(buf, 0, view.length - carried);
    }
  } finally {
    closeSync(fd);
  }
  return counts;
}

/** A credential file's bytes, its Base64 armour (systemd-creds's default output) taken off. */
async function credFile(g, name) {
  const file = Buffer.from((await g(`base64 -w0 ${CREDS}/${name}.cred`)).trim(), 'base64');
  const text = file.toString('latin1');
  return /^[A-Za-z0-9+/=\s]+$/.test(text) ? Buffer.from(text.replace(/\s+/g, ''), 'base64') : file;
}

export default async function credentials(board) {
  const { g, check, figure, say, sleep, show, events, waitEvent, firstState, lastSeq, powerCut, boot, Fail, STATION, TOKEN, TPM, RUN } = board;
  const t0 = performance.now();

  // (1) Commissioned with the TPM: the credential's header names a TPM2 key, the file does not hold
  // the password, and the station runs (its first /state came before this part).
  const cred = await credFile(g, 'station-password');
  const keyId = cred.subarray(0, 16).toString('hex');
  const key = KEY_IDS[keyId] ?? `unknown (${keyId})`;
  const pw = Buffer.from(STATION.password);
  check(key.includes('tpm2'), `station-password.cred sealed with systemd-creds key "${key}" (header id ${keyId}), ${cred.length} bytes`);
  check(!cred.includes(pw), 'station-password.cred does not contain the password');
  check(
    (await g(`test ! -e ${CREDS}/station-password && test ! -e /run/station-password && echo gone`)).trim() === 'gone',
    'no plain-text password file left (credentials folder, the tmpfs file install.sh read)',
  );
  const tokensKey = KEY_IDS[(await credFile(g, 'technician-tokens')).subarray(0, 16).toString('hex')];
  check(tokensKey?.includes('tpm2') === true, `technician-tokens.cred sealed with key "${tokensKey}"`);
  check((await show('ActiveState')) === 'active', `the station runs on its own TPM: ${await show('ActiveState')}/${await show('SubState')}`);

  // (2) The disk: what the guest wrote is on the host once synced (cache=writeback: every write the
  // guest sent is in the qcow2 file). Searched, on the host: the qcow2 overlay's file as it lies
  // (every cluster the guest wrote, blocks it freed since included), the whole disk as the guest
  // sees it (the overlay over the base, qemu-img convert to raw: no hit split by a cluster
  // boundary), and the raw base image. For: the password, the HTTP Basic credential a request
  // would carry (base64 of id:password), and the password in base64.
  await g('sync');
  const disk = join(RUN, 'disk.qcow2');
  const view = join(RUN, 'disk-view.raw');
  const info = JSON.parse(execFileSync('qemu-img', ['info', '-U', '--output=json', disk], { encoding: 'utf8' }));
  const backing = info['full-backing-filename'] ?? info['backing-filename'];
  const needles = {
    password: pw,
    'base64(id:password)': Buffer.from(Buffer.from(`${STATION.id}:${STATION.password}`).toString('base64')),
    'base64(password)': Buffer.from(pw.toString('base64').replace(/=+$/, '')),
  };
  const ts = performance.now();
  const found = [];
  try {
    execFileSync('qemu-img', ['convert', '-U', '-f', 'qcow2', '-O', 'raw', disk, view]);
    for (const file of [disk, view, backing]) {
      const c = occurrences(file, Object.values(needles));
      Object.keys(needles).forEach((what, i) => found.push(`${file.split('/').pop()}: ${what} ${c[i]}`));
      if (c.some((x) => x !== 0)) throw new Fail(`the disk holds the password: ${found.join(', ')}`);
    }
    const sizes = execFileSync('du', ['-h', disk, view, backing], { encoding: 'utf8' }).trim().replace(/\s+/g, ' ');
    figure(
      'disk search for the password on the host (qcow2 file, the converted whole disk, the raw base image), s',
      ((performance.now() - ts) / 1000).toFixed(1),
    );
    check(true, `a search of the disk finds no password: ${found.join(', ')} (allocated: ${sizes})`);
  } finally {
    rmSync(view, { force: true });
  }

  // (3) The same disk with another TPM: a board whose TPM was replaced, or the card in another board.
  const own = TPM.dir;
  const other = `${RUN}/tpm-other`;
  await powerCut();
  rmSync(other, { recursive: true, force: true });
  mkdirSync(other, { recursive: true });
  TPM.dir = other;
  try {
    const bootS = await boot();
    figure('boot with another TPM -> ssh, s', bootS.toFixed(1));
    const tb = performance.now();
    let line = '';
    for (;;) {
      line = await g(
        `journalctl --namespace=+pickup-station -u pickup-station -b --no-pager -o cat | grep 'pickup-station credentials: station-password' | head -n 1 || true`,
      );
      if (line.trim()) break;
      if (performance.now() - tb > 600_000) throw new Fail('another TPM: the credential check never said why (600 s)');
      await sleep(2_000);
    }
    figure("boot with another TPM: ssh -> the credential check's verdict, s", ((performance.now() - tb) / 1000).toFixed(1));
    check(/cannot be decrypted on this board/.test(line), `another TPM: the journal names the credential: ${line.trim().slice(0, 300)}`);
    // No restart loop: the condition skips the start, Restart= does not fire. Once the unit has
    // settled (ExecStopPost's safe-state runs after the skipped condition), watched for 60 s.
    for (const ts = performance.now(); (await show('ActiveState')) !== 'inactive';) {
      if (performance.now() - ts > 300_000) throw new Fail(`another TPM: the unit never settled (${await show('ActiveState')}/${await show('SubState')})`);
      await sleep(2_000);
    }
    const watch = [];
    for (let i = 0; i < 4; i++) {
      watch.push(`${await show('ActiveState')}/${await show('SubState')} NRestarts=${await show('NRestarts')}`);
      if (i < 3) await sleep(20_000);
    }
    check(
      watch.every((w) => /^inactive\/dead NRestarts=0$/.test(w)),
      `another TPM: the station not started and not restarted over 60 s (${watch.join(', ')})`,
    );
    const skipped = await g(
      `journalctl --namespace=+pickup-station -u pickup-station -b --no-pager -o cat | grep -iE 'skipped|condition|safe-state|lock' | tail -n 6 || true`,
    );
    say(`systemd on the unit: ${skipped.trim().replace(/\n/g, ' | ')}`);
    const status = await g(`STATIONCTL_TOKEN='${TOKEN}' stationctl status 2>&1; echo "exit $?"`);
    check(
      /station-password.*cannot be decrypted on this board/.test(status) && /exit [1-9]/.test(status),
      `another TPM: stationctl status says why: ${status.trim().replace(/\n/g, ' ').slice(0, 300)}`,
    );
    const prom = await g('cat /run/pickup-station-metrics/pickup-station-credentials.prom 2>&1 || true');
    check(
      /pickup_station_credential_undecryptable\{credential="station-password"\} 1/.test(prom),
      `another TPM: the metric file says 1 for station-password (${prom
        .split('\n')
        .filter((l) => l.startsWith('pickup_'))
        .join('; ')})`,
    );
    // Every lock OFF: the board's record of this boot shows no lock energized, and gpio-sim's lock lines are low.
    await waitEvent(/ ready$/, 'board-io ready (its record of this boot)');
    const on = (await events()).filter((l) => / lock \d+ on/.test(l));
    const profile = JSON.parse(readFileSync(new URL('../../../hardware/virt-board-12-boxes.json', import.meta.url), 'utf8'));
    const offsets = profile.boxes.map((b) => b.lock.offset);
    const values = (
      await g(
        `C=/sys/kernel/config/gpio-sim/virt-board; D=/sys/devices/platform/$(cat $C/dev_name)/$(cat $C/bank0/chip_name); for o in ${offsets.join(' ')}; do cat $D/sim_gpio$o/value; done`,
      )
    )
      .split('\n')
      .filter(Boolean);
    check(
      on.length === 0 && values.length === offsets.length && values.every((v) => v === '0'),
      `another TPM: every lock OFF (no "lock N on" in the board's record of this boot; gpio-sim lock lines ${values.join('')})`,
    );
  } finally {
    // The board's own TPM again, so that the parts after this one have a station.
    if (board.alive()) await powerCut();
    TPM.dir = own;
  }
  const seq = await lastSeq();
  const tr = performance.now();
  figure('boot with the own TPM again -> ssh, s', (await boot()).toFixed(1));
  const first = await firstState(seq, 'with the own TPM again');
  figure('boot with the own TPM again -> first /state, s', ((performance.now() - tr) / 1000).toFixed(1));
  check(
    first.stationId === STATION.id && (await show('NRestarts')) === '0',
    `own TPM again: the station runs (first /state ${first.body.st}, NRestarts ${await show('NRestarts')})`,
  );
  figure('part credentials, s', ((performance.now() - t0) / 1000).toFixed(0));
}
