/**
 * The station's credentials sealed to a board (systemd/credentials-check.sh, the unit's
 * ExecCondition=): the real systemd-creds, a software TPM (swtpm) and each board's own host key, in a
 * private mount namespace (test/support/credential-board.ts; this machine's /var/lib/systemd and
 * /etc are never touched). Sealed to the TPM and the host key, the check passes and the files hold
 * no byte of the password; then the TPM vanishes, another TPM is plugged, the card goes to another
 * board (another host key), a file is damaged, a plain-text copy or nothing is there: each time
 * the check exits 1 (systemd skips the start without a restart; ExecStopPost still drives every lock
 * OFF), names the credential and the reason, never the secret, and the metric says 1.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTechnicianCli } from '../../src/cli/technician/commands.js';
import { describeSeal, readCredentialsCheck } from '../../src/service/credentials-check.js';
import { CAN_SEAL, CredentialBoard } from '../support/credential-board.js';
import { requireTool } from '../support/tools.js';

const REPO = join(import.meta.dirname, '../..');
const CHECK = join(REPO, 'systemd/credentials-check.sh');
const PASSWORD = 'Zq7RkP2mWx9TnB4vLc8H';
const TOKENS = '[{"name":"alice","scope":"service","hash":"sha256:00"}]';

let dir = '';
let creds = '';
let metrics = '';
let board: CredentialBoard;
let tpmSysfs = '';

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'creds-'));
  creds = join(dir, 'etc/pickup-station/credentials');
  metrics = join(dir, 'run/pickup-station-metrics');
  tpmSysfs = join(dir, 'sys/class/tpm/tpm0');
  mkdirSync(creds, { recursive: true, mode: 0o700 });
  mkdirSync(metrics, { recursive: true });
  board = new CredentialBoard(join(dir, 'board-a'));
});
afterEach(async () => {
  await board.unplugTpm();
  rmSync(dir, { recursive: true, force: true });
});

function check(on: CredentialBoard = board): { status: number | null; stderr: string; metric: Record<string, number>; prom: string } {
  const r = spawnSync('bash', [CHECK], {
    env: { ...on.env(), PICKUP_CREDENTIALS_DIR: creds, PICKUP_METRICS_DIR: metrics, PICKUP_TPM_SYSFS: tpmSysfs },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const metric: Record<string, number> = {};
  const prom = readFileSync(join(metrics, 'pickup-station-credentials.prom'), 'utf8');
  for (const m of prom.matchAll(/^pickup_station_credential_undecryptable\{credential="([^"]+)"\} (\d)$/gm)) metric[m[1]!] = Number(m[2]);
  return { status: r.status, stderr: r.stderr, metric, prom };
}

/** The kernel's copy of a SHA-256 PCR (what /sys/class/tpm/tpm0/pcr-sha256/N shows). */
function pcr(index: number, hex: string): void {
  mkdirSync(join(tpmSysfs, 'pcr-sha256'), { recursive: true });
  writeFileSync(join(tpmSysfs, 'pcr-sha256', String(index)), `${hex.toUpperCase()}\n`);
}

/** The sealing series of the check's file: credential -> "key pcrs". */
function sealing(prom: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of prom.matchAll(/^pickup_station_credentials_sealed\{credential="([^"]+)",key="([^"]*)",pcrs="([^"]*)"\} 1$/gm)) out[m[1]!] = `${m[2]} ${m[3]}`;
  return out;
}

/** `stationctl status` with the station down (nothing listens on its socket), as a technician runs it. */
async function stationctlStatus(): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await runTechnicianCli(['status', '--socket', join(dir, 'run/pickup-station/technician.sock')], {
    stdout: { write: () => true },
    stderr: { write: (c: string) => (stderr += c) },
    env: { STATIONCTL_TOKEN: 'pst_x', PICKUP_METRICS_DIR: metrics },
  });
  return { code, stderr };
}

function seal(key: string): void {
  board.encrypt('station-password', PASSWORD, join(creds, 'station-password.cred'), key);
  board.encrypt('technician-tokens', TOKENS, join(creds, 'technician-tokens.cred'), key);
  for (const f of readdirSync(creds)) chmodSync(join(creds, f), 0o600);
}

