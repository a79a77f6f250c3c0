// The board's TPM in dictionary-attack lockout (what enough power cuts do to a TPM that counts them
// as failed tries): the credential check says so rather than "commission again", the metric file
// and `stationctl status` say so, every lock stays OFF, and the station is started again by itself
// on a transient timer until the TPM takes its keys again — then it runs without anyone touching it.
// The lockout is made at once with failed authorisations of an NV index of the TPM's own; the
// retry interval is shortened by a drop-in (as an operator would set it) so the part takes minutes.
export const ci =
  "32 wrong authorisations, a station start refused and the retry timer's next start (156 s alone on 2026-11-28): more than the CI budget leaves the board; --full and --parts";
export const title = 'the TPM in dictionary-attack lockout: said as such, locks OFF, the station back by itself once the TPM recovers';

const TCTI = 'device:/dev/tpmrm0';
const NV = '0x1500016';
const RETRY_S = 30;
const DROPIN = '/etc/systemd/system/pickup-station.service.d/tpm-retry.conf';
const JOURNAL = 'journalctl --namespace=+pickup-station -u pickup-station --no-pager -o cat';

export default async function tpmLockout(board) {
  const { g, check, figure, say, show, events, firstState, lastSeq, guestNow, Fail, TOKEN } = board;
  const t0 = performance.now();
  if ((await g('test -c /dev/tpmrm0 && echo tpm || echo none')).trim() !== 'tpm')
    throw new Fail('the board has no TPM (/dev/tpmrm0): run it on a board booted with swtpm');

  await g(
    `mkdir -p ${DROPIN.replace(/\/[^/]+$/, '')} && printf '[Service]\\nEnvironment=PICKUP_TPM_LOCKOUT_RETRY_SEC=${RETRY_S}\\n' > ${DROPIN} && systemctl daemon-reload`,
  );
  try {
    // Lock the TPM out: wrong authorisations until it answers TPM_RC_LOCKOUT (0x921).
    await g(`tpm2_nvdefine -T ${TCTI} ${NV} -C o -s 8 -a 'authread|authwrite' -p right >/dev/null 2>&1 || true`);
    let tries = 0;
    for (; tries < 64; tries++) {
      const said = await g(`tpm2_nvread -T ${TCTI} ${NV} -C ${NV} -P wrong 2>&1 || true`);
      if (/0x0*921/.test(said)) break;
    }
    const counters = (await g(`tpm2_getcap -T ${TCTI} properties-variable | grep -E 'inLockout|LOCKOUT_COUNTER|MAX_AUTH_FAIL' | tr -s ' \\n' ' '`)).trim();
    check(/inLockout: 1/.test(counters), `the TPM locked out after ${tries} wrong authorisations (${counters})`);

    const epoch = await guestNow();
    const eventsBefore = (await events()).length;
    await g('systemctl restart pickup-station', { timeoutMs: 300_000 });
    const said = await board.until(
      'the credential check naming the lockout',
      async () => {
        const lines = await g(`${JOURNAL} --since @${epoch} | grep 'pickup-station credentials' || true`);
        return /dictionary-attack lockout/.test(lines) ? lines : null;
      },
      { limitMs: 300_000, everyMs: 2000 },
    );
    check(!/commission the station again/.test(said), `lockout: the journal says so, and not "commission again": ${said.split('\n')[0].slice(0, 220)}`);
    check((await show('ActiveState')) !== 'active', `lockout: the station does not run (${await show('ActiveState')}/${await show('SubState')})`);
    const prom = await g('cat /run/pickup-station-metrics/pickup-station-credentials.prom');
    check(/^pickup_station_credentials_tpm_lockout 1$/m.test(prom), 'lockout: pickup_station_credentials_tpm_lockout 1 in the metric file');
    const status = await g(`STATIONCTL_TOKEN='${TOKEN}' stationctl status 2>&1; true`);
    check(
      /dictionary-attack lockout/.test(status) && /nothing to commission/.test(status),
      `lockout: stationctl status says so: ${status.trim().slice(0, 200)}`,
    );
    const timer = await g('systemctl show -p LoadState -p ActiveState pickup-station-credentials-retry.timer | tr "\\n" " "');
    check(
      /LoadState=loaded/.test(timer) && /ActiveState=active/.test(timer),
      `lockout: a start is scheduled (pickup-station-credentials-retry.timer: ${timer.trim()})`,
    );

    // Still locked out when the timer fires: the start is skipped again and the next one scheduled.
    const tr = performance.now();
    await board.until(
      `the retry ${RETRY_S} s later, skipped again and the next one scheduled`,
      async () => Number((await g(`${JOURNAL} --since @${epoch} | grep -c 'is started again in ${RETRY_S} s' || true`)).trim()) >= 2,
      { limitMs: (RETRY_S + 240) * 1000, everyMs: 3000 },
    );
    figure('TPM lockout: one retry round (skipped start -> next one scheduled), s', ((performance.now() - tr) / 1000).toFixed(1));

    // The TPM recovers (here cleared, as a technician may with its empty lockout authorisation);
    // nothing else is done: the scheduled start brings the station back.
    const seq = await lastSeq();
    await g(`tpm2_dictionarylockout -T ${TCTI} --clear-lockout`);
    const tc = performance.now();
    const first = await firstState(seq, 'after the TPM recovered, started by the retry timer');
    figure('TPM lockout: TPM recovered -> first /state by itself, s', ((performance.now() - tc) / 1000).toFixed(1));
    check((await show('ActiveState')) === 'active', `lockout over: the station runs again by itself (first /state ${first.body.st})`);
    const after = await g('cat /run/pickup-station-metrics/pickup-station-credentials.prom');
    check(/^pickup_station_credentials_tpm_lockout 0$/m.test(after), 'lockout over: the metric says 0');
    const on = (await events()).slice(eventsBefore).filter((l) => / lock \d+ on/.test(l));
    check(on.length === 0, `no lock energized from the lockout to the station's return (${on.length} "lock on" in the board's record)`);
    say(`the credential check's lines: ${said.split('\n').length}`);
  } finally {
    await g(
      `rm -f ${DROPIN}; systemctl daemon-reload; systemctl stop pickup-station-credentials-retry.timer 2>/dev/null; tpm2_dictionarylockout -T ${TCTI} --clear-lockout >/dev/null 2>&1; tpm2_nvundefine -T ${TCTI} ${NV} -C o >/dev/null 2>&1; true`,
    );
  }
  figure('part tpm-lockout, s', ((performance.now() - t0) / 1000).toFixed(0));
}
