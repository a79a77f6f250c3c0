/**
 * A board's credential keys without touching this machine's: its own host key
 * (/var/lib/systemd/credential.secret) and, optionally, its own TPM 2.0 (swtpm, reached through the
 * tss2 swtpm TCTI: SYSTEMD_TPM2_DEVICE=swtpm:...). `creds` is a wrapper that runs the real
 * systemd-creds in a private mount namespace where this board's key folder is bind-mounted over
 * /var/lib/systemd; the machine's own folder is never read or written.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { sleep } from './shared.js';
import { runs } from './tools.js';

/** systemd-creds, swtpm, tpm2-tools and a private mount namespace are all available (root on Linux). */
export const CAN_SEAL = process.getuid?.() === 0 && runs('systemd-creds', ['--version']) && runs('unshare', ['-m', 'true']) && runs('swtpm', ['--version']);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a !== null ? a.port : 0));
    });
  });
}

export class CredentialBoard {
  /** The wrapper to give as SYSTEMD_CREDS. */
  readonly creds: string;
  readonly keyDir: string;
  private tpm: ChildProcess | null = null;
  private tpmPort = 0;

  constructor(readonly dir: string) {
    this.keyDir = join(dir, 'var-lib-systemd');
    mkdirSync(this.keyDir, { recursive: true });
    this.creds = join(dir, 'systemd-creds');
    // swtpm has no resource manager (a board's kernel has one, /dev/tpmrm0): the sessions a call
    // leaves behind are flushed after it, as the kernel's would be.
    writeFileSync(
      this.creds,
      [
        '#!/bin/sh',
        `unshare -m sh -c 'mount --bind "$0" /var/lib/systemd && exec systemd-creds "$@"' '${this.keyDir}' "$@"`,
        'rc=$?',
        'if [ -n "${SYSTEMD_TPM2_DEVICE:-}" ]; then',
        '  tpm2_flushcontext -T "$SYSTEMD_TPM2_DEVICE" -s >/dev/null 2>&1',
        '  tpm2_flushcontext -T "$SYSTEMD_TPM2_DEVICE" -l >/dev/null 2>&1',
        '  tpm2_flushcontext -T "$SYSTEMD_TPM2_DEVICE" -t >/dev/null 2>&1',
        'fi',
        'exit $rc',
        '',
      ].join('\n'),
    );
    chmodSync(this.creds, 0o755);
  }

  /** The TCTI of this board's TPM (null: none plugged). */
  get tpmDevice(): string | null {
    return this.tpm === null ? null : `swtpm:host=127.0.0.1,port=${this.tpmPort}`;
  }

  /**
   * Plug in a TPM whose state lives in `stateDir` (a new folder: a new TPM). Waits until it listens:
   * a new state makes its seeds first, seconds on a loaded machine. A swtpm that ends first (its
   * port pair taken meanwhile: the control channel is the port after the free one) is started
   * again on other ports; what it said is in the error when it never listens.
   */
  async plugTpm(stateDir: string, limitMs = 60_000): Promise<void> {
    mkdirSync(stateDir, { recursive: true });
    const started = performance.now();
    let said = '';
    for (let attempt = 1; attempt <= 3; attempt++) {
      // The tss2 swtpm TCTI finds the control channel on the next port.
      this.tpmPort = await freePort();
      const ctrl = this.tpmPort + 1;
      const tpm = spawn(
        'swtpm',
        [
          'socket',
          '--tpm2',
          '--tpmstate',
          `dir=${stateDir}`,
          '--server',
          `type=tcp,port=${this.tpmPort}`,
          '--ctrl',
          `type=tcp,port=${ctrl}`,
          '--flags',
          'not-need-init,startup-clear',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      this.tpm = tpm;
      tpm.stderr?.setEncoding('utf8').on('data', (d: string) => (said += d));
      while (tpm.exitCode === null && tpm.signalCode === null) {
        if (this.tpmListening()) return;
        if (performance.now() - started > limitMs) throw new Error(`swtpm did not listen in ${limitMs} ms: ${said.trim() || 'it said nothing'}`);
        await sleep(100);
      }
    }
    this.tpm = null;
    throw new Error(`swtpm ended three times before it listened: ${said.trim() || 'it said nothing'}`);
  }

  private tpmListening(): boolean {
    return spawnSync('bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${this.tpmPort}`], { stdio: 'ignore' }).status === 0;
  }

  /** Pull the TPM out (the process ends; its state stays in its folder). */
  async unplugTpm(): Promise<void> {
    const t = this.tpm;
    this.tpm = null;
    if (t === null || t.exitCode !== null) return;
    const gone = new Promise((resolve) => t.once('exit', resolve));
    t.kill('SIGTERM');
    await gone;
  }

  /** The environment systemd-creds needs on this board. */
  env(): NodeJS.ProcessEnv {
    const tpm = this.tpmDevice;
    return { ...process.env, SYSTEMD_CREDS: this.creds, ...(tpm === null ? {} : { SYSTEMD_TPM2_DEVICE: tpm }) };
  }

  /** Encrypt `plain` as credential `name` into `file` with `key` (host, tpm2, host+tpm2, auto). */
  encrypt(name: string, plain: string, file: string, key: string): void {
    const r = spawnSync(this.creds, ['encrypt', `--name=${name}`, `--with-key=${key}`, '-', file], { input: plain, env: this.env(), encoding: 'utf8' });
    if (r.status !== 0 || !existsSync(file)) throw new Error(`encrypt ${name}: ${JSON.stringify(r.stderr)}`);
  }

  /** Decrypt a credential file here; null when it does not decrypt. */
  decrypt(name: string, file: string): string | null {
    const r = spawnSync(this.creds, ['decrypt', `--name=${name}`, file, '-'], { env: this.env(), encoding: 'utf8' });
    return r.status === 0 ? r.stdout : null;
  }
}