describe.skipIf(!requireTool('systemd-creds, swtpm and unshare -m (root)', CAN_SEAL, 'systemd swtpm tpm2-tools util-linux'))(
  'credentials sealed to the board',
  { timeout: 120_000 },
  () => {
    it('sealed to the TPM and the host key: they decrypt here only; a vanished or another TPM stops the start, says why, never the secret', async () => {
      await board.plugTpm(join(dir, 'tpm-a'));
      seal('host+tpm2');
      for (const f of readdirSync(creds)) expect(readFileSync(join(creds, f)).toString('latin1'), f).not.toContain(PASSWORD);
      expect(board.decrypt('station-password', join(creds, 'station-password.cred'))).toBe(PASSWORD);
      pcr(7, '0'.repeat(64));
      const ok = check();
      expect(ok.status, ok.stderr).toBe(0);
      expect(ok.metric).toEqual({ 'station-password': 0, 'technician-tokens': 0 });
      // How they are sealed, from their headers: the TPM and the host key, the policy on PCR 7
      // (systemd-creds' choice, made explicit by install.sh) — which nothing measured into here.
      expect(sealing(ok.prom)).toEqual({ 'station-password': 'host+tpm2 7', 'technician-tokens': 'host+tpm2 7' });
      expect(ok.prom).toMatch(/^pickup_station_credentials_pcrs_measured\{credential="station-password",pcrs="7"\} 0$/m);
      expect(ok.stderr).not.toContain('host key alone');
      // What the technician status and `stationctl status` show of it (the daemon reads the same file).
      const seen = readCredentialsCheck(join(metrics, 'pickup-station-credentials.prom'));
      expect(seen?.sealed).toEqual([
        { credential: 'station-password', key: 'host+tpm2', pcrs: '7', pcrsMeasured: false },
        { credential: 'technician-tokens', key: 'host+tpm2', pcrs: '7', pcrsMeasured: false },
      ]);
      expect(describeSeal(seen!.sealed[0]!)).toBe(
        "sealed to this board's TPM and the host key on the card; its TPM policy binds PCR 7, which nothing measured into at this boot: that binding holds nothing",
      );
      // A board whose firmware measures its Secure Boot state into PCR 7.
      pcr(7, 'a1'.repeat(32));
      expect(check().prom).toMatch(/^pickup_station_credentials_pcrs_measured\{credential="station-password",pcrs="7"\} 1$/m);
      // The file is written as the owner of its folder (the station's user in the field), never as root.
      chmodSync(dir, 0o755);
      chownSync(metrics, 4242, 4242);
      expect(check().status).toBe(0);
      expect(statSync(join(metrics, 'pickup-station-credentials.prom'))).toMatchObject({ uid: 4242, gid: 4242 });
      expect(statSync(join(metrics, 'pickup-station-credentials.prom')).mode & 0o777).toBe(0o644);
      // A folder others may write: not written to, and said.
      chmodSync(metrics, 0o777);
      expect(check().stderr).toContain('may be written by others than its owner (mode 777): not writing the metrics file there');
      chmodSync(metrics, 0o755);
      chownSync(metrics, 0, 0);

      // The TPM vanishes (a HAT pulled, a dead TPM): the host key alone does not open them.
      await board.unplugTpm();
      const gone = check();
      expect(gone.status).toBe(1);
      expect(gone.metric).toEqual({ 'station-password': 1, 'technician-tokens': 1 });
      expect(gone.stderr).toMatch(/station-password cannot be decrypted on this board: .*(tpmrm0|TCTI)/);
      expect(gone.stderr).toContain('every lock stays OFF');
      expect(gone.stderr).not.toContain(PASSWORD);
      // The technician asking the stopped station is told why.
      const told = await stationctlStatus();
      expect(told.code).toBe(1);
      expect(told.stderr).toContain('the station does not start: its credentials station-password, technician-tokens cannot be decrypted on this board');
      expect(told.stderr).toContain('every lock is OFF');

      // Another TPM on the same card (the card in another board with a TPM, or the TPM replaced).
      await board.plugTpm(join(dir, 'tpm-b'));
      const other = check();
      expect(other.status).toBe(1);
      expect(other.stderr).toMatch(/station-password cannot be decrypted on this board: .*(integrity check failed|HMAC)/);
      expect(other.stderr).not.toContain(PASSWORD);

      // The TPM back: the station starts again, and a stopped station is no longer blamed on it.
      await board.unplugTpm();
      await board.plugTpm(join(dir, 'tpm-a'));
      expect(check().status).toBe(0);
      expect((await stationctlStatus()).stderr).toContain('is the service up?');
    });

    it('a TPM in dictionary-attack lockout: said as such (not "commission again"), its own metric, one start scheduled; cleared, the check passes', async () => {
      await board.plugTpm(join(dir, 'tpm-a'));
      seal('host+tpm2');
      const tpm = board.tpmDevice ?? '';
      // What power cuts do over time, at once: failed authorisations of a DA-protected NV index until
      // the TPM locks out (swtpm's default limit is 3 tries).
      const tool = (args: string[]): string => {
        const r = spawnSync(args[0]!, [...args.slice(1), '-T', tpm], { encoding: 'utf8' });
        return r.stdout + r.stderr;
      };
      tool(['tpm2_nvdefine', '0x1500016', '-C', 'o', '-s', '8', '-a', 'authread|authwrite', '-p', 'right']);
      let said = '';
      for (let i = 0; i < 8 && !/0x0*921/.test(said); i++) said = tool(['tpm2_nvread', '0x1500016', '-C', '0x1500016', '-P', 'wrong']);
      expect(said, 'the TPM locked out').toMatch(/0x0*921/);

      const later = join(dir, 'systemd-run');
      writeFileSync(later, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${join(dir, 'scheduled')}'\n`, { mode: 0o755 });
      const run = (retry: string): { status: number | null; stderr: string; prom: string } => {
        const r = spawnSync('bash', [CHECK], {
          env: { ...board.env(), PICKUP_CREDENTIALS_DIR: creds, PICKUP_METRICS_DIR: metrics, SYSTEMD_RUN: later, PICKUP_TPM_LOCKOUT_RETRY_SEC: retry },
          encoding: 'utf8',
          timeout: 60_000,
        });
        return { status: r.status, stderr: r.stderr, prom: readFileSync(join(metrics, 'pickup-station-credentials.prom'), 'utf8') };
      };
      const locked = run('42');
      expect(locked.status).toBe(1);
      expect(locked.stderr).toMatch(/station-password cannot be decrypted now: the TPM is in dictionary-attack lockout \(.*0x0*921/);
      expect(locked.stderr).toContain('the station is started again every 42 s until then. Nothing to commission');
      expect(locked.stderr).not.toContain('commission the station again');
      expect(locked.stderr).toContain('the station is started again in 42 s (pickup-station-credentials-retry.timer)');
      expect(locked.stderr).not.toContain(PASSWORD);
      expect(locked.prom).toMatch(/^pickup_station_credentials_tpm_lockout 1$/m);
      expect(locked.prom).toMatch(/^pickup_station_credential_undecryptable\{credential="station-password"\} 1$/m);
      // One transient timer that starts the station once, whatever the number of credentials refused.
      expect(readFileSync(join(dir, 'scheduled'), 'utf8')).toBe(
        '--no-block --quiet --collect --unit=pickup-station-credentials-retry --on-active=42 --timer-property=AccuracySec=1s systemctl start --no-block pickup-station.service\n',
      );
      const told = await stationctlStatus();
      expect(told.stderr).toContain('the TPM refuses its credentials station-password, technician-tokens for now (dictionary-attack lockout');
      expect(told.stderr).toContain('nothing to commission');

      // A retry interval that is not a number of seconds: the default, said.
      const bad = run('soon');
      expect(bad.stderr).toContain('PICKUP_TPM_LOCKOUT_RETRY_SEC="soon" is not a number of seconds (1 to 9999999): 600 used');
      expect(bad.stderr).toContain('started again in 600 s');

      // The TPM recovered (here: cleared with its empty lockout authorisation, as a technician may).
      expect(tool(['tpm2_dictionarylockout', '--clear-lockout'])).not.toMatch(/ERROR/);
      const ok = run('42');
      expect(ok.status, ok.stderr).toBe(0);
      expect(ok.prom).toMatch(/^pickup_station_credentials_tpm_lockout 0$/m);
      expect(readFileSync(join(dir, 'scheduled'), 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
    });

    it('sealed to the host key alone: said, and its own series; a copied file on another card does not decrypt; a damaged file, a plain-text copy, nothing: each named', () => {
      seal('host');
      const hostOnly = check();
      expect(hostOnly.status).toBe(0);
      expect(sealing(hostOnly.prom)).toEqual({ 'station-password': 'host ', 'technician-tokens': 'host ' });
      expect(hostOnly.prom).not.toContain('pickup_station_credentials_pcrs_measured{');
      expect(hostOnly.stderr).toContain('warning: station-password is sealed to the host key alone (no TPM when it was sealed): the key lies on the same card');
      const checkFile = join(metrics, 'pickup-station-credentials.prom');
      expect(describeSeal(readCredentialsCheck(checkFile)!.sealed[0]!)).toContain('a copy of the card decrypts it');
      // A link planted in the check's place (the folder is the station user's): not followed, by the daemon or a root stationctl.
      renameSync(checkFile, `${checkFile}.real`);
      symlinkSync(`${checkFile}.real`, checkFile);
      expect(readCredentialsCheck(checkFile)).toBeNull();
      rmSync(checkFile);

      const elsewhere = new CredentialBoard(join(dir, 'board-b'));
      const copied = check(elsewhere);
      expect(copied.status).toBe(1);
      expect(copied.stderr).toMatch(/station-password cannot be decrypted on this board/);
      expect(copied.metric['station-password']).toBe(1);

      const file = join(creds, 'station-password.cred');
      const bytes = readFileSync(file);
      const at = Math.floor(bytes.length / 2);
      bytes[at] = (bytes[at] ?? 0) ^ 0x55;
      writeFileSync(file, bytes);
      const damaged = check();
      expect(damaged.status).toBe(1);
      expect(damaged.stderr).toMatch(/station-password cannot be decrypted on this board: \S/);
      expect(damaged.metric).toEqual({ 'station-password': 1, 'technician-tokens': 0 });

      renameSync(file, join(dir, 'aside.cred'));
      writeFileSync(join(creds, 'station-password'), PASSWORD);
      const plain = check();
      expect(plain.status).toBe(1);
      expect(plain.stderr).toContain('station-password only a plain-text copy');
      expect(plain.stderr).not.toContain(PASSWORD);

      rmSync(join(creds, 'station-password'));
      const missing = check();
      expect(missing.status).toBe(1);
      expect(missing.stderr).toContain('station-password missing');
    });
  },
);
