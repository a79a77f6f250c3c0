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
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runTechnicianCli } from '../../src/cli/technician/commands.js';
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

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'creds-'));
  creds = join(dir, 'etc/pickup-station/credentials');
  metrics = join(dir, 'run/pickup-station-metrics');
  mkdirSync(creds, { recursive: true, mode: 0o700 });
  mkdirSync(metrics, { recursive: true });
  board = new CredentialBoard(join(dir, 'board-a'));
});
afterEach(async () => {
  await board.unplugTpm();
  rmSync(dir, { recursive: true, force: true });
});

function check(on: CredentialBoard = board): { status: number | null; stderr: string; metric: Record<string, number> } {
  const r = spawnSync('bash', [CHECK], { env: { ...on.env(), PICKUP_CREDENTIALS_DIR: creds, PICKUP_METRICS_DIR: metrics }, encoding: 'utf8', timeout: 60_000 });
  const metric: Record<string, number> = {};
  for (const m of readFileSync(join(metrics, 'pickup-station-credentials.prom'), 'utf8').matchAll(
    /^pickup_station_credential_undecryptable\{credential="([^"]+)"\} (\d)$/gm,
  ))
    metric[m[1]!] = Number(m[2]);
  return { status: r.status, stderr: r.stderr, metric };
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
      const ok = check();
      expect(ok.status, ok.stderr).toBe(0);
      expect(ok.metric).toEqual({ 'station-password': 0, 'technician-tokens': 0 });

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

    it('sealed to the host key alone: a copied file on another card does not decrypt; a damaged file, a plain-text copy, nothing: each named', () => {
      seal('host');
      expect(check().status).toBe(0);

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
