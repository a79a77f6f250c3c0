/**
 * What the unit's credential check (systemd/credentials-check.sh, ExecCondition= before every start)
 * found, from the metrics file it leaves for node_exporter (`metrics.credentialsCheckFile`): how each
 * credential is sealed (the key from its file's header: the board's TPM and the host key, the TPM
 * alone, the host key alone, none; the PCRs its TPM policy binds and whether they hold a
 * measurement), which ones could not be decrypted, and whether the TPM was in lockout. The technician
 * status shows it; `stationctl status` reads it on the board when the station does not run.
 *
 * The file lies in a folder the station's user writes: it is opened without following a link (a
 * `stationctl` run as root must not be led to print lines of another file), read whole but bounded,
 * and only its known series are taken, each value checked.
 */
import { closeSync, constants, openSync, readSync } from 'node:fs';

/** How a credential file is sealed, as its header says. */
export type SealKey = 'host+tpm2' | 'tpm2' | 'host' | 'none' | 'unknown';

export interface CredentialSeal {
  readonly credential: string;
  readonly key: SealKey;
  /** The PCRs the TPM policy binds ("7", "7+11", "…+signed"); "" none. */
  readonly pcrs: string;
  /** Whether a bound PCR held a measurement at this boot; null: no PCRs, or the kernel does not show them. */
  readonly pcrsMeasured: boolean | null;
}

export interface CredentialsCheck {
  readonly sealed: readonly CredentialSeal[];
  /** Credentials that could not be decrypted at the last start. */
  readonly undecryptable: readonly string[];
  readonly tpmLockout: boolean;
}

/** The name of the file the check writes into its folder (PICKUP_METRICS_DIR), and its default place. */
export const CREDENTIALS_CHECK_NAME = 'pickup-station-credentials.prom';
export const DEFAULT_CREDENTIALS_CHECK_FILE = `/run/pickup-station-metrics/${CREDENTIALS_CHECK_NAME}`;
/** A larger file is not the check's. */
const MAX_BYTES = 16_384;

const KEYS: readonly SealKey[] = ['host+tpm2', 'tpm2', 'host', 'none', 'unknown'];
const NAME = /^[a-z][a-z0-9-]{0,63}$/;
const PCRS = /^(?:\d{1,2}(?:\+\d{1,2})*(?:\+signed)?|signed)?$/;

/** The file's text, not following a link; null when absent or unreadable. */
function readBounded(file: string): string | null {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(MAX_BYTES + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n > MAX_BYTES) return null;
    }
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The check's findings in `text` (the file's content). */
export function parseCredentialsCheck(text: string): CredentialsCheck {
  const measured = new Map<string, boolean>();
  for (const m of text.matchAll(/^pickup_station_credentials_pcrs_measured\{credential="([^"]*)",pcrs="([^"]*)"\} ([01])$/gm))
    if (NAME.test(m[1] ?? '')) measured.set(m[1] ?? '', m[3] === '1');
  const sealed: CredentialSeal[] = [];
  for (const m of text.matchAll(/^pickup_station_credentials_sealed\{credential="([^"]*)",key="([^"]*)",pcrs="([^"]*)"\} 1$/gm)) {
    const [, credential = '', key = '', pcrs = ''] = m;
    if (!NAME.test(credential) || !KEYS.includes(key as SealKey) || !PCRS.test(pcrs)) continue;
    sealed.push({ credential, key: key as SealKey, pcrs, pcrsMeasured: pcrs === '' ? null : (measured.get(credential) ?? null) });
  }
  const undecryptable = [...text.matchAll(/^pickup_station_credential_undecryptable\{credential="([^"]*)"\} 1$/gm)]
    .map((m) => m[1] ?? '')
    .filter((n) => NAME.test(n));
  return { sealed, undecryptable, tpmLockout: /^pickup_station_credentials_tpm_lockout 1$/m.test(text) };
}

/** What the check found before the last start; null when its file is absent (not checked: no such unit here). */
export function readCredentialsCheck(file: string): CredentialsCheck | null {
  const text = readBounded(file);
  return text === null ? null : parseCredentialsCheck(text);
}

/** How a credential is sealed, in a technician's words: what it protects against and what not. */
export function describeSeal(s: CredentialSeal): string {
  const pcrs =
    s.pcrs === ''
      ? ''
      : s.pcrsMeasured === false
        ? `; its TPM policy binds PCR ${s.pcrs}, which nothing measured into at this boot: that binding holds nothing`
        : `; its TPM policy binds PCR ${s.pcrs}`;
  switch (s.key) {
    case 'host+tpm2':
      return `sealed to this board's TPM and the host key on the card${pcrs}`;
    case 'tpm2':
      return `sealed to this board's TPM alone${pcrs}`;
    case 'host':
      return 'sealed to the host key alone, which lies on the same card: a copy of the card decrypts it (no TPM when it was sealed)';
    case 'none':
      return 'NOT sealed: anyone with the card reads it';
    case 'unknown':
      return 'sealed in a way this release does not know';
  }
}
